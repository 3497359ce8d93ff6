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
from dataclasses import dataclass

import numpy as np

from inferboard.sim.queues.queueing import gamma_p

#: -log of the magnitude below which a gamma characteristic function is treated as 0.
_CF_LOG_EPS = 30.0
#: Gamma shapes (1/CV²) below this are discretised in time, not through the characteristic function.
_CF_MIN_SHAPE = 3.0
#: Points whose mass comes from the exact gamma CDF (see ``gamma_pmf``).
_EXACT_BINS = 4
#: ``gamma_pmf`` evaluates that CDF by its power series up to this x (in units of the gamma scale).
_SERIES_MAX_X = 12.0
#: Work budget: stations-on-paths × covering bins (see the module docstring).
FFT_BUDGET = 60_000
MIN_BINS = 256
MAX_BINS = 8192
#: Transform lengths from which ``_zpow`` uses two short lookups, and the length of the short one.
_ZPOW_SPLIT_MIN = 1024
_ZPOW_BLOCK = 64


@dataclass(frozen=True)
class Grid:
    """The time grid and transform tables latency distributions are composed on."""

    dt: float  #: bin width, seconds
    n_cover: int  #: bins covering [0, H]
    m: int  #: transform length (1.5 * n_cover)
    k: np.ndarray  #: frequency indices 0..m//2
    z: np.ndarray  #: exp(-2*pi*i*k/m)
    table: np.ndarray  #: exp(-2*pi*i*j/m), j = 0..m-1 (powers of z by table lookup)
    sinc: np.ndarray  #: transform of the rounding kernel, sinc(k/m)
    omega: np.ndarray  #: angular frequencies 2*pi*k/(m*dt)
    #: sin(2*pi*k/m) and sin(pi*k/m)**2, for transforms evaluated in real arithmetic
    sin: np.ndarray | None = None
    half_sin2: np.ndarray | None = None
    #: k = k_hi + k_lo split for ``_zpow`` on long grids (k_hi multiples of len(k_lo)); None on short ones
    k_hi: np.ndarray | None = None
    k_lo: np.ndarray | None = None


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
        k_hi = k_lo = None
        if k.size >= _ZPOW_SPLIT_MIN:
            k_lo = np.arange(_ZPOW_BLOCK)
            k_hi = np.arange(-(-k.size // _ZPOW_BLOCK)) * _ZPOW_BLOCK
        phi = 2 * np.pi * k / m
        grid = Grid(dt, n, m, k, table[k], table, np.sinc(k / m), phi / dt, np.sin(phi), np.sin(0.5 * phi) ** 2,
                    k_hi, k_lo)
        if len(_GRID_CACHE) > 64:
            _GRID_CACHE.clear()
        _GRID_CACHE[key] = grid
    return grid


def _zpow(grid: Grid, n: np.ndarray) -> np.ndarray:
    """``z**n`` for integer column vector n (shape (G, 1)) by table lookup, shape (G, K). On long
    grids ``z^(n*k)`` is ``z^(n*k_hi) * z^(n*k_lo)`` from two short lookups (an outer product), which
    avoids an integer modulo per element; the two agree to a few ulps."""
    m = grid.m
    n = n % m
    if grid.k_hi is None:
        return grid.table[n * grid.k % m]
    g, size = n.shape[0], grid.k.shape[0]
    hi = grid.table[n * grid.k_hi % m]
    lo = grid.table[n * grid.k_lo % m]
    return (hi[:, :, None] * lo[:, None, :]).reshape(g, -1)[:, :size]


def shift_factor(grid: Grid, d: np.ndarray) -> np.ndarray:
    """Transform of a deterministic delay ``d`` (seconds, shape (G,)) as two neighbouring points."""
    x = np.maximum(np.asarray(d, dtype=float), 0.0) / grid.dt
    n = np.floor(x)
    f = (x - n)[:, None]
    return _zpow(grid, n.astype(np.int64)[:, None]) * ((1.0 - f) + f * grid.z)


def _geometric(grid: Grid, r: np.ndarray, om: np.ndarray, scale: np.ndarray, offset) -> np.ndarray:
    """``offset + scale * r z / (1 - r z)`` for columns r (``om = 1 - r``, computed accurately),
    shape (G, K), in real arithmetic: with z = e^{-i phi} and ``S = sin^2(phi/2)``,
    ``r z / (1 - r z) = r (om - 2 S) / D - i r sin(phi) / D`` where ``D = |1 - r z|^2 = om^2 + 4 r S``
    (no cancellation near phi = 0 or r = 1)."""
    inv = (scale * r) / (om * om + (4.0 * r) * grid.half_sin2)
    out = np.empty(inv.shape, dtype=complex)
    out.real = inv * (om - 2.0 * grid.half_sin2) + offset
    out.imag = inv * -grid.sin
    return out


def atom_exp_factor(grid: Grid, p0: np.ndarray, mean: np.ndarray, trunc: np.ndarray | None = None) -> np.ndarray:
    """Atom at 0 (prob ``p0``) + exponential of mean ``mean`` (prob ``1 - p0``), each optionally
    truncated at ``trunc`` seconds (inf = none) and renormalised. Shapes (G,) → (G, K)."""
    p0 = np.asarray(p0, dtype=float)[:, None]
    mean = np.maximum(np.asarray(mean, dtype=float), 1e-300)[:, None]
    h = np.maximum(grid.dt / mean, 1e-9)
    r = np.exp(-h)
    om = -np.expm1(-h)
    q0 = -np.expm1(-0.5 * h)
    amp = 2.0 * np.sinh(np.minimum(0.5 * h, 350.0))
    base = p0 + (1.0 - p0) * q0
    if trunc is None:
        return _geometric(grid, r, om, (1.0 - p0) * amp, base)
    tn = np.asarray(trunc, dtype=float)[:, None]
    nt = np.where(np.isfinite(tn), np.floor(np.minimum(tn, 1e9 * grid.dt) / grid.dt + 0.5), -1.0)
    finite = nt >= 0
    ntc = np.where(finite, nt, 0).astype(np.int64)
    rn = np.where(finite, r ** np.where(finite, ntc, 0), 0.0)
    total = p0 + (1.0 - p0) * (q0 + amp * r * (1.0 - rn) / om)
    out = _geometric(grid, r, om, (1.0 - p0) * amp / total, 0.0)
    if finite.any():  # the cut: times (1 - r^n z^n) on the geometric part
        out *= 1.0 - np.where(finite, rn, 0.0) * _zpow(grid, ntc)
    out += base / total
    return out


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
            part, sinc = block[:, :top], grid.sinc[:top]
            part.real = mod * np.cos(arg) * sinc
            part.imag = mod * np.sin(arg) * sinc
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
    head = np.empty_like(edges)
    reach = edges.max(axis=1)
    series = reach <= _SERIES_MAX_X
    if series.any():  # power series P(k, x) = x^k e^-x / Γ(k+1) Σ x^n / ((k+1)...(k+n))
        x, a = edges[series], shape[series][:, None]
        # 40 terms reach 1e-16 up to x = 2; 90 terms up to x = 12 (the largest term is near n = x).
        # All terms at once: term_n = Π_{i<=n} x / (k + i), a cumulative product along n.
        terms = 40 if reach[series].max() <= 2.0 else 90
        ratios = x[:, :, None] / (a[:, :, None] + np.arange(1.0, terms))
        total = 1.0 + np.cumprod(ratios, axis=2).sum(axis=2)
        lg1 = np.array([math.lgamma(v + 1.0) for v in shape[series]])[:, None]
        head[series] = total * np.exp(a * np.log(x) - x - lg1)
    for i in np.flatnonzero(~series):  # rows reaching further: the scalar routine (continued fraction)
        head[i] = [gamma_p(shape[i], x) for x in edges[i]]
    pmf[:, :j] = np.diff(head, axis=1, prepend=0.0)
    if m > j:
        # density at the bin edges and midpoints x_i = i * step (i = 2j-1 .. 2m-1), with
        # log x_i = log i + log step (log i from a table: one transcendental per point, not two)
        step = (0.5 * grid.dt) / theta[:, None]
        points, log_points = _half_points(j, m)
        x = points * step
        lg = np.array([math.lgamma(a) for a in shape])[:, None]
        f = np.exp((shape[:, None] - 1.0) * (log_points + np.log(step)) - x - lg)
        h = (grid.dt / theta)[:, None]
        pmf[:, j:] = h / 6.0 * (f[:, 0:-1:2] + 4.0 * f[:, 1::2] + f[:, 2::2])
    total = pmf.sum(axis=1)
    pmf[:, -1] += np.maximum(1.0 - total, 0.0)
    pmf /= np.maximum(total, 1.0)[:, None]
    return pmf[0] if scalar else pmf


_HALF_POINTS: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


def _half_points(j: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """``i`` and ``log i`` for i = 2j-1 .. 2m-1 (cached: they depend on the grid length only)."""
    found = _HALF_POINTS.get((j, m))
    if found is None:
        points = np.arange(2 * j - 1, 2 * m, dtype=float)
        if len(_HALF_POINTS) > 16:
            _HALF_POINTS.clear()
        found = _HALF_POINTS[(j, m)] = (points, np.log(points))
    return found


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


def truncated_gamma_rows(grid: Grid, mean: np.ndarray, cv: np.ndarray, trunc: np.ndarray) -> np.ndarray:
    """Gamma(mean, cv) cut at ``trunc`` and renormalised, shape (G, K); all rows at once."""
    rows = np.empty((mean.shape[0], grid.k.shape[0]), dtype=complex)
    narrow = cv * mean < 2.0 * grid.dt  # narrower than the bins: a point at the (cut) mean
    if narrow.any():
        rows[narrow] = shift_factor(grid, np.minimum(mean[narrow], trunc[narrow]))
    wide = np.flatnonzero(~narrow)
    if wide.size:
        pmf = gamma_pmf(grid, mean[wide], cv[wide])
        tw = trunc[wide]
        nt = np.where(np.isfinite(tw), np.floor(np.where(np.isfinite(tw), tw, 0.0) / grid.dt + 0.5), grid.m)
        pmf[np.arange(grid.m) > nt[:, None]] = 0.0
        total = pmf.sum(axis=1)
        empty = total <= 0
        if empty.any():  # everything beyond the cut: all mass on the cut point
            for i in np.flatnonzero(empty):
                pmf[i, min(int(nt[i]), grid.m - 1)] = 1.0
            total[empty] = 1.0
        rows[wide] = np.fft.rfft(pmf / total[:, None], axis=1)
    return rows
