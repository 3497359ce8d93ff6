"""Latency distributions on a shared uniform grid, composed along paths by convolution.

Representation. A distribution is a probability-mass vector on the points ``t_n = n*dt``
(n = 0..M-1) where point n holds the mass of ``[(n - 1/2)dt, (n + 1/2)dt)`` ("rounding"
discretisation, so sums of discretised variables stay unbiased to first order). All stations of one
solve share the grid, and we work with the vectors' discrete Fourier transforms (``numpy.fft``
convention, ``z = exp(-2*pi*i*k/M)``): convolution along a path is then a product of rows, and the
mixture over paths is a weighted sum of products followed by ONE inverse FFT. Nothing is ever added
per hop at the percentile level: end-to-end percentiles come from the composed distribution.

Grid. ``choose_grid`` takes an estimate ``H`` of the worst path's 99.9th percentile and lays
``n_cover`` bins over ``[0, H]`` (``dt = H/n_cover``); the transform length is ``M = 1.5*n_cover`` so
the mass beyond ``1.5*H`` (well under 1e-4 for the tails used here) is what folds back onto the
start. ``n_cover`` is 8192 for small networks and shrinks with the number of stations that have a
random part (``FFT_BUDGET // stations``, a power of two, never below 256), so the work stays about
``FFT_BUDGET`` transform points. Measured on the seeded bench networks (bench/bench_analytic.py)
against 8192 bins, p50–p99.9 move by < 0.06% at 512 bins and < 0.35% at 256 bins; on the M/M/c
test grid (tests/sim) p50/p95/p99 stay within 0.1% of theory even at 256 bins.

Building blocks (each has an exact closed-form transform, so no per-bin Python loops):

* shift by d: two points ``floor(d/dt)`` and the next, weights linear in the remainder (mean exact);
* atom at 0 with probability p0 plus an exponential of mean m: the exponential rounded onto the grid
  is geometric — ``q0 = 1 - e^{-dt/2m}``, ``q_n = 2 sinh(dt/2m) e^{-n dt/m}`` — optionally
  truncated at a timeout ``T`` (served requests waited at most T) and renormalised;
* discrete uniform on ``[0, a]``;
* gamma with mean s and CV v (service times; bounded-queue waits): CV 1 → the exponential above,
  CV 0 or narrower than a bin → 2-/3-point distributions with the exact mean and variance; shape
  ``k = 1/v² >= 3`` → the characteristic function ``(1 + i*w*theta)^(-k)`` times ``sinc(w*dt/2)``
  (the rounding kernel), zero where it is below e^-30; steeper shapes (a band-limited transform
  would ring) → rounded in time from the exact CDF (``queueing.gamma_p``) for the first points and
  Simpson's rule on the density after, then one FFT. Tiny negative masses are clipped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from inferboard.sim.queueing import gamma_p

#: -log of the magnitude below which a gamma characteristic function is treated as 0.
_CF_LOG_EPS = 30.0
#: Gamma shapes (1/CV²) below this are discretised in time, not through the characteristic function.
_CF_MIN_SHAPE = 3.0
#: Points whose mass comes from the exact gamma CDF (see ``gamma_pmf``).
_EXACT_BINS = 4
#: Work budget: stations-on-paths × covering bins (see the module docstring).
FFT_BUDGET = 60_000
MIN_BINS = 256
MAX_BINS = 8192


@dataclass(frozen=True)
class Grid:
    dt: float  #: bin width, seconds
    n_cover: int  #: bins covering [0, H]
    m: int  #: transform length (1.5 * n_cover)
    k: np.ndarray  #: frequency indices 0..m//2
    z: np.ndarray  #: exp(-2*pi*i*k/m)
    table: np.ndarray  #: exp(-2*pi*i*j/m), j = 0..m-1 (powers of z by table lookup)
    sinc: np.ndarray  #: transform of the rounding kernel, sinc(k/m)
    omega: np.ndarray  #: angular frequencies 2*pi*k/(m*dt)


_GRID_CACHE: dict[tuple[float, int], Grid] = {}


def choose_grid(horizon_s: float, n_stations: int) -> Grid:
    """Grid whose ``n_cover`` bins cover ``[0, horizon_s]`` (see the module docstring)."""
    n = MAX_BINS
    if n_stations > 0:
        n = max(MIN_BINS, min(MAX_BINS, 1 << int(math.floor(math.log2(max(FFT_BUDGET // n_stations, 1))))))
    h = horizon_s if math.isfinite(horizon_s) and horizon_s > 1e-9 else 1e-3
    dt = h / n
    key = (dt, n)
    grid = _GRID_CACHE.get(key)
    if grid is None:
        m = 3 * n // 2
        k = np.arange(m // 2 + 1)
        table = np.exp(-2j * np.pi * np.arange(m) / m)
        grid = Grid(dt, n, m, k, table[k], table, np.sinc(k / m), 2 * np.pi * k / (m * dt))
        if len(_GRID_CACHE) > 64:
            _GRID_CACHE.clear()
        _GRID_CACHE[key] = grid
    return grid


def _zpow(grid: Grid, n: np.ndarray) -> np.ndarray:
    """``z**n`` for integer column vector n (shape (G, 1)) by table lookup, shape (G, K)."""
    return grid.table[(n % grid.m) * grid.k % grid.m]


def shift_factor(grid: Grid, d: np.ndarray) -> np.ndarray:
    """Transform of a deterministic delay ``d`` (seconds, shape (G,)) as two neighbouring points."""
    x = np.maximum(np.asarray(d, dtype=float), 0.0) / grid.dt
    n = np.floor(x)
    f = (x - n)[:, None]
    return _zpow(grid, n.astype(np.int64)[:, None]) * ((1.0 - f) + f * grid.z)


def atom_exp_factor(grid: Grid, p0: np.ndarray, mean: np.ndarray, trunc: np.ndarray | None = None) -> np.ndarray:
    """Atom at 0 (prob ``p0``) + exponential of mean ``mean`` (prob ``1 - p0``), each optionally
    truncated at ``trunc`` seconds (inf = none) and renormalised. Shapes (G,) → (G, K)."""
    p0 = np.asarray(p0, dtype=float)[:, None]
    mean = np.maximum(np.asarray(mean, dtype=float), 1e-300)[:, None]
    h = np.maximum(grid.dt / mean, 1e-9)
    r = np.exp(-h)
    q0 = -np.expm1(-0.5 * h)
    amp = 2.0 * np.sinh(np.minimum(0.5 * h, 350.0))
    rz = r * grid.z
    if trunc is None:
        geo = amp * rz / (1.0 - rz)
        return p0 + (1.0 - p0) * (q0 + geo)
    tn = np.asarray(trunc, dtype=float)[:, None]
    nt = np.where(np.isfinite(tn), np.floor(np.minimum(tn, 1e9 * grid.dt) / grid.dt + 0.5), -1.0)
    finite = nt >= 0
    ntc = np.where(finite, nt, 0).astype(np.int64)
    rn = np.where(finite, r ** np.where(finite, ntc, 0), 0.0)
    cut = np.where(finite, rn * _zpow(grid, ntc), 0.0)
    geo = amp * rz * (1.0 - cut) / (1.0 - rz)
    total = p0 + (1.0 - p0) * (q0 + amp * r * (1.0 - rn) / (1.0 - r))
    return (p0 + (1.0 - p0) * (q0 + geo)) / total


def uniform_factor(grid: Grid, a: np.ndarray) -> np.ndarray:
    """Discrete uniform on the points of ``[0, a]`` (``round(a/dt) + 1`` points), shape (G, K)."""
    n = np.floor(np.maximum(np.asarray(a, dtype=float), 0.0) / grid.dt + 0.5).astype(np.int64)[:, None]
    num = 1.0 - _zpow(grid, n + 1)
    den = (n + 1) * (1.0 - grid.z)
    den[:, 0] = 1.0
    out = num / den
    out[:, 0] = 1.0
    return out


def gamma_factor(grid: Grid, mean: np.ndarray, cv: np.ndarray) -> np.ndarray:
    """Gamma-distributed time with mean ``mean`` and CV ``cv`` (shapes (G,) → (G, K))."""
    mean, cv = np.asarray(mean, dtype=float), np.asarray(cv, dtype=float)
    out = np.empty((mean.shape[0], grid.k.shape[0]), dtype=complex)
    x = mean / grid.dt
    var = (cv * x) ** 2  # variance in bins^2
    n = np.floor(x + 0.5)
    delta = x - n
    second = var + delta * delta
    expo = np.abs(cv - 1.0) < 1e-9
    det = (cv <= 0.0) | (mean <= 0.0)
    two = ~expo & ~det & (second < np.abs(delta))
    three = ~expo & ~det & ~two & (second <= 1.0)
    # shape < _CF_MIN_SHAPE: the density rises too steeply at 0 for a band-limited transform
    # (Gibbs ringing), so these are discretised in time and transformed
    steep = ~expo & ~det & ~two & ~three & (cv * cv * _CF_MIN_SHAPE > 1.0)
    cf = ~expo & ~det & ~two & ~three & ~steep
    if steep.any():
        out[steep] = np.fft.rfft(gamma_pmf(grid, mean[steep], cv[steep]), axis=1)
    if det.any() or two.any():
        sel = det | two
        out[sel] = shift_factor(grid, mean[sel])
    if expo.any():
        out[expo] = atom_exp_factor(grid, np.zeros(int(expo.sum())), mean[expo])
    if three.any():
        d, s2 = delta[three][:, None], second[three][:, None]
        pp, pm = 0.5 * (s2 + d), 0.5 * (s2 - d)
        out[three] = _zpow(grid, (n[three].astype(np.int64) - 1)[:, None]) * (
            pm + (1.0 - s2) * grid.z + pp * grid.z * grid.z)
    if cf.any():
        rows = np.flatnonzero(cf)
        k = 1.0 / (cv[rows] ** 2)
        theta = mean[rows] / k
        # |(1 + i w)^-k| < 1e-13 beyond w_cut: those frequencies are set to 0 instead of computed
        w_cut = np.sqrt(np.expm1(np.minimum(2.0 * _CF_LOG_EPS / k, 700.0)))
        need = np.minimum(np.ceil(w_cut / (theta * grid.omega[1])) + 1, grid.k.shape[0]).astype(np.int64)
        kk = grid.k.shape[0]
        for top in (kk // 8, kk // 4, kk // 2, kk):  # a few vectorised buckets by cut-off
            sel = need <= top
            if not sel.any():
                continue
            need = np.where(sel, kk + 1, need)
            r, ks, th = rows[sel], k[sel][:, None], theta[sel][:, None]
            w = grid.omega[:top] * th
            block = np.zeros((r.size, kk), dtype=complex)
            mod = np.exp((-0.5 * ks) * np.log1p(w * w))
            arg = -ks * np.arctan(w)
            block[:, :top] = mod * (np.cos(arg) + 1j * np.sin(arg)) * grid.sinc[:top]
            out[r] = block
    return out


def gamma_pmf(grid: Grid, mean, cv) -> np.ndarray:
    """Gamma(mean, cv) rounded onto the grid points, shape (G, m) for arrays (G,) (or (m,) for
    scalars): exact CDF differences (``queueing.gamma_p``) for the first ``_EXACT_BINS`` points,
    where a shape below 1 makes the density singular, and Simpson's rule on the density for the
    rest; the mass beyond the grid is folded into the last point."""
    scalar = np.ndim(mean) == 0
    mean = np.atleast_1d(np.asarray(mean, dtype=float))
    cv = np.atleast_1d(np.asarray(cv, dtype=float))
    shape = 1.0 / (cv * cv)
    theta = mean / shape
    m = grid.m
    j = min(_EXACT_BINS, m)
    pmf = np.empty((mean.size, m))
    edges = (np.arange(j) + 0.5) * grid.dt / theta[:, None]  # upper edges of the first j points
    if edges.max() <= 2.0:  # power series P(k, x) = x^k e^-x / Γ(k+1) Σ x^n / ((k+1)...(k+n)), 40 terms
        term, total = np.ones_like(edges), np.ones_like(edges)
        for n in range(1, 40):
            term = term * edges / (shape[:, None] + n)
            total += term
        lg1 = np.array([math.lgamma(a + 1.0) for a in shape])[:, None]
        head = total * np.exp(shape[:, None] * np.log(edges) - edges - lg1)
    else:
        head = np.array([[gamma_p(shape[i], x) for x in edges[i]] for i in range(mean.size)])
    pmf[:, :j] = np.diff(head, axis=1, prepend=0.0)
    if m > j:
        x = np.arange(2 * j - 1, 2 * m) * (0.5 * grid.dt) / theta[:, None]  # bin edges and midpoints
        lg = np.array([math.lgamma(a) for a in shape])[:, None]
        f = np.exp((shape[:, None] - 1.0) * np.log(x) - x - lg)
        h = (grid.dt / theta)[:, None]
        pmf[:, j:] = h / 6.0 * (f[:, 0:-1:2] + 4.0 * f[:, 1::2] + f[:, 2::2])
    total = pmf.sum(axis=1)
    pmf[:, -1] += np.maximum(1.0 - total, 0.0)
    pmf /= np.maximum(total, 1.0)[:, None]
    return pmf[0] if scalar else pmf


def to_pmf(grid: Grid, transform: np.ndarray) -> np.ndarray:
    """Probability masses on the grid from a transform row (negatives clipped, renormalised)."""
    pmf = np.fft.irfft(transform, n=grid.m)
    np.maximum(pmf, 0.0, out=pmf)
    s = pmf.sum()
    return pmf / s if s > 0 else pmf


def percentiles(grid: Grid, pmf: np.ndarray, ps) -> list[float]:
    """Quantiles (seconds) of a grid pmf by linear interpolation of the CDF, whose value at
    ``(n + 1/2)*dt`` is the cumulative mass up to point n."""
    cdf = np.cumsum(pmf)
    total = float(cdf[-1]) if cdf.size else 0.0
    out = []
    for p in ps:
        i = int(np.searchsorted(cdf, p * total, side="left")) if total > 0 else -1
        if i < 0 or i >= cdf.size:
            out.append(0.0 if i < 0 else (cdf.size - 0.5) * grid.dt)
            continue
        below = float(cdf[i - 1]) if i > 0 else 0.0
        frac = (p * total - below) / pmf[i] if pmf[i] > 0 else 1.0
        out.append(max(0.0, float(i - 0.5 + frac) * grid.dt))
    return out


def reflected_exp_factor(grid: Grid, rate: np.ndarray, trunc: np.ndarray) -> np.ndarray:
    """Density ∝ ``exp(+r*x)`` on ``(0, T)`` (``r = -rate >= 0``, the served wait of an overloaded
    queue with time-outs): ``T - Y`` with ``Y`` exponential of rate r truncated to ``(0, T)``, so
    its transform is ``z^{n_T} * conj(transform of Y)``."""
    r = np.maximum(-np.asarray(rate, dtype=float), 1e-12 / max(float(np.max(trunc)), 1e-300))
    tn = np.asarray(trunc, dtype=float)
    y = atom_exp_factor(grid, np.zeros(r.shape[0]), 1.0 / r, tn)
    nt = np.floor(tn / grid.dt + 0.5).astype(np.int64)[:, None]
    return _zpow(grid, nt) * np.conj(y)


def _truncated_gamma_rows(grid: Grid, mean: np.ndarray, cv: np.ndarray, trunc: np.ndarray) -> np.ndarray:
    rows = np.empty((mean.shape[0], grid.k.shape[0]), dtype=complex)
    for i in range(mean.shape[0]):
        if cv[i] * mean[i] < 2.0 * grid.dt:  # narrower than the bins: a point at the (cut) mean
            rows[i] = shift_factor(grid, np.array([min(mean[i], trunc[i])]))[0]
            continue
        pmf = gamma_pmf(grid, float(mean[i]), float(cv[i]))
        nt = int(math.floor(trunc[i] / grid.dt + 0.5)) if math.isfinite(trunc[i]) else grid.m
        pmf[nt + 1:] = 0.0
        total = pmf.sum()
        if total <= 0:
            pmf[min(nt, grid.m - 1)] = total = 1.0
        rows[i] = np.fft.rfft(pmf / total)
    return rows


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


def build_transforms(grid: Grid, specs: list[SojournSpec]) -> tuple[np.ndarray, np.ndarray]:
    """Transforms of the station sojourn times WITHOUT their deterministic shift, vectorised by
    building block: ``(rows (S, K), random)`` where ``random[i]`` is False for stations whose row is
    identically 1 (pure delays). Shifts are applied once per path (``mixture_pmf``)."""
    def pick(cond):
        return [i for i, sp in enumerate(specs) if cond(sp)]

    def arr(rows, name):
        return np.array([getattr(specs[i], name) for i in rows], dtype=float)

    out = np.ones((len(specs), grid.k.shape[0]), dtype=complex)
    random = np.zeros(len(specs), dtype=bool)
    service = pick(lambda sp: sp.service_mean > 0)
    if service:
        out[service] = gamma_factor(grid, arr(service, "service_mean"), arr(service, "service_cv"))
        random[service] = True
    waiting = lambda sp: sp.p0 < 1.0  # noqa: E731
    down = pick(lambda sp: waiting(sp) and sp.kind in ("exp", "batch") and sp.wait_rate > 0)
    for group in ([i for i in down if math.isfinite(specs[i].trunc)],
                  [i for i in down if not math.isfinite(specs[i].trunc)]):
        if group:
            trunc = arr(group, "trunc")
            out[group] *= atom_exp_factor(grid, arr(group, "p0"), 1.0 / arr(group, "wait_rate"),
                                          trunc if np.isfinite(trunc[0]) else None)
    up = pick(lambda sp: waiting(sp) and sp.kind in ("exp", "batch") and sp.wait_rate <= 0
              and math.isfinite(sp.trunc))
    if up:
        p0 = arr(up, "p0")[:, None]
        out[up] *= p0 + (1.0 - p0) * reflected_exp_factor(grid, arr(up, "wait_rate"), arr(up, "trunc"))
    gam = pick(lambda sp: waiting(sp) and sp.kind == "gamma" and sp.wait_mean > 0)
    plain = [i for i in gam if not math.isfinite(specs[i].trunc)]
    exp_cut = [i for i in gam if math.isfinite(specs[i].trunc) and abs(specs[i].wait_cv - 1.0) <= 1e-9]
    cut = [i for i in gam if math.isfinite(specs[i].trunc) and abs(specs[i].wait_cv - 1.0) > 1e-9]
    for group, make in ((plain, lambda g: gamma_factor(grid, arr(g, "wait_mean"), arr(g, "wait_cv"))),
                        (exp_cut, lambda g: atom_exp_factor(grid, np.zeros(len(g)), arr(g, "wait_mean"),
                                                            arr(g, "trunc"))),
                        (cut, lambda g: _truncated_gamma_rows(grid, arr(g, "wait_mean"), arr(g, "wait_cv"),
                                                              arr(g, "trunc")))):
        if group:
            p0 = arr(group, "p0")[:, None]
            out[group] *= p0 + (1.0 - p0) * make(group)
    batch = pick(lambda sp: sp.kind == "batch")
    if batch:
        pf = arr(batch, "p_first")[:, None]
        first = shift_factor(grid, arr(batch, "window"))
        follow = uniform_factor(grid, 2.0 * arr(batch, "follower_wait"))
        pb = arr(batch, "p_busy")[:, None]
        busy = uniform_factor(grid, 2.0 * arr(batch, "server_wait"))
        out[batch] *= (pf * first + (1.0 - pf) * follow) * ((1.0 - pb) + pb * busy)
    for group in (down, up, gam, batch):
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
