"""Follow-ups replayed against a design as what-if runs: the same design before and after the
follow-up's requirement changes and faults, read out by the simulator.

Both runs use the scenario's real requirements (the hidden facts), not what the candidate typed,
and the peak request rate (the mean when no peak is known). Fault targets are resolved against the
candidate's own node ids (see ``FollowUp`` for the selector syntax).

The steady-state simulator (``inferboard.sim.design_sim.evaluate``) gives latency percentiles;
when it is not installed the readout falls back to the compiled network (capacity, utilisation,
cost, lost and shed traffic) and says so.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from inferboard.model import ops
from inferboard.model.design import Design
from inferboard.model.requirements import Requirements
from inferboard.practice.scenario import FaultSpec, FollowUp, Scenario, parse_fault_spec
from inferboard.store.design_files import design_to_bytes, parse_design

SERVING_KINDS = ("gpu_pool", "generation_pool", "cpu_pool", "fallback_model", "feature_service")
REPLICA_KINDS = ("gpu_pool", "generation_pool", "cpu_pool")


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

    @property
    def available(self) -> bool:
        return self.source != "unavailable"

    @property
    def lost_rate(self) -> float:
        return (self.shed_rate or 0.0) + (self.error_rate or 0.0) + (self.timeout_rate or 0.0)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class WhatIf:
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

    def changed(self) -> bool:
        a, b = self.before, self.after
        pairs = [(a.p99_ms, b.p99_ms), (a.cost_per_hour, b.cost_per_hour), (a.lost_rate, b.lost_rate),
                 (a.max_utilisation, b.max_utilisation), (a.rps, b.rps)]
        return any(x is not None and y is not None and not math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-9)
                   for x, y in pairs)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["changed"] = self.changed()
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


def faults_for(design: Design, follow_up: FollowUp) -> tuple[list, list[str], list[str]]:
    """The simulator Faults a follow-up amounts to on ``design``, their text, and unmatched targets."""
    from inferboard.sim.faults import Fault

    faults, texts, unmatched = [], [], []
    for text in follow_up.faults:
        spec = parse_fault_spec(text)
        targets = resolve_targets(design, spec)
        if not targets:
            unmatched.append(text)
        for target in targets:
            faults.append(Fault(spec.kind, target, spec.magnitude))
            magnitude = "" if spec.magnitude is None else f"*{spec.magnitude:g}"
            texts.append(f"{spec.kind}{magnitude}:{target}")
    return faults, texts, unmatched


# ------------------------------------------------------------------------ readouts
def load_rate(requirements: Requirements) -> float:
    for value in (requirements.peak_rps, requirements.mean_rps):
        if value is not None:
            return float(value)
    return 100.0


def with_requirements(design: Design, requirements: Requirements) -> Design:
    """A copy of ``design`` (the original is untouched) holding ``requirements``."""
    copy = parse_design(design_to_bytes(design), "<what-if>", design.catalog)
    copy.apply(ops.SetRequirements(requirements))
    return copy


def _field(result: Any, *names: str) -> Any:
    for name in names:
        value = result.get(name) if isinstance(result, dict) else getattr(result, name, None)
        if value is not None:
            return value
    return None


def readout(design: Design, rps: float, faults: Sequence = ()) -> Readout:
    """Evaluate with the steady-state simulator, else the compiled network, else give up politely."""
    try:
        from inferboard.sim import design_sim  # type: ignore[attr-defined]
    except ImportError:
        design_sim = None
    if design_sim is not None and hasattr(design_sim, "evaluate"):
        try:
            return simulator_readout(design_sim.evaluate(design, rps=rps, faults=tuple(faults)), rps)
        except Exception as error:  # noqa: BLE001 - a simulator bug must not lose the practice result
            note = f"the steady-state simulator failed ({type(error).__name__}: {error}); capacity estimate only"
            fallback = compiled_readout(design, rps, faults)
            fallback.notes.insert(0, note)
            return fallback
    return compiled_readout(design, rps, faults)


def simulator_readout(result: Any, rps: float) -> Readout:
    """Read the steady-state simulator's result (attribute or dict access, missing fields tolerated)."""
    nodes = _field(result, "nodes") or {}
    busy = [_num(_field(nr, "utilisation", "utilization")) for nr in nodes.values()]
    busy = [b for b in busy if b is not None]
    shed, errors = _num(_field(result, "shed_rate")), _num(_field(result, "error_rate"))
    if shed is None and errors is None:
        offered = _num(_field(result, "offered_rps")) or rps
        served = _num(_field(result, "throughput_rps"))
        errors = None if served is None or offered <= 0 else max(0.0, 1.0 - served / offered)
    return Readout(rps, _num(_field(result, "p99_ms")), _num(_field(result, "cost_per_hour")), shed, errors,
                   max(busy) if busy else None, "simulator", timeout_rate=_num(_field(result, "timeout_rate")),
                   notes=[str(n) for n in (_field(result, "notes") or [])][:10])


def _num(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def compiled_readout(design: Design, rps: float, faults: Sequence = ()) -> Readout:
    """Capacity-only readout from the compiled network: no latency percentiles."""
    try:
        from inferboard.sim.compile import compile_design
        compiled = compile_design(design, rps, list(faults))
    except Exception as error:  # noqa: BLE001
        return Readout(rps, source="unavailable", notes=[f"the simulator could not run: {error}"])
    network = compiled.network
    rates = network.station_rates()
    worst = 0.0
    for station_id, station in network.stations.items():
        if station.delay_only or rates.get(station_id, 0.0) <= 0:
            continue
        capacity = station.capacity_rps
        worst = max(worst, math.inf if capacity <= 0 else rates[station_id] / capacity)
    offered = compiled.offered_rps or 1.0
    shed = min(1.0, sum(compiled.shed_rps.values()) / offered)
    # Beyond saturation the bottleneck completes only 1/worst of what reaches it.
    over = 1.0 if worst == math.inf else max(0.0, 1.0 - 1.0 / worst) if worst > 1 else 0.0
    unserved = over * (1.0 - shed)
    return Readout(rps, None, round(compiled.cost_per_hour, 4), shed,
                   min(1.0, compiled.lost_rps / offered + unserved),
                   None if worst == math.inf else round(worst, 4), "capacity estimate (no latency model)",
                   notes=list(compiled.notes))


# ------------------------------------------------------------------------ what-ifs
def what_if(scenario: Scenario, design: Design, follow_up: FollowUp) -> WhatIf:
    base_req = scenario.requirements
    after_req = scenario.requirements_after(follow_up)
    base_design = with_requirements(design, base_req)
    after_design = with_requirements(design, after_req)
    faults, texts, unmatched = faults_for(after_design, follow_up)
    before = readout(base_design, load_rate(base_req))
    after = readout(after_design, load_rate(after_req), faults)
    result = WhatIf(follow_up.id, follow_up.title, follow_up.prompt, texts, dict(follow_up.requirement_changes),
                    before, after, unmatched)
    result.verdict = verdict(result, after_req)
    return result


def run_follow_ups(scenario: Scenario, design: Design, follow_up_ids: Sequence[str] | None = None) -> list[WhatIf]:
    chosen = scenario.follow_ups if follow_up_ids is None else [scenario.follow_up(i) for i in follow_up_ids]
    return [what_if(scenario, design, f) for f in chosen]


def verdict(result: WhatIf, requirements: Requirements) -> str:
    """One plain sentence on what the follow-up did to the design."""
    a, b = result.before, result.after
    if not b.available:
        return "The simulator could not evaluate this design."
    parts = []
    slo = requirements.slo_p99_ms or requirements.slo_p95_ms
    if a.p99_ms is not None and b.p99_ms is not None:
        text = f"p99 {a.p99_ms:.0f} ms -> {b.p99_ms:.0f} ms"
        if slo:
            text += " (within the SLO)" if b.p99_ms <= slo else f" (over the {slo:g} ms SLO)"
        parts.append(text)
    if a.lost_rate is not None and b.lost_rate is not None and (a.lost_rate > 0.001 or b.lost_rate > 0.001):
        parts.append(f"requests lost {100 * a.lost_rate:.1f}% -> {100 * b.lost_rate:.1f}%")
    if a.max_utilisation is not None and b.max_utilisation is not None:
        parts.append(f"busiest pool {100 * a.max_utilisation:.0f}% -> {100 * b.max_utilisation:.0f}% busy")
    if a.cost_per_hour is not None and b.cost_per_hour is not None and not math.isclose(a.cost_per_hour,
                                                                                        b.cost_per_hour):
        parts.append(f"cost ${a.cost_per_hour:.2f}/h -> ${b.cost_per_hour:.2f}/h")
    if result.unmatched:
        parts.append("no part of the design matched " + ", ".join(result.unmatched))
    if not parts:
        return "No measurable change: the design absorbs this follow-up."
    held = b.lost_rate < 0.01 and (b.p99_ms is None or slo is None or b.p99_ms <= slo)
    return ("Holds up: " if held else "Struggles: ") + "; ".join(parts) + "."
