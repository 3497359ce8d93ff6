"""Behaviour leaves: conditions answered by the simulator (``inferboard.sim.steady.design_sim``).

The simulator always ships with the core. It is imported when the first behaviour leaf runs (not at
module import), so a structural check never pays for loading it. Within one check each (load,
faults) pair is simulated once and shared by every behaviour rule, and the design's rate-independent
compile (``DesignStructure``) is built once and shared by those simulations.

The leaves read the typed result of ``design_sim.evaluate`` (``DesignResult`` and its
``NodeResult`` per node) by attribute, never with a default: a renamed field fails loudly.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

from inferboard.errors import InferboardError
from inferboard.rules import conditions as c
from inferboard.rules.context import DesignIndex
from inferboard.rules.results import Result, evidence
from inferboard.rules.roles import FALLBACK_KINDS

if TYPE_CHECKING:
    from inferboard.sim.steady.design_sim import DesignResult, NodeResult
    from inferboard.sim.design.faults import Fault


class NotEvaluable(InferboardError):
    """A behaviour leaf cannot be answered for this design (the simulator failed on it, or a figure
    it needs is not declared). The engine reports the rule as skipped with this reason."""


def _sim() -> ModuleType:
    # the simulator loads on first use, not at start-up
    from inferboard.sim.steady import design_sim

    return design_sim


def _fault(kind: str, target: str) -> "Fault":
    return _sim().Fault(kind, target)


def load_rps(index: DesignIndex, load: str) -> float:
    """The requests per second a behaviour rule runs at: the peak, or the mean (the peak when no mean is given)."""
    name = "peak_rps" if load == "peak" else "mean_rps"
    value = getattr(index.requirements, name)
    if value is None and load == "mean":
        value = index.requirements.peak_rps
    if value is None:
        raise NotEvaluable(f"requirements.{name} is not declared")
    return float(value)


def simulate(index: DesignIndex, rps: float, faults: tuple = ()) -> "DesignResult":
    """One simulator run, cached for the rest of this check. The design's rate-independent compile
    (request graph, order, pool plans...) is built once per check and shared by its simulations."""
    key = (rps, faults)
    if key not in index.sim_cache:
        if index.sim_error is not None:
            raise NotEvaluable(index.sim_error)
        module = _sim()
        try:
            if index.sim_structure is None:
                index.sim_structure = module.DesignStructure(index.design)
            index.sim_cache[key] = module.evaluate(index.design, rps=rps, faults=faults,
                                                   structure=index.sim_structure)
        except Exception as error:  # noqa: BLE001 - a simulator fault must not take the checker down
            detail = str(error) if isinstance(error, (InferboardError, ValueError)) else \
                f"{type(error).__name__}: {error}"
            index.sim_error = f"the simulator could not evaluate this design: {detail}"
            raise NotEvaluable(index.sim_error) from None
    return index.sim_cache[key]


def _node_results(result: "DesignResult") -> "dict[str, NodeResult]":
    return result.nodes


def _saturated(result: "DesignResult") -> list[str]:
    return [node_id for node_id, nr in result.nodes.items() if nr.saturated]


def _bottleneck(result: "DesignResult") -> list[str]:
    saturated = _saturated(result)
    if saturated:
        return saturated
    named = result.bottleneck
    if named and named in result.nodes:
        return [named]
    queued = [(nr.queue_ms, node_id) for node_id, nr in result.nodes.items() if nr.queue_ms is not None]
    queued = [q for q in queued if q[0] > 0]
    return [max(queued)[1]] if queued else []


def _serving_or_fail(index: DesignIndex, rps: float, what: str) -> Result | None:
    """A failed Result when nothing serves the load (no simulation needed), else None."""
    if index.served_pools():
        return None
    if index.serving_pools():
        return Result(False, neg=evidence((p.id for p in index.serving_pools()), details=[
            f"no traffic source is wired through to a serving pool, so {what}"]))
    return Result(False, neg=evidence(details=[f"nothing serves the {rps:,.0f} req/s, so {what}"]))


def _ms(value: float | None) -> str:
    return "nothing served" if value is None else f"{value:,.0f} ms"


def latency_within_slo(leaf: c.LatencyWithinSlo, index: DesignIndex) -> Result:
    """Whether the simulated p50/p95/p99 at the rule's load stay within the SLO."""
    rps = load_rps(index, leaf.load)
    empty = _serving_or_fail(index, rps, "no latency can be shown against the SLO")
    if empty is not None:
        return empty
    result = simulate(index, rps)
    req = index.requirements
    over, slow_pools, ratios = [], [], []
    for label, slo in (("p50", req.slo_p50_ms), ("p95", req.slo_p95_ms), ("p99", req.slo_p99_ms)):
        if slo is None:
            continue
        value = getattr(result, f"{label}_ms")
        if value > slo:
            ratios.append(value / slo)
            over.append(f"{label} {_ms(value)} at {rps:,.0f} rps against an SLO of {slo:,.0f} ms "
                        f"({value / slo - 1:.0%} over)")
    if req.slo_ttft_ms is not None:  # time to first token, at its 95th percentile, on every LLM pool serving
        for node in index.of_kinds(("generation_pool",)):
            ttft = result.nodes[node.id].ttft_p95_ms
            if ttft is not None and ttft > req.slo_ttft_ms:
                slow_pools.append(node.id)
                ratios.append(ttft / req.slo_ttft_ms)
                over.append(f"time to first token p95 {_ms(ttft)} on '{node.id}' at {rps:,.0f} rps against an SLO "
                            f"of {req.slo_ttft_ms:,.0f} ms ({ttft / req.slo_ttft_ms - 1:.0%} over)")
    if not over:
        return Result(True)
    return Result(False, neg=evidence(slow_pools + _bottleneck(result), details=over, ratio=max(ratios)))


def headroom(leaf: c.Headroom, index: DesignIndex) -> Result:
    """Whether every serving pool stays under the rule's utilisation at the peak."""
    rps = load_rps(index, "peak")
    empty = _serving_or_fail(index, rps, "there is no capacity to hold headroom")
    if empty is not None:
        return empty
    result = simulate(index, rps)
    limit = 1.0 - leaf.min_pct / 100.0
    checked, over, details = [], [], []
    for node in index.of_kinds(tuple(leaf.kind)):
        nr = _node_results(result).get(node.id)
        if nr is None:
            continue
        checked.append(node.id)
        if nr.utilisation is None:  # not a pool: nothing to be busy
            continue
        utilisation = nr.utilisation
        if utilisation > limit:
            over.append(node.id)
            details.append(f"'{node.id}' runs at {utilisation:.0%} at {rps:,.0f} rps")
    if over:
        return Result(False, neg=evidence(over, details=details))
    return Result(True, evidence(checked))


def _canary_only(index: DesignIndex, node_id: str) -> bool:
    """Whether every request reaching the node comes through a canary router's canary port."""
    feeds = [e for e in index.design.edges.values() if e.target == node_id and e.target_port == "requests"]
    return bool(feeds) and all(index.nodes[e.source].kind == "canary_router" and e.source_port == "canary"
                               for e in feeds)


def idle(leaf: c.Idle, index: DesignIndex) -> Result:
    """The pools that sit nearly idle at the rule's load (paid for, not used)."""
    rps = load_rps(index, leaf.load)
    result = simulate(index, rps)
    checked, idle_ids, details = [], [], []
    for node in index.of_kinds(tuple(leaf.kind)):
        nr = _node_results(result).get(node.id)
        if nr is None or (leaf.skip_canary and _canary_only(index, node.id)):
            continue
        if nr.utilisation is None:
            continue
        checked.append(node.id)
        utilisation = nr.utilisation
        if utilisation < leaf.max_utilisation:
            idle_ids.append(node.id)
            details.append(f"'{node.id}' is {utilisation:.0%} busy at {rps:,.0f} rps "
                           f"with {nr.replicas} replicas")
    if idle_ids:
        return Result(True, evidence(idle_ids, details=details))
    return Result(False, neg=evidence(checked))


def within_budget(leaf: c.WithinBudget, index: DesignIndex) -> Result:
    """Whether the simulated cost per hour and per thousand requests stays within the budget."""
    req = index.requirements
    if req.budget_per_1k is None and req.budget_per_hour is None:
        raise NotEvaluable("no budget is declared")
    rps = load_rps(index, leaf.load)
    empty = _serving_or_fail(index, rps, "no cost per request can be weighed against the budget")
    if empty is not None:
        return empty
    result = simulate(index, rps)
    details = []
    per_1k, per_hour = result.cost_per_1k, result.cost_per_hour
    if req.budget_per_1k is not None and (per_1k is None or per_1k > req.budget_per_1k):
        shown = "undefined (nothing served)" if per_1k is None else f"${per_1k:.4f}"
        details.append(f"cost per 1k requests {shown} against a budget of ${req.budget_per_1k:.4f}")
    if req.budget_per_hour is not None and per_hour > req.budget_per_hour:
        details.append(f"cost per hour ${per_hour:,.2f} against a budget of ${req.budget_per_hour:,.2f}")
    if details:
        return Result(False, neg=evidence((p.id for p in index.serving_pools()), details=details))
    return Result(True)


def _largest_region(index: DesignIndex, base: "DesignResult") -> list[str]:
    capacity: dict[str, float] = {}
    for pool in index.serving_pools():
        if pool.region is None:
            continue
        nr = base.nodes[pool.id]
        capacity[pool.region] = capacity.get(pool.region, 0.0) + (nr.capacity_rps or 0.0)
    return sorted(capacity, key=lambda r: (-capacity[r], index.order[r]))


def survives_region_loss(leaf: c.SurvivesRegionLoss, index: DesignIndex) -> Result:
    """Whether the design still serves the peak within the SLO with its largest region down."""
    rps = load_rps(index, "peak")
    base = simulate(index, rps)
    regions = _largest_region(index, base)
    if len(regions) < 2:
        return Result(False, neg=evidence(regions, details=["only one region holds serving capacity"]))
    lost = regions[0]
    result = simulate(index, rps, (_fault("region_outage", lost),))
    served, degraded = _healthy_served(index, result), _fallback_share(index, result)
    busiest = _busiest_pool(index, result)
    detail = f"without region '{lost}' the rest serves {served:.0%} of {rps:,.0f} req/s at full quality"
    if degraded > 0.005:
        detail += f" and a fallback answers {degraded:.0%} in degraded form"
    hot = busiest is not None and busiest[1] > leaf.max_survivor_utilisation
    if served * 100.0 >= leaf.min_served_pct and not hot:
        return Result(True, evidence([lost], details=[detail]))
    if hot and served * 100.0 >= leaf.min_served_pct:
        detail += (f", but the surviving pool '{busiest[0]}' runs at {busiest[1]:.0%}, above "
                   f"{leaf.max_survivor_utilisation:.0%}: one more replica lost or a small spike and it queues")
    elif busiest is not None:
        detail = (f"no region can take the traffic of '{lost}': at {rps:,.0f} req/s the surviving pool "
                  f"'{busiest[0]}' would run at {busiest[1]:.0%} and the rest serves {served:.0%} at full quality")
        if degraded > 0.005:
            detail += f" while a fallback answers {degraded:.0%} in degraded form"
    return Result(False, neg=evidence([lost, *_saturated(result)], details=[detail]))


def _busiest_pool(index: DesignIndex, result: "DesignResult") -> tuple[str, float] | None:
    """The serving pool with the highest offered load over capacity, and that ratio."""
    worst = None
    for pool in index.serving_pools():
        nr = _node_results(result).get(pool.id)
        if nr is None or nr.down or not nr.capacity_rps:
            continue
        load = nr.arrival_rps / nr.capacity_rps
        if worst is None or load > worst[1]:
            worst = (pool.id, load)
    return worst


def survives_spot_reclaim(leaf: c.SurvivesSpotReclaim, index: DesignIndex) -> Result:
    """Whether the design still serves the peak when its spot capacity is reclaimed."""
    rps = load_rps(index, "peak")
    result = simulate(index, rps, (_fault("spot_reclaimed", "*"),))
    served = _served(result, rps)
    spot = [n.id for n in index.serving_pools() if (n.params.get("spot_share") or 0) > 0]
    detail = f"with spot capacity reclaimed the design serves {served:.0%} of {rps:,.0f} rps"
    if served * 100.0 >= leaf.min_served_pct:
        return Result(True, evidence(spot, details=[detail]))
    return Result(False, neg=evidence([*spot, *_saturated(result)], details=[detail]))


def _fallback_share(index: DesignIndex, result: "DesignResult") -> float:
    """The share of offered traffic answered by fallback pools (degraded answers)."""
    if result.offered_rps <= 0:
        return 0.0
    fallback = sum(nr.arrival_rps - nr.shed_rps for node_id, nr in result.nodes.items()
                   if index.roles.get(node_id) == "fallback" and not nr.down)
    return max(0.0, min(1.0, fallback / result.offered_rps))


def _healthy_served(index: DesignIndex, result: "DesignResult") -> float:
    """The share of offered traffic served at full quality: served, less what fallbacks answered."""
    return max(0.0, _served(result, result.offered_rps) - _fallback_share(index, result))


def fallback_carries(leaf: c.FallbackCarries, index: DesignIndex) -> Result:
    """Whether the fallback pools can carry the load when the GPUs are short."""
    rps = load_rps(index, leaf.load)
    result = simulate(index, rps, (_sim().Fault("gpu_shortage", "*", 0.0),))
    checked, hot, details = [], [], []
    for node in index.of_kinds(tuple(FALLBACK_KINDS)):
        nr = result.nodes.get(node.id)
        if nr is None or nr.down or not nr.arrival_rps:
            continue
        checked.append(node.id)
        load = nr.arrival_rps / nr.capacity_rps if nr.capacity_rps else float("inf")
        if nr.saturated or load > leaf.max_utilisation:
            hot.append(node.id)
            details.append(f"with no GPU replicas at {rps:,.0f} req/s '{node.id}' takes {nr.arrival_rps:,.0f} req/s "
                           f"and would run at {load:.0%} of its capacity")
    if hot:
        return Result(False, neg=evidence(hot, details=details))
    return Result(True, evidence(checked))


def _served(result: "DesignResult", rps: float) -> float:
    offered = result.offered_rps
    if offered <= 0:
        return 1.0
    return min(1.0, result.throughput_rps / offered)


DRIFT_TICK_S = 1800.0  #: the drift timeline's step: quality moves over hours, not seconds


def drift_timeline(index: DesignIndex, leaf: c.UnderDrift):
    """The design's timeline under ``leaf.drift`` with its quality series (the target judged by is
    the index's), cached for the rest of this check."""
    specs = index.drift or tuple(leaf.drift)
    key = ("drift", specs, leaf.hours)
    if key not in index.sim_cache:
        # the simulator loads on first use, not at start-up
        from inferboard.sim.design import faults as sim_faults
        from inferboard.sim.timeline.timeline import with_quality
        from inferboard.sim.timeline.timeline_state import Timeline

        try:
            faults = [sim_faults.parse_fault(text) for text in specs]
            state = Timeline.start(index.design, None, faults, leaf.hours, DRIFT_TICK_S)
            index.sim_cache[key] = with_quality(index.design, faults, state.advance_ticks(state.count).result(),
                                                accuracy_target=index.requirements.accuracy_target_pct)
        except Exception as error:  # noqa: BLE001 - a simulator fault must not take the checker down
            raise NotEvaluable(f"the simulator could not play the drift on this design: {error}") from None
    return index.sim_cache[key]


def _drift_words(index: DesignIndex, leaf: c.UnderDrift) -> str:
    return f"with {', '.join(index.drift or leaf.drift)} over {leaf.hours:g} h,"


def accuracy_under_drift(leaf: c.AccuracyUnderDrift, index: DesignIndex) -> Result:
    """Holds when, under the leaf's drift, accuracy seen on labels stays under the target for at most
    ``max_hours_below`` hours."""
    target = index.requirements.accuracy_target_pct
    if target is None:
        raise NotEvaluable("requirements.accuracy_target_pct is not declared")
    unserved = _serving_or_fail(index, load_rps(index, "mean") if index.requirements.mean_rps
                                or index.requirements.peak_rps else 0.0, f"nothing holds the {target:g}% accuracy target")
    if unserved is not None:
        return unserved
    timeline = drift_timeline(index, leaf)
    labelled, times = timeline.series["accuracy_labelled_pct"], timeline.times_s
    step = float(times[1] - times[0]) if times.size > 1 else DRIFT_TICK_S
    below_h = float((labelled < target - 1e-9).sum()) * step / 3600.0
    detectors = [n.id for n in index.of_kinds(("drift_detector",))]
    if below_h <= leaf.max_hours_below:
        return Result(True, evidence(detectors))
    caught = [e for e in timeline.events if e.kind in ("drift_alert", "drift_unheard", "model_promoted")]
    story = "; ".join(f"at {e.time_s / 3600:.1f} h {e.message}" for e in caught) or "nothing noticed it"
    detail = (f"{_drift_words(index, leaf)} accuracy was under the {target:g}% target for {below_h:.1f} h "
              f"(lowest {float(labelled.min()):.1f}%); {story}")
    return Result(False, neg=evidence(detectors, details=[detail]))


def drift_alert_heard(leaf: c.DriftAlertHeard, index: DesignIndex) -> Result:
    """Holds unless a drift detector fires under the leaf's drift and its alert reaches nobody."""
    timeline = drift_timeline(index, leaf)
    fired = [e for e in timeline.events if e.kind in ("drift_alert", "drift_unheard")]
    unheard = [e for e in fired if e.kind == "drift_unheard"]
    if unheard:
        return Result(False, neg=evidence([e.node_id for e in unheard], details=[
            f"{_drift_words(index, leaf)} '{e.node_id}' fired at {e.time_s / 3600:.1f} h and its alert reached nobody"
            for e in unheard]))
    return Result(True, evidence([e.node_id for e in fired]))


def retrain_through_canary(leaf: c.RetrainThroughCanary, index: DesignIndex) -> Result:
    """Holds unless a model retrained under the leaf's drift goes to all traffic without a canary first."""
    timeline = drift_timeline(index, leaf)
    pipelines = [n.id for n in index.of_kinds(("retraining_pipeline",))]
    canaried = [e for e in timeline.events if e.kind == "model_canary"]
    straight = [e for e in timeline.events if e.kind == "model_promoted"
                and not any(c_.message.split()[0] == e.message.split()[0] for c_ in canaried)]
    if straight:
        return Result(False, neg=evidence(pipelines, details=[
            f"{_drift_words(index, leaf)} retrained {e.message.split()[0]} went to all traffic at once at "
            f"{e.time_s / 3600:.1f} h, with no canary to stop a bad one" for e in straight]))
    return Result(True, evidence(pipelines))


LEAF_FUNCTIONS = {
    "latency_within_slo": latency_within_slo, "headroom": headroom, "idle": idle,
    "within_budget": within_budget, "survives_region_loss": survives_region_loss,
    "survives_spot_reclaim": survives_spot_reclaim, "fallback_carries": fallback_carries,
    "accuracy_under_drift": accuracy_under_drift, "drift_alert_heard": drift_alert_heard,
    "retrain_through_canary": retrain_through_canary,
}


def evaluate_leaf(leaf: c.Condition, index: DesignIndex) -> Result:
    """Evaluate one behaviour leaf against the design."""
    return LEAF_FUNCTIONS[leaf.type](leaf, index)
