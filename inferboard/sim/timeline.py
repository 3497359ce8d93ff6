"""A day (or any horizon) of the design tick by tick: traffic, faults, autoscaling, latency, cost.

1. Offered traffic per tick comes from :mod:`traffic` (mean rate over the tick).
2. The design is compiled once per distinct set of active faults (a "regime"), never per tick; the
   routing fractions of that compile (path shares, router shedding, lost traffic) scale with the
   tick's rate, so routing that depends on the rate (fallback overflow, admission control, rate
   limits) is taken at the reference rate, the requirements' mean. A region outage is "undetected"
   (its traffic still sent there and lost) until health_check_interval_s × unhealthy_threshold of
   the global load balancer in front of it has passed; then the compile fails over.
3. Each pool's replicas come from :func:`autoscaling.simulate_pool` (HPA/KEDA/Knative rules,
   provisioning, GPU shortage caps, spot reclaims). The autoscaler reads its metric from the pool's
   own queue at the offered rate (before losses upstream), via per-replica-count tables over load
   (:class:`tickqueue._MetricTable`).
4. Each pool is a steady-state queue at the tick's arrival rate and ready servers
   (:func:`tickqueue.station_state`): utilisation, mean wait, queue length (Little), requests shed
   by timeouts, a full waiting room or missing capacity. Stations are taken in topological order
   and each path's traffic is thinned by the losses and errors upstream. Caveat (references §1.2):
   a tick is a steady state, valid when the tick is long against the relaxation time
   ``1/(mu (1 - rho)^2)``; backlogs do not carry over between ticks (the load test shows transients).
5. End-to-end percentiles: a path's sojourn is the sum of its stations' sojourns plus its fixed
   delays (load balancers, cache hits, network); its mean and variance are sums along the path
   (stations independent) and it is approximated by a moment-matched lognormal. The end-to-end
   distribution is the mixture of the paths' lognormals weighted by the traffic each serves;
   p50/p95/p99 come from vectorised bisection on log t (:func:`tickqueue.mixture_quantiles`).
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
from inferboard.sim.autoscaling import PoolPlanOverTime, autoscaler_for, simulate_pool
from inferboard.sim.compile import DesignStructure, compile_design, default_load
from inferboard.sim.faults import FAULT_KINDS, Fault, TimedFault
from inferboard.sim.hardware import POOL_KINDS, plan_pool
from inferboard.sim.tickqueue import (_MetricTable, _Tables, mixture_cdf, mixture_lognormal, mixture_quantiles,
                                      station_state)
from inferboard.sim.traffic import traffic_series

MAX_TICKS = 2_000_000
DEFAULT_AVAILABILITY = 99.9
LATENCY_ALLOWANCE = 0.01
BURN_WINDOWS = ((3600.0, 300.0, 14.4, "fast burn"), (21600.0, 1800.0, 6.0, "slow burn"))
SHED_ON, SHED_OFF = 1e-3, 5e-4
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
        return {"times_s": _finite(self.times_s).tolist(),
                "series": {k: _finite(v).tolist() for k, v in self.series.items()},
                "events": [e.to_dict() for e in self.events], "notes": list(self.notes)}


def _finite(values: np.ndarray, high: float = MAX_VALUE) -> np.ndarray:
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


def _regimes(design: Design, faults: Sequence[TimedFault], times: np.ndarray):
    """Per tick its regime's index; per regime (faults to compile with, undetected regions)."""
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
        key = (frozenset(Fault(f.kind, f.target, f.magnitude) for f in active if f.kind != "spot_reclaimed"),
               frozenset(f.target for f in active if f.kind == "region_outage" and t < f.start_s + delays[f.target]))
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
    """Simulate ``hours`` of the design at ``tick_s`` resolution (see the module docstring). A plain
    :class:`Fault` (no timing) lasts the whole run; ``pattern`` defaults to the requirements' (or
    ``replay`` when a CSV is given)."""
    if not (math.isfinite(hours) and hours > 0 and math.isfinite(tick_s) and tick_s > 0):
        raise ValueError("hours and tick_s must be finite and > 0")
    count = int(math.ceil(hours * 3600.0 / tick_s - 1e-9))
    if count > MAX_TICKS:
        raise ValueError(f"{count} ticks is more than the {MAX_TICKS} a timeline may have; use a longer tick")
    times = np.arange(count, dtype=float) * tick_s
    req = design.requirements
    mean, load_note = (float(req.mean_rps), "") if req.mean_rps is not None else default_load(req)
    peak = float(req.peak_rps) if req.peak_rps is not None else 2.0 * mean
    pattern = pattern or ("replay" if replay_csv is not None else req.traffic_pattern)
    base = traffic_series(pattern, mean, peak, times, seed, replay_csv, horizon_s=hours * 3600.0)
    timed = [f if isinstance(f, TimedFault) else TimedFault(f.kind, f.target, f.magnitude, 0.0, times[-1] + tick_s)
             for f in faults]
    events: list[tuple[float, int, TimelineEvent]] = []

    def emit(t: float, kind: str, node_id: str, message: str) -> None:
        events.append((t, len(events), TimelineEvent(float(t), kind, node_id, message)))

    pools = [n for n in design.nodes.values() if n.kind in POOL_KINDS]
    scalers = {p.id: autoscaler_for(design, p.id) for p in pools}
    initial = {}
    for p in pools:
        a, configured = scalers[p.id], int(p.params.get("replicas", 1))
        initial[p.id] = configured if a is None else (
            0 if a.scale_to_zero and configured == 0 else min(max(configured, a.min_replicas), a.max_replicas))
    regime, keys = _regimes(design, timed, times)
    reference = mean if mean > 0 else 1.0
    override = {pid: max(1, n) for pid, n in initial.items() if scalers[pid] is not None}
    structure = DesignStructure(design)  # one rate-independent compile shared by the regimes
    compiled = [compile_design(design, reference, sorted(k[0], key=repr), override, sorted(k[1]), structure=structure)
                for k in keys]
    base_spr = {p.id: float(plan_pool(p, design.catalog, req, (), {p.id: 1}).servers) for p in pools}
    tables = _Tables(design, compiled, base_spr)
    offered = _finite(base * np.array([c.offered_rps / reference for c in compiled])[regime])

    tracks = {}
    for p in pools:  # replicas over time, pool by pool
        j, a = tables.index.get(p.id), scalers[p.id]
        lam = offered * tables.share[j][regime] if j is not None else np.zeros(count)
        fault_ticks: dict[int, list] = {}
        for f in timed:
            if f.hits(p.id) and (f.kind == "spot_reclaimed" or f.kind == "gpu_shortage" and p.kind in (
                    "gpu_pool", "generation_pool")):
                for t, started in ((f.start_s, True), (f.start_s + f.duration_s, False)):
                    if _tick_of(times, t) < count:
                        fault_ticks.setdefault(_tick_of(times, t), []).append((f.kind, started, f.amount))
        sig = tables.params[j]["sig"][regime] if j is not None else np.zeros(count, dtype=np.int64)
        metric_at = _MetricTable(a.metric if a else "rps", lam, sig, tables, j,
                                 a.min_replicas if a else 0, a.max_replicas if a else 0)
        plan = PoolPlanOverTime(p.id, initial[p.id], float(p.params.get("provisioning_s", 0.0)),
                                float(p.params.get("spot_share", 0.0)), a, fault_ticks,
                                tuple((np.flatnonzero(np.diff(sig)) + 1).tolist()))
        tracks[p.id] = simulate_pool(plan, times, lam, metric_at, emit)

    series, station_loss = _stations(tables, compiled, regime, offered, tracks, times, req)
    series["cost_per_hour"] = _cost(design, pools, compiled, keys, regime, offered, tracks, timed, times)
    for p in pools:
        series[f"replicas:{p.id}"] = tracks[p.id].replicas
        series[f"ready:{p.id}"] = tracks[p.id].ready
        for prefix in ("utilisation", "queue", "arrival_rps", "wait_ms"):
            series.setdefault(f"{prefix}:{p.id}", np.zeros(count))
    series = {k: _finite(v, 1.0 if k in ("shed_rate", "error_rate") or k.startswith("utilisation:") else MAX_VALUE)
              for k, v in series.items()}
    _fault_events(design, timed, times, series, emit)
    _threshold_events(req, times, tick_s, series, station_loss, compiled, regime, emit)
    notes = ([load_note] if load_note else []) + sorted({n for c in compiled for n in c.notes})
    return TimelineResult(times, series, [e for _, _, e in sorted(events, key=lambda x: x[:2])], notes)


def _stations(tables: _Tables, compiled, regime, offered, tracks, times, req):
    """Per-station and end-to-end series; stations in topological order, paths thinned by losses."""
    count = times.size
    weights = tables.weights[:, regime]
    paths = weights.shape[0]
    alive, shed_mass, err_mass = np.ones((paths, count)), np.zeros((paths, count)), np.zeros((paths, count))
    path_mean = np.array(tables.path_delay, dtype=float).reshape(paths, 1) + np.zeros((paths, count))
    path_var = np.zeros((paths, count))
    series: dict[str, np.ndarray] = {}
    station_loss: dict[str, np.ndarray] = {}
    for j, sid in enumerate(tables.stations):
        rows = tables.members[j]
        lam = offered * (weights[rows] * alive[rows]).sum(axis=0) if rows else np.zeros(count)
        series[f"arrival_rps:{sid}"] = lam
        if not lam.any():
            continue
        track = tracks[sid]
        cold = np.where(np.isfinite(track.first_ready_s), track.first_ready_s - times, np.inf)
        state = station_state(lam, track.ready, tables.station_params(j, regime), cold)
        err = tables.params[j]["err"][regime]
        for p in rows:
            shed_mass[p] += alive[p] * state.loss
            err_mass[p] += alive[p] * (1 - state.loss) * err
            alive[p] *= (1 - state.loss) * (1 - err)
            path_mean[p] += state.sojourn_s
            path_var[p] += state.sojourn_var
        station_loss[sid] = state.loss
        series[f"utilisation:{sid}"] = state.busy
        series[f"queue:{sid}"] = state.queue
        series[f"wait_ms:{sid}"] = np.minimum(state.wait_s * 1000.0, MAX_LATENCY_MS)
    per = [(c.lost_rps / c.offered_rps, sum(c.shed_rps.values()) / c.offered_rps) if c.offered_rps > 0 else (0.0, 0.0)
           for c in compiled]
    lost, router_shed = (np.array(v) for v in zip(*per))
    unrouted = np.maximum(0.0, 1.0 - tables.weights.sum(axis=0) - lost - router_shed)
    served_weights = weights * alive
    served = np.clip(served_weights.sum(axis=0), 0.0, 1.0)
    idle = offered <= 0
    series["offered_rps"] = offered
    series["throughput_rps"] = offered * served
    series["shed_rate"] = np.where(idle, 0.0, router_shed[regime] + (weights * shed_mass).sum(axis=0))
    series["error_rate"] = np.where(idle, 0.0, (lost + unrouted)[regime] + (weights * err_mass).sum(axis=0))
    used = np.flatnonzero(served_weights.any(axis=1))  # paths that serve something at some tick
    w, mu, sigma, has = mixture_lognormal(served_weights[used], path_mean[used], path_var[used])
    probs = [p for p, _ in PERCENTILES]
    values = mixture_quantiles(w, mu, sigma, probs) * 1000.0 if used.size else np.zeros((len(probs), count))
    for row, (_, key) in zip(values, PERCENTILES):
        series[key] = np.where(has & ~idle, np.minimum(row, MAX_LATENCY_MS), 0.0)
    slow = np.zeros(count)
    if req.slo_p99_ms is not None and used.size:
        at = np.full((1, count), math.log(req.slo_p99_ms / 1000.0), dtype=np.float32)
        slow = np.where(has, 1.0 - mixture_cdf(at, w, mu, sigma)[0], 0.0)
    bad = np.clip(series["error_rate"] + series["shed_rate"] + np.maximum(0.0, slow - LATENCY_ALLOWANCE) * served, 0, 1)
    availability = req.availability_slo if req.availability_slo is not None else DEFAULT_AVAILABILITY
    series["burn_rate"] = bad / (1.0 - availability / 100.0)
    return series, station_loss


def _pool_prices(design: Design, node) -> tuple[float, float]:
    """(on-demand, spot) price per replica per hour, from the hardware plan."""
    return tuple(plan_pool(node.with_changes(params={**dict(node.params), "replicas": 1, "spot_share": share}),
                           design.catalog, design.requirements, ()).price_per_hour for share in (0.0, 1.0))


def _cost(design, pools, compiled, keys, regime, offered, tracks, timed, times) -> np.ndarray:
    static, per_request, down = [], [], []
    for c, key in zip(compiled, keys):
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
    total = np.array(static)[regime] + np.array(per_request)[regime] * offered
    down = np.array(down, dtype=bool).reshape(len(compiled), len(pools))[regime]
    for k, p in enumerate(pools):
        on_demand, spot_price = _pool_prices(design, p)
        n = tracks[p.id].replicas
        reclaimed = np.zeros(times.size, dtype=bool)
        for f in timed:
            if f.kind == "spot_reclaimed" and f.hits(p.id):
                reclaimed |= (times >= f.start_s) & (times < f.start_s + f.duration_s)
        spot = np.where(reclaimed, 0.0, np.round(n * float(p.params.get("spot_share", 0.0))))
        total = total + np.where(down[:, k], 0.0, (n - spot) * on_demand + spot * spot_price)
    return total


# ----------------------------------------------------------------------------- events
def _edges(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d = np.diff(np.concatenate(([0], flags.astype(np.int8))))
    return np.flatnonzero(d == 1), np.flatnonzero(d == -1)


def _hysteresis(values: np.ndarray, on: float, off: float) -> np.ndarray:
    """True from a value above ``on`` until the next one below ``off``."""
    state = np.full(values.size, -1, dtype=np.int8)
    state[values > on], state[values < off] = 1, 0
    index = np.where(state >= 0, np.arange(values.size), 0)
    return state[np.maximum.accumulate(index)] == 1


def _rolling_mean(values: np.ndarray, window_s: float, tick_s: float) -> np.ndarray:
    n = max(1, int(round(window_s / tick_s)))
    cumulative = np.concatenate(([0.0], np.cumsum(values)))
    i = np.arange(values.size)
    low = np.maximum(0, i + 1 - n)
    return (cumulative[i + 1] - cumulative[low]) / (i + 1 - low)


def _flag_events(times, flags, emit, node_id, kinds, on_message, off_message) -> None:
    rises, falls = _edges(flags)
    for i in rises:
        emit(times[i], kinds[0], node_id, on_message(i))
    for i in falls:
        emit(times[i], kinds[1], node_id, off_message)


def _fault_events(design, timed, times, series, emit) -> None:
    bad, count = series["error_rate"] + series["shed_rate"], times.size
    for f in timed:
        start, end = _tick_of(times, f.start_s), _tick_of(times, f.start_s + f.duration_s)
        if start >= count:
            continue
        title, target = FAULT_KINDS[f.kind][0], "" if f.target == "*" else f.target
        amount = "" if f.magnitude is None else f" ({f.magnitude:g})"
        emit(times[start], "fault_started", target, f"{title}{amount} on {f.target} for {f.duration_s:g} s")
        if end < count:
            emit(times[end], "fault_ended", target, f"{title} on {f.target} is over")
        delay, failover = detection_delay(design, f.target) if f.kind == "region_outage" else (math.inf, False)
        detect = _tick_of(times, f.start_s + delay) if math.isfinite(delay) else count
        if not failover or detect >= min(end, count):
            continue
        where = "moves to the other regions" if bad[detect] < SHED_ON else "has no healthy region to go to"
        emit(times[detect], "failover_started", f.target,
             f"health checks marked {f.target} down after {delay:g} s; its traffic {where}")
        settled = np.flatnonzero(bad[detect:min(end, count)] < SHED_ON)
        if settled.size:
            emit(times[detect + settled[0]], "failover_done", f.target,
                 f"traffic of {f.target} is served elsewhere; errors and shedding under {SHED_ON:.1%}")


def _threshold_events(req, times, tick_s, series, station_loss, compiled, regime, emit) -> None:
    kinds = ("shedding_started", "shedding_stopped")
    for node_id, loss in station_loss.items():
        _flag_events(times, _hysteresis(loss, SHED_ON, SHED_OFF), emit, node_id, kinds,
                     lambda i, x=loss: f"{x[i]:.2%} of its arrivals shed (timeouts, full queue or no ready replica)",
                     f"shedding below {SHED_OFF:.2%}")
    for node_id in sorted({n for c in compiled for n in c.shed_rps}):
        share = np.array([c.shed_rps.get(node_id, 0.0) / c.offered_rps if c.offered_rps > 0 else 0.0
                          for c in compiled])[regime] * (series["offered_rps"] > 0)
        _flag_events(times, _hysteresis(share, SHED_ON, SHED_OFF), emit, node_id, kinds,
                     lambda i, x=share: f"sheds {x[i]:.2%} of all traffic (rate limit or admission control)",
                     "no longer shedding")
    if req.slo_p99_ms is not None:
        p99 = series["p99_ms"]
        _flag_events(times, p99 > req.slo_p99_ms, emit, "", ("slo_breached", "slo_recovered"),
                     lambda i: f"p99 {p99[i]:.1f} ms exceeds the {req.slo_p99_ms:g} ms SLO",
                     f"p99 back within the {req.slo_p99_ms:g} ms SLO")
    burn = series["burn_rate"]
    for long_s, short_s, threshold, label in BURN_WINDOWS:
        slow, fast = _rolling_mean(burn, long_s, tick_s), _rolling_mean(burn, short_s, tick_s)
        for i in _edges((slow > threshold) & (fast > threshold))[0]:
            emit(times[i], "burn_rate_alert", "",
                 f"page ({label}): error budget burning {slow[i]:.1f}× over {long_s / 3600:g} h and "
                 f"{fast[i]:.1f}× over {short_s / 60:g} min (threshold {threshold:g}×)")
