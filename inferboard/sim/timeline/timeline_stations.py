"""One stretch of a stepped timeline: routing per tick, the pools' control loops, the stations with
their carried backlogs, end-to-end percentiles, cost and events (timeline.py has the model)."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from inferboard.sim.llm.timeline_llm import llm_tick_figures
from inferboard.sim.timeline.cost import cost_series
from inferboard.sim.timeline.fault_regimes import fault_regimes
from inferboard.sim.timeline.fluid import station_stretch
from inferboard.sim.timeline.gamma_mixture import mixture_cdf, mixture_gamma, root_time, sparse_mixture_quantiles
from inferboard.sim.timeline.metric_tables import BacklogMetric, station_limits
from inferboard.sim.timeline.series import finite
from inferboard.sim.timeline.timeline_events import stretch_events
from inferboard.sim.timeline.timeline_routing import StretchRouting, drive_pools
from inferboard.sim.timeline.stepped import SteppedTimeline

LATENCY_ALLOWANCE = 0.01
DEFAULT_AVAILABILITY = 99.9
MAX_LATENCY_MS = 3.6e6
PERCENTILES = ((0.5, "p50_ms"), (0.95, "p95_ms"), (0.99, "p99_ms"))


def _routing(state: SteppedTimeline, times: np.ndarray, base: np.ndarray):
    """Compiles of the stretch, and per tick the two around its rate with the weight of the upper one."""
    regime, keys = fault_regimes(state.design, state.timed, times, state.extra_faults)
    compiled, rates_all, key_of = [], [], []
    lo = np.zeros(times.size, dtype=np.int64)
    hi = np.zeros(times.size, dtype=np.int64)
    alpha = np.zeros(times.size)
    for index, key in enumerate(keys):
        rates, comps = state.compiled_for(key)
        first = len(compiled)
        compiled.extend(comps)
        rates_all.extend(rates)
        key_of.extend([key] * len(comps))
        mask = regime == index
        if len(rates) == 1:
            lo[mask] = hi[mask] = first
            continue
        x = np.maximum(base[mask], 1e-12)
        grid = np.array(rates)
        g = np.searchsorted(grid, x)
        low, high = np.clip(g - 1, 0, grid.size - 1), np.clip(g, 0, grid.size - 1)
        inv, inv_low, inv_high = 1.0 / x, 1.0 / grid[low], 1.0 / grid[high]
        span = np.where(low == high, 1.0, inv_low - inv_high)
        alpha[mask] = np.clip(np.where(low == high, 0.0, (inv_low - inv) / span), 0.0, 1.0)
        lo[mask], hi[mask] = first + low, first + high
    ratio = np.array([c.offered_rps / r if r > 0 else 0.0 for c, r in zip(compiled, rates_all)])
    return compiled, key_of, lo, hi, alpha, ratio, regime, keys


def _passed_on(st, lam: np.ndarray, accepted: np.ndarray, k0: int, dt: float) -> np.ndarray:
    """Per tick, what the station passes on downstream as a share of its arrivals: the requests it
    completes, ``(accepted - (backlog at the end - at the start)) / dt``, so a backlog holds the
    surge back (the next station sees at most the station's capacity) and its drain reaches the
    next station as a burst. Without a backlog this is ``1 - loss``."""
    if not (st.backlog.any() or st.carry > 0):
        return 1.0 - st.loss
    taken = np.diff(accepted[k0:k0 + lam.size + 1])
    end = np.append(st.backlog[1:], st.carry)
    done = np.maximum(taken - (end - st.backlog), 0.0) / dt
    return np.where(lam > 0, done / np.maximum(lam, 1e-300), 0.0)


def _generation_pool(put, sid: str, compiled: list, lo: np.ndarray, served: np.ndarray, ready: np.ndarray,
                     st) -> np.ndarray:
    """An LLM pool's utilisation (served rate over the ready replicas' capacity, the steady state's
    FLOPs/HBM model; 1 while a backlog is held) and its time to first token and per output token."""
    busy, ttft, tpot = np.array(st.busy, dtype=float), np.zeros(lo.size), np.zeros(lo.size)
    for g in np.unique(lo):
        idx = np.flatnonzero(lo == g)
        fig = llm_tick_figures(compiled[g].plans.get(sid), served[idx], ready[idx])
        if fig is None:
            continue
        busy[idx] = np.where(st.backlog[idx] > 0, 1.0, fig["utilisation"])
        ttft[idx] = st.wait_s[idx] + fig["ttft_s"]
        tpot[idx] = fig["tpot_s"]
    put(f"ttft_ms:{sid}", np.minimum(ttft * 1000.0, MAX_LATENCY_MS))
    put(f"tpot_ms:{sid}", np.minimum(tpot * 1000.0, MAX_LATENCY_MS))
    return busy


class PoolLoops:
    """Runs the pools' control loops of a stretch piece by piece: :meth:`run` a pool over ticks
    ``a:b`` given its arrival rate there (the autoscaler's metric read from it), :meth:`resume` it
    further within the same piece after it stopped (:mod:`timeline_routing`)."""

    def __init__(self, state: SteppedTimeline, tables, lo: np.ndarray, k0: int, commands: dict[str, tuple], routing):
        self.state, self.tables, self.lo, self.k0, self.commands = state, tables, lo, k0, commands
        self.routing = routing
        self.metrics: dict[str, object] = {}
        self.limits: dict[str, tuple] = {}  #: per pool, :func:`timeline_state.station_limits` of the stretch

    def run(self, pid: str, a: int, b: int, lam: np.ndarray) -> None:
        """Run the pool ``pid``'s control loop over ticks ``a:b`` at arrival rates ``lam``."""
        state, tables, k0 = self.state, self.tables, self.k0
        part = self.lo[a - k0:b - k0]
        j = tables.index.get(pid)
        state.pool_lam[pid][a:b] = lam
        if state.scalers[pid] is None:  # no autoscaler: nothing reads a metric
            metric = None
        else:
            generation = state.design.nodes[pid].kind == "generation_pool"
            limits = None
            if j is not None and not generation:  # per tick of the stretch, found once a stretch
                found = self.limits.get(pid)
                if found is None:
                    found = self.limits[pid] = station_limits(tables, j, self.lo)
                limits = tuple(v[a - k0:b - k0] for v in found)
            table, backlog_metric = state.metric_for(pid, tables, j, lam, part, a, b,
                                                     self.routing.per_replica[pid][a - k0:b - k0] if generation
                                                     else None, limits)
            if backlog_metric is not None:
                metric = backlog_metric
            else:
                def metric(r, x, y, table=table, a=a):
                    return table(r, x - a, y - a)
        self.metrics[pid] = metric
        sig = tables.params[j]["sig"][part] if j is not None else np.zeros(b - a, dtype=np.int64)
        barriers = (a + np.flatnonzero(np.diff(sig)) + 1).tolist()
        state.controls[pid].send((b, metric, barriers, self.commands[pid] if a == k0 else ()))
        self._commit(pid)

    def resume(self, pid: str, b: int) -> None:
        """Let the pool ``pid``'s control loop go on to tick ``b`` with its metric."""
        self.state.controls[pid].send((b, self.metrics[pid], (), ()))
        self._commit(pid)

    def _commit(self, pid: str) -> None:
        metric = self.metrics[pid]
        if isinstance(metric, BacklogMetric):
            metric.advance_to(self.state.controllers[pid].limit)


@dataclass
class _Put:
    """Writes the stretch's values of a named series (zeros first, over the whole horizon)."""

    state: SteppedTimeline
    k0: int
    k1: int

    def __call__(self, name: str, values, store: dict | None = None) -> None:
        store = self.state.series if store is None else store
        found = store.get(name)
        if found is None:
            found = store[name] = np.zeros(self.state.count)
        found[self.k0:self.k1] = values


@dataclass
class _PathTally:
    """Per request path and tick of a stretch: ``alive``, the share of its arrivals that is served
    (losses, errors), which the tick's percentiles and rates are about; ``flow``, what each station
    passes on in the tick, which the next station sees (a backlog holds a surge back and releases it
    as it drains); the shares shed and failed on the way; and the moments of its latency shape."""

    alive: np.ndarray
    shed: np.ndarray
    failed: np.ndarray
    flow: np.ndarray
    mean: np.ndarray
    var: np.ndarray

    @classmethod
    def start(cls, path_delay, paths: int, n: int) -> _PathTally:
        """Every arrival alive, nothing lost, each path's latency its fixed delays."""
        return cls(np.ones((paths, n)), np.zeros((paths, n)), np.zeros((paths, n)), np.ones((paths, n)),
                   np.array(path_delay, dtype=float).reshape(paths, 1) + np.zeros((paths, n)), np.zeros((paths, n)))

    def through(self, rows, st, err, passed) -> None:
        """The paths ``rows`` pass a station with losses ``st.loss``, error rate ``err`` and the share
        ``passed`` on in the tick."""
        for p in rows:
            self.shed[p] += self.alive[p] * st.loss
            self.failed[p] += self.alive[p] * (1 - st.loss) * err
            self.alive[p] *= (1 - st.loss) * (1 - err)
            self.flow[p] *= passed * (1 - err)
            self.mean[p] += st.shape_mean
            self.var[p] += st.shape_var


@dataclass
class _Stretch:
    """One stretch's shared inputs: its ticks, the compiles routing it, each tick's compile, the
    station tables and the routing, and the rate offered past the entry."""

    state: SteppedTimeline
    k0: int
    k1: int
    put: _Put
    compiled: list
    key_of: list
    lo: np.ndarray
    tables: Any
    routing: StretchRouting
    offered: np.ndarray

    @property
    def times(self) -> np.ndarray:
        """The stretch's tick times."""
        return self.state.times[self.k0:self.k1]


def _station(s: _Stretch, j: int, sid: str, weights: np.ndarray, tally: _PathTally) -> None:
    """One station over the stretch: its arrivals from the paths through it, its fluid stretch with
    the backlog carried in, and its series; the paths through it take its losses."""
    state, put, k0, k1, tables, n = s.state, s.put, s.k0, s.k1, s.tables, s.k1 - s.k0
    rows = tables.members[j]
    lam = s.offered * (weights[rows] * tally.flow[rows]).sum(axis=0) if rows else np.zeros(n)
    put(f"arrival_rps:{sid}", lam)
    carried = state.backlog.get(sid, 0.0)
    if not lam.any() and carried <= 0:  # idle all stretch: its figures stay 0 (as idle ticks do below)
        return
    track = state.tracks[sid]
    first = track.first_ready_s[k0:k1]
    cold = np.where(np.isfinite(first), first - s.times, np.inf)
    params = tables.station_params(j, s.lo)
    history = state.lost.setdefault(sid, np.zeros(state.count))
    accepted = state.accepted.setdefault(sid, np.zeros(state.count + 1))
    generation = state.design.nodes[sid].kind == "generation_pool"  # capacity from the FLOPs/HBM model
    st = station_stretch(lam, track.ready[k0:k1], params, cold, carried, state.tick_s, history[:k0],
                         accepted[:k0 + 1], s.routing.per_replica[sid] * track.ready[k0:k1] if generation else None)
    state.backlog[sid] = st.carry
    history[k0:k1] = st.lost
    accepted[k0 + 1:k1 + 1] = st.accepted
    tally.through(rows, st, tables.params[j]["err"][s.lo], _passed_on(st, lam, accepted, k0, state.tick_s))
    put(f"loss:{sid}", st.loss, state.aux)
    put(f"capacity:{sid}", st.capacity, state.aux)
    busy = st.busy
    if generation:
        busy = _generation_pool(put, sid, s.compiled, s.lo, lam * (1 - st.loss), track.ready[k0:k1], st)
    put(f"utilisation:{sid}", busy)
    put(f"queue:{sid}", st.queue)
    put(f"backlog:{sid}", st.backlog)
    idle = (lam <= 0) & (st.backlog <= 0)  # no request there: no wait, no time spent (a stretch
    # without traffic there is skipped above, and reads the same)
    put(f"wait_ms:{sid}", np.where(idle, 0.0, np.minimum(st.wait_s * 1000.0, MAX_LATENCY_MS)))
    put(f"sojourn_ms:{sid}", np.where(idle, 0.0, np.minimum(st.sojourn_s * 1000.0, MAX_LATENCY_MS)))


def _end_to_end(s: _Stretch, offered_all: np.ndarray, entry_shed: float, weights: np.ndarray, lost: np.ndarray,
                shed_by_router: dict, tally: _PathTally) -> None:
    """The stretch's end-to-end series: offered, throughput, shed and error rates, percentiles of the
    paths' lognormal mixture, and the error budget's burn rate (latency over the SLO counts beyond
    the allowance)."""
    put, n, req = s.put, s.k1 - s.k0, s.state.design.requirements
    router_shed = sum(shed_by_router.values()) if shed_by_router else np.zeros(n)
    unrouted = np.maximum(0.0, 1.0 - weights.sum(axis=0) - lost - router_shed)
    served_weights = weights * tally.alive
    served = np.clip(served_weights.sum(axis=0), 0.0, 1.0)
    idle = offered_all <= 0
    keep = 1.0 - entry_shed
    put("offered_rps", offered_all)
    put("throughput_rps", s.offered * (weights * tally.flow).sum(axis=0))  # what completes in the tick
    shed_rate = np.where(idle, 0.0, entry_shed + keep * (router_shed + (weights * tally.shed).sum(axis=0)))
    error_rate = np.where(idle, 0.0, keep * (lost + unrouted + (weights * tally.failed).sum(axis=0)))
    put("shed_rate", shed_rate)
    put("error_rate", error_rate)
    used = np.flatnonzero(served_weights.any(axis=1))
    w, mu, sigma, has = mixture_gamma(served_weights[used], tally.mean[used], tally.var[used])
    probs = [p for p, _ in PERCENTILES]
    values = sparse_mixture_quantiles(w, mu, sigma, probs) * 1000.0 if used.size else np.zeros((len(probs), n))
    for row, (_, key) in zip(values, PERCENTILES):
        put(key, np.where(has & ~idle, np.minimum(row, MAX_LATENCY_MS), 0.0))
    slow = np.zeros(n)
    if req.slo_p99_ms is not None and used.size:
        at = np.full((1, n), root_time(req.slo_p99_ms / 1000.0), dtype=np.float32)
        slow = np.where(has, 1.0 - mixture_cdf(at, w, mu, sigma)[0], 0.0)
    bad = np.clip(error_rate + shed_rate + np.maximum(0.0, slow - LATENCY_ALLOWANCE) * served * keep, 0, 1)
    availability = req.availability_slo if req.availability_slo is not None else DEFAULT_AVAILABILITY
    put("burn_rate", bad / (1.0 - availability / 100.0))


def simulate_stretch(state: SteppedTimeline, k0: int, k1: int) -> None:
    """Ticks ``k0:k1`` of ``state`` (a :class:`timeline_state.TimelineState`): routing, the pools'
    control loops, every station, the end-to-end series, routers' shedding, cost and events."""
    times, n, put = state.times[k0:k1], k1 - k0, _Put(state, k0, k1)
    compiled, key_of, lo, hi, alpha, ratio, regime, keys = _routing(state, times, state.base[k0:k1])
    tables = state.tables_for(compiled)
    offered_all = finite(state.base[k0:k1] * ratio[lo])
    entry_shed = min(max(state.entry_shed, 0.0), 1.0)
    routing = StretchRouting(state, k0, k1, compiled, lo, hi, alpha, regime, keys,
                             state.base[k0:k1] * (1.0 - entry_shed))
    commands = {p.id: tuple(state.pending_commands.pop(p.id, ())) for p in state.pools}
    drive_pools(state, routing, PoolLoops(state, tables, lo, k0, commands, routing),
                {pid for pid, c in commands.items() if c})
    weights, lost, shed_by_router = routing.paths(tables, state.notes)
    stretch = _Stretch(state, k0, k1, put, compiled, key_of, lo, tables, routing, offered_all * (1.0 - entry_shed))
    tally = _PathTally.start(tables.path_delay, weights.shape[0], n)
    for j, sid in enumerate(tables.stations):
        _station(stretch, j, sid, weights, tally)
    _end_to_end(stretch, offered_all, entry_shed, weights, lost, shed_by_router, tally)
    keep = 1.0 - entry_shed
    for node_id in sorted(set(shed_by_router) | {k.split(":", 1)[1] for k in state.aux if k.startswith("router_shed:")}):
        share = shed_by_router.get(node_id, np.zeros(n))
        put(f"router_shed:{node_id}", share * keep * (offered_all > 0), state.aux)
    tracks = {p.id: SimpleNamespace(replicas=state.tracks[p.id].replicas[k0:k1]) for p in state.pools}
    put("cost_per_hour", cost_series(state.design, state.pools, compiled, key_of, lo, stretch.offered, tracks,
                                     state.timed, times, state.cost_memo))
    for c in compiled:
        state.notes.update(c.notes)
    stretch_events(state, k0, k1)
