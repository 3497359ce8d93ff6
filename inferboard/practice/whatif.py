"""Follow-ups replayed against a design as what-if runs: the same design before and after the
follow-up's requirement changes and faults, read out by the simulator.

Both runs use the scenario's real requirements (the hidden facts), not what the candidate typed,
and the peak request rate (the mean when no peak is known). Fault targets are resolved against the
candidate's own node ids (see ``FollowUp`` for the selector syntax).

A follow-up aimed at something the design lacks does not pass for want of a target: a region
outage on a design without regions is re-targeted at everything that serves (it all runs in the
one place that goes down), a fault aimed at a region a design with regions does not have hits the
design's main region instead, and a fault on a missing component (a feature store, a pool) fails,
with a verdict naming what is missing. The figures are the steady-state simulator's
(``inferboard.sim.steady.design_sim.evaluate``), the same capacity model as everywhere else.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from inferboard.catalog.roles import kind_group
from inferboard.model.design import Design
from inferboard.model.requirements import Requirements
from inferboard.practice.scenario import FaultSpec, FollowUp, Scenario, parse_fault_spec
from inferboard.rules.engine import judged_copy
from inferboard.sim.explain.plain_words import fault_words

SERVING_KINDS = kind_group("serving_pool")
REPLICA_KINDS = kind_group("replica_pool")
FALLBACK_KINDS = kind_group("fallback")
#: A follow-up does not hold up when more than this share is answered by a fallback (degraded), or
#: when a pool runs busier than HOT_UTILISATION after it (one more loss and it queues).
DEGRADED_LIMIT, HOT_UTILISATION = 0.05, 0.9


@dataclass
class Readout:
    """What the simulator says about one design at one load."""

    rps: float
    p99_ms: float | None = None
    cost_per_hour: float | None = None
    shed_rate: float | None = None
    error_rate: float | None = None
    max_utilisation: float | None = None
    source: str = ""
    #: Requests that waited past a queue timeout (counted as lost).
    timeout_rate: float | None = None
    notes: list[str] = field(default_factory=list)
    #: Share of the offered requests answered by a fallback model: served, but degraded.
    fallback_rate: float | None = None

    @property
    def available(self) -> bool:
        """Whether the simulator could give figures for the design."""
        return self.source != "unavailable"

    @property
    def lost_rate(self) -> float:
        """The share of requests shed, failed or timed out."""
        return (self.shed_rate or 0.0) + (self.error_rate or 0.0) + (self.timeout_rate or 0.0)

    def to_dict(self) -> dict[str, Any]:
        """The readout as plain data."""
        return asdict(self)


@dataclass
class WhatIf:
    """A follow-up replayed on a design: its faults and requirement changes, the figures before and after, and whether
    the design held."""

    follow_up_id: str
    title: str
    prompt: str
    faults: list[str]
    requirement_changes: dict[str, Any]
    before: Readout
    after: Readout
    #: Fault targets that matched nothing in the design (the follow-up could not hit it).
    unmatched: list[str] = field(default_factory=list)
    verdict: str = ""
    #: What the design lacks for this follow-up, one sentence each (the follow-up fails).
    missing: list[str] = field(default_factory=list)
    #: How a fault was re-targeted at the component playing the missing one's role.
    retargeted: list[str] = field(default_factory=list)

    @property
    def held(self) -> bool:
        """True when the design absorbs the follow-up (nothing missing, little lost, SLO kept)."""
        return self.verdict.startswith(("Holds", "No measurable"))

    def changed(self) -> bool:
        """Whether the follow-up moved any headline figure."""
        a, b = self.before, self.after
        pairs = [(a.p99_ms, b.p99_ms), (a.cost_per_hour, b.cost_per_hour), (a.lost_rate, b.lost_rate),
                 (a.max_utilisation, b.max_utilisation), (a.rps, b.rps)]
        return any(x is not None and y is not None and not math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-9)
                   for x, y in pairs)

    def to_dict(self) -> dict[str, Any]:
        """The what-if as plain data, with whether it changed anything and held."""
        out = asdict(self)
        out["changed"] = self.changed()
        out["held"] = self.held
        return out


# ------------------------------------------------------------------------ targets
def _location(design: Design, node_id: str) -> str | None:
    node = design.nodes[node_id]
    if node.kind == "region":
        return node.params.get("location")
    if node.kind == "traffic_source":
        return node.params.get("origin")
    region = design.nodes.get(node.region) if node.region else None
    return region.params.get("location") if region is not None else None


def primary_location(design: Design) -> str | None:
    """The location holding the most serving replicas (ties: the first region drawn)."""
    totals: dict[str, int] = {}
    for node in design.nodes.values():
        if node.kind in SERVING_KINDS:
            where = _location(design, node.id)
            if where:
                totals[where] = totals.get(where, 0) + int(node.params.get("replicas", 0) or 0)
    return max(totals, key=lambda k: totals[k]) if totals else None


def resolve_targets(design: Design, spec: FaultSpec) -> list[str]:
    """Node ids a fault spec hits in ``design``: ``*``, one node id, or a selector's matches."""
    if not spec.is_selector:
        if spec.target == "*":
            return ["*"]
        return [spec.target] if spec.target in design.nodes else []
    wanted = dict(spec.selector)
    if wanted.get("location") == "primary":
        wanted["location"] = primary_location(design) or "<none>"
    out = []
    for node in design.nodes.values():
        ok = True
        for key, value in wanted.items():
            if key == "kind":
                ok = node.kind == value
            elif key == "location":
                ok = _location(design, node.id) == value
            else:
                ok = key in node.params and str(node.params[key]).lower() == value.lower()
            if not ok:
                break
        if ok:
            out.append(node.id)
    return out


#: Component kinds a follow-up may aim at, and the question their absence raises.
MISSING_ROLE = {
    "feature_service": "the design has no feature store to fail: where do features come from?",
    "gpu_pool": "the design has no GPU pool for this to hit: what serves the model?",
    "generation_pool": "the design has no LLM pool for this to hit: what generates the answers?",
    "cpu_pool": "the design has no CPU pool for this to hit: what serves the model?",
    "cache": "the design has no cache for this to hit: what absorbs repeated requests?",
    "canary_router": "the design has no canary for this to hit: how does a new version reach users?",
}


def _missing(design: Design, spec: FaultSpec) -> str | None:
    """Why an unmatched target is a hole in the design (None: the design is simply out of reach,
    e.g. a GPU shortage on a design that serves on CPUs)."""
    selector = dict(spec.selector)
    kind = selector.get("kind", "")
    if kind in REPLICA_KINDS and any(n.kind in REPLICA_KINDS for n in design.nodes.values()):
        return None
    if kind in MISSING_ROLE:
        return MISSING_ROLE[kind]
    if kind == "region" or "location" in selector:
        return None
    return f"the design has no {kind.replace('_', ' ') or 'component'} for this follow-up to hit"


def _whole_design_outage(design: Design, spec: FaultSpec) -> tuple[list[str], str] | None:
    """A region outage on a design drawn without regions hits everything that serves: it all runs
    in the one place that went down."""
    if spec.kind != "region_outage" or any(n.kind == "region" for n in design.nodes.values()):
        return None
    serving = [n.id for n in design.nodes.values() if n.kind in SERVING_KINDS]
    where = dict(spec.selector).get("location", spec.target)
    where = "its only location" if where in ("primary", "*", "") else where
    note = (f"the design has no regions, so everything runs in one place: losing {where} takes down "
            f"{', '.join(repr(s) for s in serving) or 'all of it'}, and no other region can take the traffic")
    return serving, note


def _regionless_retarget(design: Design, spec: FaultSpec) -> tuple[list[str], str] | None:
    """A fault aimed at one component in a named location ("a GPU pool in us-east") on a design
    drawn without regions: it hits the first such component, all of them being in that one place."""
    selector = dict(spec.selector)
    if "location" not in selector or any(n.kind == "region" for n in design.nodes.values()):
        return None
    wanted = {k: v for k, v in selector.items() if k != "location"}
    if not wanted:
        return None
    hits = resolve_targets(design, parse_fault_spec(f"{spec.kind}:" + ",".join(f"{k}={v}" for k, v in wanted.items())))
    if not hits:
        return None
    return hits[:1], (f"the design has no regions, so {hits[0]!r} stands for the one in "
                      f"{selector['location']}")


def _absent_location_retarget(design: Design, spec: FaultSpec) -> tuple[list[str], str] | None:
    """A fault aimed at a location a design drawn with regions does not serve from: the design's main
    location (the most serving replicas) takes it, as the place that would carry that region's users."""
    selector = dict(spec.selector)
    where = selector.get("location")
    if where in (None, "primary") or not any(n.kind == "region" for n in design.nodes.values()):
        return None
    main = primary_location(design)
    if main is None or main == where:
        return None
    moved = ",".join(f"{k}={main if k == 'location' else v}" for k, v in selector.items())
    hits = resolve_targets(design, parse_fault_spec(f"{spec.kind}:{moved}"))
    if not hits:
        return None
    hits = hits if spec.kind == "region_outage" else hits[:1]
    return hits, (f"the design has no {where} region, so its main region, {main}, takes the hit "
                  f"({', '.join(repr(h) for h in hits)})")


def faults_for(design: Design, follow_up: FollowUp) -> tuple[list, list[str], list[str]]:
    """The simulator Faults a follow-up amounts to on ``design``, their text, and unmatched targets."""
    faults, texts, unmatched, _, _ = plan_faults(design, follow_up)
    return faults, texts, unmatched


def plan_faults(design: Design, follow_up: FollowUp):
    """Faults, their text, unmatched targets, what is missing, and re-targeting notes."""
    # the simulator loads on first use, not at start-up
    from inferboard.sim.design.faults import Fault

    faults, texts, unmatched, missing, retargeted = [], [], [], [], []
    for text in follow_up.faults:
        spec = parse_fault_spec(text)
        targets = resolve_targets(design, spec)
        if not targets:
            outage = _whole_design_outage(design, spec)
            if outage is not None:
                retargeted.append(outage[1])
                for node_id in outage[0]:
                    faults.append(Fault("failing_replica", node_id, 1.0))
                    texts.append(f"failing_replica*1:{node_id}")
                continue
            stand_in = _regionless_retarget(design, spec) or _absent_location_retarget(design, spec)
            if stand_in is not None:
                targets, note = stand_in
                retargeted.append(note)
        if not targets:
            unmatched.append(text)
            reason = _missing(design, spec)
            if reason is not None:
                missing.append(reason)
        for target in targets:
            faults.append(Fault(spec.kind, target, spec.magnitude))
            magnitude = "" if spec.magnitude is None else f"*{spec.magnitude:g}"
            texts.append(f"{spec.kind}{magnitude}:{target}")
    return faults, texts, unmatched, missing, retargeted


# ------------------------------------------------------------------------ readouts
def load_rate(requirements: Requirements) -> float:
    """The rate a what-if runs at: the peak, else the mean."""
    for value in (requirements.peak_rps, requirements.mean_rps):
        if value is not None:
            return float(value)
    return 100.0


def with_requirements(design: Design, requirements: Requirements) -> Design:
    """A copy of ``design`` (the original is untouched) holding ``requirements``."""
    return judged_copy(design, requirements)


def readout(design: Design, rps: float, faults: Sequence = ()) -> Readout:
    """Evaluate with the steady-state simulator; a failure is reported, not papered over."""
    # the simulator loads on first use, not at start-up
    from inferboard.sim.steady import design_sim

    try:
        return simulator_readout(design_sim.evaluate(design, rps=rps, faults=tuple(faults)), rps)
    except Exception as error:  # noqa: BLE001 - a simulator bug must not lose the practice result
        return Readout(rps, source="unavailable",
                       notes=[f"the simulator could not evaluate this design ({type(error).__name__}: {error})"])


def simulator_readout(result: Any, rps: float) -> Readout:
    """Read the steady-state simulator's result."""
    nodes = result.nodes or {}
    busy = [_num(nr.utilisation) for nr in nodes.values()]
    busy = [b for b in busy if b is not None]
    shed, errors = _num(result.shed_rate), _num(result.error_rate)
    offered = _num(result.offered_rps) or 0.0
    degraded = sum(max(0.0, nr.arrival_rps - nr.shed_rps) for nr in nodes.values()
                   if nr.kind in FALLBACK_KINDS and not nr.down)
    return Readout(rps, _num(result.p99_ms), _num(result.cost_per_hour), shed, errors,
                   max(busy) if busy else None, "simulator", timeout_rate=_num(result.timeout_rate),
                   notes=[str(n) for n in (result.notes or [])][:10],
                   fallback_rate=min(1.0, degraded / offered) if offered > 0 else None)


def _num(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


# ------------------------------------------------------------------------ what-ifs
#: What a follow-up reports on a design where no traffic reaches a serving pool.
NOTHING_SERVES = ("no traffic source is wired through to a serving pool, so there is nothing for this "
                  "follow-up to test")


def served_by_a_pool(design: Design) -> bool:
    """True when requests from some traffic entry reach a serving pool along the design's edges."""
    entries = [n.id for n in design.nodes.values() if n.kind in kind_group("traffic_entry")]
    succ: dict[str, list[str]] = {}
    for edge in design.edges.values():
        succ.setdefault(edge.source, []).append(edge.target)
    seen, stack = set(entries), list(entries)
    while stack:
        for nxt in succ.get(stack.pop(), ()):
            if nxt not in seen:
                if design.nodes[nxt].kind in SERVING_KINDS:
                    return True
                seen.add(nxt)
                stack.append(nxt)
    return False


def what_if(scenario: Scenario, design: Design, follow_up: FollowUp, before: Readout | None = None) -> WhatIf:
    """``before``: the design's readout under the scenario's requirements, when the caller has it
    already (several follow-ups on one design need it once)."""
    base_req = scenario.requirements
    after_req = scenario.requirements_after(follow_up)
    after_design = with_requirements(design, after_req)
    faults, texts, unmatched, missing, retargeted = plan_faults(after_design, follow_up)
    if not served_by_a_pool(design):
        missing = [NOTHING_SERVES, *missing]
    if before is None:
        before = readout(with_requirements(design, base_req), load_rate(base_req))
    after = readout(after_design, load_rate(after_req), faults)
    result = WhatIf(follow_up.id, follow_up.title, follow_up.prompt, texts, dict(follow_up.requirement_changes),
                    before, after, unmatched, missing=missing, retargeted=retargeted)
    result.verdict = verdict(result, after_req)
    return result


def run_follow_ups(scenario: Scenario, design: Design, follow_up_ids: Sequence[str] | None = None,
                   before: Readout | None = None) -> list[WhatIf]:
    """Replay ``follow_up_ids`` (all when None) on ``design``, each against the same before-figures."""
    chosen = scenario.follow_ups if follow_up_ids is None else [scenario.follow_up(i) for i in follow_up_ids]
    if chosen and before is None:
        before = readout(with_requirements(design, scenario.requirements), load_rate(scenario.requirements))
    return [what_if(scenario, design, f, before) for f in chosen]


def verdict(result: WhatIf, requirements: Requirements) -> str:
    """One plain sentence on what the follow-up did to the design."""
    a, b = result.before, result.after
    if not b.available:
        return "The simulator could not evaluate this design."
    parts = []
    slo = requirements.slo_p99_ms or requirements.slo_p95_ms
    if b.lost_rate >= 0.999:
        parts.append("nothing is served any more")
    elif a.p99_ms is not None and b.p99_ms is not None:
        text = f"p99 {a.p99_ms:.0f} ms -> {b.p99_ms:.0f} ms"
        if slo:
            text += " (within the SLO)" if b.p99_ms <= slo else f" (over the {slo:g} ms SLO)"
        parts.append(text)
    if a.lost_rate is not None and b.lost_rate is not None and (a.lost_rate > 0.001 or b.lost_rate > 0.001):
        parts.append(f"requests lost {100 * a.lost_rate:.1f}% -> {100 * b.lost_rate:.1f}%")
    if a.max_utilisation is not None and b.max_utilisation is not None:
        parts.append(f"busiest pool {100 * a.max_utilisation:.0f}% -> {100 * b.max_utilisation:.0f}% busy")
    degraded = b.fallback_rate or 0.0
    if degraded > 0.005 or (a.fallback_rate or 0.0) > 0.005:
        parts.append(f"answered by a fallback (degraded) {100 * (a.fallback_rate or 0.0):.0f}% -> "
                     f"{100 * degraded:.0f}%")
    if a.cost_per_hour is not None and b.cost_per_hour is not None and not math.isclose(a.cost_per_hour,
                                                                                        b.cost_per_hour):
        parts.append(f"cost ${a.cost_per_hour:.2f}/h -> ${b.cost_per_hour:.2f}/h")
    if result.missing:
        return "Fails: " + "; ".join([*result.missing, *result.retargeted, *parts]) + "."
    parts = [*result.retargeted, *parts]
    if result.unmatched:
        parts.append("no part of the design is in reach of " + ", ".join(fault_words(u) for u in result.unmatched))
    if not parts:
        return "No measurable change: the design absorbs this follow-up."
    held = (b.lost_rate < 0.01 and (b.p99_ms is None or slo is None or b.p99_ms <= slo)
            and degraded <= DEGRADED_LIMIT and (b.max_utilisation or 0.0) <= HOT_UTILISATION)
    if held:
        return "Holds up: " + "; ".join(parts) + "."
    return ("Fails: " if b.lost_rate >= 0.5 else "Struggles: ") + "; ".join(parts) + "."
