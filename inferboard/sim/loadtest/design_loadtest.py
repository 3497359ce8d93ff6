"""The request-level load test of a whole design: the same compiled network as the steady state,
simulated request by request (``loadtest.py``), reported in milliseconds and per node."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from inferboard.model.design import Design
from inferboard.sim.design.compile import compile_design
from inferboard.sim.design.faults import Fault
from inferboard.sim.loadtest.loadtest import TARGET_PRECISION, LoadTestResult, run_load_test


def _ms(value: float) -> float | None:
    return value * 1000 if math.isfinite(value) else None


@dataclass
class DesignLoadTest:
    """What the GUI and ``inferboard simulate --load-test`` show."""

    n_requests: int
    offered_rps: float
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    mean_ms: float | None
    ci_ms: dict[str, tuple[float | None, float | None]]
    histogram_edges_ms: np.ndarray
    histogram_counts: np.ndarray
    served: int
    shed: int
    timed_out: int
    errors: int
    in_flight: int
    throughput_rps: float
    cancelled: bool
    wall_time_s: float
    #: node id -> {"arrivals", "utilisation", "mean_queue_len", "max_queue_len", "mean_wait_ms"}
    nodes: dict[str, dict[str, float]] = field(default_factory=dict)
    raw: LoadTestResult | None = field(default=None, repr=False)
    #: the run is too short for the requested precision, e.g. "p99 ±9%: run 4.0M requests for ±5%"
    warnings: list[str] = field(default_factory=list)
    #: non-empty when the load was not the declared mean (no traffic figures declared)
    load_note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The load test as plain values for JSON: counts, percentiles with their intervals, histogram and
        per-node figures."""
        return {
            "n_requests": self.n_requests, "offered_rps": self.offered_rps, "p50_ms": self.p50_ms,
            "p95_ms": self.p95_ms, "p99_ms": self.p99_ms, "mean_ms": self.mean_ms,
            "ci_ms": {k: list(v) for k, v in self.ci_ms.items()},
            "histogram_edges_ms": [float(x) for x in self.histogram_edges_ms],
            "histogram_counts": [int(x) for x in self.histogram_counts],
            "served": self.served, "shed": self.shed, "timed_out": self.timed_out, "errors": self.errors,
            "in_flight": self.in_flight, "throughput_rps": self.throughput_rps, "cancelled": self.cancelled,
            "wall_time_s": self.wall_time_s, "nodes": self.nodes, "warnings": list(self.warnings),
            "notes": [self.load_note] if self.load_note else [],
        }

    def table(self) -> str:
        """The load test as a text table for the command line."""
        def num(v):
            return "-" if v is None else f"{v:,.2f}"

        lines = [f"load test: {self.n_requests:,} requests at {self.offered_rps:,.1f} rps"
                 + (" (cancelled)" if self.cancelled else "") + f", {self.wall_time_s:.2f} s wall",
                 f"served {self.served:,}  shed {self.shed:,}  timed out {self.timed_out:,}  errors {self.errors:,}"]
        if self.load_note:
            lines.append(f"note: {self.load_note}")
        for key in ("p50", "p95", "p99", "mean"):
            low, high = self.ci_ms.get(key, (None, None))
            lines.append(f"  {key:<5} {num(getattr(self, key + '_ms')):>10} ms   95% CI [{num(low)}, {num(high)}]")
        lines.extend(f"  warning: {text}" for text in self.warnings)
        lines.append("")
        lines.append(f"{'node':<24} {'arrivals':>10} {'util':>6} {'mean queue':>10} {'max queue':>9}")
        for node_id, stats in self.nodes.items():
            lines.append(f"{node_id[:24]:<24} {int(stats['arrivals']):>10,} {stats['utilisation']:>6.0%} "
                         f"{stats['mean_queue_len']:>10.2f} {int(stats['max_queue_len']):>9}")
        return "\n".join(lines)


def _utilisation(compiled, station, raw: LoadTestResult) -> float:
    """A station's busy fraction; for an LLM pool, as in the steady state, its served rate over the
    capacity of the FLOPs/HBM replica model (its servers are KV-cache slots, whose occupancy
    understates the load)."""
    plan = compiled.plans.get(station.node_id)
    if plan is not None and plan.kind == "generation_pool" and plan.capacity_rps and raw.sim_time_s > 0:
        return float(min(1.0, station.served / raw.sim_time_s / plan.capacity_rps))
    return float(station.utilisation)


def run_design_load_test(design: Design, n_requests: int, seed: int = 0,
                         progress: Callable[[float], None] | None = None,
                         cancel: Callable[[], bool] | None = None, rps: float | None = None,
                         faults: Sequence[Fault] = (), target_precision: float = TARGET_PRECISION) -> DesignLoadTest:
    """Simulate ``n_requests`` individual requests through ``design`` (seeded, cancellable).
    ``target_precision``: relative half-width of the 95% intervals above which a warning asks for
    a longer run."""
    compiled = compile_design(design, rps, [f for f in faults if getattr(f, "start_s", 0.0) <= 0])
    raw = run_load_test(compiled.network, n_requests, seed=seed, progress=progress, cancel=cancel,
                        target_precision=target_precision)
    ci = {}
    for key in ("p50", "p95", "p99", "mean"):
        estimate = getattr(raw, f"{key}_s")
        ci[key] = (_ms(estimate.ci_low), _ms(estimate.ci_high))
    nodes = {}
    for station in raw.stations.values():
        if not station.node_id or station.node_id not in design.nodes:
            continue
        nodes[station.node_id] = {"arrivals": float(station.arrivals), "utilisation": _utilisation(compiled, station, raw),
                                  "mean_queue_len": float(station.mean_queue_len),
                                  "max_queue_len": float(station.max_queue_len),
                                  "mean_wait_ms": float(station.mean_wait_s * 1000)
                                  if math.isfinite(station.mean_wait_s) else 0.0}
    return DesignLoadTest(
        n_requests, compiled.offered_rps, _ms(raw.p50_s.value), _ms(raw.p95_s.value), _ms(raw.p99_s.value),
        _ms(raw.mean_s.value), ci, raw.histogram_edges_ms, raw.histogram_counts, raw.served, raw.shed,
        raw.timed_out, raw.errors, raw.in_flight, raw.throughput_rps, raw.cancelled, raw.wall_time_s, nodes, raw,
        list(raw.warnings), compiled.load_note)
