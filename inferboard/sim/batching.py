"""Dynamic batching: one shared-queue batch-service model for the steady state and the timeline.

The station. ``servers`` replicas draw from ONE FIFO queue fed by a renewal stream (Poisson by default). When a replica
is free and the queue holds ``batch_max`` (B) requests or its oldest request has waited ``delay_s``
(D), a batch of ``min(queue, B)`` leaves; a batch of b takes ``(base_s + item_s*b) * g``, g gamma
with mean 1 and squared CV ``service_scv``. These are the rules of the request-level load test.

The method (no closed form is known for c > 1 replicas with the time-out window): the station's
stationary behaviour is computed once per ``(servers, params)`` by a vectorised Monte Carlo
solution of exactly these rules at batch level — independent replications (Asmussen & Glynn,
*Stochastic Simulation: Algorithms and Analysis*, Springer 2007) run side by side
as numpy rows, each replication advancing one dispatch per step, over a grid of loads with common
random numbers (the same unit inter-arrival gaps and service noise at every load, so the tabulated
figures are smooth in the load). A step needs no per-request loop: the
dispatch time of replication r is ``max(next free replica, min(a_head + D, a_head+B-1))`` and the
batch is the arrivals up to it, at most B. Every tabulated figure comes from the same runs:
mean batch E[b] (requests per dispatch), utilisation (busy time over elapsed time), the sojourn and wait
distributions (request-weighted histograms on log-spaced bins). Each grid point is labelled with the
load its runs actually carried; loads from ``_LONG_FROM`` run ``_LONG_RUNS`` times longer. The
zero-load row is the no-traffic limit (a lone request waits the window D). Between grid loads waits
are interpolated as ``v*(1 - x)``, below the lightest run linearly in ``1/(1 + lam*D)`` (the shape
of the light-load wait ``D/2 + (D/2)/(1 + lam*D)``); above the last grid load (95% of capacity) the
queueing part of the wait is scaled by ``(1 - x_max)/(1 - x)`` (heavy-traffic growth).

Accuracy (tests/sim/test_batching_model.py against the request-level load test, 1M requests a
point): see docs/simulator.md, "Dynamic batcher".

Public API (stable): :class:`BatchParams`, :func:`batch_steady` (one load) and :func:`batch_arrays`
(vectorised over ticks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

__all__ = ["BatchParams", "BatchSolution", "batch_arrays", "batch_capacity", "batch_steady", "batch_wait_tail"]

#: loads (fractions of full-batch capacity) the model is solved at; replications per load
_LOADS = np.array([0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.76, 0.82, 0.86, 0.9,
                   0.93, 0.95])
_STEPS, _BURN = 2400, 600  #: dispatches per replication, of which the first are discarded (B <= 16)
_SEED = 20261203
_SAMPLES = 80_000  #: measured requests aimed at per grid load
_HEAVY_REPS = 8
_RECORD_EVERY = 2
#: loads from which replications run ``_LONG_RUNS`` times longer (waits relax slowly near capacity)
_LONG_FROM, _LONG_RUNS = 0.82, 4
#: probabilities at which sojourn and wait quantiles are tabulated
_PROBS = np.concatenate([np.linspace(0.0, 0.9, 91), 1.0 - np.geomspace(0.1, 2e-4, 48)[1:], [1.0]])
_BINS = 2400
_ARRAY_KEYS = ("capacity", "utilisation", "mean_batch", "throughput", "mean_wait", "mean_sojourn",
               "p50", "p95", "p99", "max_wait")


@dataclass(frozen=True)
class BatchParams:
    """One station's batching parameters (seconds)."""

    batch_max: int
    delay_s: float
    base_s: float
    item_s: float
    service_scv: float = 0.0
    #: squared CV of the inter-arrival gaps (1 = Poisson; others: a renewal stream of gamma gaps)
    arrival_scv: float = 1.0

    def batch_time(self, b: float) -> float:
        return self.base_s + self.item_s * b


def batch_capacity(servers: int, p: BatchParams) -> float:
    """Most requests/s ``servers`` replicas complete with full batches: ``c*B/tau(B)``."""
    if servers <= 0:
        return 0.0
    t = p.batch_time(max(int(p.batch_max), 1))
    return math.inf if t <= 0 else servers * max(int(p.batch_max), 1) / t


@dataclass(frozen=True)
class BatchSolution:
    """Steady state of a batching station at one arrival rate (seconds, requests/s)."""

    lam: float
    servers: int
    capacity: float  #: most requests/s the replicas complete with full batches
    utilisation: float  #: busy fraction of the replicas
    mean_batch: float  #: mean batch size (per batch)
    throughput: float  #: requests/s served
    mean_wait: float  #: mean time from arrival to the start of the request's batch
    mean_service: float  #: mean batch time a request sees (request-weighted)
    saturated: bool
    forming_wait: float = 0.0  #: part of mean_wait until the batch is ready (full, or its oldest waited D)
    p_wait: float = 1.0  #: share of requests whose batch did not start at their arrival
    load: float = 0.0  #: lam / capacity
    #: sojourn (wait + batch time) and wait quantiles at ``probs``, seconds
    probs: np.ndarray = field(default_factory=lambda: _PROBS, repr=False)
    sojourn_q: np.ndarray | None = field(default=None, repr=False)
    wait_q: np.ndarray | None = field(default=None, repr=False)

    @property
    def mean_sojourn(self) -> float:
        return self.mean_wait + self.mean_service

    def quantile(self, p: float) -> float:
        """The ``p``-quantile of the sojourn (wait + batch time), seconds; inf when saturated."""
        if self.saturated or self.sojourn_q is None:
            return math.inf
        return float(np.interp(p, self.probs, self.sojourn_q))

    def sojourn_cdf(self, t: np.ndarray) -> np.ndarray:
        """P(sojourn <= t), piecewise linear between the tabulated quantiles."""
        return np.interp(t, self.sojourn_q, self.probs, left=0.0, right=1.0)

    def wait_tail(self, t: float) -> float:
        """P(wait > t): the share of requests that would time out with time-out ``t``."""
        if self.saturated or self.wait_q is None:
            return 1.0
        return float(1.0 - np.interp(t, self.wait_q, self.probs, left=0.0, right=1.0))


@dataclass(frozen=True, eq=False)
class _Table:
    capacity: float
    loads: np.ndarray  #: realised load of each grid point (served rate / capacity in its runs)
    mean_batch: np.ndarray  #: per grid load
    util: np.ndarray
    mean_wait: np.ndarray
    forming_wait: np.ndarray  #: part of the wait until the batch is ready (full or its oldest waited D)
    mean_service: np.ndarray
    p_wait: np.ndarray
    sojourn_q: np.ndarray  #: (loads, probs)
    wait_q: np.ndarray


def _steps(big_b: int) -> tuple[int, int]:
    """Dispatches per replication and burn-in: fewer for big batches (each dispatch moves B requests,
    and the queue relaxes in about 1/(B(1 - x)^2) dispatches)."""
    steps = max(1000, min(_STEPS, _STEPS * 16 // max(big_b, 1)))
    return steps, steps * _BURN // _STEPS


def _replications(p: BatchParams, cap: float) -> np.ndarray:
    """Replications per grid load: enough for about ``_SAMPLES`` measured requests each, from a rough
    batch-size guess (light-load window ``1 + lam*D`` or the fluid batch, at most B)."""
    big_b = max(int(p.batch_max), 1)
    lam = _LOADS * cap
    delay = 0.0 if math.isinf(p.delay_s) else p.delay_s
    guess = np.minimum(big_b, np.maximum(1.0 + lam * delay, _LOADS * big_b))
    samples = _SAMPLES * np.clip((0.25 / (1.0 - _LOADS)) ** 2, 1.0, 25.0)  # waits decorrelate slowly near capacity
    steps, burn = _steps(big_b)
    reps = np.ceil(samples / (len(range(burn, steps, _RECORD_EVERY)) * guess)).astype(np.int64)
    long_runs = np.where(_LOADS >= _LONG_FROM, (_LONG_RUNS - 1) * steps / (steps - burn), 1.0)
    reps = np.ceil(reps / long_runs).astype(np.int64)
    reps = np.maximum(reps, np.where(_LOADS > 0.85, _HEAVY_REPS, 6))
    reps[0] = 1
    return reps


def _simulate(servers: int, p: BatchParams, cap: float) -> _Table:
    """Run the replications of every grid load side by side (see the module docstring). Loads from
    ``_LONG_FROM`` on relax slowly: their rows run ``_LONG_RUNS`` times longer, measured only after
    the first (light-load) run length, while the other rows have stopped."""
    c, big_b, delay = servers, max(int(p.batch_max), 1), p.delay_s
    n_load = _LOADS.size
    reps_per = _replications(p, cap)
    load_of = np.repeat(np.arange(n_load), reps_per)  # row -> grid load
    rep_of = np.concatenate([np.arange(r) for r in reps_per])  # row -> replication index (common numbers)
    lam = np.maximum(_LOADS[load_of] * cap, 1e-300)
    n_rows, reps = load_of.size, int(reps_per.max())
    rng = np.random.default_rng(_SEED)
    width = max(8 * big_b, 1024)  # arrivals buffered per row
    ca2 = p.arrival_scv if p.arrival_scv > 1e-9 else 0.0
    n_steps, burn = _steps(big_b)
    long_rows = _LOADS[load_of] >= _LONG_FROM
    rec_from = np.where(long_rows, n_steps, burn)  # first measured dispatch of each row
    total_steps = n_steps * (_LONG_RUNS if long_rows.any() else 1)

    def arrivals(n: int) -> np.ndarray:
        if ca2 == 0.0:
            unit = np.ones((reps, n))
        elif ca2 == 1.0:
            unit = rng.standard_exponential((reps, n))
        else:
            unit = rng.gamma(1.0 / ca2, ca2, (reps, n))
        return np.cumsum(unit[rep_of] / lam[:, None], axis=1)

    shape = 1.0 / p.service_scv if p.service_scv > 1e-9 else 0.0

    def noise_block(steps: int) -> np.ndarray | None:
        if shape <= 0:
            return None
        noise = rng.gamma(shape, 1.0 / shape, (steps, reps))
        return (noise / noise.mean(axis=0))[:, rep_of]  # mean exactly 1 over each run length

    buf = arrivals(width)
    head = np.zeros(n_rows, np.int64)
    free = np.zeros(n_rows) if c == 1 else np.zeros((n_rows, c))
    slots = np.arange(big_b)
    noise_all = noise_block(n_steps)
    tau_hi = p.batch_time(big_b) + (0.0 if math.isinf(delay) else delay)
    lo = math.log(max(min(p.batch_time(1), tau_hi) * 1e-3, 1e-12))
    hi = math.log(max(tau_hi, 1e-12) * 1e4)
    scale = _BINS / (hi - lo)
    soj_hist = np.zeros(n_load * _BINS)
    wait_hist = np.zeros(n_load * _BINS)
    sums = np.zeros((5, n_load))  # measured requests, -, batch forming wait, request-weighted batch time, wait
    zero_wait = np.zeros(n_load)
    offset = load_of * _BINS
    # per original row: busy time, requests and dispatches measured, time measuring began and ended
    busy_all, served_all, count_all = np.zeros(n_rows), np.zeros(n_rows), np.zeros(n_rows)
    t_from_all, t_end_all = np.zeros(n_rows), np.zeros(n_rows)
    active = np.arange(n_rows)  # original index of each row still running
    pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    base, item = p.base_s, p.item_s

    def flush() -> None:
        wait = np.concatenate([w for w, _, _ in pending])
        soj = wait + np.concatenate([s for _, s, _ in pending])
        where = np.concatenate([g for _, _, g in pending])
        pending.clear()
        soj_hist[:] += np.bincount(where + np.clip(((np.log(soj) - lo) * scale).astype(np.int64), 0, _BINS - 1),
                                   minlength=n_load * _BINS)
        pos = wait > 0
        wp, gp = wait[pos], where[pos]
        wait_hist[:] += np.bincount(gp + np.clip(((np.log(wp) - lo) * scale).astype(np.int64), 0, _BINS - 1),
                                    minlength=n_load * _BINS)
        zero_wait[:] += np.bincount(where // _BINS, None, n_load) - np.bincount(gp // _BINS, None, n_load)
        sums[4] += np.bincount(where // _BINS, wait, n_load)

    n_active = n_rows
    rows = np.arange(n_active)
    row_base, free_base = rows * width, rows * c
    flat = buf.reshape(-1)
    start = np.zeros(n_rows)
    for step in range(total_steps):
        if step == n_steps and n_active > int(long_rows.sum()):  # the light loads are done
            t_end_all[active] = start
            keep = np.flatnonzero(long_rows[active])
            active, buf, head, free = active[keep], buf[keep], head[keep], free[keep]
            load_of, rep_of, lam, offset = load_of[keep], rep_of[keep], lam[keep], offset[keep]
            n_active = active.size
            rows = np.arange(n_active)
            row_base, free_base = rows * width, rows * c
            flat = buf.reshape(-1)
        if step % n_steps == 0 and step:
            noise_all = noise_block(n_steps)
        if int(head.max()) + big_b > width:  # slide each row's window and draw fresh arrivals
            idx = head[:, None] + np.arange(width)[None, :]
            kept = np.take_along_axis(buf, np.minimum(idx, width - 1), 1)
            fresh = np.take_along_axis(arrivals(width), np.maximum(idx - width, 0), 1)
            buf = np.where(idx < width, kept, buf[:, -1:] + fresh)
            flat = buf.reshape(-1)
            head[:] = 0
        pos = row_base + head
        if c == 1:
            slot, ready_at = free_base, free
        else:
            slot = free_base + np.argmin(free, axis=1)
            ready_at = free.reshape(-1)[slot]
        ready = np.minimum(flat[pos] + delay, flat[pos + (big_b - 1)])
        start = np.maximum(ready_at, ready)
        window = flat[pos[:, None] + slots]
        member = window <= start[:, None]
        size = member.sum(axis=1)
        service = base + item * size
        if noise_all is not None:
            service *= noise_all[step % n_steps]
        free.reshape(-1)[slot] = start + service
        head += size
        on = rec_from[active] <= step
        if not on.any():
            continue
        begin = rec_from[active] == step
        if begin.any():
            t_from_all[active[begin]] = start[begin]
        busy_all[active] += np.where(on, service, 0.0)
        served_all[active] += np.where(on, size, 0)
        count_all[active] += on
        if step % _RECORD_EVERY:
            continue
        size_on = np.where(on, size, 0)
        member_on = member & on[:, None]
        waited = start[:, None] - window
        pending.append((waited[member_on], np.repeat(service, size_on), np.repeat(offset, size_on)))
        forming = np.minimum(np.maximum(ready[:, None] - window, 0.0), waited)[member_on]
        sums[2] += np.bincount(np.repeat(load_of, size_on), forming, n_load)
        sums[0] += np.bincount(load_of, size_on, n_load)
        sums[3] += np.bincount(load_of, service * size_on, n_load)
        if len(pending) >= 64:
            flush()
    if pending:
        flush()
    t_end_all[active] = start
    # every measured dispatch counts for the batch size and the busy time (the same runs)
    group = np.repeat(np.arange(n_load), reps_per)
    span = np.bincount(group, np.maximum(t_end_all - t_from_all, 1e-300), n_load)
    mean_b = np.bincount(group, served_all, n_load) / np.maximum(np.bincount(group, count_all, n_load), 1.0)
    util = np.bincount(group, busy_all, n_load) / (c * span)
    # each grid point is labelled with the load its runs actually carried (requests dispatched per
    # second): the sampling error of the arrival rate then moves the point along the curve instead
    # of off it (with common random numbers it would otherwise shift every load the same way)
    loads = np.bincount(group, served_all, n_load) / span / cap
    loads[0] = 0.0
    loads = np.maximum.accumulate(np.minimum(loads, 1.0 - 1e-6))
    edges = np.exp(lo + np.arange(_BINS + 1) / scale)
    soj_q = np.empty((n_load, _PROBS.size))
    wait_q = np.empty((n_load, _PROBS.size))
    for k in range(n_load):
        soj_q[k] = _hist_quantiles(soj_hist[k * _BINS:(k + 1) * _BINS], 0.0, edges)
        wait_q[k] = _hist_quantiles(wait_hist[k * _BINS:(k + 1) * _BINS], zero_wait[k], edges)
    requests = np.maximum(sums[0], 1.0)
    table = _Table(cap, loads, mean_b, util, sums[4] / requests, sums[2] / requests, sums[3] / requests,
                   1.0 - zero_wait / requests, soj_q, wait_q)
    _no_traffic_row(table, p)
    return table


def _no_traffic_row(table: _Table, p: BatchParams) -> None:
    """The zero-load row is the limit, not a run (a run at a vanishing rate loses the window D to
    rounding): every request is alone, waits the whole window and takes a batch of one,
    ``tau(1)*g`` with g gamma of mean 1 and squared CV ``service_scv`` (its quantiles from a fixed
    sample)."""
    d = 0.0 if math.isinf(p.delay_s) else p.delay_s
    tau = p.batch_time(1)
    if p.service_scv > 1e-9:
        shape = 1.0 / p.service_scv
        g = np.random.default_rng(_SEED).gamma(shape, 1.0 / shape, 400_000)
        noise = np.quantile(g / g.mean(), _PROBS)
    else:
        noise = np.ones(_PROBS.size)
    table.mean_batch[0], table.util[0] = 1.0, 0.0
    table.mean_wait[0] = table.forming_wait[0] = d
    table.mean_service[0] = tau
    table.p_wait[0] = 1.0 if d > 0 else 0.0
    table.sojourn_q[0] = d + tau * noise
    table.wait_q[0] = d


def _hist_quantiles(counts: np.ndarray, zeros: float, edges: np.ndarray) -> np.ndarray:
    """Quantiles at ``_PROBS`` of a histogram on ``edges`` plus an atom of ``zeros`` at 0 (linear
    within a bin)."""
    total = counts.sum() + zeros
    if total <= 0:
        return np.zeros(_PROBS.size)
    cdf = np.concatenate([[zeros], zeros + np.cumsum(counts)]) / total
    x = np.concatenate([[0.0], edges[1:]]) if zeros > 0 else edges
    if zeros <= 0:
        cdf = np.concatenate([[0.0], np.cumsum(counts)]) / total
    keep = np.concatenate([[True], np.diff(cdf) > 0])
    return np.interp(_PROBS, cdf[keep], x[keep])


#: A folder where worker processes share the tables they build (see ``share_tables``); None: each
#: process keeps its own.
_SHARED_TABLES: list[str] = []


def share_tables(folder: str | None) -> None:
    """Let several processes grading a room share batching tables through ``folder`` (a private
    temporary folder the caller made and removes): a table one process built is read back, not
    rebuilt, by the others. The numbers are the same either way. ``None`` stops sharing."""
    _SHARED_TABLES[:] = [folder] if folder else []


def _table_path(servers: int, p: BatchParams) -> str:
    import hashlib
    import os

    key = hashlib.sha256(repr((servers, p)).encode("utf-8")).hexdigest()[:32]
    return os.path.join(_SHARED_TABLES[0], f"{key}.npz")


def _read_shared(path: str) -> _Table | None:
    try:
        with np.load(path, allow_pickle=False) as data:
            return _Table(float(data["capacity"]), *(data[name] for name in _TABLE_ARRAYS))
    except (OSError, ValueError, KeyError):
        return None


def _write_shared(path: str, table: _Table) -> None:
    import os
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".npz")
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, capacity=np.float64(table.capacity),
                     **{name: getattr(table, name) for name in _TABLE_ARRAYS})
        os.replace(tmp, path)  # whole or not at all for a process reading it
    except OSError:
        pass


_TABLE_ARRAYS = ("loads", "mean_batch", "util", "mean_wait", "forming_wait", "mean_service", "p_wait", "sojourn_q",
                 "wait_q")


@lru_cache(maxsize=512)
def _table(servers: int, p: BatchParams) -> _Table:
    if _SHARED_TABLES:
        return _shared_table(servers, p)
    return _simulate(servers, p, batch_capacity(servers, p))


#: How long a process waits for a table another process is building before building it itself.
SHARED_WAIT_S = 60.0


def _shared_table(servers: int, p: BatchParams) -> _Table:
    """Read the table if another process built it; wait while one builds it (a lock file says
    so); otherwise build it and leave it for the others."""
    import os
    import time

    path = _table_path(servers, p)
    lock = path + ".building"
    deadline = time.monotonic() + SHARED_WAIT_S
    while True:
        shared = _read_shared(path)
        if shared is not None:
            return shared
        try:
            os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            break  # this process builds it
        except FileExistsError:
            if time.monotonic() > deadline:  # the builder died or is stuck: build it here
                break
            time.sleep(0.02)
        except OSError:
            break
    try:
        table = _simulate(servers, p, batch_capacity(servers, p))
        _write_shared(path, table)
        return table
    finally:
        try:
            os.unlink(lock)
        except OSError:
            pass


def _no_traffic(servers: int, p: BatchParams, cap: float) -> BatchSolution:
    tau = p.batch_time(1)
    d = 0.0 if math.isinf(p.delay_s) else p.delay_s
    return BatchSolution(lam=0.0, servers=servers, capacity=cap, utilisation=0.0, mean_batch=1.0, throughput=0.0,
                         mean_wait=d, mean_service=tau, saturated=False, forming_wait=d, p_wait=1.0 if d > 0 else 0.0,
                         load=0.0, sojourn_q=np.full(_PROBS.size, d + tau), wait_q=np.full(_PROBS.size, d))


def batch_steady(lam: float, servers: int, p: BatchParams) -> BatchSolution:
    """The batching station's steady state at arrival rate ``lam`` on ``servers`` replicas."""
    c = int(servers)
    cap = batch_capacity(c, p)
    if c <= 0 or lam >= cap:
        return BatchSolution(lam=lam, servers=c, capacity=cap, utilisation=1.0 if c > 0 else 0.0,
                             mean_batch=float(max(p.batch_max, 1)), throughput=min(lam, cap), mean_wait=math.inf,
                             mean_service=p.batch_time(max(p.batch_max, 1)), saturated=lam > 0 or c <= 0,
                             load=lam / cap if cap > 0 else 1.0)
    if lam <= 0 or not math.isfinite(cap):
        return _no_traffic(c, p, cap)
    table = _table(c, p)
    x = lam / cap
    fig = _figures(table, np.array([x]), p.delay_s)
    loads, top = table.loads, float(table.loads[-1])
    xc = min(x, top)
    ks, fs = _weights(table, np.array([xc]), p.delay_s)
    k, f = int(ks[0]), float(fs[0])
    wi, wj = (1.0 - loads[k]) * (1.0 - f), (1.0 - loads[k + 1]) * f  # interpolation of v*(1 - x), see _figures
    grow = float(_growth(np.array([x]), top)[0])
    wait_q = (table.wait_q[k] * wi + table.wait_q[k + 1] * wj) / (1.0 - xc) * grow
    soj_q = (table.sojourn_q[k] * wi + table.sojourn_q[k + 1] * wj) / (1.0 - xc) + (grow - 1.0) * table.wait_q[-1]
    return BatchSolution(lam=lam, servers=c, capacity=cap, utilisation=float(fig["utilisation"][0]),
                         mean_batch=float(fig["mean_batch"][0]), throughput=lam, mean_wait=float(fig["mean_wait"][0]),
                         mean_service=float(fig["mean_service"][0]), saturated=False,
                         forming_wait=min(float(fig["forming_wait"][0]), float(fig["mean_wait"][0])),
                         p_wait=float(fig["p_wait"][0]), load=x, sojourn_q=soj_q, wait_q=wait_q)


def _growth(x: np.ndarray, top: float) -> np.ndarray:
    """Heavy-traffic growth of waits beyond the last solved load ``top``: ``(1 - top)/(1 - x)``."""
    return np.where(x > top, (1.0 - top) / np.maximum(1.0 - x, 1e-12), 1.0)


@lru_cache(maxsize=512)
def _quantile_columns(table: _Table) -> dict[str, np.ndarray]:
    """Per grid load: the sojourn p50/p95/p99 and the wait p50/p95/p99."""
    cols = {}
    for name, prob in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99)):
        cols[name] = np.array([np.interp(prob, _PROBS, row) for row in table.sojourn_q])
        cols["w" + name] = np.array([np.interp(prob, _PROBS, row) for row in table.wait_q])
    return cols


def _weights(table: _Table, xc: np.ndarray, delay: float) -> tuple[np.ndarray, np.ndarray]:
    """Per load ``xc`` the grid row below it and the weight of the row above. Between the first two
    rows (no traffic, and the lightest load run) a window D makes the waits fall steeply, as
    ``D/2 + (D/2)/(1 + lam*D)`` when a replica is always free: there the weight is linear in
    ``1/(1 + lam*D)`` (exact for that limit), elsewhere in the load."""
    loads = table.loads
    k = np.clip(np.searchsorted(loads, xc, side="right") - 1, 0, loads.size - 2)
    f = np.clip((xc - loads[k]) / np.maximum(loads[k + 1] - loads[k], 1e-12), 0.0, 1.0)
    if 0.0 < delay < math.inf:
        window1 = loads[1] * table.capacity * delay
        if window1 > 1e-6:
            light = (1.0 - 1.0 / (1.0 + xc * table.capacity * delay)) / (1.0 - 1.0 / (1.0 + window1))
            f = np.where(k == 0, np.clip(light, 0.0, 1.0), f)
    return k, f


def _lerp_scaled(k: np.ndarray, f: np.ndarray, x: np.ndarray, loads: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Waits between grid loads: ``v*(1 - x)`` interpolated with the weights of :func:`_weights`, then
    divided by ``1 - x`` (exact for the heavy-traffic shape ``a + b/(1 - x)``; plain interpolation
    would overstate the convex growth of waits between grid points)."""
    scaled = values * (1.0 - loads)
    return (scaled[k] * (1.0 - f) + scaled[k + 1] * f) / (1.0 - x)


def _figures(table: _Table, x: np.ndarray, delay: float) -> dict[str, np.ndarray]:
    """Figures at loads ``x`` (< 1) from a solved table, vectorised (``delay``: the window D)."""
    loads, top = table.loads, float(table.loads[-1])
    xc = np.minimum(x, top)
    grow = _growth(x, top)
    k, f = _weights(table, xc, delay)
    out = {k: np.interp(xc, loads, getattr(table, attr)) for k, attr in (
        ("mean_batch", "mean_batch"), ("utilisation", "util"), ("mean_service", "mean_service"),
        ("p_wait", "p_wait"))}
    out["forming_wait"] = _lerp_scaled(k, f, xc, loads, table.forming_wait)
    out["mean_wait"] = _lerp_scaled(k, f, xc, loads, table.mean_wait) * grow
    last_util = float(table.util[-1])
    out["utilisation"] = np.where(x > top, last_util + (1.0 - last_util) * (x - top) / (1.0 - top),
                                  out["utilisation"])
    cols = _quantile_columns(table)
    for name in ("p50", "p95", "p99"):
        out[name] = _lerp_scaled(k, f, xc, loads, cols[name]) + (grow - 1.0) * cols["w" + name][-1]
    out["mean_sojourn"] = out["mean_wait"] + out["mean_service"]
    # the longest wait tabulated around x (scaled as the quantiles are): P(wait > t) is 0 beyond it
    last = table.wait_q[:, -1] * (1.0 - loads)
    out["max_wait"] = np.maximum(last[k], last[k + 1]) / (1.0 - xc) * grow
    return out


def batch_arrays(lam: np.ndarray, servers: np.ndarray, p: BatchParams) -> dict[str, np.ndarray]:
    """``batch_steady`` figures element by element (ticks); one solved table per server count, read
    by interpolation in the load. Saturated elements: utilisation 1, full batches, throughput =
    capacity, ``inf`` waits and percentiles; no traffic: no wait beyond the window, utilisation 0.
    ``max_wait``: the longest wait tabulated at each rate (``P(wait > t)`` is 0 beyond it)."""
    lam = np.fmax(np.asarray(lam, dtype=float), 0.0)
    c = np.floor(np.asarray(servers, dtype=float) + 1e-9).astype(np.int64)
    lam, c = np.broadcast_arrays(lam, c)
    shape = lam.shape
    lam, c = lam.reshape(-1), c.reshape(-1)
    out = {k: np.zeros(lam.size) for k in _ARRAY_KEYS}
    for n in np.unique(c):
        sel = np.flatnonzero(c == n)
        cap = batch_capacity(int(n), p)
        out["capacity"][sel] = cap
        ls = lam[sel]
        if n <= 0 or not math.isfinite(cap):
            idle = _no_traffic(max(int(n), 0), p, cap)
            dead = (ls > 0) & (n <= 0)
            for k, v in (("mean_batch", 1.0), ("throughput", np.where(dead, 0.0, ls)),
                         ("mean_wait", np.where(dead, math.inf, idle.mean_wait)),
                         ("mean_sojourn", np.where(dead, math.inf, idle.mean_sojourn))):
                out[k][sel] = v
            for k in ("p50", "p95", "p99"):
                out[k][sel] = np.where(dead, math.inf, idle.mean_sojourn)
            out["max_wait"][sel] = np.where(dead, math.inf, idle.mean_wait)
            continue
        x = ls / cap
        fig = _figures(_table(int(n), p), np.minimum(x, 1.0 - 1e-9), p.delay_s)
        over = x >= 1.0
        idle = _no_traffic(int(n), p, cap)
        zero = ls <= 0
        out["utilisation"][sel] = np.where(over, 1.0, np.where(zero, 0.0, np.minimum(fig["utilisation"], 1.0)))
        out["mean_batch"][sel] = np.where(over, float(max(p.batch_max, 1)), np.where(zero, 1.0, fig["mean_batch"]))
        out["throughput"][sel] = np.minimum(ls, cap)
        for k, empty in (("mean_wait", idle.mean_wait), ("mean_sojourn", idle.mean_sojourn), ("p50", idle.mean_sojourn),
                         ("p95", idle.mean_sojourn), ("p99", idle.mean_sojourn), ("max_wait", idle.mean_wait)):
            out[k][sel] = np.where(over, math.inf, np.where(zero, empty, fig[k]))
    return {k: v.reshape(shape) for k, v in out.items()}


def batch_wait_tail(lam: np.ndarray, servers: int, p: BatchParams, t: np.ndarray) -> np.ndarray:
    """``P(wait > t)`` element by element at rates ``lam`` (< capacity) on ``servers`` replicas: the
    share of requests a time-out ``t`` removes, from the same table and interpolation in the load as
    :func:`batch_steady` (the wait quantiles of the two grid loads around each rate, each scaled by
    ``(1 - load)/(1 - x)``, times the heavy-traffic growth above the last grid load); 1 at or above
    capacity, 0 without traffic."""
    lam, t = np.broadcast_arrays(np.fmax(np.asarray(lam, dtype=float), 0.0), np.asarray(t, dtype=float))
    cap = batch_capacity(int(servers), p)
    out = np.where(lam > 0, 1.0, 0.0)
    ok = (lam > 0) & (lam < cap) & np.isfinite(cap)
    if not ok.any():
        return out
    table = _table(int(servers), p)
    loads, top = table.loads, float(table.loads[-1])
    x = lam[ok] / cap
    xc = np.minimum(x, top)
    k, f = _weights(table, xc, p.delay_s)
    # a wait quantile at x is w_k (1 - f)(1 - l_k)/(1 - x) + w_k1 f (1 - l_k1)/(1 - x), times the growth:
    # P(wait > t) is read off each grid row at t scaled back to that row, and mixed with the same weights
    scale = (1.0 - xc) / _growth(x, top)
    tail = np.zeros(x.size)
    for row, weight, load in ((k, 1.0 - f, loads[k]), (k + 1, f, loads[k + 1])):
        at = t[ok] * scale / (1.0 - load)
        for r in np.unique(row):
            sel = row == r
            if at[sel].min() >= table.wait_q[r, -1]:  # beyond the longest wait seen: nobody waits that long
                continue
            tail[sel] += weight[sel] * (1.0 - np.interp(at[sel], table.wait_q[r], _PROBS, left=0.0, right=1.0))
    out[ok] = np.clip(tail, 0.0, 1.0)
    return out
