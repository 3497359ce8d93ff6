"""The autoscaler's settings and its arithmetic: Kubernetes HPA recommendations (resource and
KEDA-style total metrics), the stabilisation windows' sliding extreme and a predictive schedule's
floor. No state over time: :mod:`autoscaling` runs these tick by tick for a pool.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

__all__ = ["AutoscalerConfig", "RecommendationWindow", "autoscaler_for", "hpa_desired", "hpa_desired_array",
           "schedule_floor"]


@dataclass(frozen=True)
class AutoscalerConfig:
    """An autoscaler's settings: the metric and target it scales on, its tolerance, periods, windows, bounds
    and scale-to-zero."""
    autoscaler_id: str
    metric: str
    target: float
    tolerance: float = 0.1
    sync_period_s: float = 15.0
    up_window_s: float = 0.0
    down_window_s: float = 300.0
    min_replicas: int = 1
    max_replicas: int = 10
    scale_to_zero: bool = False
    zero_grace_s: float = 30.0
    schedule: tuple[tuple[float, int], ...] = ()


def autoscaler_for(design, pool_id: str) -> AutoscalerConfig | None:
    """The autoscaler wired to ``pool_id``'s scaling input, with min/max clamped to the pool's."""
    for edge in design.edges.values():
        if edge.target != pool_id or edge.target_port != "scaling":
            continue
        source = design.nodes[edge.source]
        if source.kind != "autoscaler":
            continue
        a, pool = source.params, design.nodes[pool_id].params
        hi = min(int(a["max_replicas"]), int(pool.get("max_replicas", a["max_replicas"])))
        lo = min(max(int(a["min_replicas"]), int(pool.get("min_replicas", 0)), 1), hi)
        schedule = tuple(sorted((float(h), int(r)) for h, r in a.get("predictive_schedule", []))) \
            if a.get("predictive") else ()
        return AutoscalerConfig(source.id, str(a["metric"]), float(a["target"]), float(a["tolerance"]),
                                float(a["sync_period_s"]), float(a["scale_up_stabilization_s"]),
                                float(a["scale_down_stabilization_s"]), lo, max(hi, 1),
                                bool(a["scale_to_zero"]), float(a["scale_to_zero_grace_s"]), schedule)
    return None


def hpa_desired(metric: str, value: float, target: float, tolerance: float, replicas: int, ready: int) -> int:
    """One HPA recommendation. Per-pod metrics (utilisation, latency) follow the resource rules:
    ``ceil(ready × value/target)``, starting replicas counted as 0% when scaling up; total metrics
    (queue_depth, rps: KEDA AverageValue) give ``ceil(total / target)``. Within tolerance: no change."""
    if metric in ("queue_depth", "rps"):
        ratio = value / (target * max(replicas, 1))
        return replicas if abs(ratio - 1) <= tolerance else math.ceil(value / target - 1e-9)
    ratio = value / target
    starting = replicas - ready
    if starting <= 0 or ratio <= 1:
        return replicas if abs(ratio - 1) <= tolerance else math.ceil(ratio * ready - 1e-9)
    new_ratio = ratio * ready / replicas
    if abs(new_ratio - 1) <= tolerance or new_ratio < 1:
        return replicas
    return max(replicas, math.ceil(new_ratio * replicas - 1e-9))


def hpa_desired_array(metric: str, values: np.ndarray, target: float, tolerance: float, replicas: int,
                      ready: int | None = None) -> np.ndarray:
    """:func:`hpa_desired` over many ticks (same replicas and ready count throughout)."""
    ready = replicas if ready is None else ready
    if metric in ("queue_depth", "rps"):
        ratio = values / (target * max(replicas, 1))
        return np.where(np.abs(ratio - 1) <= tolerance, replicas, np.ceil(values / target - 1e-9))
    ratio = values / target
    plain = np.where(np.abs(ratio - 1) <= tolerance, replicas, np.ceil(ratio * ready - 1e-9))
    if ready >= replicas:
        return plain
    new_ratio = ratio * ready / replicas
    held = (np.abs(new_ratio - 1) <= tolerance) | (new_ratio < 1)
    grown = np.maximum(replicas, np.ceil(new_ratio * replicas - 1e-9))
    return np.where(ratio <= 1, plain, np.where(held, replicas, grown))


def schedule_floor(schedule, times_s: np.ndarray, lead_s: float) -> np.ndarray:
    """The predictive floor in force at ``times + lead`` (hour of the simulated day, wrapping)."""
    if not schedule:
        return np.zeros(len(times_s), dtype=np.int64)
    hours = np.array([h for h, _ in schedule])
    values = np.array([v for _, v in schedule], dtype=np.int64)
    hour = ((np.asarray(times_s) + lead_s) % 86400.0) / 3600.0
    index = np.searchsorted(hours, hour + 1e-9, side="right") - 1
    return values[index]  # index -1 wraps to the last entry of the previous day


class RecommendationWindow:
    """Sliding extreme (max, or min with ``sign=-1``) of recommendations newer than ``window_s``."""

    def __init__(self, window_s: float, sign: int):
        self.window, self.sign, self.items = window_s, sign, deque()

    def query_push(self, t: float, value: int) -> int:
        """The extreme over the window including ``value``; then remember ``value`` at ``t``."""
        items, sign = self.items, self.sign
        while items and items[0][0] <= t - self.window:
            items.popleft()
        best = value if not items else (max(value, items[0][1]) if sign > 0 else min(value, items[0][1]))
        while items and (items[-1][1] <= value if sign > 0 else items[-1][1] >= value):
            items.pop()
        items.append((t, value))
        return best
