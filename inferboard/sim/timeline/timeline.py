"""A day (or any horizon) of the design tick by tick: traffic, faults, autoscaling, latency, cost.

1. Offered traffic per tick comes from :mod:`traffic` (mean rate over the tick).
2. The design is compiled once per distinct set of active faults (a "regime"), never per tick (at
   the rates where a rate-dependent router starts to act too, for the station parameters that
   follow the rate, as an LLM pool's). A region outage is "undetected" (its traffic still sent
   there and lost) until health_check_interval_s × unhealthy_threshold of the global load balancer
   in front of it has passed; then the routing fails over.
3. Routing is evaluated per tick (:mod:`tick_routing`): the tick's rate, and each pool's capacity
   per replica × the replicas ready at the end of the tick before, so load-balancer weights by
   capacity, fallback overflow, admission control and rate limits act in the ticks whose rate and
   ready capacity call for it, whether the rate comes from the traffic pattern or a surge fault.
   Each pool's replicas come from :class:`autoscaling.PoolController` (HPA/KEDA/Knative rules,
   provisioning, GPU shortage caps, spot reclaims); pools whose routing reads each other's
   capacity run their loops together with the routing (:mod:`timeline_routing`). The autoscaler
   reads its metric from the pool's own queue at the rate routed to it (before losses upstream),
   via per-replica-count tables over load (:class:`metric_tables.MetricTable`), with the pool's
   carried backlog added (:class:`timeline_state.BacklogMetric`): queue depth counts the backlog,
   utilisation is 100% while one exists.
4. Each pool carries a backlog from tick to tick (:mod:`fluid`): a fluid queue with abandonment,
   ``b[k+1] = min(max(0, b[k] + (arrivals - capacity) dt), capacity × time-out)``, the part cut off
   timing out (the stationary-backlog-carry-over idea of Stolletz 2008). Where no backlog exists
   or forms, a tick is the steady-state queue at the tick's arrival rate and ready servers
   (:func:`tickqueue.station_state`): utilisation, mean wait, queue length (Little), requests shed
   by timeouts, a full waiting room or missing capacity. Where one does, the wait is the backlog's
   (of the requests completing in the tick) plus the steady wait at 90% load at most, and losses
   are the fluid ones. Stations are taken in topological order and each path's traffic is thinned
   by the losses and errors upstream.
5. End-to-end percentiles: a path's sojourn is the sum of its stations' sojourns plus its fixed
   delays (load balancers, cache hits, network); its mean and variance are sums along the path
   (stations independent) and it is approximated by a moment-matched lognormal. The end-to-end
   distribution is the mixture of the paths' lognormals weighted by the traffic each serves;
   p50/p95/p99 come from vectorised bisection on log t (:func:`lognormal_mixture.mixture_quantiles`).
   Per-hop percentiles are never added. This is an approximation for speed; the steady-state
   solver's full convolution of the station distributions is the reference.
6. ``shed_rate`` = shed at routers + timed out / rejected at pools; ``error_rate`` = lost to dead
   regions or unrouted + failed by servers; both fractions of the offered traffic. Percentiles
   are over served requests and 0 in a tick where nothing is served.
7. Cost per hour = replicas (starting ones included) × the pool's on-demand/spot price per replica
   (spot share as configured, none while a spot reclaim fault lasts) + the other nodes' fixed costs
   and per-request charges (scaled with the tick's rate); a dead region costs nothing.
8. Burn rate = bad fraction / (1 - availability SLO), 99.9% when none is declared. Bad = errors +
   shed + the share of requests slower than the p99 SLO beyond the 1% the p99 target allows, so a
   design exactly at its p99 target burns nothing for latency. Alerts follow the SRE workbook's
   multi-window table: page when the 1 h and 5 min means both exceed 14.4× (fast burn) or the 6 h
   and 30 min means both exceed 6× (slow burn); windows trail and are partial at the start.

Every series is finite: no NaN or infinity, nothing negative, fractions in [0, 1], latencies at
most one hour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from inferboard.model.design import Design
from inferboard.sim.design.compile import compile_design  # noqa: F401  (timeline_state compiles through this name)
from inferboard.sim.design.faults import FAULT_KINDS, Fault, TimedFault
from inferboard.sim.design.hardware import plan_pool
from inferboard.sim.quality.quality import measures_quality, quality_timeline

MAX_TICKS = 2_000_000
DEFAULT_AVAILABILITY = 99.9
LATENCY_ALLOWANCE = 0.01


MAX_LATENCY_MS = 3.6e6
MAX_VALUE = 1e15
PERCENTILES = ((0.5, "p50_ms"), (0.95, "p95_ms"), (0.99, "p99_ms"))


@dataclass(frozen=True)
class TimelineEvent:
    time_s: float
    kind: str
    node_id: str
    message: str

    def to_dict(self) -> dict:
        return {"time_s": float(self.time_s) if math.isfinite(self.time_s) else 0.0, "kind": self.kind,
                "node_id": self.node_id, "message": self.message}


@dataclass
class TimelineResult:
    times_s: np.ndarray
    series: dict[str, np.ndarray]
    events: list[TimelineEvent]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """Plain lists and finite floats, ready for JSON."""
        return {"times_s": finite(self.times_s).tolist(),
                "series": {k: finite(v).tolist() for k, v in self.series.items()},
                "events": [e.to_dict() for e in self.events], "notes": list(self.notes)}


def finite(values: np.ndarray, high: float = MAX_VALUE) -> np.ndarray:
    """No NaN or infinity, nothing negative, nothing above ``high``; denormal dust becomes 0."""
    out = np.clip(np.nan_to_num(np.asarray(values, dtype=float), nan=0.0, posinf=high, neginf=0.0), 0.0, high)
    out[out < 1e-200] = 0.0
    return out


# ----------------------------------------------------------------------------- fault regimes
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


# ----------------------------------------------------------------------------- the run
def _tick_of(times: np.ndarray, t: float) -> int:
    """The first tick at or after ``t`` (the tick a fault starting at t first shows in)."""
    return int(np.searchsorted(times, t, side="left"))


def run_timeline(design: Design, hours: float = 24.0, tick_s: float = 60.0, pattern: str | None = None,
                 faults: Sequence[Fault] = (), seed: int = 0, replay_csv: Path | str | None = None) -> TimelineResult:
    """Simulate ``hours`` of the design at ``tick_s`` resolution (see the module docstring): a
    :class:`timeline_state.TimelineState` advanced over the whole horizon at once. A plain
    :class:`Fault` (no timing) lasts the whole run; ``pattern`` defaults to the requirements' (or
    ``replay`` when a CSV is given)."""
    from inferboard.sim.timeline.timeline_state import Timeline

    state = Timeline.start(design, pattern, faults, hours, tick_s, seed, replay_csv)
    return with_quality(design, faults, state.advance_ticks(state.count).result(), seed)


def with_quality(design: Design, faults: Sequence[Fault], result: TimelineResult, seed: int = 0,
                 accuracy_target: float | None = None) -> TimelineResult:
    """``result`` with the model-quality series and events (:func:`quality.quality_timeline`) added,
    when the design has quality to measure; otherwise ``result`` itself, at no cost.
    ``accuracy_target`` judges by another target than the design's (a scenario's own)."""
    if not measures_quality(design, faults) and accuracy_target is None:
        return result
    series, events = quality_timeline(design, faults, result.times_s, result.series, seed, accuracy_target)
    result.series.update({name: finite(values) for name, values in series.items()})
    merged = [*result.events, *(TimelineEvent(t, kind, node, message) for t, kind, node, message in events)]
    result.events[:] = sorted(merged, key=lambda e: e.time_s)
    return result


def _pool_prices(design: Design, node) -> tuple[float, float]:
    """(on-demand, spot) price per replica per hour, from the hardware plan."""
    return tuple(plan_pool(node.with_changes(params={**dict(node.params), "replicas": 1, "spot_share": share}),
                           design.catalog, design.requirements, ()).price_per_hour for share in (0.0, 1.0))


def cost_series(design, pools, compiled, keys, regime, offered, tracks, timed, times,
                memo: dict | None = None) -> np.ndarray:
    """Cost per hour per tick; ``keys[regime[i]]`` is tick i's fault regime, ``compiled[regime[i]]`` its
    compile. ``memo`` keeps per-compile and per-pool figures across the stretches of a stepped run."""
    memo = {} if memo is None else memo
    static, per_request, down = [], [], []
    for c, key in zip(compiled, keys):
        found = memo.get(("compile", id(c)))
        if found is not None:
            static.append(found[0])
            per_request.append(found[1])
            down.append(found[2])
            continue
        dead = {f.target for f in key[0] if f.kind == "region_outage"} | set(key[1])
        fixed = variable = 0.0
        for node_id, item in c.cost_items.items():
            node = design.nodes[node_id]
            if node.region in dead or node_id in dead:
                continue
            charge = design.catalog.kind(node.kind).cost.per_million_requests * c.node_rates.get(node_id, 0.0) * 3.6e-3
            fixed += item - charge - (c.plans[node_id].price_per_hour if node_id in c.plans else 0.0)
            variable += charge / c.offered_rps if c.offered_rps > 0 else 0.0
        static.append(fixed)
        per_request.append(variable)
        down.append([p.region in dead or p.id in dead for p in pools])
        memo[("compile", id(c))] = (fixed, variable, down[-1], c)  # the compile kept alive with its id
    total = np.array(static)[regime] + np.array(per_request)[regime] * offered
    down = np.array(down, dtype=bool).reshape(len(compiled), len(pools))[regime]
    for k, p in enumerate(pools):
        prices = memo.get(("pool", p.id))
        if prices is None:
            prices = memo[("pool", p.id)] = _pool_prices(design, p)
        on_demand, spot_price = prices
        n = tracks[p.id].replicas
        reclaimed = np.zeros(times.size, dtype=bool)
        for f in timed:
            if f.kind == "spot_reclaimed" and f.hits(p.id):
                reclaimed |= (times >= f.start_s) & (times < f.start_s + f.duration_s)
        spot = np.where(reclaimed, 0.0, np.round(n * float(p.params.get("spot_share", 0.0))))
        total = total + np.where(down[:, k], 0.0, (n - spot) * on_demand + spot * spot_price)
    return total


from inferboard.sim.timeline.timeline_events import stretch_events  # noqa: E402,F401  (re-exported)
