"""Generate ``docs/rules.md`` from the rule files: ``python -m inferboard.rules.docs [--check]``.

The document is derived data: a test fails when the committed file differs from this output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from inferboard.rules import conditions as c
from inferboard.rules.context import DERIVED
from inferboard.rules.engine import (BLOCKER_CAP, BLOCKER_GRADE_CAP, GRADES, PENALTY_CAP, SEVERITY_PENALTY,
                                     default_rules)
from inferboard.rules.loader import RuleSet
from inferboard.rules.probes import PROBES_FILE, load_probes
from inferboard.rules.schema import MESSAGE_FIELDS, SECTIONS, SEVERITY_SHARE

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "rules.md"

#: leaf -> (meaning, evidence when it holds, evidence when it fails)
LEAF_DOCS: dict[str, tuple[str, str, str]] = {
    "kind_count": ("The number of selected nodes is within `min`..`max`.",
                   "the selected nodes", "the selected nodes when there are too many; none when too few"),
    "param": ("At least one selected node passes every comparison in `test`.",
              "the nodes that pass", "every selected node"),
    "attached": ("EVERY selected node has a partner of kind `to` (matching `to_where`) in `direction` over "
                 "edges of `signal`, one edge away (`reach: direct`) or along a chain (`reach: path`).",
                 "the selected nodes (and the linking edges)", "the selected nodes without a partner"),
    "linked": ("At least ONE selected node has such a partner (same fields as `attached`).",
               "the linked nodes (and the linking edges)", "every selected node"),
    "path_through": ("Every request path from a `source` node to a `target` node passes through a node of a "
                     "`through` kind.", "the targets", "the targets reached around it, and the edges of one "
                     "such path per target"),
    "serving_regions": ("At least `min` regions hold a pool that can run replicas (`role: active` ignores "
                        "passive regions).", "those regions", "those regions, or the pools outside any region"),
    "artifacts_delivered": ("Every serving pool pulls artifacts from a model registry in its own region or one "
                            "that replicates to regions (with at most one serving region, a registry outside "
                            "any region also counts).", "the pools", "the pools without, and their artifact "
                            "edges"),
    "regions_allowed": ("Every region's location is in `requirements.allowed_regions` (true when none are "
                        "declared).", "the regions", "the regions outside"),
    "residency_respected": ("No traffic source reaches a region whose residency is neither the callers' "
                            "jurisdiction nor `none`.", "nothing", "the sources and regions, and the edges "
                            "entering those regions"),
    "requirement": ("One of the named requirements is declared; with `is`, the first declared one passes the "
                    "comparison.", "nothing", "nothing"),
    "latency_within_slo": ("Simulated p95 and p99 at `load` (peak or mean) are within the declared SLOs.",
                           "nothing", "the saturated nodes, or the node with the most queueing"),
    "headroom": ("Every node of `kind` is at most (100 - `min_pct`)% busy at peak.",
                 "the nodes checked", "the nodes over the limit"),
    "idle": ("At least one node of `kind` is below `max_utilisation` busy at `load` (with `skip_canary`, pools fed "
             "only through a canary port are left out: they are small on purpose).",
             "the idle nodes", "the nodes checked"),
    "within_budget": ("Simulated cost per 1k requests and per hour at `load` are within the declared budgets.",
                      "nothing", "the serving pools"),
    "survives_region_loss": ("What-if: at peak, with the region of largest serving capacity out "
                             "(`region_outage`), the rest serves at least `min_served_pct`% of the traffic at full quality "
                             "(what fallback pools answer is degraded and does not count) and no surviving pool is "
                             "busier than `max_survivor_utilisation`.",
                             "the region removed", "the region removed and the nodes saturated without it"),
    "fallback_carries": ("What-if: at `load`, with every GPU pool's replicas gone (`gpu_shortage` at 0 on `*`), "
                         "every fallback pool that takes traffic over is unsaturated and at most "
                         "`max_utilisation` busy.", "the fallback pools that took traffic",
                         "the fallback pools over the limit"),
    "survives_spot_reclaim": ("What-if: at peak, with all spot replicas reclaimed (`spot_reclaimed` on `*`), "
                              "the design serves at least `min_served_pct`% of the traffic.",
                              "the pools using spot", "the pools using spot and the nodes saturated"),
    "accuracy_under_drift": ("Timeline: over `hours` with the quality faults of `drift` (by default 30% of every "
                             "segment's requests moving away from the training data from 02:00; a scenario's `drift` "
                             "replaces it), the accuracy seen "
                             "on labels is below the declared target for at most `max_hours_below` hours.",
                             "the drift detectors", "the drift detectors (none: nothing watched)"),
    "drift_alert_heard": ("Timeline: under `drift`, every drift detector that fires reaches a person (its "
                          "alerts are wired to alerting).", "the detectors that fired",
                          "the detectors whose alert reached nobody"),
    "retrain_through_canary": ("Timeline: under `drift`, every retrained version serves a canary before it "
                               "takes all traffic.", "the retraining pipelines",
                               "the retraining pipelines that promoted at once"),
}


def _fields(model: type) -> str:
    out = []
    for name, info in model.model_fields.items():
        if name == "type":
            continue
        shown = info.alias or name
        default = "required" if info.is_required() else f"default `{info.get_default(call_default_factory=True)!r}`"
        out.append(f"`{shown}` ({default})")
    return ", ".join(out) if out else "none"


def _vocabulary() -> list[str]:
    lines = ["## Condition vocabulary", "",
             "A condition is a mapping with exactly one key: `all` (a list), `any` (a list), `not` (one "
             "condition) or a leaf name with its fields. Unknown keys, leaves, kinds, parameters, choices and "
             "requirement names are errors naming the file, the rule and the field.", "",
             "**Evidence.** Every condition yields a verdict plus two sets of evidence (node ids, edge ids, "
             "detail sentences): what makes it true and what makes it false. `not` swaps the two. `all` holds "
             "when every child holds (true-evidence: the union of its children's) and stops at the first child "
             "that fails (false-evidence: that child's). `any` evaluates every child; it holds when one does "
             "(true-evidence: the union of the holding children's; false-evidence: the union of all). A rule "
             "fires when `when` holds, and the finding names its true-evidence. `applies_when` only decides "
             "whether the rule's points count; it never adds evidence.", "",
             "**Selectors.** `kind` is one kind or a list; `where` tests the node's parameters, `region_where` "
             "the parameters of the region it sits in. A comparison is `{op: value}` with op one of "
             f"{', '.join('`' + op + '`' for op in c.OPS)}; a bare value means `eq`. A value may be a reference: "
             "`{requirement: name or [names], times: f}` takes the first declared requirement, `{param: name, "
             "times: f}` another parameter or derived attribute of the same node. Anything undeclared compares "
             "false.", "", "| Leaf | Holds when | Fields | Evidence if true | Evidence if false |",
             "|---|---|---|---|---|"]
    for name, (meaning, pos, neg) in LEAF_DOCS.items():
        kind = " *(behaviour)*" if name in c.BEHAVIOUR_LEAVES else ""
        lines.append(f"| `{name}`{kind} | {meaning} | {_fields(c.LEAVES[name])} | {pos} | {neg} |")
    lines += ["", "Behaviour leaves run the simulator (`inferboard.sim.steady.design_sim.evaluate`) at the declared "
              "`peak_rps` (or `mean_rps`), at most once per load and fault set in a check. A structural check "
              "(`behaviour=False`, `--no-behaviour`) never imports the simulator; a behaviour rule that cannot be "
              "answered is reported as skipped, with the reason, and its points do not count.", "",
              "### Derived attributes", "", "Usable in `where`, `test` and `{param: ...}` like parameters:", "",
              "| Name | Kinds | Meaning |", "|---|---|---|"]
    for name, (kinds, meaning, _) in DERIVED.items():
        lines.append(f"| `{name}` | {', '.join(kinds)} | {meaning} |")
    return lines


def _rule_section(rules: RuleSet, rule) -> list[str]:
    tag = " *(behaviour)*" if rule.behaviour else ""
    topics = "; ".join(rules.topics[t].title for t in rule.topics)
    implied = f" Capability, required when {rule.implied_by}." if rule.implied_by else (
        " Guard: counts only when it fires." if rule.guard else "")
    lines = [f"### {rule.id}: {rule.title}{tag}", "",
             f"**{rule.severity}**, {rule.points:g} points. Judges pools of role: {', '.join(rule.roles)}. "
             f"Topics: {topics}.{implied}", "",
             f"Message: `{rule.message}`", ""]
    for key, heading in SECTIONS.items():
        lines += [f"*{heading}.* " + " ".join(getattr(rule.explanation, key).split()), ""]
    logic = {}
    if rule.applies_when is not None:
        logic["applies_when"] = c.to_yaml_form(rule.applies_when)
    logic["when"] = c.to_yaml_form(rule.when)
    lines += ["```yaml", yaml.safe_dump(logic, sort_keys=False, default_flow_style=None, width=100).rstrip(),
              "```", ""]
    folder = rules.examples_dir(rule.id)
    if folder.is_dir():
        names = sorted(p.stem for p in folder.glob("*.json"))
        rel = folder.relative_to(rules.folder.parent) if rules.folder else folder
        lines += [f"Examples (`{rel.as_posix()}/`): {', '.join(names)}.", ""]
    return lines


def _scoring(rules: RuleSet) -> list[str]:
    grades = ", ".join(f"{letter} from {floor:g}" for floor, letter in GRADES)
    lines = ["## How a score is made", "",
             "**Points are earned, not kept by leaving things out.** Every rule is one of three sorts:", "",
             "- A *capability* rule (it has `implied_by`) applies because the requirements imply something the "
             "design must show: a latency SLO and a peak imply a design shown to meet the SLO at peak, an "
             "availability SLO above 99.5% implies surviving the loss of a region, a model that can drift "
             "implies drift detection, traffic to serve implies capacity that scales on a serving metric. "
             "When the design lacks the capability (nothing is drawn for it, or what is drawn does not do "
             "it), the rule fires and its points are lost: a missing piece is a finding, never an "
             "inapplicable rule. Behaviour rules of this sort fail outright when nothing serves the load, "
             "or when no traffic source is wired through to a serving pool; a cache, fallback, canary router, "
             "admission control or global load balancer counts only on the request path from a traffic "
             "source. Drawing a part without wiring it earns nothing.",
             "- A *quality* rule judges a component that is drawn (an autoscaler's metric, an alert's "
             "runbook, a canary's share); its `applies_when` requires that component, so it counts only when "
             "the component is there.",
             "- A *guard* is a blocker that is no capability (the model does not fit the GPU, MIG the GPU "
             "cannot provide, requests crossing a residency border, a forbidden region): it costs its points "
             "when it fires and counts for nothing when it does not. Not breaking the law earns no credit.", "",
             "A rule is applicable when its rubric is selected, its `applies_when` holds and, for behaviour "
             "rules, the simulator answered (a rule that could not be answered is listed as skipped, with the "
             "reason). A rubric scores the points of its applicable rules that did not fire over all its "
             "applicable points; every lost point is one finding, and the finding's message names the missing "
             "piece and what it costs in the design's own figures (the request rate, the SLO, the error "
             "budget). A rubric with nothing applicable is **not assessed**: it is shown as n/a and left out "
             "of the overall, never counted as 100%. The overall score is the weighted mean of the assessed "
             "rubrics' percentages (rubric weights below, overridable per scenario), less a severity penalty "
             "for each finding of a rubric that counts: "
             + ", ".join(f"{sev} {pen:g}" for sev, pen in SEVERITY_PENALTY.items() if pen) +
             f" points, at most {PENALTY_CAP:g} in all, so a serious flaw shows in the overall however many "
             "rubrics dilute it. A design with a "
             f"blocker finding (it cannot work as drawn) scores at most {BLOCKER_CAP:g}, well under a pass, "
             f"and gets at most the grade {BLOCKER_GRADE_CAP}. The overall never goes below 0; with nothing "
             "assessed it is 0. A blank design therefore scores 0: the requirements rubric finds no SLO, "
             f"budget or peak, and nothing else is assessed. Grades: {grades}, F below. `inferboard check` "
             "exits 1 when a blocker fires.", "",
             "**Size-aware severity.** A rule on a measured figure states `size_severity` thresholds on the "
             "ratio measured / target of its worst miss: up to `minor_up_to` the finding is minor, up to "
             "`major_up_to` major, beyond that the rule's own severity. A finding whose size lowers its "
             "severity costs that share of the rule's points (" + ", ".join(
                 f"{sev} {share:g}" for sev, share in SEVERITY_SHARE.items()) + " of a blocker's). LAT-001 "
             "reads every declared latency target (p50, p95 and p99 end to end, and the 95th percentile of "
             "time to first token on each LLM pool) at the declared peak, with 1.1 and 1.5 as thresholds: "
             "120.2 ms against 120 ms is a minor finding, a 2x miss a blocker.", "",
             "**One calculation everywhere.** The findings dock, `inferboard check`, `inferboard grade`, the "
             "practice result and the interviewer's live checklist all call the same check "
             "(`inferboard.practice.grading.score_design`, which calls `check_design`). In a practice "
             "scenario the scenario picks the rubrics and their weights, the *Requirements* rubric reads what "
             "the candidate declared, and every other rubric is judged against the scenario's real "
             "requirements, so a lax SLO typed by the candidate earns nothing. The practice overall adds one "
             "more line, the clarifying questions, with the scenario's `clarify_weight`.", "",
             "Capabilities the requirements imply (capability rules):", "",
             "| Rubric | Rule | Required when |", "|---|---|---|"]
    for rule in rules:
        if rule.implied_by:
            lines.append(f"| {rules.rubrics[rule.rubric].title} | {rule.id}: {rule.title} | {rule.implied_by} |")
    return lines + [""]


def _roles() -> list[str]:
    return ["## Pool roles", "",
            "Every serving pool (a kind with the catalog role `serving_pool`) gets one role, derived from the "
            "graph and the catalog's kind roles (`inferboard/rules/roles.py`):", "",
            "| Role | Which pools |", "|---|---|",
            "| `fallback` | kinds with the catalog role `fallback` (the fallback model) |",
            "| `canary` | pools that user traffic reaches only through the `canary` port of a kind with the "
            "catalog role `canary` (a canary router splitting traffic) |",
            "| `shadow` | the same, behind a canary router in shadow mode (mirrored traffic, answers discarded) |",
            "| `batch` | pools no user traffic reaches, fed from a kind with the catalog role `work_queue` |",
            "| `main` | every other pool, including a pool drawn but not wired: it is judged as the main pool it "
            "should be, so leaving it unwired earns nothing |", "",
            "Each rule states the roles it judges (`roles:` in its file, required). While a rule runs, pools of "
            "other roles are invisible to its selectors, so a one-replica 5% canary never draws \"no "
            "autoscaler\" or \"floor below 2\", which are expectations of the main pool. The canary, shadow "
            "and fallback pools have their own rules: a canary needs automatic rollback with error and latency "
            "thresholds and a bounded share (ROLL-002, ROLL-003), a fallback needs the capacity to take over "
            "what it exists for. A rule whose fault is real in any pool (a model that does not fit its GPU, "
            "requests crossing a residency border) lists every role.", ""]


def _probes(rules: RuleSet) -> list[str]:
    if rules.folder is None or not (rules.folder / PROBES_FILE).is_file():
        return []
    probes = load_probes(rules)
    lines = ["## Mistakes an interviewer probes", "",
             "Each mistake an experienced ML-serving interviewer probes, and the rules that catch it "
             f"(`rubrics/{PROBES_FILE}`):", "", "| Mistake | Rules |", "|---|---|"]
    lines += [f"| {p.mistake} | {', '.join(p.rules)} |" for p in probes.probes]
    if probes.not_covered:
        lines += ["", "Not covered by a rule yet:", "", *[f"- {text}" for text in probes.not_covered]]
    return lines + [""]


def render(rules: RuleSet | None = None) -> str:
    """docs/rules.md's text, generated from the rule files."""
    rules = rules or default_rules()
    lines = ["# Rules and rubrics", "",
             "<!-- Generated by `python -m inferboard.rules.docs` from rubrics/; do not edit by hand. -->", "",
             f"{len(rules)} rules in {len(rules.rubrics)} rubrics. Each rule is a YAML file "
             "`rubrics/<rubric>/<RULE-ID>.yaml` validated by `inferboard/rules/schema.py` (unknown fields are "
             "errors), with pass and fail example designs in `rubrics/<rubric>/examples/<RULE-ID>/` and the "
             "expected offending ids in `expected.yaml` beside them. `inferboard explain RULE-ID` shows the same "
             "explanation as the desktop app.", "", *_scoring(rules), *_roles(), *_probes(rules),
             "Message placeholders: " + "; ".join(f"`{{{k}}}` {v}" for k, v in MESSAGE_FIELDS.items()) + ".", "",
             "| Rubric | Prefix | Weight | Rules | Points |", "|---|---|---|---|---|"]
    for rubric in rules.rubrics.values():
        members = rules.of_rubric(rubric.id)
        lines.append(f"| {rubric.title} (`{rubric.id}`) | {rubric.prefix} | {rubric.weight:g} | {len(members)} | "
                     f"{sum(r.points for r in members):g} |")
    lines += ["", *_vocabulary(), "", "## Topics", ""]
    for topic in rules.topics.values():
        covered = [r.id for r in rules if topic.id in r.topics]
        lines.append(f"- `{topic.id}`: {topic.title} ({', '.join(covered) or 'no rule yet'})")
    for rubric in rules.rubrics.values():
        lines += ["", f"## {rubric.title}", "", " ".join(rubric.description.split()), ""]
        for rule in rules.of_rubric(rubric.id):
            lines += _rule_section(rules, rule)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write docs/rules.md, or with ``--check`` exit 1 when it is stale."""
    parser = argparse.ArgumentParser(description="Generate docs/rules.md from the rule files.")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale instead of writing it")
    parser.add_argument("--output", type=Path, default=DOC_PATH)
    args = parser.parse_args(argv)
    text = render()
    current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
    if args.check:
        if current != text:
            print(f"{args.output} is stale; run: python -m inferboard.rules.docs", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
