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
from dataclasses import dataclass, field
from functools import lru_cache

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
        """Seconds one batch of ``b`` requests takes to serve."""
        return self.base_s + self.item_s * b


def batch_capacity(servers: int, p: BatchParams) -> float:
    """Most requests/s ``servers`` replicas complete with full batches: ``c*B/tau(B)``."""
    if servers <= 0:
        return 0.0
    t = p.batch_time(max(int(p.batch_max), 1))
    return math.inf if t <= 0 else servers * max(int(p.batch_max), 1) / t


@dataclass(frozen=True, eq=False)
class BatchTable:
    """A batching station's simulated figures over a grid of loads, for one server count."""

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


@dataclass(frozen=True)
class _Plan:
    """The fixed shape of one table's runs: the replications of every grid load as numpy rows (row ->
    grid load and replication index), their arrival rates, run lengths, and which rows run long."""

    servers: int
    big_b: int
    delay: float
    reps_per: np.ndarray  #: replications per grid load
    load_of: np.ndarray  #: row -> grid load
    rep_of: np.ndarray  #: row -> replication index (common random numbers across loads)
    lam: np.ndarray  #: row -> arrival rate
    width: int  #: arrivals buffered per row
    n_steps: int  #: dispatches per run length
    long_rows: np.ndarray  #: rows that run ``_LONG_RUNS`` run lengths
    rec_from: np.ndarray  #: row -> first measured dispatch

    @classmethod
    def of(cls, servers: int, p: BatchParams, cap: float) -> _Plan:
        """The plan for ``servers`` replicas with ``p`` at full-batch capacity ``cap``."""
        big_b = max(int(p.batch_max), 1)
        reps_per = _replications(p, cap)
        load_of = np.repeat(np.arange(_LOADS.size), reps_per)
        rep_of = np.concatenate([np.arange(r) for r in reps_per])
        n_steps, burn = _steps(big_b)
        long_rows = _LOADS[load_of] >= _LONG_FROM
        return cls(servers, big_b, p.delay_s, reps_per, load_of, rep_of, np.maximum(_LOADS[load_of] * cap, 1e-300),
                   max(8 * big_b, 1024), n_steps, long_rows, np.where(long_rows, n_steps, burn))

    @property
    def total_steps(self) -> int:
        """Dispatches the longest rows run."""
        return self.n_steps * (_LONG_RUNS if self.long_rows.any() else 1)


@dataclass
class _Draws:
    """The random numbers of one table, drawn in one fixed order from one seeded generator: unit
    inter-arrival gaps and service noise per replication index (common to every grid load)."""

    rng: np.random.Generator
    reps: int
    arrival_scv: float
    noise_shape: float  #: gamma shape of the service noise (0: none)

    def arrivals(self, n: int, rep_of: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """The next ``n`` arrival times of each row, from 0 (cumulated gaps at the row's rate). Gaps
        are drawn for the replication indices up to the highest one still running (once the light
        loads are done, the few replications of the heavy ones)."""
        reps = int(rep_of.max()) + 1 if rep_of.size else 1
        if self.arrival_scv == 0.0:
            unit = np.ones((reps, n))
        elif self.arrival_scv == 1.0:
            unit = self.rng.standard_exponential((reps, n))
        else:
            unit = self.rng.gamma(1.0 / self.arrival_scv, self.arrival_scv, (reps, n))
        gaps = np.divide(unit[rep_of], lam[:, None])
        return np.cumsum(gaps, axis=1, out=gaps)

    def noise(self, steps: int, rep_of: np.ndarray) -> np.ndarray | None:
        """Service noise of ``steps`` dispatches per row, mean exactly 1 over each run length."""
        if self.noise_shape <= 0:
            return None
        noise = self.rng.gamma(self.noise_shape, 1.0 / self.noise_shape, (steps, self.reps))
        return (noise / noise.mean(axis=0))[:, rep_of]


@dataclass
class _Rows:
    """The rows still running: each one's buffered arrivals, the next one not yet dispatched, and
    when each of its replicas is free."""

    plan: _Plan
    active: np.ndarray  #: original index of each running row
    rep_of: np.ndarray
    lam: np.ndarray
    offset: np.ndarray  #: row -> first histogram bin of its grid load
    buf: np.ndarray
    head: np.ndarray
    free: np.ndarray

    @classmethod
    def start(cls, plan: _Plan, draws: _Draws) -> _Rows:
        """Every row at time 0 with its first buffer of arrivals."""
        n_rows = plan.load_of.size
        buf = draws.arrivals(plan.width, plan.rep_of, plan.lam)
        free = np.zeros(n_rows) if plan.servers == 1 else np.zeros((n_rows, plan.servers))
        rows = cls(plan, np.arange(n_rows), plan.rep_of, plan.lam, plan.load_of * _BINS, buf,
                   np.zeros(n_rows, np.int64), free)
        rows._index()
        return rows

    def _index(self) -> None:
        """Flat offsets of each row in the arrival buffer and the replicas' free times."""
        rows = np.arange(self.active.size)
        self.row_base, self.free_base = rows * self.plan.width, rows * self.plan.servers
        self.flat = self.buf.reshape(-1)
        self.batch_slots = np.arange(self.plan.big_b)
        self.rec_from = self.plan.rec_from[self.active]
        self.measured_from = int(self.rec_from.max())  #: from this step on every running row is measured
        self.load_of = self.plan.load_of[self.active]  #: running row -> grid load
        #: where the running rows' totals are: all of them (a slice, cheaper) or some
        self.totals_at = slice(None) if self.active.size == self.plan.load_of.size else self.active
        self.safe_steps = 0  #: dispatches that cannot run past the buffer, so no check is needed

    def keep(self, which: np.ndarray) -> None:
        """Only the rows ``which`` (positions among the running rows) run on."""
        self.active, self.buf, self.head, self.free = self.active[which], self.buf[which], self.head[which], \
            self.free[which]
        self.rep_of, self.lam, self.offset = self.rep_of[which], self.lam[which], self.offset[which]
        self._index()

    def slide(self, draws: _Draws) -> None:
        """When a row's next batch could run past its buffer, move every row's window to its head and
        draw fresh arrivals behind."""
        width, big_b = self.plan.width, self.plan.big_b
        if self.safe_steps > 0:  # a dispatch moves a head by at most one batch
            self.safe_steps -= 1
            return
        top = int(self.head.max())
        if top + big_b <= width:
            self.safe_steps = (width - top) // big_b - 2
            return
        both = np.empty((self.head.size, 2 * width))  # the buffer, then the next arrivals
        both[:, :width] = self.buf
        np.add(self.buf[:, -1:], draws.arrivals(width, self.rep_of, self.lam), out=both[:, width:])
        rows = np.arange(self.head.size)[:, None] * (2 * width)
        self.buf = both.reshape(-1)[rows + self.head[:, None] + np.arange(width)[None, :]]
        self.flat = self.buf.reshape(-1)
        self.head[:] = 0
        self.safe_steps = width // big_b - 2


@dataclass
class _Dispatch:
    """One dispatch in every running row: when the window closed (``ready``) and the batch started,
    the arrivals it looked at, which of them joined, the batch size and its service time."""

    ready: np.ndarray
    start: np.ndarray
    window: np.ndarray
    member: np.ndarray
    size: np.ndarray
    service: np.ndarray


def _dispatch(rows: _Rows, p: BatchParams, noise: np.ndarray | None, step: int) -> _Dispatch:
    """Dispatch the next batch of every running row on its first free replica."""
    plan = rows.plan
    pos = rows.row_base + rows.head
    if plan.servers == 1:
        slot, ready_at = rows.free_base, rows.free
    else:
        slot = rows.free_base + np.argmin(rows.free, axis=1)
        ready_at = rows.free.reshape(-1)[slot]
    window = rows.flat[pos[:, None] + rows.batch_slots]
    ready = np.minimum(window[:, 0] + plan.delay, window[:, -1])
    start = np.maximum(ready_at, ready)
    member = window <= start[:, None]
    size = member.sum(axis=1)
    service = p.base_s + p.item_s * size
    if noise is not None:
        service *= noise[step % plan.n_steps]
    rows.free.reshape(-1)[slot] = start + service
    rows.head += size
    return _Dispatch(ready, start, window, member, size, service)


@dataclass
class _RowTotals:
    """Per original row: busy time, requests and dispatches measured, when measuring began and ended."""

    busy: np.ndarray
    served: np.ndarray
    count: np.ndarray
    t_from: np.ndarray
    t_end: np.ndarray

    @classmethod
    def zeros(cls, n_rows: int) -> _RowTotals:
        """All zero for ``n_rows`` rows."""
        return cls(*(np.zeros(n_rows) for _ in range(5)))


@dataclass
class _Tally:
    """What the measured requests add up to per grid load: sojourn and wait histograms on log-spaced
    bins (request-weighted), zero waits, and the sums behind the means."""

    lo: float  #: log of the first bin edge
    scale: float  #: bins per unit of log time
    soj_hist: np.ndarray
    wait_hist: np.ndarray
    zero_wait: np.ndarray
    requests: np.ndarray  #: measured requests
    forming: np.ndarray  #: batch forming wait
    batch_time: np.ndarray  #: request-weighted batch service time
    wait: np.ndarray
    pending: list = field(default_factory=list)  #: (waits, service times, bin offsets) not yet binned

    @classmethod
    def empty(cls, p: BatchParams, big_b: int) -> _Tally:
        """Empty, with bins spanning well below one batch of one to well above a full batch's wait."""
        tau_hi = p.batch_time(big_b) + (0.0 if math.isinf(p.delay_s) else p.delay_s)
        lo = math.log(max(min(p.batch_time(1), tau_hi) * 1e-3, 1e-12))
        hi = math.log(max(tau_hi, 1e-12) * 1e4)
        n_load = _LOADS.size
        return cls(lo, _BINS / (hi - lo), np.zeros(n_load * _BINS), np.zeros(n_load * _BINS),
                   *(np.zeros(n_load) for _ in range(5)))

    def _bins(self, values: np.ndarray) -> np.ndarray:
        return np.clip(((np.log(values) - self.lo) * self.scale).astype(np.int64), 0, _BINS - 1)

    def flush(self) -> None:
        """Bin the pending requests."""
        n_load = _LOADS.size
        wait = np.concatenate([w for w, _, _ in self.pending])
        soj = wait + np.concatenate([s for _, s, _ in self.pending])
        where = np.concatenate([g for _, _, g in self.pending])
        self.pending.clear()
        self.soj_hist[:] += np.bincount(where + self._bins(soj), minlength=n_load * _BINS)
        pos = wait > 0
        wp, gp = wait[pos], where[pos]
        self.wait_hist[:] += np.bincount(gp + self._bins(wp), minlength=n_load * _BINS)
        self.zero_wait[:] += np.bincount(where // _BINS, None, n_load) - np.bincount(gp // _BINS, None, n_load)
        self.wait += np.bincount(where // _BINS, wait, n_load)


def _measure(rows: _Rows, d: _Dispatch, step: int, totals: _RowTotals, tally: _Tally) -> None:
    """Count the dispatch in the rows past their burn-in; every ``_RECORD_EVERY`` steps, their requests too."""
    active = rows.totals_at
    if step > rows.measured_from:  # every running row measured, none begins now
        totals.busy[active] += d.service
        totals.served[active] += d.size
        totals.count[active] += 1.0
        if step % _RECORD_EVERY:
            return
        size_on, member_on = d.size, d.member
    else:
        on = rows.rec_from <= step
        if not on.any():
            return
        begin = rows.rec_from == step
        if begin.any():
            totals.t_from[rows.active[begin]] = d.start[begin]
        totals.busy[active] += np.where(on, d.service, 0.0)
        totals.served[active] += np.where(on, d.size, 0)
        totals.count[active] += on
        if step % _RECORD_EVERY:
            return
        size_on, member_on = np.where(on, d.size, 0), d.member & on[:, None]
    _tally_requests(rows, d, size_on, member_on, tally)


def _tally_requests(rows: _Rows, d: _Dispatch, size_on: np.ndarray, member_on: np.ndarray, tally: _Tally) -> None:
    """Add the measured requests of a dispatch (``member_on``; ``size_on`` per row) to the tally."""
    n_load, load_of = _LOADS.size, rows.load_of
    row = np.repeat(np.arange(size_on.size), size_on)  # a batch's members are the first of its window
    window = d.window[member_on]
    waited = d.start[row] - window
    tally.pending.append((waited, d.service[row], rows.offset[row]))
    forming = np.minimum(np.maximum(d.ready[row] - window, 0.0), waited)
    tally.forming += np.bincount(load_of[row], forming, n_load)
    tally.requests += np.bincount(load_of, size_on, n_load)
    tally.batch_time += np.bincount(load_of, d.service * size_on, n_load)
    if len(tally.pending) >= 64:
        tally.flush()


def _table(plan: _Plan, totals: _RowTotals, tally: _Tally, cap: float) -> BatchTable:
    """The table from the runs' totals: every measured dispatch counts for the batch size and the
    busy time. Each grid point is labelled with the load its runs actually carried (requests
    dispatched per second): the sampling error of the arrival rate then moves the point along the
    curve instead of off it (with common random numbers it would otherwise shift every load the
    same way)."""
    n_load, group = _LOADS.size, plan.load_of
    span = np.bincount(group, np.maximum(totals.t_end - totals.t_from, 1e-300), n_load)
    mean_b = np.bincount(group, totals.served, n_load) / np.maximum(np.bincount(group, totals.count, n_load), 1.0)
    util = np.bincount(group, totals.busy, n_load) / (plan.servers * span)
    loads = np.bincount(group, totals.served, n_load) / span / cap
    loads[0] = 0.0
    loads = np.maximum.accumulate(np.minimum(loads, 1.0 - 1e-6))
    edges = np.exp(tally.lo + np.arange(_BINS + 1) / tally.scale)
    soj_q = np.empty((n_load, PROBS.size))
    wait_q = np.empty((n_load, PROBS.size))
    for k in range(n_load):
        soj_q[k] = _hist_quantiles(tally.soj_hist[k * _BINS:(k + 1) * _BINS], 0.0, edges)
        wait_q[k] = _hist_quantiles(tally.wait_hist[k * _BINS:(k + 1) * _BINS], tally.zero_wait[k], edges)
    requests = np.maximum(tally.requests, 1.0)
    return BatchTable(cap, loads, mean_b, util, tally.wait / requests, tally.forming / requests,
                      tally.batch_time / requests, 1.0 - tally.zero_wait / requests, soj_q, wait_q)


def simulate_table(servers: int, p: BatchParams, cap: float) -> BatchTable:
    """Run the replications of every grid load side by side (see the module docstring). Loads from
    ``_LONG_FROM`` on relax slowly: their rows run ``_LONG_RUNS`` times longer, measured only after
    the first (light-load) run length, while the other rows have stopped."""
    plan = _Plan.of(servers, p, cap)
    draws = _Draws(np.random.default_rng(_SEED), int(plan.reps_per.max()),
                   p.arrival_scv if p.arrival_scv > 1e-9 else 0.0,
                   1.0 / p.service_scv if p.service_scv > 1e-9 else 0.0)
    rows = _Rows.start(plan, draws)
    noise = draws.noise(plan.n_steps, rows.rep_of)
    totals, tally = _RowTotals.zeros(plan.load_of.size), _Tally.empty(p, plan.big_b)
    start = np.zeros(plan.load_of.size)
    for step in range(plan.total_steps):
        if step == plan.n_steps and rows.active.size > int(plan.long_rows.sum()):  # the light loads are done
            totals.t_end[rows.active] = start
            rows.keep(np.flatnonzero(plan.long_rows[rows.active]))
        if step % plan.n_steps == 0 and step:
            noise = draws.noise(plan.n_steps, rows.rep_of)
        rows.slide(draws)
        dispatch = _dispatch(rows, p, noise, step)
        start = dispatch.start
        _measure(rows, dispatch, step, totals, tally)
    if tally.pending:
        tally.flush()
    totals.t_end[rows.active] = start
    table = _table(plan, totals, tally, cap)
    _no_traffic_row(table, p)
    return table


def _no_traffic_row(table: BatchTable, p: BatchParams) -> None:
    """The zero-load row is the limit, not a run (a run at a vanishing rate loses the window D to
    rounding): every request is alone, waits the whole window and takes a batch of one,
    ``tau(1)*g`` with g gamma of mean 1 and squared CV ``service_scv`` (its quantiles from a fixed
    sample)."""
    d = 0.0 if math.isinf(p.delay_s) else p.delay_s
    tau = p.batch_time(1)
    noise = _noise_quantiles(p.service_scv) if p.service_scv > 1e-9 else np.ones(PROBS.size)
    table.mean_batch[0], table.util[0] = 1.0, 0.0
    table.mean_wait[0] = table.forming_wait[0] = d
    table.mean_service[0] = tau
    table.p_wait[0] = 1.0 if d > 0 else 0.0
    table.sojourn_q[0] = d + tau * noise
    table.wait_q[0] = d


@lru_cache(maxsize=64)
def _noise_quantiles(service_scv: float) -> np.ndarray:
    """Quantiles at ``PROBS`` of gamma service noise of mean 1 and squared CV ``service_scv``, from
    a fixed sample (kept: the tables of one design's stations mostly share it)."""
    shape = 1.0 / service_scv
    g = np.random.default_rng(_SEED).gamma(shape, 1.0 / shape, 400_000)
    quantiles = np.quantile(g / g.mean(), PROBS)
    quantiles.setflags(write=False)
    return quantiles


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
