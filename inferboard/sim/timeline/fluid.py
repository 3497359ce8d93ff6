"""The backlog a station carries from tick to tick: a fluid queue with abandonment.

Per tick ``k`` of length ``dt`` a station is offered ``lam[k]`` requests/s and can complete
``capacity[k]`` requests/s with its ready servers. The backlog ``b`` counts the requests waiting
that will be served; it follows the fluid recursion

    b[k+1] = min(max(0, b[k] + (lam[k] - capacity[k]) dt), limit[k])

and what the limit cuts off is lost: ``limit = min(capacity × patience, waiting room)``. With FCFS
and a deterministic patience (the station's time-out) a request is served exactly when the
virtual waiting time ``b / capacity`` it finds is below the patience, so the requests beyond the
limit are the ones that time out (or find the waiting room full); they are counted when they
arrive, as the load test does. Timed-out requests still occupy the queue until they give up, so
the number waiting is ``b`` plus the requests lost in the last ``patience`` seconds
(:func:`doomed_waiting`).

This is the stationary-backlog-carry-over idea of Stolletz (EJOR 190(2), 2008): each tick is
solved as a steady state, and the part of the load the tick could not serve is carried into the
next one as backlog. The random part of the wait on top of the backlog comes from the tick's
steady-state queue (``tickqueue.station_state``), see :func:`station_stretch`.

Only ticks where a backlog exists or forms are visited by the Python loop; quiet stretches
(``lam <= capacity`` with no backlog) are skipped with one vectorised search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from inferboard.sim.timeline.tickqueue import (DEFAULT_PATIENCE_S, SATURATED_LOAD, StationParams, StationState,
                                              saturated_state, station_state)

EPS = 1e-9


def fluid_backlog(lam: np.ndarray, capacity: np.ndarray, limit: np.ndarray, dt: float,
                  b0: float = 0.0) -> tuple[np.ndarray, np.ndarray, float]:
    """(backlog at the start of each tick, requests lost in each tick, backlog after the last tick)."""
    n = len(lam)
    start = np.zeros(n)
    lost = np.zeros(n)
    if n == 0:
        return start, lost, float(b0)
    excess = (np.asarray(lam, dtype=float) - np.asarray(capacity, dtype=float)) * dt
    limit = np.asarray(limit, dtype=float)
    growing = np.flatnonzero(excess > EPS).tolist()
    if not growing and b0 <= EPS:
        return start, lost, 0.0
    ex, lim = excess.tolist(), np.broadcast_to(limit, excess.shape).tolist()
    b, k, g = float(b0), 0, 0
    while k < n:
        if b <= EPS:  # quiet: jump to the next tick where a backlog forms
            while g < len(growing) and growing[g] < k:
                g += 1
            if g == len(growing):
                break
            k, b = growing[g], 0.0
        start[k] = b
        x = b + ex[k]
        cap = lim[k]
        if x > cap:
            lost[k] = x - cap
            x = cap
        b = x if x > EPS else 0.0
        k += 1
    return start, lost, b


def doomed_waiting(lost_history: np.ndarray, patience_ticks: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Requests still in the queue at ticks ``lo:hi`` that will time out: those lost in the last
    ``patience`` seconds (they wait that long before giving up). ``lost_history`` covers ticks 0..hi."""
    cumulative = np.concatenate(([0.0], np.cumsum(lost_history[:hi])))
    index = np.arange(lo, hi)
    back = np.clip(index - np.asarray(patience_ticks, dtype=np.int64), 0, None)
    return cumulative[index] - cumulative[back]


# ----------------------------------------------------------------------------- one station over a stretch
#: the random part of the wait on top of a backlog is the steady queue at this utilisation at most
BACKLOG_RHO = 0.9


@dataclass
class StationStretch:
    """A station over consecutive ticks: the steady-state figures with the fluid backlog on top."""

    loss: np.ndarray  #: fraction of arrivals shed (timed out, queue full, no capacity)
    wait_s: np.ndarray  #: mean wait of served requests arriving in the tick
    sojourn_s: np.ndarray
    sojourn_var: np.ndarray
    busy: np.ndarray
    queue: np.ndarray  #: mean requests waiting during the tick (doomed ones included)
    backlog: np.ndarray  #: fluid backlog at the start of each tick (requests that will be served)
    lost: np.ndarray  #: requests lost per tick
    capacity: np.ndarray  #: requests/s the ready servers complete
    patience_s: np.ndarray
    carry: float  #: backlog after the last tick
    accepted: np.ndarray | None = None  #: cumulative accepted arrivals at the end of each tick
    #: what the end-to-end percentiles compose for the station (``tickqueue.StationState.shape_mean``)
    shape_mean: np.ndarray | None = None
    shape_var: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.shape_mean is None:
            self.shape_mean, self.shape_var = self.sojourn_s, self.sojourn_var


def station_capacity(ready: np.ndarray, p: StationParams) -> np.ndarray:
    """Requests/s the ready replicas complete (full batches on a batching station). The single place a
    batching station's capacity comes from (the batch model's ``capacity``)."""
    c = np.floor(np.asarray(ready, dtype=float) * p.servers_per_replica + 1e-9)
    if p.batch_max is not None:
        bmax = np.maximum(p.batch_max, 1.0)
        return c * bmax / np.maximum(p.batch_base_s + p.batch_item_s * bmax, 1e-9)
    return c / np.maximum(p.service_s, 1e-9)


def station_patience(capacity: np.ndarray, p: StationParams) -> np.ndarray:
    """How long a request waits before it leaves: the time-out, else the clients' patience."""
    return np.where(np.isfinite(p.timeout_s), p.timeout_s, DEFAULT_PATIENCE_S) + 0.0 * capacity


def station_stretch(lam: np.ndarray, ready: np.ndarray, p: StationParams, cold_wait_s: np.ndarray | None,
                    b0: float, dt: float, lost_before: np.ndarray | None = None,
                    accepted_before: np.ndarray | None = None, capacity: np.ndarray | None = None) -> StationStretch:
    """The station over ticks of length ``dt`` starting with backlog ``b0``. Where no backlog exists
    or forms, a tick is the steady state of ``tickqueue.station_state`` (its losses included); where
    one does, losses are the fluid ones, the wait is the backlog's virtual wait (averaged over the
    tick, its spread as a uniform variance) plus the steady wait at utilisation ``BACKLOG_RHO`` at
    most, and the servers are busy. The backlog's wait is the one of the requests completing: in
    FCFS order the request leaving when ``D`` requests have been served arrived when the accepted
    arrivals reached ``D``, so its wait is read off the cumulative arrivals (the past only, as a
    latency dashboard sees it; it also allows for servers that were added since it arrived).
    ``accepted_before``: cumulative accepted arrivals at the tick boundaries from the start of the
    run up to the first tick of the stretch. ``lost_before``: requests lost in every tick before (to count
    the timed-out requests still waiting at the start). ``capacity``: what the station completes
    per second in each tick when it is not its servers over their service time (an LLM pool, whose
    service time grows with its load: the FLOPs/HBM replica model's capacity)."""
    lam = np.fmax(np.asarray(lam, dtype=float), 0.0)
    capacity = station_capacity(ready, p) if capacity is None else np.asarray(capacity, dtype=float)
    patience = station_patience(capacity, p)
    limit = np.minimum(capacity * patience, p.queue_capacity)
    no_server = capacity <= 0
    if no_server.any():  # requests wait for a replica that is starting, if it comes within patience
        cold = np.full(lam.shape, np.inf) if cold_wait_s is None else np.asarray(cold_wait_s, dtype=float)
        coming = np.isfinite(cold) & (cold <= patience)
        limit = np.where(no_server, np.where(coming, p.queue_capacity, 0.0), limit)
    start, lost, carry = fluid_backlog(lam, capacity, limit, dt, b0)
    end = np.append(start[1:], carry) if start.size else start
    # ticks without a server keep the steady figures (a wait for the replica that is starting)
    quiet = ((start <= EPS) & (end <= EPS) & (lost <= EPS)) | no_server
    steady = station_state(lam, ready, p, cold_wait_s)
    if quiet.all():
        return StationStretch(steady.loss, steady.wait_s, steady.sojourn_s, steady.sojourn_var, steady.busy,
                              steady.queue, start, lost, capacity, patience, carry,
                              _accepted(accepted_before, lam * (1 - steady.loss) * dt), steady.shape_mean,
                              steady.shape_var)
    arriving = np.maximum(lam * dt, 1e-12)
    loss = np.where(quiet, steady.loss, np.minimum(1.0, lost / arriving))
    before = np.zeros(1) if accepted_before is None or not len(accepted_before) else np.asarray(accepted_before)
    accepted_now = np.where(quiet, lam * (1 - steady.loss) * dt, np.maximum(lam * dt - lost, 0.0))
    accepted = np.concatenate((before[:-1], np.cumsum(np.concatenate((before[-1:], accepted_now)))))
    first = before.size - 1  # index of the stretch's first boundary (= its tick number)
    edge_times = np.arange(accepted.size) * dt
    boundary = np.append(start, carry)
    served = accepted[first:] - boundary  # requests through the station by each boundary
    waits = np.maximum(0.0, edge_times[first:] - np.interp(served, accepted, edge_times))
    waits = np.where(boundary > EPS, waits, 0.0)
    virtual0, virtual1 = waits[:-1], waits[1:]
    fluid_wait = 0.5 * (virtual0 + virtual1)
    fluid_var = (virtual1 - virtual0) ** 2 / 12.0
    under = _steady_under_backlog(lam, capacity, ready, p, cold_wait_s, ~quiet)
    total = under.wait_s + fluid_wait
    capped = total > patience  # a served request waits less than its patience: the random part is cut off
    wait = np.where(quiet, steady.wait_s, np.minimum(total, patience))
    service = under.sojourn_s - under.wait_s
    var = np.where(quiet, steady.sojourn_var,
                   np.where(capped, (p.service_cv * service) ** 2, under.sojourn_var) + fluid_var)
    busy = np.where(quiet, steady.busy, np.where(no_server, 0.0, 1.0))
    history = np.concatenate((np.zeros(0) if lost_before is None else lost_before, lost))
    ticks = np.maximum(np.round(patience / dt).astype(np.int64), 1)
    offset = history.size - lost.size
    doomed = doomed_waiting(history, ticks, offset, history.size) if lost.any() or offset else 0.0
    queue = np.where(quiet, steady.queue, under.queue + 0.5 * (start + end) + doomed)
    sojourn = wait + np.where(quiet, steady.sojourn_s - steady.wait_s, service)
    # the station's own shape (a batcher's gamma through p50/p99) with the backlog's wait on top
    shape_mean = np.where(quiet, steady.shape_mean, sojourn + under.shape_mean - under.sojourn_s)
    shape_var = np.where(quiet, steady.shape_var, np.maximum(var + under.shape_var - under.sojourn_var, 0.0))
    return StationStretch(loss, wait, sojourn, var, busy, queue, start, lost, capacity, patience, carry,
                          accepted[first + 1:], shape_mean, shape_var)


def _steady_under_backlog(lam: np.ndarray, capacity: np.ndarray, ready: np.ndarray, p: StationParams,
                          cold_wait_s: np.ndarray | None, busy: np.ndarray) -> StationState:
    """The steady part of the wait on top of a backlog (the tick's queue at ``BACKLOG_RHO`` at most),
    solved only at the ticks ``busy`` (where a backlog exists or forms); zeros elsewhere. A batching
    station offered its capacity or more runs full batches: there the part on top of the backlog
    is the queue of its servers as servers of ``B`` requests per batch time
    (:func:`tickqueue.saturated_state`), not its batch table."""
    full = StationState(*(np.zeros(lam.shape) for _ in range(6)), np.zeros(lam.shape), np.zeros(lam.shape))
    x = np.minimum(lam, BACKLOG_RHO * capacity)
    ready = np.broadcast_to(ready, lam.shape)
    parts = [(busy, station_state)]
    if p.batch_max is not None:
        over = busy & (lam >= SATURATED_LOAD * capacity)
        parts = [(busy & ~over, station_state), (over, saturated_state)]
    for mask, solve in parts:
        index = np.flatnonzero(mask)
        if index.size == lam.size:
            return solve(x, ready, p, cold_wait_s)
        if not index.size:
            continue
        cold = None if cold_wait_s is None else np.broadcast_to(cold_wait_s, lam.shape)[index]
        part = solve(x[index], ready[index], p.select(index), cold)
        for name in ("loss", "wait_s", "sojourn_s", "sojourn_var", "busy", "queue", "shape_mean", "shape_var"):
            getattr(full, name)[index] = getattr(part, name)
    return full


def _accepted(before: np.ndarray | None, per_tick: np.ndarray) -> np.ndarray:
    """Cumulative sums continued from ``before[-1]``, added in the same order as in one pass."""
    base = 0.0 if before is None or not len(before) else float(before[-1])
    return np.cumsum(np.concatenate(([base], per_tick)))[1:]
