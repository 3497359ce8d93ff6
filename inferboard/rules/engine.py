"""Checking a design against the rules: findings, per-rubric scores and an overall grade.

Scoring (docs/rules.md, "How a score is made"): a rule is *applicable* when its rubric is selected,
its ``applies_when`` holds and (for behaviour rules) the simulator could answer it. Rules come in
two sorts. A *capability* rule applies because the requirements imply something the design must
show (a latency SLO, an availability target, a model that can drift, traffic to serve); when the
design lacks it, the rule fires and its points are lost. A *quality* rule judges a component that
is drawn and applies only when it is. So points are earned by showing what is needed, never by
leaving things out. A *guard* (a blocker that is no capability: a model that does not fit, data
crossing a residency border) only costs points when it fires. A rubric scores the points of its applicable rules that did not fire over all
its applicable points; every lost point is one finding. A rubric with nothing applicable is *not
assessed* and left out of the overall, which is the weighted mean of the assessed rubrics' percentages
less a penalty per major or minor finding, at most BLOCKER_CAP when a blocker fired (0 when none is
assessed); the grade follows from it, capped at D when a blocker fired.

``judged_requirements`` scores a design in a practice scenario: the *Requirements* rubric reads what
the design declares, every other rubric is judged against the scenario's real requirements. Every
surface that shows a score (findings dock, practice result, interviewer checklist, ``inferboard
check`` and ``inferboard grade``) goes through :func:`check_design` and :func:`overall_of`.
"""

from __future__ import annotations

import textwrap
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

from inferboard.errors import InferboardError
from inferboard.model import ops
from inferboard.model.requirements import Requirements
from inferboard.paths import data_dir
from inferboard.rules.behaviour import NotEvaluable
from inferboard.rules.context import DesignIndex
from inferboard.rules.leaves import evaluate
from inferboard.rules.loader import RuleSet, load_rules
from inferboard.rules.roles import POOL_ROLES
from inferboard.rules.schema import SECTIONS, SEVERITIES, Rule
from inferboard.store.design_files import design_to_bytes, parse_design

ALL_ROLES = frozenset(POOL_ROLES)
GRADES = ((90.0, "A"), (80.0, "B"), (70.0, "C"), (60.0, "D"))
#: A design with a blocker (it cannot work as drawn) gets at most this grade, whatever its score.
BLOCKER_GRADE_CAP = "D"
#: ...and at most this overall score, well under a pass.
BLOCKER_CAP = 50.0
#: Points taken off the overall for each finding of a severity, on top of what it costs its rubric, so
#: a serious flaw is visible in the overall however many rubrics dilute it.
SEVERITY_PENALTY = {"blocker": 0.0, "major": 4.0, "minor": 0.5, "advice": 0.0}
#: The most the severity penalties take off together: past a few serious flaws the rubric
#: percentages already show how far the design is from working.
PENALTY_CAP = 20.0


class UnknownRubric(InferboardError, ValueError):
    """A rubric name or weight names no rubric of the rule set."""


@dataclass(frozen=True)
class Finding:
    """One fired rule: what is wrong, where (node and edge ids) and what it costs."""

    rule_id: str
    rubric: str
    severity: str
    title: str
    message: str
    node_ids: tuple[str, ...]
    edge_ids: tuple[str, ...]
    points: float
    explanation: str = field(repr=False, default="")
    details: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The finding as plain data."""
        out = asdict(self)
        out["node_ids"], out["edge_ids"], out["details"] = list(self.node_ids), list(self.edge_ids), list(self.details)
        return out


@dataclass
class RubricScore:
    """One rubric's score: points earned of those applicable, its weight, and the points lost by rule."""

    rubric: str
    title: str
    earned: float
    applicable: float
    lost: list[tuple[str, float]] = field(default_factory=list)
    weight: float = 1.0

    @property
    def percent(self) -> float | None:
        """The score as a percentage, or None when no rule applied."""
        return None if self.applicable <= 0 else 100.0 * self.earned / self.applicable

    def to_dict(self) -> dict[str, Any]:
        """The score as plain data."""
        return {"rubric": self.rubric, "title": self.title, "earned": self.earned, "applicable": self.applicable,
                "percent": self.percent, "weight": self.weight, "lost": [list(x) for x in self.lost]}


@dataclass
class CheckReport:
    """A design checked: its findings, a score per rubric, the overall score and grade."""

    findings: list[Finding]
    scores: dict[str, RubricScore]
    overall: float
    grade: str
    #: Rules that could not be answered, with the reason (e.g. the simulator is missing).
    skipped: list[tuple[str, str]] = field(default_factory=list)
    behaviour: bool = True

    @property
    def blockers(self) -> list[Finding]:
        """The findings of blocker severity."""
        return [f for f in self.findings if f.severity == "blocker"]

    def fired(self) -> set[str]:
        """The ids of the rules that fired."""
        return {f.rule_id for f in self.findings}

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data (for ``--json``)."""
        return {"overall": round(self.overall, 2), "grade": self.grade, "behaviour": self.behaviour,
                "findings": [f.to_dict() for f in self.findings],
                "scores": {name: s.to_dict() for name, s in self.scores.items()},
                "skipped": [list(s) for s in self.skipped]}


@lru_cache(maxsize=1)
def default_rules() -> RuleSet:
    """The rubrics shipped with Inferboard (loaded once)."""
    return load_rules(data_dir("rubrics"))


def grade_of(overall: float, blocked: bool = False) -> str:
    """The letter for an overall score; ``blocked`` (a blocker fired) caps it at BLOCKER_GRADE_CAP."""
    letter = next((letter for floor, letter in GRADES if overall >= floor), "F")
    return max(letter, BLOCKER_GRADE_CAP) if blocked else letter


def _resolve_weights(rules: RuleSet, selected: list[str], weights: Mapping[str, float] | None) -> dict[str, float]:
    out = {name: rules.rubrics[name].weight for name in selected}
    for name, weight in (weights or {}).items():
        if name not in rules.rubrics:
            raise UnknownRubric(f"weights name unknown rubric '{name}'; known: {', '.join(rules.rubrics)}")
        if weight < 0:
            raise UnknownRubric(f"the weight of rubric '{name}' must not be negative")
        if name in out:
            out[name] = float(weight)
    return out


#: The rubric that reads the requirements the design itself declares, even in a scenario.
REQUIREMENTS_RUBRIC = "requirements"


def judged_copy(design, requirements: Requirements):
    """A copy of ``design`` (the original is untouched) holding ``requirements``."""
    copy = parse_design(design_to_bytes(design), "<judged>", design.catalog)
    copy.apply(ops.SetRequirements(requirements))
    return copy


def check_design(design, rules: RuleSet | None = None, rubrics: Sequence[str] | None = None,
                 weights: Mapping[str, float] | None = None, behaviour: bool = True,
                 judged_requirements: Requirements | None = None, drift: Sequence[str] = ()) -> CheckReport:
    """Run the rules of the selected rubrics (all by default) on ``design``.

    ``behaviour=False`` runs only structural rules and never imports the simulator; behaviour
    rules then count as not applicable. ``weights`` overrides rubric weights for the overall.
    ``judged_requirements`` (a scenario's real requirements) judges every rubric but the
    requirements rubric against them instead of against what the design declares. ``drift`` (quality
    faults in ``--fault`` form, a scenario's) replaces the drift rules' own drift.
    """
    rules = rules or default_rules()
    selected = list(rules.rubrics) if rubrics is None else list(dict.fromkeys(rubrics))
    for name in selected:
        if name not in rules.rubrics:
            raise UnknownRubric(f"unknown rubric '{name}'; known: {', '.join(rules.rubrics)}")
    weight_of = _resolve_weights(rules, selected, weights)
    own = DesignIndex(design)
    judged = own if judged_requirements is None else DesignIndex(judged_copy(design, judged_requirements))
    judged.drift = tuple(drift)
    findings: list[Finding] = []
    skipped: list[tuple[str, str]] = []
    scores = {name: RubricScore(name, rules.rubrics[name].title, 0.0, 0.0, [], weight_of[name]) for name in selected}
    chosen = set(selected)
    for rule in rules:
        if rule.rubric not in chosen or (rule.behaviour and not behaviour):
            continue
        try:
            finding = run_rule(rule, own if rule.rubric == REQUIREMENTS_RUBRIC else judged, rules)
        except RuleSkipped as skip:
            skipped.append((rule.id, str(skip)))
            continue
        if finding is None or (finding is True and rule.guard):
            continue
        score = scores[rule.rubric]
        score.applicable += rule.points
        if finding is not True:
            findings.append(finding)
            score.lost.append((rule.id, finding.points))
    for score in scores.values():
        score.earned = score.applicable - sum(points for _, points in score.lost)
    overall = overall_of(((s.percent, s.weight) for s in scores.values()),
                         [f.severity for f in findings if weight_of[f.rubric] > 0])
    order = {s: i for i, s in enumerate(SEVERITIES)}
    findings.sort(key=lambda f: (order[f.severity], f.rule_id))
    blocked = any(f.severity == "blocker" for f in findings)
    return CheckReport(findings, scores, overall, grade_of(overall, blocked), skipped, behaviour)


def overall_of(parts: Iterable[tuple[float | None, float]], severities: Iterable[str] = ()) -> float:
    """The overall score from (percent, weight) pairs and the severities of the findings: the weighted
    mean of the assessed rubrics (percent None means not assessed), less SEVERITY_PENALTY for each
    finding (PENALTY_CAP in all), at most BLOCKER_CAP when a blocker fired, never below 0. Nothing assessed scores 0."""
    total = weighted = 0.0
    for percent, weight in parts:
        if percent is None or weight <= 0:
            continue
        total += weight
        weighted += weight * percent
    if total == 0:
        return 0.0
    severities = list(severities)
    overall = weighted / total - min(PENALTY_CAP, sum(SEVERITY_PENALTY.get(s, 0.0) for s in severities))
    if "blocker" in severities:
        overall = min(overall, BLOCKER_CAP)
    return max(0.0, overall)


class RuleSkipped(Exception):
    """A rule that cannot be answered for this design (a behaviour leaf could not be evaluated)."""


def run_rule(rule: Rule, index: DesignIndex, rules: RuleSet | None = None) -> Finding | bool | None:
    """None: not applicable; True: applicable and passed; a Finding: fired. Raises RuleSkipped when a
    behaviour leaf cannot be answered."""
    index.scope = rule.scope
    try:
        if rule.applies_when is not None and not evaluate(rule.applies_when, index).holds:
            return None
        result = evaluate(rule.when, index)
    except NotEvaluable as error:
        raise RuleSkipped(str(error)) from None
    finally:
        index.scope = ALL_ROLES
    if not result.holds:
        return True
    nodes = index.sort_nodes(n for n in result.pos.nodes if n in index.nodes)
    edges = index.sort_edges(e for e in result.pos.edges if e in index.design.edges)
    message = rule.render_message(nodes, result.pos.details, index.requirements)
    severity, points = rule.finding_severity(result.pos.ratio)
    return Finding(rule.id, rule.rubric, severity, rule.title, message, nodes, edges, points,
                   explanation_text(rule, rules), tuple(result.pos.details))


# ----------------------------------------------------------------------------------- explanations
def _wrap(text: str, width: int = 88) -> str:
    paragraphs = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    return "\n\n".join(textwrap.fill(p, width) for p in paragraphs if p)


def explanation_text(rule: Rule, rules: RuleSet | None = None) -> str:
    """The rule's explanation: its own text, else one generated from its condition."""
    if rules is not None and rule.id in rules.explanations:
        return rules.explanations[rule.id]
    text = _render_explanation(rule, rules)
    if rules is not None:
        rules.explanations[rule.id] = text
    return text


def _render_explanation(rule: Rule, rules: RuleSet | None) -> str:
    rubric = rules.rubrics[rule.rubric].title if rules and rule.rubric in rules.rubrics else rule.rubric
    topics = ", ".join(rules.topics[t].title if rules and t in rules.topics else t for t in rule.topics)
    lines = [f"{rule.id}: {rule.title}",
             f"Rubric: {rubric} | Severity: {rule.severity} | Points: {rule.points:g}",
             f"Topics: {topics}"]
    for key, heading in SECTIONS.items():
        lines += ["", heading, _wrap(getattr(rule.explanation, key))]
    return "\n".join(lines) + "\n"


def explain_rule(rule_id: str, rules: RuleSet | None = None) -> str:
    """The explanation the GUI and ``inferboard explain`` show; raises UnknownRule."""
    rules = rules or default_rules()
    return explanation_text(rules.get(rule_id), rules)
