"""The wait in a finite waiting room, by the position a request joins at.

A request admitted to a c-server queue with ``m`` waiting places that finds all servers busy and
``j`` requests waiting (j = 0..m-1) starts when ``j + 1`` more requests have left. Its wait is
therefore bounded by the position it joined at, and so is the station's sojourn time: with
constant service times ``s`` it is at most ``ceil(m/c)·s`` of waiting plus ``s`` of service.

* **Exact for M/M/c/K.** The positions of admitted arrivals that wait have weights ``rho^j``
  (PASTA on the birth–death chain) and the wait at position j is Erlang(j + 1, c·mu), so the wait
  is a finite mixture of Erlangs (Gross and Harris, *Fundamentals of Queueing Theory*, M/M/c/K
  waiting-time distribution).
* **General arrivals and service** (``g = (ca² + cs²)/2 != 1``). The positions get weights
  ``r^j`` with ``r = rho^(1/g)`` — the queue-length decay of the diffusion approximation with
  variance g, the same scaling that gives the room's blocking (``analytic``) — and the wait at
  position j is taken as gamma with the mean and variance of the time to the (j + 1)-th departure
  of c busy servers: the first departure is the shortest of c residual service times (for c = 1
  the equilibrium residual, mean ``s(1 + cs²)/2`` and SCV ``(1 + 5cs²)/(3(1 + cs²))``, tending to
  exponential as c grows), each later one adds ``s/c`` on average and ``cs²·(s/c)²`` of variance.
  With constant service (cs² = 0) each position's wait is cut at its physical maximum
  ``(floor(j/c) + 1)·s``, so no percentile exceeds the maximum sojourn.

Rows are built in the time domain on the solver's grid (``latency_dist``): positions whose weight
is negligible (< e^-40 of the largest) are dropped, neighbouring positions are merged into one
gamma with the same mean and variance while the run is narrow against their spread (see
``_groups``), and each gamma is evaluated only over the bins that hold its mass.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from inferboard.sim.queues.latency_dist import gamma_pmf

#: Most separate position groups per row (more positions are merged in neighbouring runs).
MAX_GROUPS = 256
_LOG_CUT = 40.0


def position_weights(ratio: float, places: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions j (0..places-1) with non-negligible weight ``ratio^j``, and the weights (sum 1)."""
    m = max(int(places), 0)
    if m == 0:
        return np.zeros(0), np.zeros(0)
    lr = math.log(ratio) if ratio > 0 else -745.0
    span = m if abs(lr) * m <= _LOG_CUT else int(math.ceil(_LOG_CUT / abs(lr)))
    span = max(1, min(span, m))
    j = np.arange(m - span, m, dtype=float) if lr > 0 else np.arange(0, span, dtype=float)
    logw = j * lr
    w = np.exp(logw - logw.max())
    return j, w / w.sum()


def first_departure(c: int, cs2: float) -> tuple[float, float]:
    """Mean (in units of s/c) and SCV of the time to the first departure of c busy servers."""
    h = (c + cs2) / (c + 1.0) if c > 1 else 0.5 * (1.0 + cs2)
    scv_residual = (1.0 + 5.0 * cs2) / (3.0 * (1.0 + cs2))
    return h, 1.0 + (scv_residual - 1.0) / max(c, 1)


def position_moments(j: np.ndarray, c: int, service_mean: float, cs2: float) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of the wait of a request joining at position j (see the module docstring).
    For exponential service this is Erlang(j + 1, c/s): mean (j+1)s/c, variance (j+1)(s/c)^2."""
    unit = service_mean / max(c, 1)
    h, scv1 = first_departure(c, cs2)
    mean = (j + h) * unit
    var = (scv1 * h * h + j * cs2) * unit * unit
    return mean, var


def position_caps(j: np.ndarray, c: int, service_mean: float, cs2: float) -> np.ndarray:
    """Physical maximum wait per position: ``(floor(j/c) + 1)·s`` for constant service, else inf."""
    if cs2 > 0.0:
        return np.full(j.shape, math.inf)
    return (np.floor(j / max(c, 1)) + 1.0) * service_mean


def _groups(j: np.ndarray, w: np.ndarray, mean: np.ndarray, var: np.ndarray, cap: np.ndarray, unit: float):
    """Merge neighbouring positions into groups with the same total weight, mean and variance (the
    largest cap of a group bounds it). A group spans at most half the standard deviation of its
    positions' waits (in positions), so merging barely changes the shape: Erlang(j + 1) positions
    are grouped about sqrt(j)/2 at a time. At most ``MAX_GROUPS`` groups (else equal runs)."""
    if j.size <= 16:
        return w, mean, var, cap
    size = np.maximum(1, np.floor(0.5 * np.sqrt(var) / max(unit, 1e-300))).astype(np.int64)
    edges = [0]
    while edges[-1] < j.size and len(edges) <= MAX_GROUPS:
        edges.append(min(j.size, edges[-1] + int(size[edges[-1]])))
    if edges[-1] < j.size:
        edges = np.linspace(0, j.size, MAX_GROUPS + 1).astype(np.int64).tolist()
    if len(edges) - 1 == j.size:
        return w, mean, var, cap
    gw, gm, gv, gc = [], [], [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        ww = w[lo:hi]
        tot = float(ww.sum())
        if tot <= 0:
            continue
        m1 = float((ww * mean[lo:hi]).sum() / tot)
        m2 = float((ww * (var[lo:hi] + mean[lo:hi] ** 2)).sum() / tot)
        gw.append(tot)
        gm.append(m1)
        gv.append(max(m2 - m1 * m1, 1e-300))
        gc.append(float(cap[lo:hi].max()))
    return np.array(gw), np.array(gm), np.array(gv), np.array(gc)


class _Window:
    """The first ``m`` points of a grid (what ``latency_dist.gamma_pmf`` reads of one)."""

    def __init__(self, dt: float, m: int) -> None:
        self.dt, self.m = dt, m


@lru_cache(maxsize=512)
def room_mixture(ratio: float, places: int, c: int, service_mean: float, cs2: float):
    """(weights, means, variances, caps) of the wait's position mixture, merged into groups
    (cached: a design's rooms are solved again on every edit; the arrays are read-only)."""
    j, w = position_weights(ratio, places)
    mean, var = position_moments(j, c, service_mean, cs2)
    out = _groups(j, w, mean, var, position_caps(j, c, service_mean, cs2), service_mean / max(c, 1))
    for a in out:
        a.setflags(write=False)
    return out


@lru_cache(maxsize=512)
def room_wait_moments(ratio: float, places: int, c: int, service_mean: float, cs2: float) -> tuple[float, float, float]:
    """Mean and variance of the wait given a wait, and a generous 99.9th percentile (grid sizing)."""
    w, mean, var, cap = room_mixture(ratio, places, c, service_mean, cs2)
    if w.size == 0:
        return 0.0, 0.0, 0.0
    m1 = float((w * mean).sum())
    m2 = float((w * (var + mean * mean)).sum())
    far = np.minimum(mean + 6.0 * np.sqrt(var) + 2.0 * service_mean / max(c, 1), cap)
    return m1, max(m2 - m1 * m1, 0.0), float(far.max())


def room_wait_pmf(grid, ratio: float, places: int, c: int, service_mean: float, cs2: float,
                  trunc: float = math.inf) -> np.ndarray:
    """Pmf on ``grid`` (rounded as in ``latency_dist``) of the wait of admitted requests that wait,
    each position's wait cut at its physical maximum and the whole at ``trunc`` (renormalised).
    Cached by grid and parameters; the returned array is read-only."""
    return _room_wait_pmf(grid.dt, grid.m, float(ratio), int(places), int(c), float(service_mean), float(cs2),
                          float(trunc))


@lru_cache(maxsize=256)
def _room_wait_pmf(dt: float, m: int, ratio: float, places: int, c: int, service_mean: float, cs2: float,
                   trunc: float) -> np.ndarray:
    grid = _Window(dt, m)
    out = _mixture_pmf(grid, gamma_pmf, ratio, places, c, service_mean, cs2, trunc)
    out.setflags(write=False)
    return out


def _mixture_pmf(grid, gamma_pmf, ratio, places, c, service_mean, cs2, trunc) -> np.ndarray:
    w, mean, var, cap = room_mixture(ratio, places, c, service_mean, cs2)
    out = np.zeros(grid.m)
    if w.size == 0:
        out[0] = 1.0
        return out
    cv = np.sqrt(var) / np.maximum(mean, 1e-300)
    narrow = np.sqrt(var) < grid.dt  # narrower than a bin: a point at the mean (two neighbours)
    limit = np.minimum(cap, trunc)
    wide = np.flatnonzero(~narrow)
    # each gamma only up to where its mass ends (12 sd past the mean), in a few length buckets
    reach = np.minimum(np.ceil((mean + 12.0 * np.sqrt(var)) / grid.dt) + 8, grid.m).astype(np.int64)
    length = np.minimum(2 ** np.ceil(np.log2(np.maximum(reach, 16))).astype(np.int64), grid.m)
    for size in np.unique(length[wide]) if wide.size else ():
        sel = wide[length[wide] == size]
        part = gamma_pmf(_Window(grid.dt, int(size)), mean[sel], cv[sel])
        lim = limit[sel]
        nt = np.where(np.isfinite(lim), np.floor(np.where(np.isfinite(lim), lim, 0.0) / grid.dt + 0.5), size)
        part[np.arange(size) > nt[:, None]] = 0.0
        total = part.sum(axis=1)
        for i in np.flatnonzero(total <= 0):  # everything beyond the cut: mass on the cut point
            part[i, min(int(nt[i]), size - 1)] = 1.0
            total[i] = 1.0
        out[:size] += (w[sel] / total) @ part
    for i in np.flatnonzero(narrow):
        x = min(mean[i], limit[i]) / grid.dt
        n = int(math.floor(x))
        f = x - n
        if n + 1 < grid.m:
            out[n] += w[i] * (1.0 - f)
            out[n + 1] += w[i] * f
        else:
            out[grid.m - 1] += w[i]
    if math.isfinite(trunc):
        out[np.arange(grid.m) > math.floor(trunc / grid.dt + 0.5)] = 0.0
    s = out.sum()
    return out / s if s > 0 else out
