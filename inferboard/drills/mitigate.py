"""What each mitigation of :data:`inferboard.drills.schema.MITIGATIONS` does to a running drill:
timeline actions (:mod:`inferboard.sim.timeline.actions`, :mod:`inferboard.drills.operations`) and
quality-layer changes, applied at the session's current time."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from inferboard.drills.operations import ClearFaults, SetParams
from inferboard.sim.timeline import actions as sim

DEFAULT_SCALE = 2.0
DEFAULT_SHED = 0.2


@dataclass(frozen=True)
class ValueSpec:
    """What a mitigation's ``value`` means, for a picker: a label, a default and the range
    :func:`operations_for` accepts (``low`` excluded when ``low_open``)."""

    label: str
    default: float
    low: float
    high: float
    step: float
    low_open: bool = False


#: the mitigations that take a value
VALUE_SPECS: dict[str, ValueSpec] = {
    "scale_out": ValueSpec("factor (× replicas)", DEFAULT_SCALE, 1.0, 10.0, 0.5, low_open=True),
    "shed": ValueSpec("share of traffic refused", DEFAULT_SHED, 0.0, 0.9, 0.05),
    "set_batcher_delay": ValueSpec("maximum queue delay (ms)", 2.0, 0.0, 1000.0, 1.0),
    "move_traffic": ValueSpec("share of traffic", 0.0, 0.0, 1.0, 0.05),
}


def _kind(session, target: str, *roles: str) -> None:
    """Refuse ``target`` unless it is a node of a kind having one of ``roles`` in the design's catalog
    (any node when no role is given)."""
    design = session.timeline.design
    node = design.nodes.get(target)
    if node is None:
        raise ValueError(f"no node '{target}' in this design" if target else "a target is needed")
    kinds = design.catalog.kinds_with_role(*roles)
    if roles and node.kind not in kinds:
        raise ValueError(f"'{target}' is a {node.kind.replace('_', ' ')}, not a "
                         + " or ".join(k.replace("_", " ") for k in kinds))


Steps = list[Callable[[], None]]


def _on_timeline(session, op) -> Callable[[], None]:
    """A step that applies the timeline action ``op``."""
    state = session.timeline
    return lambda: state.apply(op)


def _rollback_canary(session, target: str, value: float | None) -> Steps:
    """Send the canary's traffic back to the stable version, which then serves the canary's path too."""
    quality = session.quality
    stable = [p for p, r in quality.pools.items() if r == "stable"]

    def back_to_stable() -> None:
        if stable:
            quality.set_version(session.now_s, quality.version_of(stable[0], session.now_s), f"canary:{target}")
    return [_on_timeline(session, sim.RollbackCanary(target)), back_to_stable]


def _scale_out(session, target: str, value: float | None) -> Steps:
    """Multiply the pool's replicas now (``value``: the factor), raising its autoscaler's ceiling to match."""
    state = session.timeline
    factor = DEFAULT_SCALE if value is None else float(value)
    if not 1.0 < factor <= 10.0:
        raise ValueError("the scale factor must be above 1 and at most 10")
    k = max(0, state.ticks_done - 1)
    current = float(state.tracks[target].replicas[k]) if state.ticks_done else float(
        state.design.nodes[target].params.get("replicas", 1))
    replicas = max(1, int(math.ceil(current * factor)))
    scaler = state.scalers.get(target)
    high = max(scaler.max_replicas, replicas) if scaler else None
    return [_on_timeline(session, sim.ScalePool(target, replicas=replicas, max_replicas=high))]


def _switch_to_fallback(session, target: str, value: float | None) -> Steps:
    """Serve from the fallback model below the router ``target``."""
    structure = session.timeline.structure()
    if target not in structure.kind or not structure.split[target][1]:
        raise ValueError(f"'{target}' has no fallback model below it")
    return [_on_timeline(session, sim.SwitchToFallback(target))]


def _shed(session, target: str, value: float | None) -> Steps:
    """Shed the lowest-priority share of traffic at the entry (``value``: the share)."""
    share = DEFAULT_SHED if value is None else float(value)
    if not 0.0 <= share <= 0.9:
        raise ValueError("the shed share must be between 0 and 0.9")
    return [_on_timeline(session, sim.ShedPriority(share))]


def _revert_config(session, target: str, value: float | None) -> Steps:
    """Put back the parameters the drill's planted edits changed on ``target`` (nothing if none did)."""
    before = {}
    for edit in session.drill.plant.edits:
        if session.node_for(edit.target) == target and edit.at_min * 60.0 <= session.now_s:
            for key in edit.params:
                before.setdefault(key, session.design.nodes[target].params.get(key))
    if not before:
        return [lambda: None]  # nothing changed there: reverting does nothing
    return [_on_timeline(session, SetParams(target, tuple(sorted(before.items()))))]


def _move_to_dedicated_gpus(session, target: str, value: float | None) -> Steps:
    """Stop sharing the pool's GPUs: no partitioning, and its slow replicas recover."""
    node = session.timeline.design.nodes[target]
    ops = [_on_timeline(session, ClearFaults(target, ("slow_replica",)))]
    if node.params.get("partitioning", "none") != "none":
        ops.insert(0, _on_timeline(session, SetParams(target, (("partitioning", "none"), ("partitions", 1)))))
    return ops


def _pin_previous_model(session, target: str, value: float | None) -> Steps:
    """Serve the model version before the current one everywhere."""
    previous = session.quality.previous_version(session.now_s)
    if previous is None:
        raise ValueError("no earlier model version to pin: the one serving is the first")
    return [lambda: session.quality.set_version(session.now_s, previous, "all")]


def _retrain(session, target: str, value: float | None) -> Steps:
    """Start the design's retraining pipeline now."""
    if session.quality.pipeline() is None:
        raise ValueError("the design has no retraining pipeline")
    return [lambda: session.quality.start_retraining(session.now_s, "started by the on-call engineer")]


def _set_batcher_delay(session, target: str, value: float | None) -> Steps:
    """Set the batcher's delay (``value``: milliseconds)."""
    if value is None or value < 0:
        raise ValueError("a delay in ms (value) is needed")
    return [_on_timeline(session, sim.SetBatcherDelay(target, float(value)))]


def _move_traffic(session, target: str, value: float | None) -> Steps:
    """Set the traffic share of a source or a canary (``value``: the share)."""
    if value is None or not 0.0 <= value <= 1.0:
        raise ValueError("a share between 0 and 1 (value) is needed")
    return [_on_timeline(session, sim.MoveTraffic(target, float(value)))]


#: mitigation -> how its steps are made (its target already checked against :data:`TARGET_ROLES`)
_STEPS: dict[str, Callable[..., Steps]] = {
    "rollback_canary": _rollback_canary,
    "scale_out": _scale_out,
    "fail_over": lambda session, target, value: [_on_timeline(session, sim.FailOverRegion(target))],
    "restore_region": lambda session, target, value: [_on_timeline(session, sim.RestoreRegion(target))],
    "switch_to_fallback": _switch_to_fallback,
    "shed": _shed,
    "warm_cache": lambda session, target, value: [_on_timeline(session, sim.WarmCache(target)),
                                                  _on_timeline(session, ClearFaults(target, ("cache_flush",)))],
    "flush_cache": lambda session, target, value: [_on_timeline(session, sim.FlushCache(target))],
    "revert_config": _revert_config,
    "restart_replicas": lambda session, target, value: [
        _on_timeline(session, ClearFaults(target, ("slow_replica", "failing_replica")))],
    "move_to_dedicated_gpus": _move_to_dedicated_gpus,
    "pin_previous_model": _pin_previous_model,
    "retrain": _retrain,
    "set_batcher_delay": _set_batcher_delay,
    "move_traffic": _move_traffic,
}


def operations_for(session, action: str, target: str, value: float | None) -> Steps:
    """The steps of ``action`` (checked first: a ValueError means nothing is done)."""
    spec = VALUE_SPECS.get(action)
    if spec is not None and value is not None:
        if not (spec.low < value if spec.low_open else spec.low <= value) or value > spec.high:
            raise ValueError(f"the {spec.label} must be {'above' if spec.low_open else 'at least'} {spec.low:g} "
                             f"and at most {spec.high:g}")
    steps = _STEPS.get(action)
    if steps is None:
        raise ValueError(f"unknown mitigation '{action}'")
    roles = TARGET_ROLES[action]
    if roles == ("*",):
        _kind(session, target)
    elif roles and roles != ("router",):
        _kind(session, target, *roles)
    return steps(session, target, value)


#: mitigation -> the catalog roles of the node kinds it can target (empty: it takes no target;
#: ``*``: any node; ``router``: a node with a fallback below it)
TARGET_ROLES: dict[str, tuple[str, ...]] = {
    "rollback_canary": ("canary",), "fail_over": ("region",), "restore_region": ("region",),
    "scale_out": ("model_pool",), "restart_replicas": ("serving_pool",), "move_to_dedicated_gpus": ("gpu_pool",),
    "warm_cache": ("cache",), "flush_cache": ("cache",), "set_batcher_delay": ("batcher",),
    "move_traffic": ("traffic_entry", "canary"), "shed": (), "pin_previous_model": (), "retrain": (),
    "revert_config": ("*",), "switch_to_fallback": ("router",),
}


def mitigation_targets(session) -> dict[str, list[str]]:
    """For a mitigation picker: each mitigation this design allows, with the node ids it can
    target (``[""]`` when it takes none)."""
    design = session.timeline.design
    structure = session.timeline.structure()
    out: dict[str, list[str]] = {}
    for action, roles in TARGET_ROLES.items():
        if not roles:
            if action == "retrain" and session.quality.pipeline() is None:
                continue
            out[action] = [""]
        elif roles == ("*",):
            out[action] = sorted(design.nodes)
        elif roles == ("router",):
            found = sorted(n for n, (_, fallbacks) in structure.split.items() if fallbacks)
            if found:
                out[action] = found
        else:
            kinds = design.catalog.kinds_with_role(*roles)
            found = sorted(n.id for n in design.nodes.values() if n.kind in kinds)
            if found:
                out[action] = found
    return out
