"""Fault regimes of a timeline: the ticks over which the same faults are in force and the same regions
are still undetected, so that each regime is compiled once (:func:`fault_regimes`), and how long a
global load balancer takes to notice a regional outage (:func:`detection_delay`)."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from inferboard.model.design import Design
from inferboard.sim.design.faults import Fault, TimedFault


def detection_delay(design: Design, region: str) -> tuple[float, bool]:
    """Seconds until a global load balancer marks ``region`` unhealthy, and whether it fails over."""
    delay, failover = math.inf, False
    for edge in design.edges.values():
        source, target = design.nodes[edge.source], design.nodes[edge.target]
        if source.kind == "global_load_balancer" and (target.region == region or target.id == region):
            found = float(source.params["health_check_interval_s"]) * int(source.params["unhealthy_threshold"])
            delay = found if not math.isfinite(delay) else max(delay, found)
            failover = failover or bool(source.params["failover"])
    return delay, failover


def fault_regimes(design: Design, faults: Sequence[TimedFault], times: np.ndarray, extra: frozenset = frozenset()):
    """Per tick its regime's index; per regime (faults to compile with, undetected regions). ``extra``:
    faults in force throughout (operations such as a failover or a cache flush, already detected)."""
    delays = {f.target: detection_delay(design, f.target)[0] for f in faults if f.kind == "region_outage"}
    points = {0.0}
    for f in faults:
        points.update((f.start_s, f.start_s + f.duration_s))
        if f.kind == "region_outage" and math.isfinite(delays[f.target]):
            points.add(f.start_s + delays[f.target])
    interval = np.searchsorted(np.array(sorted(points)), times, side="right")
    keys: list[tuple[frozenset, frozenset]] = []
    regime = np.zeros(times.size, dtype=np.int64)
    for value in np.unique(interval):
        mask = interval == value
        t = float(times[np.argmax(mask)])
        active = [f for f in faults if f.active(t)]
        known = {f.target for f in extra if f.kind == "region_outage"}
        key = (frozenset(Fault(f.kind, f.target, f.magnitude) for f in active if f.kind != "spot_reclaimed") | extra,
               frozenset(f.target for f in active if f.kind == "region_outage" and t < f.start_s + delays[f.target]
                         and f.target not in known))
        if key not in keys:
            keys.append(key)
        regime[mask] = keys.index(key)
    return regime, keys
