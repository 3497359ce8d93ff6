"""Per-station sojourn-time distributions for the steady-state solver: how a station's wait and
service are described (``SojournSpec``), built on the shared grid of ``latency_dist``, deduplicated
across stations, composed along paths and mixed over paths (see ``latency_dist`` for the grid and the
closed-form building blocks)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from inferboard.sim.latency_dist import (Grid, atom_exp_factor, choose_grid, gamma_factor, reflected_exp_factor,
                                         shift_factor, to_pmf, truncated_gamma_rows, uniform_factor)


@dataclass(slots=True)
class SojournSpec:
    """How to build one station's sojourn-time distribution (all times in seconds).

    ``shift`` (deterministic part) ⊛ wait ⊛ service. The wait is an atom at 0 with probability
    ``p0``, otherwise (given a wait) one of

    * ``kind="exp"``: density ∝ ``exp(-wait_rate*x)`` on ``(0, trunc)``; ``wait_rate`` may be <= 0
      (overloaded queue with time-outs), then ``trunc`` must be finite;
    * ``kind="gamma"``: gamma with mean ``wait_mean`` and CV ``wait_cv``, cut at ``trunc``;
    * ``kind="batch"``: [window atom at ``window`` with prob. ``p_first``, else uniform on
      ``[0, 2*follower_wait]``] ⊛ [with prob. ``p_busy`` uniform on ``[0, 2*server_wait]``] ⊛ the
      atom + exponential congestion term (``p0``, ``wait_rate``);

    the service is gamma with mean ``service_mean`` and CV ``service_cv`` (0 = constant, 1 = exponential).
    """

    shift: float = 0.0
    kind: str = "none"  # "none" | "exp" | "gamma" | "batch"
    p0: float = 1.0
    wait_rate: float = 0.0
    wait_mean: float = 0.0
    wait_cv: float = 1.0
    trunc: float = math.inf
    service_mean: float = 0.0
    service_cv: float = 0.0
    p_first: float = 1.0
    window: float = 0.0
    follower_wait: float = 0.0
    p_busy: float = 0.0
    server_wait: float = 0.0

    def moments(self) -> tuple[float, float, float]:
        """``(mean, variance, rough 99.9th percentile)`` used to size the grid (generous)."""
        mean = self.shift + self.service_mean
        sd_s = self.service_cv * self.service_mean
        var = sd_s * sd_s
        q = mean + sd_s * max(6.0, 3.0 + 3.0 * self.service_cv)
        pw = 1.0 - self.p0
        if pw > 0 and self.kind in ("exp", "batch") and (self.wait_rate > 0 or math.isfinite(self.trunc)):
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
        elif pw > 0 and self.kind == "gamma":
            sd = self.wait_cv * self.wait_mean
            w1, w2 = pw * self.wait_mean, pw * (sd * sd + self.wait_mean ** 2)
            mean, var = mean + w1, var + max(w2 - w1 * w1, 0.0)
            q += min(self.trunc, self.wait_mean + sd * max(6.0, 3.0 + 3.0 * self.wait_cv))
        if self.kind == "batch":
            a, pf = 2.0 * self.follower_wait, self.p_first
            w1 = pf * self.window + (1 - pf) * a / 2
            w2 = pf * self.window ** 2 + (1 - pf) * a * a / 3
            b1, b2 = self.p_busy * self.server_wait, self.p_busy * 4 * self.server_wait ** 2 / 3
            mean += w1 + b1
            var += max(w2 - w1 * w1, 0.0) + max(b2 - b1 * b1, 0.0)
            q += max(self.window, a) + 2.0 * self.server_wait
        return mean, var, q


#: Spec fields a transform row depends on (all but the shift), in ``_row_key`` order after ``kind``.
_ROW_FIELDS = ("p0", "wait_rate", "wait_mean", "wait_cv", "trunc", "service_mean", "service_cv", "p_first", "window",
               "follower_wait", "p_busy", "server_wait")
_COL = {name: i for i, name in enumerate(_ROW_FIELDS)}


def _row_key(sp: SojournSpec) -> tuple:
    """Everything a station's transform row depends on (all but the shift)."""
    return (sp.kind, sp.p0, sp.wait_rate, sp.wait_mean, sp.wait_cv, sp.trunc, sp.service_mean, sp.service_cv,
            sp.p_first, sp.window, sp.follower_wait, sp.p_busy, sp.server_wait)


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
    is_batch = kind == "batch"
    expo = (pw > 0) & ((kind == "exp") | is_batch) & ((rate > 0) | finite)
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
    if is_batch.any():
        pf, window = t[:, c["p_first"]], t[:, c["window"]]
        a = 2.0 * t[:, c["follower_wait"]]
        busy, server = t[:, c["p_busy"]], t[:, c["server_wait"]]
        w1 = pf * window + (1 - pf) * a / 2
        w2 = pf * window ** 2 + (1 - pf) * a * a / 3
        b1, b2 = busy * server, busy * 4 * server ** 2 / 3
        mean = np.where(is_batch, mean + (w1 + b1), mean)
        var = np.where(is_batch, var + (np.maximum(w2 - w1 * w1, 0.0) + np.maximum(b2 - b1 * b1, 0.0)), var)
        q = np.where(is_batch, q + (np.maximum(window, a) + 2.0 * server), q)
    out[:, 0], out[:, 1], out[:, 2] = mean, var, q - mean
    out[:, 3] = (smean > 0) | (p0 < 1.0) | is_batch
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
    exp_like = np.array([k == "exp" or k == "batch" for k in kinds])
    is_batch = np.array([k == "batch" for k in kinds])
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
    batch = np.flatnonzero(is_batch)

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
    if batch.size:
        pf = col("p_first", batch)[:, None]
        first = shift_factor(grid, col("window", batch))
        follow = uniform_factor(grid, 2.0 * col("follower_wait", batch))
        pb = col("p_busy", batch)[:, None]
        busy = uniform_factor(grid, 2.0 * col("server_wait", batch))
        out[batch] *= (pf * first + (1.0 - pf) * follow) * ((1.0 - pb) + pb * busy)
    for group in (service, down_cut, down, up, plain, exp_cut, cut, batch):
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


def wait_tail(spec: SojournSpec, t: float) -> float:
    """P(pre-service wait > t) for a batch-station spec. The wait is U + E with U the bounded
    batching parts (support ``[0, u_max]``) and E the atom + exponential congestion term (rate eta).
    For ``t >= u_max`` (the usual case) ``P = P(E > 0)·e^{-eta t}·E[e^{eta U}]`` exactly, with the
    moment generating functions of the atom/uniform parts; otherwise it is read from the wait's
    distribution on a small grid."""
    a, b, w = 2.0 * spec.follower_wait, 2.0 * spec.server_wait, spec.window
    u_max = max(w, a) + b
    pc, eta = 1.0 - spec.p0, spec.wait_rate
    if t >= u_max:
        if pc <= 0 or eta <= 0:
            return 0.0 if pc <= 0 else pc

        def log_uniform(x: float) -> float:  # log E[e^{eta*U}], U uniform on [0, x]
            y = eta * x
            return 0.0 if y < 1e-12 else y + math.log(-math.expm1(-y) / y)

        pf, pb = spec.p_first, spec.p_busy
        first = [(math.log(pf) + eta * w) if pf > 0 else -math.inf,
                 (math.log1p(-pf) + log_uniform(a)) if pf < 1 else -math.inf]
        busy = [math.log1p(-pb) if pb < 1 else -math.inf, (math.log(pb) + log_uniform(b)) if pb > 0 else -math.inf]
        log_m = _logsumexp(first) + _logsumexp(busy)
        return float(min(1.0, pc * math.exp(min(0.0, log_m - eta * t))))
    wait_only = replace(spec, shift=0.0, service_mean=0.0)
    _, _, hi = wait_only.moments()
    grid = choose_grid(max(hi, t) * 1.1, 10 ** 9)
    rows, _ = build_transforms(grid, [wait_only])
    pmf = to_pmf(grid, rows[0])
    n = int(math.floor(t / grid.dt + 0.5))
    return float(min(1.0, max(0.0, pmf[n + 1:].sum())))


def _logsumexp(xs: list[float]) -> float:
    top = max(xs)
    return top if top == -math.inf else top + math.log(sum(math.exp(x - top) for x in xs))
