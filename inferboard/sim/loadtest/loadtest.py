"""Request-level load test: a seeded discrete-event simulation of a compiled :class:`Network`.

Speed comes from numpy and from keeping no Python object per request. Arrival times, path
choices and service times are drawn at once; then stations are processed one after another in
``network.topological_order()``. Each station gets the times its requests leave the previous
hop of their path, sorted, and runs one tight loop (FCFS with c servers, or Triton-style dynamic
batching). Paths never loop back, so every arrival at a station is known before the station is
processed and the result equals an event-by-event simulation. A single server with an unbounded
queue and no timeout needs no loop at all (Lindley's recursion as a running maximum).

Semantics (per station, see :class:`~inferboard.sim.design.network.Station`):

* FCFS on ``servers`` servers; gamma service times with the station's mean and CV (exponential
  at CV 1, constant at CV 0).
* Waiting room: an arrival that cannot start at once and finds ``queue_capacity`` requests
  waiting (arrived, not started, not yet timed out) is shed.
* Timeout: a request whose start would come more than ``timeout_s`` after its arrival leaves at
  arrival + ``timeout_s`` as timed out and never uses a server; the rest keep FCFS order.
* Errors: each served request fails with probability ``error_rate``; it used its server, counts
  as an error and goes no further.
* ``fixed_delay_s`` is added after service on every station; ``delay_only`` stations only add
  it and never queue. A station with no servers sheds everything.
* Batching (``batch_max`` > 1): a batch leaves when it holds ``batch_max`` requests or its oldest
  request has waited ``batch_timeout_s``, whichever is first, and only when an instance is free;
  while none is free the batch keeps growing up to ``batch_max``. A batch of b takes
  ``(batch_base_s + batch_item_s * b) * g``, g gamma with mean 1 and CV ``service_cv``. On a
  batcher, ``queue_capacity`` 0 admits only requests that can leave at once.

Statistics: counts cover all requests (``offered = served + shed + timed_out + errors +
in_flight``; ``in_flight`` is 0 unless cancelled); so do station utilisation and mean queue
length. Latency figures and station mean waits cover requests after the first
``warmup_fraction`` of arrivals. Confidence intervals are 95% intervals that allow for the
autocorrelation of delays (``intervals.py``): batch means with the batch size doubled until the
batch means are uncorrelated, applied to the latencies for the mean and to the indicator series
``1{latency <= q}`` for a quantile q (mapped back through the empirical quantile function). None
below 100 samples. ``warnings`` says when the run is too short for ``target_precision`` (relative
half-width) and how many requests would reach it.

Cancellation: ``cancel()`` is polled every ~1% of the work (at most 32k requests apart). When
it returns True the run stops and a partial result comes back with ``cancelled=True``: requests
whose fate was decided (shed, timed out, failed, or through every station of their path) count
as usual, the rest are ``in_flight``, and stations not reached report zeros.
"""

from __future__ import annotations

import heapq
import math
import time
from array import array
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields

import numpy as np

from inferboard.sim.loadtest import intervals as iv
from inferboard.sim.design.network import Network, Station

#: Outcome codes (per request, in :class:`LoadTrace` and internally).
SERVED, SHED, TIMED_OUT, ERROR, IN_FLIGHT = 0, 1, 2, 3, 4

_CHUNK = 1 << 15  # most requests between progress/cancel polls
_GEN_COST, _POST_COST = 0.1, 0.15  # work per request of drawing, of a station's bookkeeping
_HIST_BINS = 60
#: Default relative half-width of the 95% intervals below which no warning is given.
TARGET_PRECISION = 0.05


@dataclass(frozen=True)
class Estimate:
    """A point estimate with a 95% confidence interval (NaN bounds when too few samples)."""

    value: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class StationStats:
    id: str
    node_id: str
    arrivals: int
    served: int
    shed: int
    timed_out: int
    errors: int
    utilisation: float  # busy server-time / (servers * sim_time_s)
    mean_queue_len: float  # time-average number waiting, = total waiting time / sim_time_s
    max_queue_len: int  # most requests waiting at once (seen at arrival instants)
    mean_wait_s: float  # mean wait before service, post-warm-up requests that started
    batches: int = 0  # batching stations only
    mean_batch_size: float = 0.0


@dataclass(frozen=True, eq=False)
class LoadTrace:
    """Per-request arrays in arrival order (only with ``keep_trace=True``)."""

    arrival_s: np.ndarray  # float64
    finish_s: np.ndarray  # float64: departure, or the time it was shed / timed out / failed
    outcome: np.ndarray  # int8: SERVED, SHED, TIMED_OUT, ERROR, IN_FLIGHT
    path: np.ndarray  # int32 index into network.paths; len(paths) means unrouted


@dataclass(frozen=True, eq=False)
class LoadTestResult:
    n_requests: int
    offered: int
    served: int
    shed: int
    timed_out: int
    errors: int
    in_flight: int
    unrouted: int  # shed at entry because no path takes them (included in ``shed``)
    warmup_requests: int
    latency_samples: int
    mean_s: Estimate  # end-to-end latency of served post-warm-up requests
    p50_s: Estimate
    p95_s: Estimate
    p99_s: Estimate
    histogram_edges_ms: np.ndarray  # log-spaced, len = bins + 1 (empty without samples)
    histogram_counts: np.ndarray
    stations: dict[str, StationStats]
    sim_time_s: float  # time of the last decided event; arrivals start at 0
    throughput_rps: float  # served / sim_time_s
    cancelled: bool
    wall_time_s: float
    trace: LoadTrace | None = None
    #: when the run is too short for the requested precision, e.g. "p99 ±9%: run 4.0M requests for ±5%"
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """Plain JSON-ready values (NaN becomes None; the trace is left out)."""
        def clean(v):
            if isinstance(v, dict):
                return {k: clean(x) for k, x in v.items()}
            if isinstance(v, float) and not math.isfinite(v):
                return None
            return v.tolist() if isinstance(v, np.ndarray) else v
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "trace"}
        for key in ("mean_s", "p50_s", "p95_s", "p99_s"):
            out[key] = asdict(out[key])
        out["stations"] = {k: asdict(v) for k, v in self.stations.items()}
        out["warnings"] = list(self.warnings)
        return clean(out)


class _Work:
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


def _draw(rng: np.random.Generator, mean: float, cv: float, size: int) -> np.ndarray:
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


def _station_weight(st: Station) -> float:
    """Work per request of a station's own pass (a Python loop costs 1)."""
    if st.delay_only or st.servers <= 0:
        return 0.02
    return 0.1 if _is_plain_single_server(st) else 1.0


def _fcfs_lindley(arr: np.ndarray, svc: np.ndarray, work: _Work) -> np.ndarray:
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
               work: _Work, joining: tuple = ()) -> tuple[array, bytearray, int]:
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


def _batch_loop(arr: list, noise: list, st: Station, work: _Work):
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


def _run_station(st: Station, a: np.ndarray, rng: np.random.Generator, work: _Work, joining: tuple = ()) -> dict:
    """Serve one station's sorted arrivals ``a``: per-request start, finish, outcome; totals."""
    m = len(a)
    start, dep, out = a.copy(), a.copy(), np.zeros(m, np.uint8)
    busy, n_batches, batched = 0.0, 0, 0
    if st.delay_only or st.servers <= 0:
        if st.delay_only:
            dep += st.fixed_delay_s
        else:
            out[:] = SHED
        work.tick(m * _station_weight(st))
        return {"start": start, "dep": dep, "out": out, "busy": 0.0, "batches": 0, "batched": 0}
    if st.is_batching:
        noise = _draw(rng, 1.0, st.service_cv, m).tolist()
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
        svc = _draw(rng, st.service_mean_s, st.service_cv, m)
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


def _queue_stats(a: np.ndarray, start: np.ndarray, out: np.ndarray,
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


def _estimates(lat: np.ndarray) -> tuple[iv.Interval, ...]:
    """Mean, p50, p95, p99 with 95% intervals that allow for autocorrelation (``intervals.py``)."""
    nan = math.nan
    if len(lat) == 0:
        return (iv.Interval(nan, nan, nan, False, 0),) * 4
    ordered = np.sort(lat)
    return (iv.mean_interval(lat), *(iv.quantile_interval(lat, ordered, p) for p in (0.5, 0.95, 0.99)))


def _count(n: int) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1_000_000 else f"{n / 1e3:.0f}k" if n >= 10_000 else f"{n:,}"


def _precision_warnings(found: tuple[iv.Interval, ...], samples: int, n_requests: int,
                        target: float) -> tuple[str, ...]:
    """One line per figure whose interval is wider than ``target`` (relative half-width) or could
    not be trusted, with the run length that would reach ``target``."""
    if samples == 0:
        return ()
    out = []
    per_sample = n_requests / samples
    for name, est in zip(("mean", "p50", "p95", "p99"), found):
        half = iv.relative_half_width(est)
        need = max(int(iv.samples_for(est, samples, target) * per_sample), n_requests)
        if samples < iv.MIN_SAMPLES:
            out.append(f"{name}: only {samples} latency samples, no interval; run at least "
                       f"{_count(int(iv.MIN_SAMPLES * per_sample) + 1)} requests")
        elif not est.reliable:
            shown = f"±{half:.0%}" if math.isfinite(half) else "interval open-ended"
            out.append(f"{name} {shown} but unreliable (successive latencies still correlated over the "
                       f"longest batches, or too few tail samples): run more than {_count(max(need, 4 * n_requests))} "
                       f"requests")
        elif half > target:
            out.append(f"{name} ±{half:.0%}: run {_count(need)} requests for ±{target:.0%}")
    return tuple(out)


def _histogram(lat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Log-spaced bins in ms from the smallest positive to the largest latency (zeros go first)."""
    if len(lat) == 0:
        return np.zeros(0), np.zeros(0, np.int64)
    ms = lat * 1000.0
    positive = ms[ms > 0]
    lo = float(positive.min()) if len(positive) else 1e-3
    hi = max(float(ms.max()), lo * 1.01)
    edges = np.geomspace(lo, hi, _HIST_BINS + 1)
    return edges, np.histogram(np.clip(ms, lo, hi), edges)[0].astype(np.int64)


def run_load_test(network: Network, n_requests: int, seed: int = 0,
                  progress: Callable[[float], None] | None = None,
                  cancel: Callable[[], bool] | None = None,
                  warmup_fraction: float = 0.1, *, keep_trace: bool = False,
                  target_precision: float = TARGET_PRECISION, arrival_s: np.ndarray | None = None,
                  servers_joining: dict[str, tuple[float, ...]] | None = None) -> LoadTestResult:
    """Simulate ``n_requests`` arrivals through ``network`` (see the module docstring).

    ``progress(fraction)`` is called about every 0.5% of the work and with 1.0 at the end;
    ``cancel()`` returning True stops the run with a partial, ``cancelled=True`` result. With
    ``keep_trace`` the result carries per-request arrays (:class:`LoadTrace`). A network with
    no arrivals (rate 0) yields an empty result. ``target_precision`` is the relative half-width of
    the 95% intervals above which ``warnings`` asks for a longer run. ``arrival_s`` (sorted arrival
    times, e.g. a time-varying Poisson stream from :mod:`arrivals`) replaces the drawn arrivals;
    ``n_requests`` is then their number. ``servers_joining`` maps a (non-batching) station to the
    times at which more servers join it, one time per server (a pool scaling up during the run).
    """
    wall0 = time.perf_counter()
    if not 0.0 <= warmup_fraction < 1.0 or n_requests < 0:
        raise ValueError("need n_requests >= 0 and 0 <= warmup_fraction < 1")
    rng = np.random.default_rng(seed)
    if arrival_s is not None:
        n_requests = len(arrival_s)
    n = int(n_requests) if network.arrival_rate > 0 or arrival_s is not None else 0
    paths, order = network.paths, network.topological_order()
    on_paths = {sid: [k for k, p in enumerate(paths) if sid in p.stations] for sid in order}
    work = _Work(_GEN_COST * n + sum(
        (_station_weight(network.stations[sid]) + _POST_COST) * n * sum(paths[k].share for k in ks)
        for sid, ks in on_paths.items()), progress, cancel, n)

    mean_gap = 1.0 / network.arrival_rate if n and network.arrival_rate > 0 else 0.0
    arrival = np.cumsum(_draw(rng, mean_gap, network.arrival_cv, n)) if arrival_s is None else \
        np.sort(np.asarray(arrival_s, dtype=float))
    shares = np.cumsum([p.share for p in paths]) if paths else np.zeros(0)
    if len(shares) and network.unrouted_share <= 1e-12:
        shares[-1] = np.inf
    path_idx = np.searchsorted(shares, rng.random(n), side="right").astype(np.int32)
    status = np.where(path_idx == len(paths), SHED, SERVED).astype(np.int8)
    unrouted = int(np.count_nonzero(status))
    t_cur = arrival.copy()  # time each request left its latest hop (or was dropped)
    n_warm = int(n * warmup_fraction)
    work.tick(_GEN_COST * n)

    raw: dict[str, dict] = {}
    finished: set[str] = set()
    for sid in order:
        if work.cancelled or (cancel is not None and cancel()):
            work.cancelled = True
            break
        st, ks = network.stations[sid], on_paths[sid]
        mask = status == SERVED
        if len(ks) < len(paths):
            mask &= np.isin(path_idx, ks)
        idx = np.flatnonzero(mask)
        del mask
        a = t_cur[idx]
        if len(a) > 1 and not bool(np.all(a[1:] >= a[:-1])):
            o = np.argsort(a, kind="stable")
            idx, a = idx[o], a[o]
            del o
        res = _run_station(st, a, rng, work, tuple((servers_joining or {}).get(sid, ())))
        out, start = res["out"], res["start"]
        t_cur[idx] = res["dep"]
        dropped = out != SERVED
        status[idx[dropped]] = out[dropped]
        del dropped, res["dep"]
        work.tick(_POST_COST / 2 * len(a))
        total_wait, max_q = _queue_stats(a, start, out, st.timeout_s)
        post = (idx >= n_warm) & ((out == SERVED) | (out == ERROR))
        counts = np.bincount(out, minlength=5)
        raw[sid] = dict(
            arrivals=len(a), served=int(counts[SERVED]), shed=int(counts[SHED]),
            timed_out=int(counts[TIMED_OUT]), errors=int(counts[ERROR]),
            utilisation=res["busy"], mean_queue_len=total_wait, max_queue_len=max_q,
            mean_wait_s=float((start[post] - a[post]).mean()) if post.any() else math.nan,
            batches=res["batches"],
            mean_batch_size=res["batched"] / res["batches"] if res["batches"] else 0.0)
        if not counts[IN_FLIGHT]:  # every request here decided (even if cancel came meanwhile)
            finished.add(sid)
        del res, out, start, post, idx, a
        work.tick(_POST_COST / 2 * raw[sid]["arrivals"])

    if work.cancelled:
        unfinished = [k for k, p in enumerate(paths) if not set(p.stations) <= finished]
        status[(status == SERVED) & np.isin(path_idx, unfinished)] = IN_FLIGHT
    counts = np.bincount(status.astype(np.int64), minlength=5)
    decided = status != IN_FLIGHT
    sim_time = float(t_cur[decided].max()) if decided.any() else 0.0
    del decided
    sel = status == SERVED
    sel[:n_warm] = False
    lat = t_cur[sel] - arrival[sel]
    del sel
    found = _estimates(lat)
    mean_e, p50_e, p95_e, p99_e = (Estimate(e.value, e.low, e.high) for e in found)
    warnings = _precision_warnings(found, len(lat), n, target_precision) if n else ()
    edges, hist = _histogram(lat)

    stations = {}
    for sid, st in network.stations.items():
        r = raw.get(sid)
        if r is None:
            stations[sid] = StationStats(sid, st.node_id, 0, 0, 0, 0, 0, 0.0, 0.0, 0, math.nan)
            continue
        # busy time and total wait become utilisation and time-average queue length
        r["utilisation"] = (0.0 if sim_time <= 0 or st.delay_only
                            else r["utilisation"] / (max(st.servers, 1) * sim_time))
        if work.cancelled:
            r["utilisation"] = min(r["utilisation"], 1.0)
        r["mean_queue_len"] = r["mean_queue_len"] / sim_time if sim_time > 0 else 0.0
        stations[sid] = StationStats(id=sid, node_id=st.node_id, **r)

    if progress is not None:
        progress(1.0)
    return LoadTestResult(
        n_requests=int(n_requests), offered=n, served=int(counts[SERVED]),
        shed=int(counts[SHED]), timed_out=int(counts[TIMED_OUT]), errors=int(counts[ERROR]),
        in_flight=int(counts[IN_FLIGHT]), unrouted=unrouted, warmup_requests=n_warm,
        latency_samples=len(lat), mean_s=mean_e, p50_s=p50_e, p95_s=p95_e, p99_s=p99_e,
        histogram_edges_ms=edges, histogram_counts=hist, stations=stations, sim_time_s=sim_time,
        throughput_rps=float(counts[SERVED]) / sim_time if sim_time > 0 else 0.0,
        cancelled=work.cancelled, wall_time_s=time.perf_counter() - wall0,
        trace=LoadTrace(arrival, t_cur, status, path_idx) if keep_trace else None, warnings=warnings)
