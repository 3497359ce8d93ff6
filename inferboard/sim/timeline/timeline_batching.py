"""The shared-queue batch model (:mod:`batching`) read tick by tick for the timeline.

A tick of a batching station is the steady state's batch model at the tick's arrival rate and
ready server count: utilisation, mean batch, mean wait and sojourn, p50/p95/p99 and the share a
time-out removes all come from :func:`batching.batch_arrays` / :func:`batching.batch_wait_tail`,
so a steady tick and the steady state agree.

A table costs about a second of CPU per (server count, parameters), and an autoscaled pool visits
many server counts in a day. Tables are therefore built only at *anchor* server counts: every
count up to 4, then ``round(4·2^(k/2))`` (6, 8, 11, 16, 23, 32, 45, 64, 91, 128, ...). At a count
between two anchors each figure is interpolated linearly in ``log c`` between the anchors' figures
at the same fraction of capacity ``x = λ/(c·B/τ(B))``. Measured against tables solved at the count
itself (B = 8, 16, 32; D = 0, 4, 8 ms; loads 5-95%): p50 and p99 within 3% from 8 to 64 servers
for D = 0 and small windows, within 8% where the window ``D`` and the arrival rate decide the batch
size (B = 32, D = 8 ms at 20-60% load), as tested in tests/sim/test_timeline_batching.py. Tables
are cached per process (the batch model's own cache) and read lazily: only anchors around the
server counts a run actually reaches are built.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from inferboard.sim.batching.batching import BatchParams, batch_arrays, batch_capacity, batch_wait_tail
from inferboard.sim.timeline.gamma_mixture import gamma_through

__all__ = ["EXACT_UP_TO", "anchors", "batch_tick_figures"]

#: every server count up to this one has its own table
EXACT_UP_TO = 4
FIGURES = ("utilisation", "mean_batch", "mean_wait", "mean_sojourn", "p50", "p95", "p99", "max_wait", "timed_out")


def anchors(servers: int) -> tuple[int, int, float]:
    """The anchor server counts around ``servers`` and the weight of the upper one (log c)."""
    c = int(servers)
    if c <= EXACT_UP_TO:
        return c, c, 0.0
    k = 2.0 * math.log2(c / EXACT_UP_TO)
    lo = round(EXACT_UP_TO * 2.0 ** (math.floor(k + 1e-9) / 2.0))
    hi = round(EXACT_UP_TO * 2.0 ** (math.floor(k + 1e-9) / 2.0 + 0.5))
    if c <= lo:
        return lo, lo, 0.0
    if c >= hi:
        return hi, hi, 0.0
    return lo, hi, (math.log(c) - math.log(lo)) / (math.log(hi) - math.log(lo))


#: fractions of capacity each anchor's figures are evaluated at once (then read by interpolation)
X_GRID = np.unique(np.concatenate([np.linspace(0.0, 0.9, 181), np.linspace(0.9, 0.999, 100)]))


@lru_cache(maxsize=1024)
def _anchor_grid(servers: int, p: BatchParams) -> tuple[np.ndarray, ...]:
    """The batch model's figures on ``X_GRID`` for exactly ``servers`` servers (cached per process)."""
    lam = X_GRID * batch_capacity(servers, p)
    out = batch_arrays(lam, np.full(lam.shape, servers), p)
    return tuple(out[k] for k in FIGURES[:-1])


def _at_anchor(x: np.ndarray, servers: int, p: BatchParams, patience: np.ndarray) -> dict[str, np.ndarray]:
    """Figures at fractions of capacity ``x`` (< 1) on exactly ``servers`` servers."""
    out = {k: np.interp(x, X_GRID, column) for k, column in zip(FIGURES, _anchor_grid(servers, p))}
    timed_out = np.zeros(x.shape)
    near = np.flatnonzero(patience < 1.1 * out["max_wait"])  # beyond the longest wait nobody times out
    if near.size:
        timed_out[near] = batch_wait_tail(x[near] * batch_capacity(servers, p), servers, p, patience[near])
    out["timed_out"] = timed_out
    return out


def batch_tick_figures(x: np.ndarray, servers: int, p: BatchParams, patience: np.ndarray) -> dict[str, np.ndarray]:
    """The batch model's figures at fractions of full-batch capacity ``x`` (< 1) on ``servers`` servers
    (interpolated between anchors, see the module docstring); ``timed_out`` is ``P(wait > patience)``."""
    lo, hi, w = anchors(servers)
    low = _at_anchor(x, lo, p, patience)
    if w <= 0:
        return low
    high = _at_anchor(x, hi, p, patience)
    return {k: low[k] * (1.0 - w) + high[k] * w for k in FIGURES}


Z99 = 2.3263478740408408  #: standard normal 99th percentile


def _groups(c: np.ndarray, p) -> dict[tuple, np.ndarray]:
    """Ticks grouped by (server count, batch parameters): one table read per group. Usually the
    parameters are the same throughout and only the server count varies."""
    columns = [np.broadcast_to(v, c.shape) for v in (
        np.maximum(p.batch_max, 1.0), p.batch_window_s, p.batch_base_s, p.batch_item_s, p.service_cv,
        np.round(np.clip(p.ca2, 0.0, 20.0) * 20.0) / 20.0)]
    if not c.size:
        return {}
    if all(col.min() == col.max() for col in columns):
        key = c
    else:  # number each column's distinct values and combine the numbers (mixed radix)
        key = np.zeros(c.size, dtype=np.int64)
        for column in [c] + columns:
            distinct, inverse = np.unique(column, return_inverse=True)
            key = key * distinct.size + inverse.reshape(-1)
    distinct_keys, inverse = np.unique(key, return_inverse=True)
    inverse = inverse.reshape(-1)
    if distinct_keys.size == 1:
        parts = [np.arange(c.size)]
    else:
        order = np.argsort(inverse, kind="stable")
        bounds = np.searchsorted(inverse[order], np.arange(distinct_keys.size + 1))
        parts = [order[bounds[g]:bounds[g + 1]] for g in range(distinct_keys.size)]
    return {(float(c[idx[0]]),) + tuple(float(col[idx[0]]) for col in columns): idx for idx in parts}


def batch_station(lam: np.ndarray, c: np.ndarray, p, patience: np.ndarray) -> dict[str, np.ndarray]:
    """A batching station below its full-batch capacity, tick by tick (``p`` a
    :class:`tickqueue.StationParams` with batch fields, ``c`` whole ready servers >= 1 per tick; a
    load of 99.9% of capacity or more is read as 99.9%: the caller solves saturated ticks in closed
    form): loss ``P(wait > patience)``, mean wait, mean batch time, sojourn variance, utilisation,
    and the moments of the gamma through the station's p50 and p99 (``shape_mean``/``shape_var``,
    what the end-to-end percentiles compose so that a one-station path keeps the model's p50/p99)."""
    n = lam.size
    out = {k: np.zeros(n) for k in ("lost", "wait", "service", "var", "busy", "shape_mean", "shape_var", "p95")}
    for (servers, bmax, window, base, item, cv, ca2), idx in _groups(c, p).items():
        params = BatchParams(int(bmax), float(window), float(base), float(item), float(cv) ** 2, float(ca2))
        cap = batch_capacity(int(servers), params)
        x = lam[idx] / cap if math.isfinite(cap) and cap > 0 else np.zeros(idx.size)
        fig = batch_tick_figures(np.minimum(x, 0.999), int(servers), params, patience[idx])
        out["lost"][idx] = fig["timed_out"]
        out["wait"][idx] = fig["mean_wait"]
        out["service"][idx] = fig["mean_sojourn"] - fig["mean_wait"]
        out["busy"][idx] = fig["utilisation"]
        p50, p99 = np.maximum(fig["p50"], 1e-9), np.maximum(fig["p99"], fig["p50"] * (1 + 1e-6))
        mean, var = gamma_through(p50, p99, Z99)
        out["shape_mean"][idx] = mean
        out["shape_var"][idx] = var
        out["var"][idx] = var
        out["p95"][idx] = fig["p95"]
    return out
