"""Per-station sojourn-time distributions for the steady-state solver: how a station's wait and
service are described (``SojournSpec``), built on the shared grid of ``latency_dist``, deduplicated
across stations, composed along paths and mixed over paths (see ``latency_dist`` for the grid and the
closed-form building blocks)."""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from inferboard.sim.queues.latency_dist import (Grid, atom_exp_factor, gamma_factor, reflected_exp_factor, shift_factor,
                                         to_pmf, truncated_gamma_rows)
from inferboard.sim.queues.waiting_room import room_wait_moments, room_wait_pmf


@dataclass(slots=True)
class SojournSpec:
    """How to build one station's sojourn-time distribution (all times in seconds).

    ``shift`` (deterministic part) ⊛ wait ⊛ service. The wait is an atom at 0 with probability
    ``p0``, otherwise (given a wait) one of

    * ``kind="exp"``: density ∝ ``exp(-wait_rate*x)`` on ``(0, trunc)``; ``wait_rate`` may be <= 0
      (overloaded queue with time-outs), then ``trunc`` must be finite;
    * ``kind="gamma"``: gamma with mean ``wait_mean`` and CV ``wait_cv``, cut at ``trunc``;
    * ``kind="room"``: a finite waiting room's position mixture (``waiting_room``): ``room_places``
      places, position weights ``room_ratio^j``, ``room_servers`` servers of the given service
      time, cut at ``trunc``;
    * ``kind="table"``: the station's whole sojourn (wait and service together; ``p0`` 1 and no
      service part) is a tabulated distribution, quantiles registered with ``register_table`` and
      referred to by ``table_id`` (the dynamic batcher, ``batching.py``);

    the service is gamma with mean ``service_mean`` and CV ``service_cv`` (0 = constant, 1 = exponential).
    """

    shift: float = 0.0
    kind: str = "none"  # "none" | "exp" | "gamma" | "table"
    p0: float = 1.0
    wait_rate: float = 0.0
    wait_mean: float = 0.0
    wait_cv: float = 1.0
    trunc: float = math.inf
    service_mean: float = 0.0
    service_cv: float = 0.0
    table_id: float = -1.0
    room_ratio: float = 0.0
    room_places: int = 0
    room_servers: int = 0

    def moments(self) -> tuple[float, float, float]:
        """``(mean, variance, rough 99.9th percentile)`` used to size the grid (generous)."""
        mean = self.shift + self.service_mean
        sd_s = self.service_cv * self.service_mean
        var = sd_s * sd_s
        q = mean + sd_s * max(6.0, 3.0 + 3.0 * self.service_cv)
        pw = 1.0 - self.p0
        if pw > 0 and self.kind == "exp" and (self.wait_rate > 0 or math.isfinite(self.trunc)):
            if self.wait_rate > 0:
                m = 1.0 / self.wait_rate
                tail = m * math.log(max(pw / 1e-3, 1.0))
                w1, w2 = pw * m, 2.0 * pw * m * m
            else:
                tail = self.trunc
                w1, w2 = pw * self.trunc, pw * self.trunc ** 2
            if math.isfinite(self.trunc):
                tail = min(tail, self.trunc)
            mean, var, q = mean + w1, var + max(w2 - w1 * w1, 0.0), q + tail
        elif pw > 0 and self.kind == "room":
            m1, v1, far = room_wait_moments(self.room_ratio, self.room_places, self.room_servers, self.service_mean,
                                            self.service_cv ** 2)
            mean, var = mean + pw * m1, var + max(pw * (v1 + m1 * m1) - (pw * m1) ** 2, 0.0)
            q += min(self.trunc, far)
        elif pw > 0 and self.kind == "gamma":
            sd = self.wait_cv * self.wait_mean
            w1, w2 = pw * self.wait_mean, pw * (sd * sd + self.wait_mean ** 2)
            mean, var = mean + w1, var + max(w2 - w1 * w1, 0.0)
            q += min(self.trunc, self.wait_mean + sd * max(6.0, 3.0 + 3.0 * self.wait_cv))
        if self.kind == "table":
            tm, tv, tq = table_moments(self.table_id)
            mean, var, q = mean + tm, var + tv, q + tq
        return mean, var, q


def max_sojourn(sp: SojournSpec) -> float:
    """The largest sojourn time the spec allows (inf unless the wait and the service are bounded):
    with constant service a finite room's wait is at most ``ceil(m/c)`` services (``waiting_room``),
    and any wait is at most its cut ``trunc``."""
    service = sp.service_mean if sp.service_cv <= 0.0 or sp.service_mean <= 0.0 else math.inf
    if sp.kind == "table":
        return math.inf
    if sp.p0 >= 1.0 or sp.kind == "none":
        wait = 0.0
    elif sp.kind == "room" and sp.service_cv <= 0.0 and sp.room_servers > 0:
        wait = min(sp.trunc, math.ceil(sp.room_places / sp.room_servers) * sp.service_mean)
    elif sp.kind in ("exp", "gamma", "room"):
        wait = sp.trunc
    else:
        wait = math.inf
    return sp.shift + wait + service


#: Spec fields a transform row depends on (all but the shift), in ``_row_key`` order after ``kind``.
_ROW_FIELDS = ("p0", "wait_rate", "wait_mean", "wait_cv", "trunc", "service_mean", "service_cv", "table_id",
               "room_ratio", "room_places", "room_servers")
_COL = {name: i for i, name in enumerate(_ROW_FIELDS)}


def _row_key(sp: SojournSpec) -> tuple:
    """Everything a station's transform row depends on (all but the shift)."""
    return (sp.kind, sp.p0, sp.wait_rate, sp.wait_mean, sp.wait_cv, sp.trunc, sp.service_mean, sp.service_cv,
            sp.table_id, sp.room_ratio, sp.room_places, sp.room_servers)


def dedupe(specs: list[SojournSpec]) -> tuple[list[tuple], np.ndarray]:
    """The distinct ``_row_key`` tuples of ``specs`` and, per spec, the index of its key."""
    index: dict[tuple, int] = {}
    inverse = np.empty(len(specs), dtype=np.int64)
    keys: list[tuple] = []
    for i, sp in enumerate(specs):
        key = _row_key(sp)
        j = index.get(key)
        if j is None:
            j = index[key] = len(keys)
            keys.append(key)
        inverse[i] = j
    return keys, inverse


def key_table(keys: list[tuple]) -> np.ndarray:
    """The float fields of ``_row_key`` tuples as a matrix, columns in ``_ROW_FIELDS`` order."""
    return np.array([key[1:] for key in keys], dtype=float).reshape(len(keys), len(_ROW_FIELDS))


def row_moments(keys: list[tuple], table: np.ndarray | None = None) -> np.ndarray:
    """``SojournSpec.moments`` for shift-free specs given by ``_row_key`` tuples, vectorised; shape
    (U, 4): mean, variance, rough 99.9th percentile minus the mean, and 1.0 where the row has a
    random part (service, wait or batching), else 0.0."""
    t = key_table(keys) if table is None else table
    c = _COL
    kind = np.array([k[0] for k in keys], dtype=object)
    p0, rate, wmean, wcv, trunc = (t[:, c[n]] for n in ("p0", "wait_rate", "wait_mean", "wait_cv", "trunc"))
    smean, scv = t[:, c["service_mean"]], t[:, c["service_cv"]]
    out = np.zeros((len(keys), 4))
    mean = smean.copy()
    sd_s = scv * smean
    var = sd_s * sd_s
    q = mean + sd_s * np.maximum(6.0, 3.0 + 3.0 * scv)
    pw = 1.0 - p0
    finite = np.isfinite(trunc)
    is_table = kind == "table"
    expo = (pw > 0) & (kind == "exp") & ((rate > 0) | finite)
    if expo.any():
        down = rate > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.where(down, 1.0 / np.where(down, rate, 1.0), 0.0)
            tail = np.where(down, m * np.log(np.maximum(pw / 1e-3, 1.0)), trunc)
            w1 = np.where(down, pw * m, pw * np.where(finite, trunc, 0.0))
            w2 = np.where(down, 2.0 * pw * m * m, pw * np.where(finite, trunc, 0.0) ** 2)
        tail = np.where(finite, np.minimum(tail, trunc), tail)
        mean = np.where(expo, mean + w1, mean)
        var = np.where(expo, var + np.maximum(w2 - w1 * w1, 0.0), var)
        q = np.where(expo, q + tail, q)
    gam = ~expo & (pw > 0) & (kind == "gamma")
    if gam.any():
        sd = wcv * wmean
        w1, w2 = pw * wmean, pw * (sd * sd + wmean ** 2)
        mean = np.where(gam, mean + w1, mean)
        var = np.where(gam, var + np.maximum(w2 - w1 * w1, 0.0), var)
        q = np.where(gam, q + np.minimum(trunc, wmean + sd * np.maximum(6.0, 3.0 + 3.0 * wcv)), q)
    for i in np.flatnonzero((kind == "room") & (pw > 0)):
        m1, v1, far = room_wait_moments(t[i, c["room_ratio"]], int(t[i, c["room_places"]]),
                                        int(t[i, c["room_servers"]]), smean[i], scv[i] ** 2)
        p = pw[i]
        mean[i] += p * m1
        var[i] += max(p * (v1 + m1 * m1) - (p * m1) ** 2, 0.0)
        q[i] += min(trunc[i], far)
    for i in np.flatnonzero(is_table):
        tm, tv, tq = table_moments(t[i, c["table_id"]])
        mean[i], var[i], q[i] = mean[i] + tm, var[i] + tv, q[i] + tq
    out[:, 0], out[:, 1], out[:, 2] = mean, var, q - mean
    out[:, 3] = (smean > 0) | (p0 < 1.0) | is_table
    return out


def unique_transforms(grid: Grid, specs: list[SojournSpec], keys: list[tuple] | None = None,
                      inverse: np.ndarray | None = None,
                      table: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``build_transforms`` with equal rows computed once: ``(rows (U, K), random (U,), inverse (S,))``
    where station i's row is ``rows[inverse[i]]``. Designs repeat stations (a region copied per
    location, identical pools behind one balancer), so U is often much smaller than S. ``keys``
    and ``inverse`` (from ``dedupe``) and ``table`` (from ``key_table``) may be passed if known."""
    if keys is None or inverse is None:
        keys, inverse = dedupe(specs)
    rows, random = _transforms(grid, keys, table)
    return rows, random, inverse


def build_transforms(grid: Grid, specs: list[SojournSpec]) -> tuple[np.ndarray, np.ndarray]:
    """Transforms of the station sojourn times WITHOUT their deterministic shift, vectorised by
    building block: ``(rows (S, K), random)`` where ``random[i]`` is False for stations whose row is
    identically 1 (pure delays). Shifts are applied once per path (``mixture_pmf``)."""
    rows, random, inverse = unique_transforms(grid, specs)
    if inverse.size == rows.shape[0] and np.array_equal(inverse, np.arange(inverse.size)):
        return rows, random
    return rows[inverse], random[inverse]


def _transforms(grid: Grid, keys: list[tuple], table: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Rows for ``_row_key`` tuples, each building block computed for all rows that have it at once."""
    count = len(keys)
    out = np.ones((count, grid.k.shape[0]), dtype=complex)
    random = np.zeros(count, dtype=bool)
    if not count:
        return out, random
    kinds = [key[0] for key in keys]
    if table is None:
        table = key_table(keys)

    def col(name: str, rows=None) -> np.ndarray:
        values = table[:, _COL[name]]
        return values if rows is None else values[rows]

    p0, trunc = col("p0"), col("trunc")
    finite = np.isfinite(trunc)
    waiting = p0 < 1.0
    exp_like = np.array([k == "exp" for k in kinds])
    is_table = np.array([k == "table" for k in kinds])
    is_gamma = np.array([k == "gamma" for k in kinds])
    rate = col("wait_rate")
    service = np.flatnonzero(col("service_mean") > 0)
    down_cut = np.flatnonzero(waiting & exp_like & (rate > 0) & finite)  # atom + exponential, cut at T
    down = np.flatnonzero(waiting & exp_like & (rate > 0) & ~finite)  # atom + exponential
    up = np.flatnonzero(waiting & exp_like & (rate <= 0) & finite)  # atom + increasing exponential on (0, T)
    gam = waiting & is_gamma & (col("wait_mean") > 0)
    plain = np.flatnonzero(gam & ~finite)  # gamma waits
    exp_wait = gam & finite & (np.abs(col("wait_cv") - 1.0) <= 1e-9)
    exp_cut = np.flatnonzero(exp_wait)  # exponential waits cut at T
    cut = np.flatnonzero(gam & finite & ~exp_wait)  # gamma waits cut at T
    tabled = np.flatnonzero(is_table)
    room = np.flatnonzero(np.array([k == "room" for k in kinds]) & waiting)

    if service.size:
        out[service] = gamma_factor(grid, col("service_mean", service), col("service_cv", service))
    for group, cut_at in ((down_cut, True), (down, False)):
        if group.size:
            out[group] *= atom_exp_factor(grid, p0[group], 1.0 / rate[group], trunc[group] if cut_at else None)
    if up.size:
        q = p0[up][:, None]
        out[up] *= q + (1.0 - q) * reflected_exp_factor(grid, rate[up], trunc[up])
    for group, make in ((plain, lambda g: gamma_factor(grid, col("wait_mean", g), col("wait_cv", g))),
                        (exp_cut, lambda g: atom_exp_factor(grid, np.zeros(g.size), col("wait_mean", g), trunc[g])),
                        (cut, lambda g: truncated_gamma_rows(grid, col("wait_mean", g), col("wait_cv", g),
                                                              trunc[g]))):
        if group.size:
            q = p0[group][:, None]
            out[group] *= q + (1.0 - q) * make(group)
    for i in room:
        pmf = room_wait_pmf(grid, col("room_ratio")[i], int(col("room_places")[i]), int(col("room_servers")[i]),
                            col("service_mean")[i], col("service_cv")[i] ** 2, trunc[i])
        out[i] *= p0[i] + (1.0 - p0[i]) * np.fft.rfft(pmf)
    for i in tabled:
        out[i] *= table_transform(grid, col("table_id")[i])
    for group in (service, down_cut, down, up, plain, exp_cut, cut, tabled, room):
        random[group] = True
    return out, random


def mixture_pmf(grid: Grid, rows: np.ndarray, paths: list[np.ndarray], weights: list[float],
                shifts: list[float]) -> np.ndarray:
    """Pmf of the latency of a request that takes path j with probability ``weights[j]`` (normalised
    here): the path latency is its total deterministic shift ``shifts[j]`` plus the sum (convolution)
    of the random parts of its stations, ``rows[paths[j]]``. Vectorised over paths: one gather and
    multiply per hop position."""
    w = np.asarray(weights, dtype=float)
    total = float(w.sum())
    if total <= 0 or not paths:
        return to_pmf(grid, np.ones(grid.k.shape[0], dtype=complex))
    w = w / total
    acc = shift_factor(grid, np.asarray(shifts, dtype=float))
    longest = max(idx.size for idx in paths)
    if longest:
        ext = np.vstack([rows, np.ones((1, rows.shape[1]), dtype=complex)])
        pad = np.full((len(paths), longest), rows.shape[0], dtype=np.int64)
        for j, idx in enumerate(paths):
            pad[j, :idx.size] = idx
        for hop in range(longest):
            acc *= ext[pad[:, hop]]
    acc *= w[:, None]  # not `w @ acc`: BLAS threads stall badly on a busy machine
    return to_pmf(grid, acc.sum(axis=0))


# ----------------------------------------------------------------------------- tabulated distributions
#: id -> (probabilities, quantiles); ids are stable for equal tables (so equal stations dedupe)
_TABLES: OrderedDict[int, tuple[np.ndarray, np.ndarray]] = OrderedDict()
_TABLE_IDS: dict[bytes, int] = {}
_TABLE_LIMIT = 20_000
_next_id = [0]


def register_table(probs: np.ndarray, quantiles: np.ndarray) -> int:
    """Register a distribution given by its quantiles at ``probs`` (both increasing, probs from 0 to
    1); returns the ``table_id`` for a ``kind="table"`` spec. The oldest tables are forgotten past
    ``_TABLE_LIMIT`` (a spec lives for one solve)."""
    key = np.asarray(probs, dtype=float).tobytes() + np.asarray(quantiles, dtype=float).tobytes()
    found = _TABLE_IDS.get(key)
    if found is not None and found in _TABLES:
        return found
    ident = _next_id[0] = _next_id[0] + 1
    _TABLES[ident] = (np.asarray(probs, dtype=float), np.maximum.accumulate(np.asarray(quantiles, dtype=float)))
    _TABLE_IDS[key] = ident
    while len(_TABLES) > _TABLE_LIMIT:
        _TABLES.popitem(last=False)
    if len(_TABLE_IDS) > 2 * _TABLE_LIMIT:
        for k in [k for k, v in _TABLE_IDS.items() if v not in _TABLES]:
            del _TABLE_IDS[k]
    return ident


@lru_cache(maxsize=4096)
def table_moments(table_id: float) -> tuple[float, float, float]:
    """Mean, variance and the 99.9th percentile minus the mean of a registered table (kept: a table
    never changes under its id, and ids are not reused)."""
    probs, qs = _TABLES[int(table_id)]
    mid, width = 0.5 * (qs[1:] + qs[:-1]), np.diff(probs)
    mean = float((mid * width).sum())
    var = float(((mid - mean) ** 2 * width).sum() + (np.diff(qs) ** 2 * width).sum() / 12.0)
    return mean, var, float(np.interp(0.999, probs, qs)) - mean


def table_transform(grid: Grid, table_id: float) -> np.ndarray:
    """The transform of :func:`table_pmf` on ``grid`` (kept per table and grid: a re-solve after an
    edit elsewhere meets the same batching stations again). Read-only."""
    key = (int(table_id), grid.dt, grid.m)
    row = _TRANSFORMS.get(key)
    if row is None:
        row = np.fft.rfft(table_pmf(grid, table_id))
        row.flags.writeable = False
        if len(_TRANSFORMS) >= 2048:
            _TRANSFORMS.clear()
        _TRANSFORMS[key] = row
    return row


_TRANSFORMS: dict[tuple[int, float, int], np.ndarray] = {}


def table_pmf(grid: Grid, table_id: float) -> np.ndarray:
    """Masses of a registered table on the grid points (point n holds ``[(n-1/2)dt, (n+1/2)dt)``),
    from its CDF, linear between the tabulated quantiles; mass beyond the grid goes on the last point."""
    probs, qs = _TABLES[int(table_id)]
    edges = (np.arange(grid.m) + 0.5) * grid.dt
    cdf = np.interp(edges, qs, probs, left=0.0, right=1.0)
    cdf[-1] = 1.0
    return np.diff(cdf, prepend=0.0)
