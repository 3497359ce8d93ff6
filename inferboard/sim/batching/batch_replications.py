"""The shared-queue batch model solved numerically: one table per ``(servers, params)``.

The station. ``servers`` replicas draw from ONE FIFO queue fed by a renewal stream (Poisson by default). When a replica
is free and the queue holds ``batch_max`` (B) requests or its oldest request has waited ``delay_s``
(D), a batch of ``min(queue, B)`` leaves; a batch of b takes ``(base_s + item_s*b) * g``, g gamma
with mean 1 and squared CV ``service_scv``. These are the rules of the request-level load test.

The method (no closed form is known for c > 1 replicas with the time-out window): a vectorised
Monte Carlo solution of exactly these rules at batch level — independent replications (Asmussen &
Glynn, *Stochastic Simulation: Algorithms and Analysis*, Springer 2007) run side by side as numpy
rows, each replication advancing one dispatch per step, over a grid of loads with common random
numbers (the same unit inter-arrival gaps and service noise at every load, so the tabulated
figures are smooth in the load). A step needs no per-request loop: the dispatch time of
replication r is ``max(next free replica, min(a_head + D, a_head+B-1))`` and the batch is the
arrivals up to it, at most B. Every tabulated figure comes from the same runs: mean batch E[b]
(requests per dispatch), utilisation (busy time over elapsed time), the sojourn and wait
distributions (request-weighted histograms on log-spaced bins). Each grid point is labelled with the
load its runs actually carried; loads from ``_LONG_FROM`` run ``_LONG_RUNS`` times longer. The
zero-load row is the no-traffic limit (a lone request waits the window D).

:mod:`batching` reads the tables (interpolation in the load, caching, sharing between processes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["PROBS", "BatchParams", "BatchTable", "batch_capacity", "simulate_table"]

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
PROBS = np.concatenate([np.linspace(0.0, 0.9, 91), 1.0 - np.geomspace(0.1, 2e-4, 48)[1:], [1.0]])
_BINS = 2400


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


@dataclass(frozen=True, eq=False)
class BatchTable:
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


def simulate_table(servers: int, p: BatchParams, cap: float) -> BatchTable:
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
    soj_q = np.empty((n_load, PROBS.size))
    wait_q = np.empty((n_load, PROBS.size))
    for k in range(n_load):
        soj_q[k] = _hist_quantiles(soj_hist[k * _BINS:(k + 1) * _BINS], 0.0, edges)
        wait_q[k] = _hist_quantiles(wait_hist[k * _BINS:(k + 1) * _BINS], zero_wait[k], edges)
    requests = np.maximum(sums[0], 1.0)
    table = BatchTable(cap, loads, mean_b, util, sums[4] / requests, sums[2] / requests, sums[3] / requests,
                   1.0 - zero_wait / requests, soj_q, wait_q)
    _no_traffic_row(table, p)
    return table


def _no_traffic_row(table: BatchTable, p: BatchParams) -> None:
    """The zero-load row is the limit, not a run (a run at a vanishing rate loses the window D to
    rounding): every request is alone, waits the whole window and takes a batch of one,
    ``tau(1)*g`` with g gamma of mean 1 and squared CV ``service_scv`` (its quantiles from a fixed
    sample)."""
    d = 0.0 if math.isinf(p.delay_s) else p.delay_s
    tau = p.batch_time(1)
    if p.service_scv > 1e-9:
        shape = 1.0 / p.service_scv
        g = np.random.default_rng(_SEED).gamma(shape, 1.0 / shape, 400_000)
        noise = np.quantile(g / g.mean(), PROBS)
    else:
        noise = np.ones(PROBS.size)
    table.mean_batch[0], table.util[0] = 1.0, 0.0
    table.mean_wait[0] = table.forming_wait[0] = d
    table.mean_service[0] = tau
    table.p_wait[0] = 1.0 if d > 0 else 0.0
    table.sojourn_q[0] = d + tau * noise
    table.wait_q[0] = d


def _hist_quantiles(counts: np.ndarray, zeros: float, edges: np.ndarray) -> np.ndarray:
    """Quantiles at ``PROBS`` of a histogram on ``edges`` plus an atom of ``zeros`` at 0 (linear
    within a bin)."""
    total = counts.sum() + zeros
    if total <= 0:
        return np.zeros(PROBS.size)
    cdf = np.concatenate([[zeros], zeros + np.cumsum(counts)]) / total
    x = np.concatenate([[0.0], edges[1:]]) if zeros > 0 else edges
    if zeros <= 0:
        cdf = np.concatenate([[0.0], np.cumsum(counts)]) / total
    keep = np.concatenate([[True], np.diff(cdf) > 0])
    return np.interp(PROBS, cdf[keep], x[keep])
