"""Dynamic batching: one shared-queue batch-service model for the steady state and the timeline.

A batching station has ``servers`` replicas drawing from ONE FIFO queue. When a replica is free and
the queue holds ``batch_max`` requests or its oldest request has waited ``delay_s``, a batch of
``min(queue, batch_max)`` leaves; a batch of b takes ``(base_s + item_s*b) * g``, g gamma with mean 1
and squared CV ``service_scv`` (the semantics of the request-level load test).

Public API (stable): :class:`BatchParams`, :func:`batch_steady` (one load) and :func:`batch_arrays`
(vectorised over ticks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from inferboard.sim import latency_dist as ld, queueing as q, sojourn as sj

__all__ = ["BatchParams", "BatchSolution", "batch_arrays", "batch_steady"]

_ARRAY_KEYS = ("capacity", "utilisation", "mean_batch", "throughput", "mean_wait", "mean_sojourn",
               "p50", "p95", "p99")


@dataclass(frozen=True)
class BatchParams:
    """One station's batching parameters (seconds)."""

    batch_max: int
    delay_s: float
    base_s: float
    item_s: float
    service_scv: float = 0.0

    def batch_time(self, b: float) -> float:
        return self.base_s + self.item_s * b


@dataclass(frozen=True)
class BatchSolution:
    """Steady state of a batching station at one arrival rate (seconds, requests/s)."""

    lam: float
    servers: int
    capacity: float  #: most requests/s the replicas complete with full batches
    utilisation: float  #: busy fraction of the replicas
    mean_batch: float  #: mean batch size
    throughput: float  #: requests/s served
    mean_wait: float  #: mean time from arrival to the start of the request's batch
    mean_service: float  #: mean batch time a request sees
    saturated: bool
    spec: sj.SojournSpec | None = field(default=None, repr=False)  #: sojourn distribution (no shift)

    @property
    def mean_sojourn(self) -> float:
        return self.mean_wait + self.mean_service

    def quantile(self, p: float) -> float:
        """The ``p``-quantile of the sojourn (wait + batch time), seconds; inf when saturated."""
        if self.saturated or self.spec is None:
            return math.inf
        return _spec_quantiles(self.spec, (p,))[0]


def _spec_quantiles(spec: sj.SojournSpec, ps) -> list[float]:
    _, _, hi = spec.moments()
    grid = ld.choose_grid(max(hi, 1e-6) * 1.1, 1)
    rows, _ = sj.build_transforms(grid, [spec])
    return ld.percentiles(grid, ld.to_pmf(grid, rows[0]), ps)


def batch_steady(lam: float, servers: int, p: BatchParams) -> BatchSolution:
    """The batching station's steady state at arrival rate ``lam`` on ``servers`` replicas."""
    c, bmax = int(servers), max(int(p.batch_max), 1)
    cap = q.batch_capacity(c, bmax, p.base_s, p.item_s)
    if c <= 0 or lam >= cap:
        return BatchSolution(lam, c, cap, 1.0 if c > 0 else 0.0, float(bmax), min(lam, cap), math.inf,
                             p.batch_time(bmax), lam > 0 or c <= 0)
    bs = q.batch_station(lam, c, bmax, p.base_s, p.item_s, p.delay_s, ca2=1.0, cs2=p.service_scv)
    cong = bs.congestion_wait
    rho = lam / cap if math.isfinite(cap) else 0.0
    pc = min(1.0, rho) if cong > 0 else 0.0
    spec = sj.SojournSpec(0.0, "batch", 1.0 - pc, pc / cong if cong > 0 else 1.0, 0.0, 1.0, math.inf,
                          bs.batch_service, math.sqrt(p.service_scv), bs.p_first, bs.window, bs.follower_wait,
                          bs.p_busy, bs.server_wait)
    wait = bs.batching_wait + bs.p_busy * bs.server_wait + cong
    return BatchSolution(lam, c, cap, bs.busy_fraction, bs.mean_batch, lam, wait, bs.batch_service, False, spec)


#: loads (fractions of capacity) at which ``batch_arrays`` tabulates the solution
_LOAD_GRID = np.concatenate([np.linspace(0.0, 0.9, 46), 1.0 - np.geomspace(0.1, 1e-3, 24)])


@lru_cache(maxsize=256)
def _table(servers: int, p: BatchParams) -> dict[str, np.ndarray]:
    cap = q.batch_capacity(servers, p.batch_max, p.base_s, p.item_s)
    cols = {k: [] for k in _ARRAY_KEYS}
    for x in _LOAD_GRID:
        s = batch_steady(float(x) * cap, servers, p)
        p50, p95, p99 = _spec_quantiles(s.spec, (0.5, 0.95, 0.99)) if s.spec is not None else (0.0,) * 3
        for k, v in zip(_ARRAY_KEYS, (s.capacity, s.utilisation, s.mean_batch, s.throughput, s.mean_wait,
                                      s.mean_sojourn, p50, p95, p99)):
            cols[k].append(v)
    return {k: np.array(v, dtype=float) for k, v in cols.items()}


def batch_arrays(lam: np.ndarray, servers: np.ndarray, p: BatchParams) -> dict[str, np.ndarray]:
    """``batch_steady`` figures element by element (ticks), from a table over the load per server
    count, interpolated. Saturated elements get the full-batch utilisation 1, throughput = capacity
    and ``inf`` waits and percentiles."""
    lam = np.asarray(lam, dtype=float)
    c = np.floor(np.asarray(servers, dtype=float) + 1e-9).astype(np.int64)
    lam, c = np.broadcast_arrays(lam, c)
    out = {k: np.zeros(lam.shape) for k in _ARRAY_KEYS}
    for n in np.unique(c):
        sel = c == n
        if n <= 0:
            out["mean_batch"][sel] = float(p.batch_max)
            for k in ("mean_wait", "mean_sojourn", "p50", "p95", "p99"):
                out[k][sel] = np.where(lam[sel] > 0, np.inf, 0.0)
            continue
        table = _table(int(n), p)
        cap = float(table["capacity"][0])
        x = lam[sel] / cap if math.isfinite(cap) and cap > 0 else np.zeros(int(sel.sum()))
        over = x >= 1.0
        for k in _ARRAY_KEYS:
            v = np.interp(np.minimum(x, 1.0), _LOAD_GRID, table[k])
            if k in ("throughput",):
                v = np.minimum(lam[sel], cap)
            elif k in ("mean_wait", "mean_sojourn", "p50", "p95", "p99"):
                v = np.where(over, np.inf, v)
            elif k == "utilisation":
                v = np.where(over, 1.0, v)
            elif k == "mean_batch":
                v = np.where(over, float(p.batch_max), v)
            out[k][sel] = v
    return out
