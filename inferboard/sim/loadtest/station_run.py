"""One station of the request-level load test (:mod:`loadtest` has the semantics): its requests,
sorted by arrival, run through one tight loop (FCFS with c servers, or dynamic batching), or through
Lindley's recursion for a plain single server; plus the progress and cancel budget of a run."""

from __future__ import annotations

import heapq
import math
from array import array
from collections import deque

import numpy as np

from inferboard.sim.design.network import Station

#: Outcome codes (per request, in :class:`loadtest.LoadTrace` and internally).
SERVED, SHED, TIMED_OUT, ERROR, IN_FLIGHT = 0, 1, 2, 3, 4

_CHUNK = 1 << 15  # most requests between progress/cancel polls


class Work:
    """Progress reporting and cancel polling, in units of roughly equal cost."""

    def __init__(self, total: float, progress, cancel, n: int) -> None:
        self.chunk = max(1024, min(_CHUNK, n // 128))
        self.total = max(float(total), 1.0)
        self.done, self.last = 0.0, -1.0
        self.progress, self.cancel, self.cancelled = progress, cancel, False

    def tick(self, units: float) -> bool:
        """Count work done; True once cancelled."""
        self.done += units
        frac = min(self.done / self.total, 0.999)
        if self.progress is not None and frac >= self.last + 0.005:
            self.last = frac
            self.progress(frac)
        if self.cancel is not None and self.cancel():
            self.cancelled = True
        return self.cancelled


def draw_gaps(rng: np.random.Generator, mean: float, cv: float, size: int) -> np.ndarray:
    """``size`` gamma variates with this mean and coefficient of variation."""
    if mean <= 0 or size == 0:
        return np.zeros(size)
    if cv < 1e-6:  # below this the noise is under a millionth, and 1/cv**2 can overflow
        return np.full(size, float(mean))
    if cv == 1:
        return rng.exponential(mean, size)
    shape = 1.0 / (cv * cv)
    return rng.gamma(shape, mean / shape, size)


def _is_plain_single_server(st: Station) -> bool:
    return (not st.is_batching and st.servers == 1 and st.queue_capacity is None
            and st.timeout_s is None)


def station_weight(st: Station) -> float:
    """Work per request of a station's own pass (a Python loop costs 1)."""
    if st.delay_only or st.servers <= 0:
        return 0.02
    return 0.1 if _is_plain_single_server(st) else 1.0


def _fcfs_lindley(arr: np.ndarray, svc: np.ndarray, work: Work) -> np.ndarray:
    """Start times at one FCFS server with an unbounded queue, without a Python loop.

    Per chunk, with C the running sum of service times from the chunk start and d the last
    departure before it: D_n = C_n + max(d, max_{k<=n}(a_k - C_{k-1})) (Lindley's recursion).
    """
    start = np.empty_like(arr)
    last, step = 0.0, work.chunk * 8
    for lo in range(0, len(arr), step):
        a, s = arr[lo:lo + step], svc[lo:lo + step]
        csum = np.cumsum(s)
        run = np.maximum.accumulate(a - (csum - s))
        np.maximum(run, last, out=run)
        dep = csum + run
        start[lo:lo + step] = np.maximum(dep - s, a)
        last = float(dep[-1])
        work.tick(len(a) * 0.1)
    return start


def _fcfs_loop(arr: list, svc: list, c: int, cap: int | None, tmo: float | None,
               work: Work, joining: tuple = ()) -> tuple[array, bytearray, int]:
    """FCFS on c servers with optional waiting room and timeout: (start, outcome, n decided).
    ``joining``: times at which more servers join (each is a server busy until then)."""
    m, chunk = len(arr), work.chunk
    start = array("d", bytes(8 * m))
    out = bytearray(m)
    free = [0.0] * c + sorted(joining)  # heap of the times servers become free (a sorted list is a heap)
    heapreplace = heapq.heapreplace
    done = 0
    if cap is None and tmo is None:
        for lo in range(0, m, chunk):
            for j in range(lo, min(lo + chunk, m)):
                a = arr[j]
                f = free[0]
                if f < a:
                    f = a
                start[j] = f
                heapreplace(free, f + svc[j])
            done = min(lo + chunk, m)
            if work.tick(done - lo):
                break
        return start, out, done
    track = cap is not None
    capacity = m + 1 if cap is None else cap
    patience = math.inf if tmo is None else tmo
    starts: deque = deque()  # start times of admitted requests that had to wait (ascending)
    leaves: deque = deque()  # give-up times of admitted requests that will time out (ascending)
    s_push, s_pop, l_push, l_pop = starts.append, starts.popleft, leaves.append, leaves.popleft
    for lo in range(0, m, chunk):
        for j in range(lo, min(lo + chunk, m)):
            a = arr[j]
            f = free[0]
            if f <= a:  # a server is free: start at once
                start[j] = a
                heapreplace(free, a + svc[j])
                continue
            if track:
                while starts and starts[0] <= a:
                    s_pop()
                while leaves and leaves[0] <= a:
                    l_pop()
                if len(starts) + len(leaves) >= capacity:
                    out[j] = SHED
                    continue
            if f - a > patience:
                out[j] = TIMED_OUT
                if track:
                    l_push(a + patience)
                continue
            start[j] = f
            heapreplace(free, f + svc[j])
            if track:
                s_push(f)
        done = min(lo + chunk, m)
        if work.tick(done - lo):
            break
    return start, out, done


def _batch_loop(arr: list, noise: list, st: Station, work: Work):
    """Triton-style dynamic batching on ``st.servers`` instances.

    Returns (outcome, queue, batches, n decided, n queued): ``queue`` lists admitted request
    positions in order and batch k = (time, service, pos, size) holds ``queue[pos:pos + size]``.
    """
    m, chunk = len(arr), work.chunk
    out = bytearray(b"\x04") * m  # IN_FLIGHT until decided
    free = [0.0] * st.servers
    heapreplace = heapq.heapreplace
    big_b, delay, base, item = st.batch_max, st.batch_timeout_s, st.batch_base_s, st.batch_item_s
    cap = m + 1 if st.queue_capacity is None else st.queue_capacity
    patience = math.inf if st.timeout_s is None else st.timeout_s
    q = array("q")
    q_push = q.append
    batches: list[tuple[float, float, int, int]] = []
    b_push = batches.append
    nq = h = i = 0
    next_tick = chunk
    while True:
        qlen = nq - h
        if qlen:
            a0 = arr[q[h]]
            f = free[0]
            trig = arr[q[h + big_b - 1]] if qlen >= big_b else a0 + delay
            td = f if f > trig else trig  # dispatch time unless something happens first
            leave = a0 + patience
        elif i >= m:
            break
        if i < m and (not qlen or (arr[i] <= td and arr[i] <= leave)):
            # the next arrival comes first (ties join the batch)
            if qlen >= cap and (qlen or delay or free[0] > arr[i]):
                out[i] = SHED
            else:
                q_push(i)
                nq += 1
            i += 1
            if i >= next_tick:
                next_tick += chunk
                if work.tick(chunk):
                    break
        elif leave < td:  # the oldest request gives up first
            out[q[h]] = TIMED_OUT
            h += 1
        else:
            b = big_b if qlen > big_b else qlen
            s = (base + item * b) * noise[len(batches)]
            heapreplace(free, td + s)
            b_push((td, s, h, b))
            h += b
    work.tick(i - (next_tick - chunk))
    return out, q, batches, i, nq


def run_station(st: Station, a: np.ndarray, rng: np.random.Generator, work: Work, joining: tuple = ()) -> dict:
    """Serve one station's sorted arrivals ``a``: per-request start, finish, outcome; totals."""
    m = len(a)
    start, dep, out = a.copy(), a.copy(), np.zeros(m, np.uint8)
    busy, n_batches, batched = 0.0, 0, 0
    if st.delay_only or st.servers <= 0:
        if st.delay_only:
            dep += st.fixed_delay_s
        else:
            out[:] = SHED
        work.tick(m * station_weight(st))
        return {"start": start, "dep": dep, "out": out, "busy": 0.0, "batches": 0, "batched": 0}
    if st.is_batching:
        noise = draw_gaps(rng, 1.0, st.service_cv, m).tolist()
        outb, q, batches, _, nq = _batch_loop(a.tolist(), noise, st, work)
        del noise
        out = np.frombuffer(outb, dtype=np.uint8).copy()
        if batches:
            bt, bs, bp, bz = (np.array(col) for col in zip(*batches))
            del batches
            n_batches, batched = len(bt), int(bz.sum())
            pos = np.repeat(bp - (np.cumsum(bz) - bz), bz) + np.arange(batched)
            members = np.frombuffer(q, dtype=np.int64)[:nq][pos]
            del pos
            start[members] = np.repeat(bt, bz)
            dep[members] = start[members] + np.repeat(bs, bz)
            out[members] = SERVED
            busy = float(bs.sum())
        del q, outb
    else:
        svc = draw_gaps(rng, st.service_mean_s, st.service_cv, m)
        if _is_plain_single_server(st) and not joining:
            start = _fcfs_lindley(a, svc, work)
        else:
            sa, outb, done = _fcfs_loop(a.tolist(), svc.tolist(), st.servers, st.queue_capacity,
                                        st.timeout_s, work, joining)
            start = np.frombuffer(sa, dtype=np.float64).copy()
            out = np.frombuffer(outb, dtype=np.uint8).copy()
            del sa, outb
            out[done:] = IN_FLIGHT
        started = out == SERVED
        dep = np.where(started, start + svc, a)
        busy = float(svc[started].sum())
        del svc, started
    served = out == SERVED
    start[~served] = a[~served]
    if st.timeout_s is not None:
        timed = out == TIMED_OUT
        dep[timed] = a[timed] + st.timeout_s
    if st.fixed_delay_s:
        dep[served] += st.fixed_delay_s
    if st.error_rate > 0:
        pos = np.flatnonzero(served)
        out[pos[rng.random(len(pos)) < st.error_rate]] = ERROR
    return {"start": start, "dep": dep, "out": out, "busy": busy, "batches": n_batches,
            "batched": batched}


def queue_stats(a: np.ndarray, start: np.ndarray, out: np.ndarray,
                 timeout_s: float | None) -> tuple[float, int]:
    """Total waiting time, and the most requests waiting at once (checked at arrivals)."""
    timed = out == TIMED_OUT
    admitted = (out == SERVED) | (out == ERROR) | timed
    if not admitted.any():
        return 0.0, 0
    a_adm = a[admitted]
    leave = np.where(timed, a + (timeout_s or 0.0), start)[admitted]
    total_wait = float((leave - a_adm).sum())
    leave.sort()
    waiting = np.arange(1, len(a_adm) + 1) - np.searchsorted(leave, a_adm, side="right")
    return total_wait, max(int(waiting.max()), 0)
