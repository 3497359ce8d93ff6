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


def operations_for(session, action: str, target: str, value: float | None) -> list[Callable[[], None]]:
    """The steps of ``action`` (checked first: a ValueError means nothing is done)."""
    state, quality = session.timeline, session.quality
    spec = VALUE_SPECS.get(action)
    if spec is not None and value is not None:
        if not (spec.low < value if spec.low_open else spec.low <= value) or value > spec.high:
            raise ValueError(f"the {spec.label} must be {'above' if spec.low_open else 'at least'} {spec.low:g} "
                             f"and at most {spec.high:g}")

    def timeline(op) -> Callable[[], None]:
        return lambda: state.apply(op)

    if action == "rollback_canary":
        _kind(session, target, *TARGET_ROLES["rollback_canary"])
        stable = [p for p, r in quality.pools.items() if r == "stable"]

        def back_to_stable() -> None:
            if stable:
                quality.set_version(session.now_s, quality.version_of(stable[0], session.now_s), f"canary:{target}")
        return [timeline(sim.RollbackCanary(target)), back_to_stable]
    if action == "scale_out":
        _kind(session, target, *TARGET_ROLES["scale_out"])
        factor = DEFAULT_SCALE if value is None else float(value)
        if not 1.0 < factor <= 10.0:
            raise ValueError("the scale factor must be above 1 and at most 10")
        k = max(0, state.ticks_done - 1)
        current = float(state.tracks[target].replicas[k]) if state.ticks_done else float(
            state.design.nodes[target].params.get("replicas", 1))
        replicas = max(1, int(math.ceil(current * factor)))
        scaler = state.scalers.get(target)
        high = max(scaler.max_replicas, replicas) if scaler else None
        return [timeline(sim.ScalePool(target, replicas=replicas, max_replicas=high))]
    if action == "fail_over":
        _kind(session, target, *TARGET_ROLES["fail_over"])
        return [timeline(sim.FailOverRegion(target))]
    if action == "restore_region":
        _kind(session, target, *TARGET_ROLES["restore_region"])
        return [timeline(sim.RestoreRegion(target))]
    if action == "switch_to_fallback":
        op = sim.SwitchToFallback(target)
        structure = state.structure()
        if target not in structure.kind or not structure.split[target][1]:
            raise ValueError(f"'{target}' has no fallback model below it")
        return [timeline(op)]
    if action == "shed":
        share = DEFAULT_SHED if value is None else float(value)
        if not 0.0 <= share <= 0.9:
            raise ValueError("the shed share must be between 0 and 0.9")
        return [timeline(sim.ShedPriority(share))]
    if action == "warm_cache":
        _kind(session, target, *TARGET_ROLES["warm_cache"])
        return [timeline(sim.WarmCache(target)), timeline(ClearFaults(target, ("cache_flush",)))]
    if action == "flush_cache":
        _kind(session, target, *TARGET_ROLES["flush_cache"])
        return [timeline(sim.FlushCache(target))]
    if action == "revert_config":
        _kind(session, target)
        before = {}
        for edit in session.drill.plant.edits:
            if session.node_for(edit.target) == target and edit.at_min * 60.0 <= session.now_s:
                for key in edit.params:
                    before.setdefault(key, session.design.nodes[target].params.get(key))
        if not before:
            return [lambda: None]  # nothing changed there: reverting does nothing
        return [timeline(SetParams(target, tuple(sorted(before.items()))))]
    if action == "restart_replicas":
        _kind(session, target, *TARGET_ROLES["restart_replicas"])
        return [timeline(ClearFaults(target, ("slow_replica", "failing_replica")))]
    if action == "move_to_dedicated_gpus":
        _kind(session, target, *TARGET_ROLES["move_to_dedicated_gpus"])
        node = state.design.nodes[target]
        ops = [timeline(ClearFaults(target, ("slow_replica",)))]
        if node.params.get("partitioning", "none") != "none":
            ops.insert(0, timeline(SetParams(target, (("partitioning", "none"), ("partitions", 1)))))
        return ops
    if action == "pin_previous_model":
        previous = quality.previous_version(session.now_s)
        if previous is None:
            raise ValueError("no earlier model version to pin: the one serving is the first")
        return [lambda: quality.set_version(session.now_s, previous, "all")]
    if action == "retrain":
        if quality.pipeline() is None:
            raise ValueError("the design has no retraining pipeline")
        return [lambda: quality.start_retraining(session.now_s, "started by the on-call engineer")]
    if action == "set_batcher_delay":
        _kind(session, target, *TARGET_ROLES["set_batcher_delay"])
        if value is None or value < 0:
            raise ValueError("a delay in ms (value) is needed")
        return [timeline(sim.SetBatcherDelay(target, float(value)))]
    if action == "move_traffic":
        _kind(session, target, *TARGET_ROLES["move_traffic"])
        if value is None or not 0.0 <= value <= 1.0:
            raise ValueError("a share between 0 and 1 (value) is needed")
        return [timeline(sim.MoveTraffic(target, float(value)))]
    raise ValueError(f"unknown mitigation '{action}'")



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
