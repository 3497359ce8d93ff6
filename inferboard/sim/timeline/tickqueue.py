"""The tick model of one station: each tick of the timeline is a steady state, the queue a pool
presents at a given load and ready server count, vectorised over ticks (or over a grid of loads,
for the autoscaler's metric tables, :mod:`metric_tables`); see timeline.py for how the ticks are
put together, :mod:`fluid` for the backlog carried between ticks.

* A plain pool is an FCFS c-server queue whose requests leave after waiting ``patience``: the
  M/M/c+D result of Zeltyn & Mandelbaum (Queueing Systems 51, 2005) with the Allen–Cunneen factor
  ``g = (ca² + cs²)/2`` on the waiting part, the same model as ``queueing.mmc_patience``. It is
  exact Erlang C for M/M/c with unlimited patience, gives Erlang B with no waiting room, and tends
  to the fluid loss ``1 - 1/rho`` in overload, so a tick never becomes "unstable". Patience is the
  batcher's or request queue's timeout, or the time a full waiting room takes to drain
  (``queue_capacity / capacity``), whichever is shorter; a pool with neither gets the clients'
  patience ``DEFAULT_PATIENCE_S``. Requests that run out of patience are shed (timed out).
  Erlang B comes from :mod:`erlang_tables`.
* A batching pool adds the light/heavy-load batch formulas of the references (§1.3): batching wait
  ``(D + λD²/2)/(1 + λD)`` per server, the fluid batch ``b* = λτ0/(1 - λα)``, the wait for a busy
  server, and the queue above on ``c`` servers of rate ``B/τ(B)`` for congestion near capacity.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from inferboard.sim.timeline.erlang_tables import log_erlang_b
from inferboard.sim.timeline.gamma_mixture import gamma_quantile
from inferboard.sim.timeline.timeline_batching import batch_station

__all__ = ["DEFAULT_PATIENCE_S", "SATURATED_LOAD", "Z95", "StationParams", "StationState", "log_erlang_b",
           "patience_queue", "saturated_batches", "saturated_state", "station_state"]

DEFAULT_PATIENCE_S = 30.0
#: a batching station at this fraction of its full-batch capacity or more is saturated
SATURATED_LOAD = 0.999
Z95 = NormalDist().inv_cdf(0.95)

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

    def select(self, index: np.ndarray) -> "StationParams":
        """The parameters of the elements ``index``."""
        return StationParams(**{k: None if v is None else np.broadcast_to(v, self.service_s.shape)[index]
                                for k, v in vars(self).items()})


@dataclass
class StationState:
    """A station's tick model over ticks: losses, mean wait and sojourn with its variance, busy fraction,
    queue and more."""
    loss: np.ndarray  #: fraction of arrivals shed (timed out, queue full, no capacity)
    wait_s: np.ndarray  #: mean wait of served requests
    sojourn_s: np.ndarray  #: mean time in the station of served requests
    sojourn_var: np.ndarray
    busy: np.ndarray  #: busy fraction of the ready servers
    queue: np.ndarray  #: mean requests waiting (Little)
    #: mean and variance of the gamma the end-to-end percentiles compose for this station: the
    #: sojourn's own moments, or for a batching station the gamma through its p50 and p99
    shape_mean: np.ndarray | None = None
    shape_var: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.shape_mean is None:
            self.shape_mean, self.shape_var = self.sojourn_s, self.sojourn_var

    def p95_s(self) -> np.ndarray:
        """95th percentile of the station's sojourn, from its gamma (see ``shape_mean``)."""
        return gamma_quantile(self.shape_mean, self.shape_var, Z95)


def _patience(p: StationParams, capacity: np.ndarray) -> np.ndarray:
    """The time-out, or the time a full waiting room takes to drain, or the clients' patience."""
    drain = np.where(np.isfinite(p.queue_capacity), p.queue_capacity / capacity, np.inf)
    patience = np.minimum(p.timeout_s, drain)
    return np.where(np.isfinite(patience), patience, DEFAULT_PATIENCE_S)


def _batching_state(lam: np.ndarray, cc: np.ndarray, live: np.ndarray, p: StationParams) -> tuple:
    """(lost, wait, service, var, busy, (shape mean, shape var)) of a batching station: the batch
    model's tables below capacity, the saturated closed form (:func:`saturated_batches`) at or above
    it; zeros where no server is ready (the caller fills those in)."""
    bmax = np.maximum(p.batch_max, 1.0)
    mu = bmax / np.maximum(p.batch_base_s + p.batch_item_s * bmax, 1e-9)
    patience = _patience(p, cc * mu)
    over = live & (lam >= SATURATED_LOAD * cc * mu)
    parts = (np.flatnonzero(live & ~over), np.flatnonzero(over))
    figures = [np.zeros(lam.shape) for _ in range(7)]
    for index, solve in zip(parts, (batch_station, saturated_batches)):
        if not index.size:
            continue
        whole = index.size == lam.size
        fig = solve(lam if whole else lam[index], cc if whole else cc[index], p if whole else p.select(index),
                    patience if whole else patience[index])
        for array, name in zip(figures, ("lost", "wait", "service", "var", "busy", "shape_mean", "shape_var")):
            array[index] = fig[name]
    lost, wait, service, var, busy, shape_mean, shape_var = figures
    return lost, wait, service, var, busy, (shape_mean, shape_var)


def saturated_batches(lam: np.ndarray, c: np.ndarray, p: StationParams, patience: np.ndarray) -> dict[str, np.ndarray]:
    """A batching station offered its full-batch capacity or more (no table needed): every batch is
    full, so it is the patience queue of ``c`` servers each completing ``B`` requests in ``tau(B)``
    (rate ``B/tau(B)``), its served requests waiting less than their patience; the batch time
    ``tau(B)`` with the station's service CV is the service, and the sojourn's own moments are the
    shape the end-to-end percentiles compose."""
    bmax = np.maximum(p.batch_max, 1.0)
    tau = np.broadcast_to(np.maximum(p.batch_base_s + p.batch_item_s * bmax, 1e-9), lam.shape)
    cv = np.broadcast_to(p.service_cv, lam.shape)
    mu = bmax / tau
    lost, wait, wait_var = patience_queue(lam, c, mu, (p.ca2 + cv ** 2) / 2, patience)
    lost = np.maximum(lost, 1.0 - c * mu / np.maximum(lam, 1e-300))
    var = wait_var + (cv * tau) ** 2
    return {"lost": lost, "wait": wait, "service": tau, "var": var, "busy": np.ones(lam.shape),
            "shape_mean": wait + tau, "shape_var": var}


def saturated_state(lam: np.ndarray, replicas: np.ndarray, p: StationParams,
                    cold_wait_s: np.ndarray | None = None) -> StationState:
    """A batching station's queue as :func:`saturated_batches` gives it (full batches) at ``lam``
    requests/s on ``replicas`` ready replicas (at least one server each tick)."""
    c = np.maximum(np.floor(np.asarray(replicas, dtype=float) * p.servers_per_replica + 1e-9), 1.0)
    bmax = np.maximum(p.batch_max, 1.0)
    patience = _patience(p, c * bmax / np.maximum(p.batch_base_s + p.batch_item_s * bmax, 1e-9))
    fig = saturated_batches(lam, c, p, patience)
    return StationState(fig["lost"], fig["wait"], fig["wait"] + fig["service"], fig["var"], fig["busy"],
                        lam * (1 - fig["lost"]) * fig["wait"], fig["shape_mean"], fig["shape_var"])


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
    shape = None
    if p.batch_max is not None:  # the shared-queue batch model, from its tables
        lost, wait, service, var, busy, shape = _batching_state(lam, cc, live, p)
    else:
        service = np.maximum(p.service_s, 1e-9)
        mu = 1.0 / service
        g = (p.ca2 + cs2) / 2
        patience = _patience(p, cc * mu)
        lost, q_mean, q_var = patience_queue(lam, cc, mu, g, patience)
        wait = q_mean
        var = q_var + (p.service_cv * service) ** 2
        busy = np.minimum(1.0, lam * (1 - lost) / (cc * mu))
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
    state = StationState(lost, wait, wait + service, var, np.fmin(np.fmax(busy, 0.0), 1.0), lam * (1 - lost) * wait)
    if shape is not None:  # a batching station: the gamma through its p50 and p99 where a server is ready
        state.shape_mean = np.where(live, np.fmin(shape[0], 1e7), state.sojourn_s)
        state.shape_var = np.where(live, np.fmin(shape[1], 1e14), var)
    return state
