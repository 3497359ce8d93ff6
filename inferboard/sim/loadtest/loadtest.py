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

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields

import numpy as np

from inferboard.sim.design.network import Network, Station
from inferboard.sim.loadtest import intervals as iv
from inferboard.sim.loadtest.station_run import (ERROR, IN_FLIGHT, SERVED, SHED, TIMED_OUT, Work, draw_gaps,
                                                  queue_stats, run_station, station_weight)

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
    """One station's load-test figures: requests by outcome, utilisation, queue length and mean wait,
    batches."""
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
    """A load test's outcome: requests by status, latency estimates with intervals, a histogram, per-station
    figures, run length and throughput, warnings."""
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
    on_paths = {sid: [k for k, p in enumerate(network.paths) if sid in p.stations]
                for sid in network.topological_order()}
    work = Work(_GEN_COST * n + sum(
        (station_weight(network.stations[sid]) + _POST_COST) * n * sum(network.paths[k].share for k in ks)
        for sid, ks in on_paths.items()), progress, cancel, n)
    requests = _Requests.draw(network, n, rng, arrival_s, warmup_fraction)
    work.tick(_GEN_COST * n)
    raw, finished = {}, set()
    for sid, ks in on_paths.items():
        if work.cancelled or (cancel is not None and cancel()):
            work.cancelled = True
            break
        raw[sid] = _pass_station(network.stations[sid], requests, ks, len(network.paths), rng, work,
                                 tuple((servers_joining or {}).get(sid, ())))
        if raw[sid].pop("decided"):  # every request here decided (even if cancel came meanwhile)
            finished.add(sid)
    if work.cancelled:
        requests.hold_unfinished(network, finished)
    summary = _Summary.of(requests, n, target_precision)
    stations = _station_stats(network, raw, summary.sim_time, work.cancelled)
    if progress is not None:
        progress(1.0)
    counts = summary.counts
    return LoadTestResult(
        n_requests=int(n_requests), offered=n, served=int(counts[SERVED]),
        shed=int(counts[SHED]), timed_out=int(counts[TIMED_OUT]), errors=int(counts[ERROR]),
        in_flight=int(counts[IN_FLIGHT]), unrouted=requests.unrouted, warmup_requests=requests.n_warm,
        latency_samples=summary.samples, mean_s=summary.mean, p50_s=summary.p50, p95_s=summary.p95,
        p99_s=summary.p99, histogram_edges_ms=summary.edges, histogram_counts=summary.hist, stations=stations,
        sim_time_s=summary.sim_time,
        throughput_rps=float(counts[SERVED]) / summary.sim_time if summary.sim_time > 0 else 0.0,
        cancelled=work.cancelled, wall_time_s=time.perf_counter() - wall0,
        trace=requests.trace() if keep_trace else None, warnings=summary.warnings)


@dataclass
class _Requests:
    """Every request of a run: when it arrived, the path it takes, its status, and when it left its
    latest hop (or was dropped)."""

    arrival: np.ndarray
    path_idx: np.ndarray
    status: np.ndarray
    t_cur: np.ndarray
    n_warm: int  #: the first requests, left out of the latency figures
    unrouted: int  #: requests no path takes (shed at the entry)

    @classmethod
    def draw(cls, network: Network, n: int, rng: np.random.Generator, arrival_s: np.ndarray | None,
             warmup_fraction: float) -> _Requests:
        """``n`` arrivals (drawn, or ``arrival_s`` sorted) and the path each takes, by the paths' shares."""
        paths = network.paths
        mean_gap = 1.0 / network.arrival_rate if n and network.arrival_rate > 0 else 0.0
        arrival = np.cumsum(draw_gaps(rng, mean_gap, network.arrival_cv, n)) if arrival_s is None else \
            np.sort(np.asarray(arrival_s, dtype=float))
        shares = np.cumsum([p.share for p in paths]) if paths else np.zeros(0)
        if len(shares) and network.unrouted_share <= 1e-12:
            shares[-1] = np.inf
        path_idx = np.searchsorted(shares, rng.random(n), side="right").astype(np.int32)
        status = np.where(path_idx == len(paths), SHED, SERVED).astype(np.int8)
        return cls(arrival, path_idx, status, arrival.copy(), int(n * warmup_fraction), int(np.count_nonzero(status)))

    def waiting_at(self, on_paths: list[int], n_paths: int) -> tuple[np.ndarray, np.ndarray]:
        """The requests still served that reach a station on ``on_paths``, in the order they arrive
        there, and their arrival times at it."""
        mask = self.status == SERVED
        if len(on_paths) < n_paths:
            mask &= np.isin(self.path_idx, on_paths)
        idx = np.flatnonzero(mask)
        a = self.t_cur[idx]
        if len(a) > 1 and not bool(np.all(a[1:] >= a[:-1])):
            o = np.argsort(a, kind="stable")
            idx, a = idx[o], a[o]
        return idx, a

    def hold_unfinished(self, network: Network, finished: set[str]) -> None:
        """After a cancel: requests on a path through a station not run are still in flight."""
        unfinished = [k for k, p in enumerate(network.paths) if not set(p.stations) <= finished]
        self.status[(self.status == SERVED) & np.isin(self.path_idx, unfinished)] = IN_FLIGHT

    def trace(self) -> LoadTrace:
        """The per-request arrays."""
        return LoadTrace(self.arrival, self.t_cur, self.status, self.path_idx)


def _pass_station(st: Station, requests: _Requests, on_paths: list[int], n_paths: int, rng: np.random.Generator,
                  work: Work, joining: tuple[float, ...]) -> dict:
    """Run one station on the requests that reach it; update their status and departure times and
    return its raw figures (busy time and total wait, turned into rates once the run's length is
    known), with ``decided`` True when no request is left in flight there."""
    idx, a = requests.waiting_at(on_paths, n_paths)
    res = run_station(st, a, rng, work, joining)
    out, start = res["out"], res["start"]
    requests.t_cur[idx] = res["dep"]
    dropped = out != SERVED
    requests.status[idx[dropped]] = out[dropped]
    work.tick(_POST_COST / 2 * len(a))
    total_wait, max_q = queue_stats(a, start, out, st.timeout_s)
    post = (idx >= requests.n_warm) & ((out == SERVED) | (out == ERROR))
    counts = np.bincount(out, minlength=5)
    work.tick(_POST_COST / 2 * len(a))
    return dict(
        arrivals=len(a), served=int(counts[SERVED]), shed=int(counts[SHED]),
        timed_out=int(counts[TIMED_OUT]), errors=int(counts[ERROR]),
        utilisation=res["busy"], mean_queue_len=total_wait, max_queue_len=max_q,
        mean_wait_s=float((start[post] - a[post]).mean()) if post.any() else math.nan,
        batches=res["batches"], mean_batch_size=res["batched"] / res["batches"] if res["batches"] else 0.0,
        decided=not counts[IN_FLIGHT])


@dataclass(frozen=True)
class _Summary:
    """The run's end-to-end figures: request counts by status, how long it ran, and the latency of
    the served requests after the warm-up (estimates with intervals, a histogram, warnings)."""

    counts: np.ndarray
    sim_time: float
    samples: int
    mean: Estimate
    p50: Estimate
    p95: Estimate
    p99: Estimate
    edges: np.ndarray
    hist: np.ndarray
    warnings: tuple

    @classmethod
    def of(cls, requests: _Requests, n: int, target_precision: float) -> _Summary:
        """The summary of ``requests`` (``n`` offered)."""
        status = requests.status
        counts = np.bincount(status.astype(np.int64), minlength=5)
        decided = status != IN_FLIGHT
        sim_time = float(requests.t_cur[decided].max()) if decided.any() else 0.0
        sel = status == SERVED
        sel[:requests.n_warm] = False
        lat = requests.t_cur[sel] - requests.arrival[sel]
        found = _estimates(lat)
        mean_e, p50_e, p95_e, p99_e = (Estimate(e.value, e.low, e.high) for e in found)
        warnings = _precision_warnings(found, len(lat), n, target_precision) if n else ()
        edges, hist = _histogram(lat)
        return cls(counts, sim_time, len(lat), mean_e, p50_e, p95_e, p99_e, edges, hist, warnings)


def _station_stats(network: Network, raw: dict[str, dict], sim_time: float, cancelled: bool) -> dict:
    """Per station its figures, busy time and total wait turned into utilisation and time-average
    queue length over the run (empty figures for a station the run never reached)."""
    stations = {}
    for sid, st in network.stations.items():
        r = raw.get(sid)
        if r is None:
            stations[sid] = StationStats(sid, st.node_id, 0, 0, 0, 0, 0, 0.0, 0.0, 0, math.nan)
            continue
        r["utilisation"] = (0.0 if sim_time <= 0 or st.delay_only
                            else r["utilisation"] / (max(st.servers, 1) * sim_time))
        if cancelled:
            r["utilisation"] = min(r["utilisation"], 1.0)
        r["mean_queue_len"] = r["mean_queue_len"] / sim_time if sim_time > 0 else 0.0
        stations[sid] = StationStats(id=sid, node_id=st.node_id, **r)
    return stations
