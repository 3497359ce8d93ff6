"""Dynamic batching: one shared-queue batch-service model for the steady state and the timeline.

``servers`` replicas draw from ONE FIFO queue; a batch of ``min(queue, B)`` leaves when a replica
is free and the queue holds B or its oldest request has waited D (the load test's rules). The
station's stationary behaviour is solved once per ``(servers, params)`` into a table over a grid of
loads (:mod:`batch_replications`, side-by-side replications of exactly these rules); this module
reads the tables. Between grid loads waits are interpolated as ``v*(1 - x)``, below the lightest
run linearly in ``1/(1 + lam*D)`` (the shape of the light-load wait ``D/2 + (D/2)/(1 + lam*D)``);
above the last grid load (95% of capacity) the queueing part of the wait is scaled by
``(1 - x_max)/(1 - x)`` (heavy-traffic growth). Tables are cached per process, kept on disk between
runs (:func:`table_cache_dir`: a table costs about a second of CPU to build and nothing to read
back), and can be shared between the processes grading a room (:func:`share_tables`).

Accuracy (tests/sim/test_batching_model.py against the request-level load test, 1M requests a
point): see docs/simulator.md, "Dynamic batcher".

Public API (stable): :class:`BatchParams`, :func:`batch_steady` (one load), :func:`batch_arrays`
(vectorised over ticks) and :func:`batch_wait_tail`; within :func:`estimating` a station whose table
is not built yet is solved on an estimated table (:mod:`batch_estimate`) instead of waiting for it.
A station whose exact table would cost too much (:func:`table_estimated`: batch limits in the hundreds)
is always solved on an estimate from the same batcher with a smaller batch limit.
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
import threading
import time
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import platformdirs

from inferboard.sim.batching import batch_replications
from inferboard.sim.batching.batch_estimate import affordable_anchor, estimate_table, nearest_anchor
from inferboard.sim.batching.batch_replications import PROBS, BatchParams, BatchTable, batch_capacity, simulate_table

__all__ = ["BatchParams", "BatchSolution", "batch_arrays", "batch_capacity", "batch_steady", "batch_wait_tail",
           "table_estimated"]

_ARRAY_KEYS = ("capacity", "utilisation", "mean_batch", "throughput", "mean_wait", "mean_sojourn",
               "p50", "p95", "p99", "max_wait")


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
    probs: np.ndarray = field(default_factory=lambda: PROBS, repr=False)
    sojourn_q: np.ndarray | None = field(default=None, repr=False)
    wait_q: np.ndarray | None = field(default=None, repr=False)

    @property
    def mean_sojourn(self) -> float:
        """Mean time in the station (wait + batch time), seconds."""
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


#: A folder where worker processes share the tables they build (see ``share_tables``); None: each
#: process keeps its own.
_SHARED_TABLES: list[str] = []


def share_tables(folder: str | None) -> None:
    """Let several processes grading a room share batching tables through ``folder`` (a private
    temporary folder the caller made and removes): a table one process built is read back, not
    rebuilt, by the others. The numbers are the same either way. ``None`` stops sharing."""
    _SHARED_TABLES[:] = [folder] if folder else []


#: Environment variable naming the folder where batching tables are kept between runs; empty: keep
#: none. Unset: the user's cache folder (``platformdirs.user_cache_dir``), under ``batch-tables``.
CACHE_DIR_ENV = "INFERBOARD_CACHE_DIR"


def table_cache_dir() -> str | None:
    """The folder batching tables are kept in between runs (None: none is kept)."""
    chosen = os.environ.get(CACHE_DIR_ENV)
    if chosen is not None:
        return os.path.join(chosen, "batch-tables") if chosen.strip() else None
    return os.path.join(platformdirs.user_cache_dir("inferboard", appauthor=False), "batch-tables")


@lru_cache(maxsize=1)
def _model_key() -> str:
    """Names the code that builds the tables: a table built by other code is never read back."""
    return hashlib.sha256(Path(batch_replications.__file__).read_bytes()).hexdigest()[:16]


def _table_path(folder: str, servers: int, p: BatchParams) -> str:
    key = hashlib.sha256(repr((_model_key(), servers, p)).encode("utf-8")).hexdigest()[:32]
    return os.path.join(folder, f"{key}.npz")


def _read_shared(path: str) -> BatchTable | None:
    """The table in ``path``, or None when there is none or it is damaged (then it is built again)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            table = BatchTable(float(data["capacity"]), *(np.asarray(data[name], dtype=float) for name in _TABLE_ARRAYS))
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
        return None
    rows = table.loads.shape
    if (len(rows) != 1 or rows[0] < 2 or not math.isfinite(table.capacity) or table.capacity <= 0
            or np.any(np.diff(table.loads) <= 0)):
        return None
    for name in _TABLE_ARRAYS:
        values = getattr(table, name)
        if values.shape[:1] != rows or not np.all(np.isfinite(values)):
            return None
    if table.sojourn_q.shape != (rows[0], PROBS.size) or table.wait_q.shape != table.sojourn_q.shape:
        return None
    return table


def _write_shared(path: str, table: BatchTable) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".npz")
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, capacity=np.float64(table.capacity),
                     **{name: getattr(table, name) for name in _TABLE_ARRAYS})
        os.replace(tmp, path)  # whole or not at all for a process reading it
    except OSError:  # a folder that cannot be written: the table is simply not kept
        try:
            os.unlink(tmp)
        except (OSError, UnboundLocalError):
            pass


_TABLE_ARRAYS = ("loads", "mean_batch", "util", "mean_wait", "forming_wait", "mean_service", "p_wait", "sojourn_q",
                 "wait_q")


#: Tables being built, by (servers, params): a second thread asking for one waits for it.
_BUILDING: dict[tuple, threading.Lock] = {}
_BUILDING_GUARD = threading.Lock()
#: Tables this process holds (built or read back), so :func:`table_ready` can answer without building.
_READY: set[tuple] = set()
_RECORDING = threading.local()


@contextmanager
def _collecting(name: str):
    """Within: a fresh set held as this thread's ``name`` (the one before is put back after)."""
    found: set[tuple[int, BatchParams]] = set()
    previous = getattr(_RECORDING, name, None)
    setattr(_RECORDING, name, found)
    try:
        yield found
    finally:
        setattr(_RECORDING, name, previous)


def recording():
    """Within: the ``(servers, params)`` of every batching station solved in this thread is added
    to the set yielded (what :mod:`table_prefetch` starts from)."""
    return _collecting("used")


def estimating():
    """Within (this thread): a station whose table is not at hand is solved at once on a table
    estimated from the nearest one this process holds (:mod:`batch_estimate`) instead of waiting
    about a second for the build; the ``(servers, params)`` so solved are added to the set yielded,
    for the caller to build (:func:`prepare_table`) and solve again exactly. With no table held at
    all the station's own table is built as usual."""
    return _collecting("estimated")


def _solving_table(servers: int, p: BatchParams) -> BatchTable:
    """The station's table, or within :func:`estimating` an estimate while it is not at hand."""
    estimated = getattr(_RECORDING, "estimated", None)
    if estimated is None or table_ready(servers, p):
        return _table(servers, p)
    anchor = nearest_anchor(list(_READY), servers, p)
    if anchor is None:
        return _table(servers, p)
    estimated.add((servers, p))
    return _estimate(servers, p, anchor)


@lru_cache(maxsize=64)
def _estimate(servers: int, p: BatchParams, anchor: tuple[int, BatchParams]) -> BatchTable:
    return estimate_table(_table(*anchor), anchor, servers, p)


def table_ready(servers: int, p: BatchParams) -> bool:
    """Whether the table of ``servers`` replicas with ``p`` costs nothing to get: this process holds
    it, or it is kept on disk."""
    if (int(servers), p) in _READY:
        return True
    servers, p = affordable_anchor(int(servers), p) or (int(servers), p)
    folder = _SHARED_TABLES[0] if _SHARED_TABLES else table_cache_dir()
    return folder is not None and os.path.exists(_table_path(folder, servers, p))


def table_estimated(servers: int, p: BatchParams) -> bool:
    """Whether the station of ``servers`` replicas with ``p`` is always solved on an estimated table:
    its exact table would cost too much to build (see :func:`batch_estimate.affordable_anchor`)."""
    return int(servers) > 0 and affordable_anchor(int(servers), p) is not None


def prepare_table(servers: int, p: BatchParams) -> None:
    """Build (or read back) the table of ``servers`` replicas with ``p`` now, so that solving the
    station later costs no table work."""
    if servers > 0 and math.isfinite(batch_capacity(int(servers), p)):
        _table(int(servers), p)


@lru_cache(maxsize=512)
def _table(servers: int, p: BatchParams) -> BatchTable:
    key = (servers, p)
    cheaper = affordable_anchor(servers, p)
    if cheaper is not None:  # too costly to solve: estimated from a smaller batcher, never kept on disk
        table = estimate_table(_table(*cheaper), cheaper, servers, p)
    else:
        with _BUILDING_GUARD:
            lock = _BUILDING.setdefault(key, threading.Lock())
        with lock:  # another thread building the same table: wait for it, then read it back
            table = _made_table(servers, p)
    with _BUILDING_GUARD:
        _BUILDING.pop(key, None)
        if len(_READY) > 4096:
            _READY.clear()
        _READY.add(key)
    return table


#: Tables built in this process while no folder keeps them, for a thread that waited for the build.
_MADE: dict[tuple, BatchTable] = {}


def _made_table(servers: int, p: BatchParams) -> BatchTable:
    if _SHARED_TABLES:
        return _shared_table(servers, p)
    folder = table_cache_dir()
    if folder is None:
        found = _MADE.get((servers, p))
        if found is None:
            if len(_MADE) > 64:
                _MADE.clear()
            found = _MADE[(servers, p)] = simulate_table(servers, p, batch_capacity(servers, p))
        return found
    return _kept_table(folder, servers, p)


def _kept_table(folder: str, servers: int, p: BatchParams) -> BatchTable:
    """The table kept in ``folder``, built and left there when it is not (or is damaged)."""
    path = _table_path(folder, servers, p)
    kept = _read_shared(path)
    if kept is not None:
        return kept
    table = simulate_table(servers, p, batch_capacity(servers, p))
    _write_shared(path, table)
    return table


#: How long a process waits for a table another process is building before building it itself.
SHARED_WAIT_S = 60.0


def _shared_table(servers: int, p: BatchParams) -> BatchTable:
    """Read the table if another process built it; wait while one builds it (a lock file says
    so); otherwise build it and leave it for the others."""
    path = _table_path(_SHARED_TABLES[0], servers, p)
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
        table = simulate_table(servers, p, batch_capacity(servers, p))
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
                         load=0.0, sojourn_q=np.full(PROBS.size, d + tau), wait_q=np.full(PROBS.size, d))


def batch_steady(lam: float, servers: int, p: BatchParams) -> BatchSolution:
    """The batching station's steady state at arrival rate ``lam`` on ``servers`` replicas."""
    c = int(servers)
    cap = batch_capacity(c, p)
    used = getattr(_RECORDING, "used", None)
    if used is not None and c > 0:
        used.add((c, p))
    if c <= 0 or lam >= cap:
        return BatchSolution(lam=lam, servers=c, capacity=cap, utilisation=1.0 if c > 0 else 0.0,
                             mean_batch=float(max(p.batch_max, 1)), throughput=min(lam, cap), mean_wait=math.inf,
                             mean_service=p.batch_time(max(p.batch_max, 1)), saturated=lam > 0 or c <= 0,
                             load=lam / cap if cap > 0 else 1.0)
    if lam <= 0 or not math.isfinite(cap):
        return _no_traffic(c, p, cap)
    if getattr(_RECORDING, "estimated", None) is None or table_ready(c, p):
        return _steady_on_table(_table(c, p), float(lam), c, p)  # the same table and rate: solved once
    return _steady_from(_solving_table(c, p), lam, c, p, cap)


@lru_cache(maxsize=4096)
def _steady_on_table(table: BatchTable, lam: float, c: int, p: BatchParams) -> BatchSolution:
    """``batch_steady`` on the station's own table, kept: a design solved again (an edit elsewhere,
    the rules' runs, the peak) reads most stations at the rates it read them before."""
    solution = _steady_from(table, lam, c, p, batch_capacity(c, p))
    for values in (solution.sojourn_q, solution.wait_q):
        values.setflags(write=False)  # shared between callers
    return solution


def _steady_from(table: BatchTable, lam: float, c: int, p: BatchParams, cap: float) -> BatchSolution:
    """The steady state at ``lam`` (below capacity, above 0) read from ``table``."""
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
def _quantile_columns(table: BatchTable) -> dict[str, np.ndarray]:
    """Per grid load: the sojourn p50/p95/p99 and the wait p50/p95/p99."""
    cols = {}
    for name, prob in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99)):
        cols[name] = np.array([np.interp(prob, PROBS, row) for row in table.sojourn_q])
        cols["w" + name] = np.array([np.interp(prob, PROBS, row) for row in table.wait_q])
    return cols


def _weights(table: BatchTable, xc: np.ndarray, delay: float) -> tuple[np.ndarray, np.ndarray]:
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


def _figures(table: BatchTable, x: np.ndarray, delay: float) -> dict[str, np.ndarray]:
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
        fig = _figures(_solving_table(int(n), p), np.minimum(x, 1.0 - 1e-9), p.delay_s)
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
    table = _solving_table(int(servers), p)
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
            tail[sel] += weight[sel] * (1.0 - np.interp(at[sel], table.wait_q[r], PROBS, left=0.0, right=1.0))
    out[ok] = np.clip(tail, 0.0, 1.0)
    return out
