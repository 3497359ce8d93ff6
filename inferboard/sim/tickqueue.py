"""The tick model: each tick of the timeline is a steady state. Per station, the queue a pool
presents at a given load and ready server count; end to end, latency percentiles of the mixture of
request paths. Everything is vectorised over ticks (or over a grid of loads, for the autoscaler's
metric tables); see timeline.py for how the ticks are put together.

Queue state:

* A plain pool is an FCFS c-server queue whose requests leave after waiting ``patience``: the
  M/M/c+D result of Zeltyn & Mandelbaum (Queueing Systems 51, 2005) with the Allen–Cunneen factor
  ``g = (ca² + cs²)/2`` on the waiting part, the same model as ``queueing.mmc_patience``. It is
  exact Erlang C for M/M/c with unlimited patience, gives Erlang B with no waiting room, and tends
  to the fluid loss ``1 - 1/rho`` in overload, so a tick never becomes "unstable". Patience is the
  batcher's or request queue's timeout, or the time a full waiting room takes to drain
  (``queue_capacity / capacity``), whichever is shorter; a pool with neither gets the clients'
  patience ``DEFAULT_PATIENCE_S``. Requests that run out of patience are shed (timed out).
* A batching pool adds the light/heavy-load batch formulas of the references (§1.3): batching wait
  ``(D + λD²/2)/(1 + λD)`` per server, the fluid batch ``b* = λτ0/(1 - λα)``, the wait for a busy
  server, and the queue above on ``c`` servers of rate ``B/τ(B)`` for congestion near capacity.
* Erlang B comes from per-server-count tables of the stable recursion (cached), interpolated in
  the load; so the cost per tick does not grow with the number of servers.

Per-regime tables (``_Tables``): the union over the timeline's fault regimes of the compiled
queueing stations and paths, with each station's parameters per regime. The autoscaler's metric
(utilisation, queue depth, p95) at any tick and ready replica count comes from ``_MetricTable``:
the queue state over a grid of loads per replica count, interpolated.

End-to-end percentiles: a path's sojourn is approximated by a moment-matched lognormal and the
end-to-end distribution by the mixture of the paths' lognormals weighted by the traffic each
serves; quantiles come from vectorised bisection on log t (``mixture_quantiles``).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Sequence

import networkx as nx
import numpy as np

from inferboard.model.design import Design
from inferboard.sim.compile import Compiled

DEFAULT_PATIENCE_S = 30.0
Z95 = NormalDist().inv_cdf(0.95)
QUANTILE_STEPS = 11  #: bisection steps: the bracket shrinks 2048-fold (about 0.5% on t)
_PARAMS = ("spr", "service", "cv", "ca2", "err", "timeout", "cap", "bmax", "base", "item", "window")


# ----------------------------------------------------------------------------- Erlang B tables
_GRID = np.unique(np.concatenate([[0.0], np.geomspace(1e-8, 1 / 1024, 96, endpoint=False),
                                  np.linspace(1 / 1024, 2.0, 2048, endpoint=False), np.geomspace(2.0, 1e7, 320)]))
_TABLES: dict[int, np.ndarray] = {}


def _log_b_table(n: int) -> np.ndarray:
    """log B(n, x*n) on the load grid x, by the recursion started where it has converged."""
    table = _TABLES.get(n)
    if table is None:
        a = _GRID * n
        start = max(0, n - int(17 * math.sqrt(n) + 30))  # earlier terms are forgotten (contraction)
        b = np.ones_like(a)
        for k in range(start + 1, n + 1):
            ab = a * b
            b = ab / (k + ab)
        table = np.log(np.maximum(b, 1e-320))
        if len(_TABLES) > 4096:
            _TABLES.clear()
        _TABLES[n] = table
    return table


def log_erlang_b(n: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Elementwise log of Erlang B for ``n`` servers (integers >= 0) offered ``a`` Erlangs."""
    n = np.asarray(n, dtype=np.int64)
    a = np.asarray(a, dtype=float)
    out = np.zeros(np.broadcast(n, a).shape)
    if n.size and n.min() == n.max():  # one server count: one interpolation
        value = int(n.flat[0])
        if value > 0:
            out[...] = np.interp(a / value, _GRID, _log_b_table(value))
        return out
    n, a = np.broadcast_to(n, out.shape), np.broadcast_to(a, out.shape)
    for value in np.unique(n):
        if value <= 0:
            continue
        mask = n == value
        out[mask] = np.interp(a[mask] / value, _GRID, _log_b_table(int(value)))
    return out


# ----------------------------------------------------------------------------- queue state
def _h(y_raw: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of the density ∝ exp(-eta x) on (0, t), y = eta*t (any sign)."""
    y = np.clip(y_raw, -300, 300)
    small = np.abs(y) < 1e-3
    ys = np.where(small, 1.0, y_raw)
    yc = np.where(small, 1.0, y)
    mean = np.where(small, t * (0.5 - y / 12.0), t / ys - t / np.expm1(yc))
    with np.errstate(over="ignore"):
        var = np.where(small, t * t * (1 / 12.0 - y * y / 240.0),
                       t * t / (ys * ys) - t * t / (4 * np.sinh(yc / 2) ** 2))
    return np.maximum(mean, 0.0), np.maximum(var, 0.0)


def patience_queue(lam, c, mu, g, patience):
    """(timed-out fraction, mean wait, wait variance) of served requests; arrays, ``c >= 1``.

    Where ``eta*T >= 40`` the time-outs are below e^-40 and the formulas reduce to Erlang C with the
    Allen–Cunneen factor (no exponentials needed); elsewhere the full M/M/c+D expressions apply.
    """
    lam, c, mu, g, t = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (lam, c, mu, g, patience)))
    g = np.maximum(g, 1e-3)
    eta = (c * mu - lam) / g
    y_raw = eta * t
    log_b = log_erlang_b(c.astype(np.int64) - 1, lam / mu)
    lost, p_wait, m1, v1 = (np.zeros(lam.shape) for _ in range(4))
    fast = y_raw >= 40.0
    if fast.any():
        f = fast
        a0 = np.exp(np.minimum(-log_b[f], 300.0))
        i1 = lam[f] / (c[f] * mu[f] - lam[f])
        p_wait[f] = i1 / (a0 + i1)
        m1[f] = 1.0 / eta[f]
        v1[f] = m1[f] * m1[f]
    if not fast.all():
        s = ~fast
        yr, ts, ls = y_raw[s], t[s], lam[s]
        y = np.clip(yr, -300, 300)
        a0 = np.exp(np.clip(-log_b[s] + np.minimum(y, 0.0), -300, 300))
        small = np.abs(yr) < 1e-12
        rel = np.where(small, 1.0, -np.expm1(-y) / np.where(small, 1.0, yr))
        i1 = ls / g[s] * ts * rel * np.exp(np.minimum(y, 0.0))
        i2 = ls / (c[s] * mu[s]) * np.exp(-np.maximum(y, 0.0))
        lost[s] = i2 / (a0 + i1 + i2)
        p_wait[s] = i1 / (a0 + i1)
        m1[s], v1[s] = _h(yr, ts)
    mean = p_wait * m1
    var = np.maximum(p_wait * (v1 + m1 * m1) - mean * mean, 0.0)
    return lost, mean, var


@dataclass
class StationParams:
    """Per-tick parameters of one queueing station (arrays of the timeline's length)."""

    servers_per_replica: np.ndarray
    service_s: np.ndarray
    service_cv: np.ndarray
    ca2: np.ndarray
    error_rate: np.ndarray
    timeout_s: np.ndarray  #: inf when none
    queue_capacity: np.ndarray  #: inf when unbounded
    batch_max: np.ndarray | None = None  #: set for batching stations
    batch_base_s: np.ndarray | None = None
    batch_item_s: np.ndarray | None = None
    batch_window_s: np.ndarray | None = None


@dataclass
class StationState:
    loss: np.ndarray  #: fraction of arrivals shed (timed out, queue full, no capacity)
    wait_s: np.ndarray  #: mean wait of served requests
    sojourn_s: np.ndarray  #: mean time in the station of served requests
    sojourn_var: np.ndarray
    busy: np.ndarray  #: busy fraction of the ready servers
    queue: np.ndarray  #: mean requests waiting (Little)

    def p95_s(self) -> np.ndarray:
        """95th percentile of the station's sojourn, from a moment-matched lognormal."""
        mean = np.maximum(self.sojourn_s, 1e-9)
        s2 = np.log1p(self.sojourn_var / (mean * mean))
        return np.exp(np.log(mean) - s2 / 2 + Z95 * np.sqrt(s2))


def station_state(lam: np.ndarray, replicas: np.ndarray, p: StationParams,
                  cold_wait_s: np.ndarray | None = None) -> StationState:
    """The queue of a pool with ``replicas`` ready replicas offered ``lam`` requests/s, tick by tick.

    With no ready server, requests wait for the first replica still starting (``cold_wait_s``,
    inf if none is coming): they are served after that wait unless the station's timeout is
    shorter or its waiting room overflows, and shed otherwise.
    """
    lam = np.fmax(np.asarray(lam, dtype=float), 0.0)
    c = np.floor(np.asarray(replicas, dtype=float) * p.servers_per_replica + 1e-9)
    live = c >= 1
    cc = np.maximum(c, 1.0)
    cs2 = p.service_cv ** 2
    if p.batch_max is not None:
        bmax = np.maximum(p.batch_max, 1.0)
        tau_full = np.maximum(p.batch_base_s + p.batch_item_s * bmax, 1e-9)
        mu = bmax / tau_full
        lam_s = lam / cc
        window = np.minimum(p.batch_window_s, (bmax - 1) / np.maximum(lam_s, 1e-12))
        w_light = (window + lam_s * window * window / 2) / (1 + lam_s * window)
        light_b = 1 + lam_s * window
        la = lam_s * p.batch_item_s
        fluid_b = np.where(la < 1, lam_s * p.batch_base_s / np.maximum(1 - la, 1e-12), bmax)
        b = np.minimum(bmax, np.maximum(light_b, fluid_b))
        service = p.batch_base_s + p.batch_item_s * b
        busy_raw = np.minimum(1.0, lam_s * service / b)
        server_wait = busy_raw * np.maximum(0.0, 0.5 * (1 + cs2) * service - w_light)
        rho = np.minimum(lam / (cc * mu), 1.0)
        g = (p.ca2 + rho * bmax * cs2) / 2
        extra_mean, extra_var = w_light + server_wait, w_light ** 2 / 3 + server_wait ** 2
    else:
        service = np.maximum(p.service_s, 1e-9)
        mu = 1.0 / service
        g = (p.ca2 + cs2) / 2
        extra_mean = extra_var = 0.0
    drain = np.where(np.isfinite(p.queue_capacity), p.queue_capacity / (cc * mu), np.inf)
    patience = np.minimum(p.timeout_s, drain)
    patience = np.where(np.isfinite(patience), patience, DEFAULT_PATIENCE_S)
    lost, q_mean, q_var = patience_queue(lam, cc, mu, g, patience)
    wait = extra_mean + q_mean
    var = extra_var + q_var + (p.service_cv * service) ** 2
    served = lam * (1 - lost)
    busy = np.minimum(1.0, served / (cc * mu)) if p.batch_max is None else np.where(lost > 0, np.maximum(
        busy_raw, np.minimum(1.0, served / (cc * mu))), busy_raw)
    if not np.all(live):
        cold = np.full(lam.shape, np.inf) if cold_wait_s is None else np.asarray(cold_wait_s, dtype=float)
        ok = np.isfinite(cold) & (cold <= p.timeout_s)
        arriving = np.maximum(lam * np.where(ok, cold, 0.0), 1e-12)
        fits = np.minimum(1.0, np.where(np.isfinite(p.queue_capacity), p.queue_capacity, arriving) / arriving)
        dead = ~live
        lost = np.where(dead, np.where(ok, 1 - fits, 1.0), lost)
        wait = np.where(dead, np.where(ok, cold, 0.0), wait)
        var = np.where(dead, 0.0, var)
        busy = np.where(dead, 0.0, busy)
        service = np.where(dead, np.where(ok, service, 0.0), service)
        lost = np.where(dead & (lam <= 0), 0.0, lost)
    lost = np.fmin(np.fmax(np.where(np.isnan(lost), 1.0, lost), 0.0), 1.0)
    wait = np.fmin(np.fmax(wait, 0.0), 1e7)
    var = np.fmin(np.fmax(var, 0.0), 1e14)
    return StationState(lost, wait, wait + service, var, np.fmin(np.fmax(busy, 0.0), 1.0), lam * (1 - lost) * wait)


# ----------------------------------------------------------------------------- percentiles
@lru_cache(maxsize=64)
def _probit(p: float) -> float:
    return NormalDist().inv_cdf(p)


def mixture_lognormal(weights: np.ndarray, mean: np.ndarray, var: np.ndarray):
    """Normalised weights and float32 lognormal (mu, 1/sigma) per row, moment-matched; (paths, ticks)."""
    total = weights.sum(axis=0)
    w = weights / np.where(total > 0, total, 1.0)
    m = np.maximum(mean, 1e-7)
    s2 = np.log1p(var / (m * m))
    sigma = np.sqrt(np.maximum(s2, 1e-10))
    return w.astype(np.float32), (np.log(m) - s2 / 2).astype(np.float32), sigma.astype(np.float32), total > 0


def mixture_cdf(y: np.ndarray, w: np.ndarray, mu: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """F(y) for rows of log-times ``y`` (k, ticks): sum over paths of w·Phi((y - mu)/sigma), with the
    logistic approximation Phi(x) ≈ 1/(1 + exp(-1.5976x - 0.070565x³)) (Bowling et al., J. Industrial
    Engineering and Management 2(1), 2009; absolute error < 1.4e-4), in float32 for speed."""
    x = y[:, None, :] - mu[None]
    x /= sigma
    u = x * x
    u *= np.float32(-0.070565)
    u += np.float32(-1.5976)
    u *= x
    with np.errstate(over="ignore"):
        np.exp(u, out=u)
    u += 1
    np.reciprocal(u, out=u)
    return np.einsum("kpt,pt->kt", u, w)


def mixture_quantiles(w, mu, sigma, probs: Sequence[float], steps: int = QUANTILE_STEPS) -> np.ndarray:
    """Per tick the mixture's quantiles (rows follow ``probs``), by bisection on log t inside the
    bracket of the components' own quantiles (a mixture's p-quantile lies between them)."""
    used = w > 0
    lo = np.stack([np.where(used, mu + np.float32(_probit(p)) * sigma, np.inf).min(axis=0) for p in probs])
    hi = np.stack([np.where(used, mu + np.float32(_probit(p)) * sigma, -np.inf).max(axis=0) for p in probs])
    lo = np.where(np.isfinite(lo), lo, 0).astype(np.float32)
    hi = np.maximum(np.where(np.isfinite(hi), hi, 0).astype(np.float32), lo)
    target = np.asarray(probs, dtype=np.float32)[:, None]
    for _ in range(steps):
        mid = (lo + hi) * np.float32(0.5)
        below = mixture_cdf(mid, w, mu, sigma) < target
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return np.exp(0.5 * (lo.astype(float) + hi.astype(float)))


# ----------------------------------------------------------------------------- per-regime tables
class _Tables:
    """The union over regimes of queueing stations and paths, with per-regime parameters."""

    def __init__(self, design: Design, compiled: list[Compiled], base_spr: dict[str, float]):
        order = list(nx.lexicographical_topological_sort(design.request_graph()))
        queueing = {s for c in compiled for s, st in c.network.stations.items() if not st.delay_only and s in c.plans}
        self.stations = [n for n in order if n in queueing]
        self.index = {s: i for i, s in enumerate(self.stations)}
        path_index: dict[tuple, int] = {}
        columns: list[list[float]] = []
        self.path_stations: list[tuple[int, ...]] = []
        self.path_delay: list[float] = []
        for r, c in enumerate(compiled):
            for path in c.network.paths:  # merged by (queueing stations, total fixed delay)
                stations = [c.network.stations[s] for s in path.stations]
                queue = tuple(sorted(self.index[s.id] for s in stations if s.id in self.index))
                delay = sum(s.fixed_delay_s for s in stations)
                key = (queue, round(delay, 9))
                if key not in path_index:
                    path_index[key] = len(columns)
                    columns.append([0.0] * len(compiled))
                    self.path_stations.append(queue)
                    self.path_delay.append(delay)
                columns[path_index[key]][r] += path.share
        self.weights = np.array(columns, dtype=float).reshape(len(columns), len(compiled))
        self.members = [[p for p, sts in enumerate(self.path_stations) if j in sts] for j in range(len(self.stations))]
        self.share = np.array([self.weights[rows].sum(axis=0) if rows else np.zeros(len(compiled))
                               for rows in self.members]).reshape(len(self.stations), len(compiled))
        self.params = [self._station_params(s, compiled, base_spr.get(s, 1.0)) for s in self.stations]

    @staticmethod
    def _station_params(sid: str, compiled: list[Compiled], base_spr: float) -> dict:
        fallback = next(c.network.stations[sid] for c in compiled if sid in c.network.stations)
        rows = []
        for c in compiled:
            st, plan = c.network.stations.get(sid, fallback), c.plans.get(sid)
            spr = plan.servers / plan.replicas if plan is not None and plan.replicas > 0 else base_spr
            spr = 0.0 if plan is not None and plan.memory_fit is False else spr
            rows.append((spr, st.service_mean_s, st.service_cv, c.network.arrival_cv ** 2, st.error_rate,
                         st.timeout_s or math.inf, math.inf if st.queue_capacity is None else st.queue_capacity,
                         st.batch_max, st.batch_base_s, st.batch_item_s, st.batch_timeout_s))
        out: dict = {k: np.array(v, dtype=float) for k, v in zip(_PARAMS, zip(*rows))}
        out["batching"] = fallback.is_batching
        # Regimes that leave this station alone share a signature (and the autoscaler's tables).
        out["sig"] = np.array([sorted(set(rows), key=rows.index).index(row) for row in rows])
        out["sig_regime"] = [rows.index(row) for row in sorted(set(rows), key=rows.index)]
        return out

    def station_params(self, j: int, index: np.ndarray) -> StationParams:
        """The station's parameters per element, ``index`` giving each element's regime."""
        p = self.params[j]
        batch = dict(batch_max=p["bmax"][index], batch_base_s=p["base"][index], batch_item_s=p["item"][index],
                     batch_window_s=p["window"][index]) if p["batching"] else {}
        return StationParams(*(p[k][index] for k in _PARAMS[:7]), **batch)

    def capacity_per_replica(self, j: int, g: int) -> float:
        p = self.params[j]
        per_server = p["bmax"][g] / max(p["base"][g] + p["item"][g] * p["bmax"][g], 1e-9) if p["batching"] \
            else 1.0 / max(p["service"][g], 1e-9)
        return p["spr"][g] * per_server


# ----------------------------------------------------------------------------- autoscaler metric tables
R_BLOCK = 16  #: replica counts per metric-table block


class _MetricTable:
    """The autoscaler's metric with r ready replicas at any tick: per (r, parameter signature) a table
    over the load, dense around saturation, interpolated at the tick's arrival rate; cheap enough to
    ask at every sync of the control loop. ``sig`` is the station's signature per tick."""

    GRID = np.unique(np.concatenate([np.linspace(0, 0.8, 17), np.linspace(0.8, 1.2, 81), [1.5, 2, 3, 5, 10, 30, 100]]))

    def __init__(self, metric: str, lam: np.ndarray, sig: np.ndarray, tables: _Tables, j: int | None,
                 low: int = 0, high: int = 1 << 30, shared: tuple[dict, list] | None = None):
        self.metric, self.lam, self.sig, self.tables, self.j = metric, lam, sig, tables, j
        self.low, self.high = low, high  #: replica counts the autoscaler can reach
        #: ``shared``: a cache kept across stretches of a stepped timeline, and per signature its
        #: parameter row (the cache's key, as signatures are numbered anew in each stretch)
        store, self.rows = shared if shared is not None else ({}, None)
        self.cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = store.setdefault("arrays", {})
        self.lists: dict[tuple, tuple[list, list]] = store.setdefault("lists", {})
        self.lam_l, self.sig_l = lam.tolist(), sig.tolist()
        self.changes = (np.flatnonzero(np.diff(sig)) + 1).tolist()

    def _name(self, key: int):
        return key if self.rows is None else self.rows[key]

    def table(self, r: int, key: int) -> tuple[np.ndarray, np.ndarray]:
        name = self._name(key)
        found = self.cache.get((r, name))
        if found is None:  # a block of R_BLOCK replica counts in one vectorised call
            g = self.tables.params[self.j]["sig_regime"][key]
            counts = np.arange((r // R_BLOCK) * R_BLOCK, (r // R_BLOCK + 1) * R_BLOCK, dtype=float)
            counts = counts[(counts >= min(r, self.low)) & (counts <= max(r, self.high))]
            replicas = np.repeat(counts, self.GRID.size)
            capacity = np.maximum(replicas * self.tables.capacity_per_replica(self.j, g), 1e-9)
            lam = np.tile(self.GRID, counts.size) * capacity
            state = station_state(lam, replicas, self.tables.station_params(self.j, np.full(lam.size, g)))
            values = state.queue if self.metric == "queue_depth" else (
                state.p95_s() * 1000.0 if self.metric == "latency_p95" else state.busy)
            for k, count in enumerate(counts.astype(int)):
                part = slice(k * self.GRID.size, (k + 1) * self.GRID.size)
                self.cache[(int(count), name)] = (lam[part], values[part])
            found = self.cache[(r, name)]
        return found

    def __call__(self, r: int, lo: int, hi: int) -> np.ndarray | list[float]:
        if self.metric == "rps" or self.j is None:
            return self.lam[lo:hi]
        if hi - lo == 1:  # one tick (a sync of the control loop): plain Python interpolation
            return [self.value_at(r, lo, self.lam_l[lo])]
        lam, sig = self.lam[lo:hi], self.sig[lo:hi]
        if hi - lo == 0:
            return lam
        if bisect_right(self.changes, lo) == bisect_right(self.changes, hi - 1):  # one signature throughout
            return np.interp(lam, *self.table(r, self.sig_l[lo]))
        out = np.empty(hi - lo)
        for g in np.unique(sig):
            mask = sig == g
            out[mask] = np.interp(lam[mask], *self.table(r, int(g)))
        return out

    def value_at(self, r: int, tick: int, x: float) -> float:
        """The metric with ``r`` ready replicas at load ``x`` under tick ``tick``'s parameters."""
        key = (r, self._name(self.sig_l[tick]))
        found = self.lists.get(key)
        if found is None:
            found = self.lists[key] = tuple(v.tolist() for v in self.table(r, self.sig_l[tick]))
        grid, values = found
        k = min(max(bisect_right(grid, x), 1), len(grid) - 1)
        share = min(max((x - grid[k - 1]) / (grid[k] - grid[k - 1]), 0.0), 1.0) if grid[k] > grid[k - 1] else 0.0
        return values[k - 1] + share * (values[k] - values[k - 1])
