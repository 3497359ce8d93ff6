"""Closed-form queueing results used by the steady-state solver (pure functions, no state).

Notation: ``lam`` arrival rate (1/s), ``mu`` per-server service rate (1/s), ``c`` servers,
``a = lam/mu`` offered load in Erlangs, ``rho = a/c`` utilisation, ``theta = c*mu - lam``.
Sources are cited per function; "[D]" marks results derived from standard theory in
the simulator references (sources listed in docs/simulator.md) (checked by tests/sim against independent code).

Unstable inputs (``rho >= 1``) are not errors here: mean waits come back as ``math.inf`` and the
caller (``analytic.solve``) decides how to cap them. Every function is scalar ``float`` math except
the two tail functions, which also accept numpy arrays for ``t``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

__all__ = [
    "MMCK", "allen_cunneen_mean_wait", "erlang_b", "erlang_c", "mmc_mean_wait", "mmc_sojourn_percentile", "mmc_sojourn_tail",
    "mmc_wait_tail", "mmck", "mmck_blocking", "pk_mean_wait", "qna_departure_scv",
    "MMCPatience", "mmc_patience", "mmck_wait_cut", "trunc_exp_mean", "gamma_p",
]


def _new(cls, *values):
    """An instance of the frozen dataclass ``cls`` from all its field values in order, without the
    generated ``__init__`` (one ``object.__setattr__`` per field costs more than the formulas)."""
    obj = object.__new__(cls)
    object.__setattr__(obj, "__dict__", dict(zip(cls._names, values)))
    return obj


def erlang_b(c: int, a: float) -> float:
    """Erlang B (M/M/c/c loss) probability by the stable recursion.

    ``B_0 = 1``, ``B_k = a*B_{k-1} / (k + a*B_{k-1})`` [D, references §1.1]. No factorials or powers,
    so it neither overflows nor loses precision for c in the thousands.
    """
    if a <= 0.0:
        return 1.0 if c <= 0 else 0.0
    b = 1.0
    for k in range(1, int(c) + 1):
        ab = a * b
        b = ab / (k + ab)
    return b


def erlang_c(c: int, a: float) -> float:
    """Erlang C: probability an arrival waits in M/M/c (``c`` servers, ``a`` Erlangs).

    ``C = B / (1 - rho*(1 - B))`` with ``B = erlang_b(c, a)`` and ``rho = a/c``
    [S, en.wikipedia.org/wiki/M/M/c_queue; stable form D, references §1.1]. Returns 1.0 when
    ``rho >= 1`` (every arrival waits) and 0.0 for ``a <= 0``.
    """
    if c <= 0 or a >= c:
        return 1.0
    if a <= 0.0:
        return 0.0
    rho, b = a / c, erlang_b(c, a)
    return b / (1.0 - rho * (1.0 - b))


def mmc_mean_wait(lam: float, mu: float, c: int) -> float:
    """M/M/c mean wait in queue ``E[Wq] = C / (c*mu - lam)`` [S, references §1.1]; inf if unstable."""
    if lam <= 0.0:
        return 0.0
    theta = c * mu - lam
    if c <= 0 or mu <= 0.0 or theta <= 0.0:
        return math.inf
    return erlang_c(c, lam / mu) / theta


def mmc_wait_tail(t, lam: float, mu: float, c: int):
    """M/M/c waiting-time tail ``P(Wq > t) = C * exp(-(c*mu - lam) * t)`` for ``t >= 0``
    [D, references §1.1]. ``t`` may be a float or a numpy array."""
    theta = c * mu - lam
    tt = np.maximum(np.asarray(t, dtype=float), 0.0)
    out = np.ones_like(tt) if theta <= 0.0 else (erlang_c(c, lam / mu) if lam > 0 else 0.0) * np.exp(-theta * tt)
    return float(out) if np.ndim(t) == 0 else out


def mmc_sojourn_tail(t, lam: float, mu: float, c: int):
    """M/M/c (FCFS) sojourn-time tail ``P(T > t)``, ``T = Wq + S``.

    References §1.1 [D]: with ``K = C*mu/(mu - theta)``,
    ``P(T>t) = (1-K)*exp(-mu*t) + K*exp(-theta*t)``, and ``exp(-mu*t)*(1 + C*mu*t)`` when
    ``mu == theta``. Evaluated here in the algebraically equal form
    ``exp(-mu*t) + C*mu*t*exp(-m*t) * (1 - exp(-(M-m)*t)) / ((M-m)*t)``, ``m, M = min, max(mu, theta)``,
    which is continuous through ``mu == theta`` and never overflows. ``t`` may be a numpy array.
    """
    theta = c * mu - lam
    tt = np.maximum(np.asarray(t, dtype=float), 0.0)
    if theta <= 0.0 or mu <= 0.0:
        out = np.ones_like(tt)
    else:
        cw = erlang_c(c, lam / mu) if lam > 0 else 0.0
        lo, hi = min(mu, theta), max(mu, theta)
        x = (hi - lo) * tt
        rel = np.where(x > 1e-12, -np.expm1(-x) / np.where(x > 1e-12, x, 1.0), 1.0)  # (1 - e^-x)/x
        out = np.exp(-mu * tt) + cw * mu * tt * np.exp(-lo * tt) * rel
    return float(out) if np.ndim(t) == 0 else out


def mmc_sojourn_percentile(p: float, lam: float, mu: float, c: int) -> float:
    """The ``p``-quantile of the M/M/c sojourn time, by bisection on the monotone tail
    (``P(T > t) = 1 - p``) [D, references §1.1]. ``inf`` if unstable; 0 for ``p <= 0``."""
    if p <= 0.0:
        return 0.0
    if c <= 0 or mu <= 0.0 or c * mu - lam <= 0.0:
        return math.inf
    p = min(p, 1.0 - 1e-15)
    target = 1.0 - p
    hi = 1.0 / min(mu, c * mu - lam)
    while mmc_sojourn_tail(hi, lam, mu, c) > target:
        hi *= 2.0
    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mmc_sojourn_tail(mid, lam, mu, c) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return 0.5 * (lo + hi)


def allen_cunneen_mean_wait(c: int, lam: float, mean_s: float, ca2: float, cs2: float) -> float:
    """GI/G/c mean wait, Allen–Cunneen: ``E[Wq] ≈ C(c,a)/(c*mu - lam) * (ca2 + cs2)/2``.

    [S, references §1.2: queuesim ``ac_approx``; LINE ``qsys_gigk_approx_kingman``]. Exact for
    M/M/c (ca2 = cs2 = 1) and equal to Pollaczek–Khinchine for M/G/1 (c = 1, ca2 = 1).
    """
    if lam <= 0.0 or mean_s <= 0.0:
        return 0.0
    return mmc_mean_wait(lam, 1.0 / mean_s, c) * 0.5 * (ca2 + cs2)


def pk_mean_wait(lam: float, mean_s: float, cs2: float) -> float:
    """M/G/1 Pollaczek–Khinchine mean wait ``E[Wq] = rho*(1 + cs2)*E[S] / (2*(1 - rho))``
    (= ``lam*E[S^2] / (2*(1-rho))``) [D, references §1.2]; ``cs2 = 0`` gives M/D/1."""
    rho = lam * mean_s
    if lam <= 0.0 or mean_s <= 0.0:
        return 0.0
    if rho >= 1.0:
        return math.inf
    return rho * (1.0 + cs2) * mean_s / (2.0 * (1.0 - rho))


def gamma_p(shape: float, x: float) -> float:
    """Regularised lower incomplete gamma ``P(shape, x)`` (scalar): power series for
    ``x < shape + 1``, modified-Lentz continued fraction for ``Q = 1 - P`` otherwise
    (Numerical Recipes 3rd ed., §6.2)."""
    if x <= 0.0:
        return 0.0
    log_pre = -x + shape * math.log(x) - math.lgamma(shape)
    if x < shape + 1.0:
        term = total = 1.0 / shape
        n = 0
        while n < 1000:
            n += 1
            term *= x / (shape + n)
            total += term
            if term < total * 1e-16:
                break
        return min(1.0, total * math.exp(log_pre))
    tiny = 1e-300
    b = x + 1.0 - shape
    c, d = 1.0 / tiny, 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - shape)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return max(0.0, 1.0 - math.exp(log_pre) * h)


def qna_departure_scv(rho: float, ca2: float, cs2: float, c: int) -> float:
    """Squared CV of a G/G/c station's departures, Whitt's QNA linking equation
    ``cd2 = 1 + (1 - rho^2)(ca2 - 1) + rho^2 (cs2 - 1)/sqrt(c)`` (W. Whitt, "The Queueing Network
    Analyzer", Bell System Technical Journal 62(9), 1983, eq. 39). Used to pass burstiness
    downstream; it keeps a tandem of M/M/c stations Poisson (cd2 = 1)."""
    rho = min(max(rho, 0.0), 1.0)
    return max(0.0, 1.0 + (1.0 - rho * rho) * (ca2 - 1.0) + rho * rho * (cs2 - 1.0) / math.sqrt(max(c, 1)))


@dataclass(frozen=True)
class MMCK:
    """M/M/c with ``queue_capacity`` waiting places (K = c + queue_capacity in the system)."""

    blocking: float  #: P(an arrival finds the waiting room full) — shed fraction
    p_wait: float  #: P(an admitted arrival waits)
    mean_wait: float  #: E[Wq] of admitted arrivals
    wait_scv: float  #: squared CV of the wait of admitted arrivals that wait (1 when m is large, rho < 1)

MMCK._names = tuple(f.name for f in fields(MMCK))


_MAX_TERMS = 1 << 18
#: Sums over fewer terms than this are done in plain Python (numpy's per-call overhead dominates).
_SMALL = 48


def _queue_sums(rho: float, m: int) -> tuple[float, float, float, float, float]:
    """Sums over the queue states ``n = c + j`` (weights ``w_j = rho^j`` relative to ``p_c``,
    j = 0..m), over the window of j where the weights are not negligible (< e^-45 of the largest),
    rescaled by the largest weight (``rho^m`` when rho > 1) so nothing overflows. Returns
    ``(log_scale, sum_{j<m} w_j, w_m, sum_{j<m} (j+1) w_j, sum_{j<m} (j+1)(j+2) w_j)``, all sums
    multiplied by ``exp(-log_scale)``."""
    lr = math.log(rho)
    if m * abs(lr) > 45.0:  # the far end is negligible: infinite geometric sums, no cancellation
        if lr < 0:
            d = 1.0 - rho
            return 0.0, 1.0 / d, math.exp(m * lr), 1.0 / (d * d), 2.0 / (d * d * d)
        r = 1.0 / rho  # rescaled by rho^-m: weights r^k, k = m - j = 1.. (j < m)
        d = 1.0 - r
        s0, sk, skk = r / d, r / (d * d), r * (1.0 + r) / (d * d * d)
        a = m + 1.0
        return m * lr, s0, 1.0, a * s0 - sk, a * (a + 1.0) * s0 - (2.0 * a + 1.0) * sk + skk
    span = m if abs(lr) < 1e-300 else min(m, int(math.ceil(45.0 / abs(lr))))
    span = min(span, _MAX_TERMS)
    if span < _SMALL:  # a few terms: plain Python beats numpy's per-call overhead
        js = range(m - span, m + 1) if lr > 0 else range(0, span + 1)
        logs = [j * lr for j in js]
        top = max(logs)
        ws = [math.exp(v - top) for v in logs]
        if js[-1] == m:
            ws.pop()
        s0 = s1 = s2 = 0.0
        for j, w in zip(js, ws):
            s0 += w
            s1 += (j + 1.0) * w
            s2 += (j + 1.0) * (j + 2.0) * w
        return top, s0, math.exp(m * lr - top), s1, s2
    j = np.arange(m - span, m + 1, dtype=float) if lr > 0 else np.arange(0, span + 1, dtype=float)
    logw = j * lr
    shift = float(logw.max())
    w = np.exp(logw - shift)
    full = math.exp(m * lr - shift)
    inner = w[:-1] if j[-1] == m else w
    ji = j[:inner.size]
    return (shift, float(inner.sum()), full, float(((ji + 1.0) * inner).sum()),
            float(((ji + 1.0) * (ji + 2.0) * inner).sum()))


def mmck(lam: float, mu: float, c: int, queue_capacity: int) -> MMCK:
    """Exact M/M/c/K stationary results with K = c + ``queue_capacity`` (birth–death chain).

    With ``B = erlang_b(c, a)`` the states below c weigh ``1/B - 1`` relative to ``p_c`` and the
    queue states ``c + j`` weigh ``rho^j`` (j = 0..m, m = queue_capacity) [S, Gross & Harris,
    Fundamentals of Queueing Theory, M/M/c/K]. Blocking (PASTA) is ``p_K``; it is computed rescaled
    so it stays finite for rho > 1 and large m, where it tends to ``1 - 1/rho``. An admitted arrival
    that finds j waiting waits Erlang(j+1, c*mu), which gives the wait's mean and SCV.
    ``m = 0`` returns the Erlang B loss system.
    """
    if lam <= 0.0:
        return _new(MMCK, 0.0, 0.0, 0.0, 1.0)
    if c <= 0 or mu <= 0.0:
        return _new(MMCK, 1.0, 0.0, 0.0, 1.0)
    a = lam / mu
    rho = a / c
    m = max(int(queue_capacity), 0)
    b = erlang_b(c, a)
    if m == 0:
        return MMCK(b, 0.0, 0.0, 1.0)
    if b <= 0.0:
        return MMCK(0.0, 0.0, 0.0, 1.0)
    log_scale, s_wait, w_full, s1, s2 = _queue_sums(rho, m)
    low_log = math.log1p(-b) - math.log(b) - log_scale if b < 1.0 else -math.inf
    low = math.exp(low_log) if low_log < 700 else math.inf
    z = low + s_wait + w_full
    if not math.isfinite(z):  # queue states negligible next to the idle states
        return MMCK(0.0, 0.0, 0.0, 1.0)
    blocking = w_full / z
    admitted = max(1.0 - blocking, 1e-300)
    p_wait = min((s_wait / z) / admitted, 1.0)
    cmu = c * mu
    mean_wait = (s1 / z) / admitted / cmu
    scv = max(s2 * s_wait / (s1 * s1) - 1.0, 0.0) if s_wait > 0 and s1 > 0 else 1.0  # E[W²]/E[W]² - 1
    return _new(MMCK, blocking, p_wait, mean_wait, scv)


_LOG_FACTORIALS: list[float] = []
_LOG_FACTORIALS_ARRAY = np.zeros(0)


def _log_factorials(n: int) -> np.ndarray:
    """``[lgamma(v + 1) for v in range(n)]`` (a growing table of a pure function, so never stale)."""
    global _LOG_FACTORIALS_ARRAY
    if len(_LOG_FACTORIALS) < n:
        _LOG_FACTORIALS.extend(math.lgamma(v + 1.0) for v in range(len(_LOG_FACTORIALS), max(n, 64)))
        _LOG_FACTORIALS_ARRAY = np.array(_LOG_FACTORIALS)
    return _LOG_FACTORIALS_ARRAY[:n]


def mmck_wait_cut(lam: float, mu: float, c: int, queue_capacity: int, t: float) -> tuple[float, float]:
    """M/M/c/K, for admitted requests that wait: ``(P(W > t), E[W | W <= t])``, exactly. Finding j
    waiting (weight ``rho^j``, j < m) a request waits Erlang(j+1, c*mu), whose tail is the Poisson
    CDF ``P(Poisson(c*mu*t) <= j)`` and ``E[W; W <= t] = (j+1)/(c*mu) * P(Poisson(c*mu*t) >= j+2)``."""
    m, cmu = int(queue_capacity), c * mu
    if lam <= 0.0 or m <= 0 or cmu <= 0.0:
        return 0.0, 0.0
    lr = math.log(lam / cmu)
    span = min(m, _MAX_TERMS) if abs(lr) < 1e-300 else min(m, int(math.ceil(45.0 / abs(lr))), _MAX_TERMS)
    x = cmu * t
    if lr <= 0 and span < _SMALL:  # a few terms: plain Python beats numpy's per-call overhead
        return _wait_cut_small(lr, span, cmu, x, t)
    j = np.arange(m - span, m, dtype=float) if lr > 0 else np.arange(0, span, dtype=float)
    if x + 40.0 * math.sqrt(x + 1.0) < j[0]:  # Poisson(x) is below every window position: all wait > t
        return 1.0, t
    w = np.exp(j * lr - float((j * lr).max()))
    i = np.arange(int(j[-1]) + 2, dtype=float)
    pois = np.cumsum(np.exp(i * math.log(x) - x - _log_factorials(i.size))) if x > 0 else np.ones_like(i)
    jj = j.astype(np.int64)
    p_out = float((w * pois[jj]).sum() / w.sum())
    below = float((w * (j + 1.0) / cmu * np.maximum(1.0 - pois[jj + 1], 0.0)).sum() / w.sum())
    p_out = min(max(p_out, 0.0), 1.0)
    return p_out, (below / (1.0 - p_out) if p_out < 1.0 else t)


def _wait_cut_small(lr: float, span: int, cmu: float, x: float, t: float) -> tuple[float, float]:
    """``mmck_wait_cut`` for rho <= 1 and a short window of j (0..span-1), in plain Python."""
    ws = [math.exp(j * lr) for j in range(span)]  # the largest weight is j = 0
    if x > 0:
        _log_factorials(span + 1)
        lx, acc, pois = math.log(x), 0.0, []
        for v in range(span + 1):
            acc += math.exp(v * lx - x - _LOG_FACTORIALS[v])
            pois.append(acc)
    else:
        pois = [1.0] * (span + 1)
    total = out = below = 0.0
    for j, w in enumerate(ws):
        total += w
        out += w * pois[j]
        rest = 1.0 - pois[j + 1]
        below += w * (j + 1.0) / cmu * (rest if rest > 0.0 else 0.0)
    p_out = min(max(out / total, 0.0), 1.0)
    return p_out, ((below / total) / (1.0 - p_out) if p_out < 1.0 else t)


@dataclass(frozen=True)
class MMCPatience:
    """M/M/c+D (FCFS, every request abandons after waiting ``patience``) — see ``mmc_patience``."""

    p_abandon: float  #: P(an arrival times out)
    p_wait: float  #: P(a served request waited at all)
    mean_wait: float  #: mean wait of served requests
    rate: float  #: eta: the served wait given it waited has density ∝ exp(-eta*x) on (0, T); may be <= 0

MMCPatience._names = tuple(f.name for f in fields(MMCPatience))


def trunc_exp_mean(eta: float, t: float) -> float:
    """Mean of the density ∝ ``exp(-eta*x)`` on ``(0, t)``: ``t*(1/y - 1/(e^y - 1))``, ``y = eta*t``
    (stable for any sign of eta; t/2 at eta = 0)."""
    y = eta * t
    if abs(y) < 1e-4:
        return t * (0.5 - y / 12.0)
    if y > 700:
        return 1.0 / eta
    if y < -700:
        return t * (1.0 + 1.0 / y)
    return t * (1.0 / y - 1.0 / math.expm1(y))


def mmc_patience(lam: float, mu: float, c: int, patience: float, variability: float = 1.0) -> MMCPatience:
    """Wait and time-outs of an FCFS c-server queue whose requests leave after waiting ``patience``.

    Exact for M/M/c+D [S, Zeltyn & Mandelbaum, "Call centers with impatient customers: many-server
    asymptotics of the M/M/n+G queue", Queueing Systems 51 (2005), §2]: with FCFS an abandoning
    request never delays anyone, and the offered wait has an atom ``∝ 1/B(c-1, a)`` at 0 and density
    ``∝ lam*exp(lam*H(x) - c*mu*x)``, ``H(x) = min(x, T)``: ``lam*e^{-theta x}`` below T
    (``theta = c*mu - lam``, any sign) and ``lam*e^{lam T - c mu x}`` above; the mass above T times
    out. With T = inf and theta > 0 it reduces to Erlang C. ``variability = (ca2 + cs2)/2`` applies
    the Allen–Cunneen scaling to the waiting part (rate ``theta/g``, weight ``lam/g``) — exact at
    g = 1, a heuristic otherwise. Requires ``c >= 1``, ``mu > 0`` and a finite ``patience``.
    """
    if lam <= 0.0:
        return MMCPatience(0.0, 0.0, 0.0, c * mu)
    g = max(variability, 1e-9)
    eta = (c * mu - lam) / g
    t = patience
    y = eta * t
    b_prev = erlang_b(c - 1, lam / mu) if c > 1 else 1.0
    if b_prev <= 0.0:  # underflow: nobody ever finds all servers busy
        return MMCPatience(0.0, 0.0, 0.0, eta)
    a0 = 1.0 / b_prev
    pre = lam / g
    if y >= 0:
        i1 = pre * t * (1.0 if abs(y) < 1e-12 else -math.expm1(-y) / y)
        i2 = lam * math.exp(-y) / (c * mu)
    else:  # rescale everything by e^y (< 1) so nothing overflows in overload
        a0 = a0 * math.exp(y) if y > -700 else 0.0
        i1 = pre * (-math.expm1(y)) / (-eta)
        i2 = lam / (c * mu)
    z = a0 + i1 + i2
    served = a0 + i1
    return _new(MMCPatience, i2 / z, i1 / served, (i1 / served) * trunc_exp_mean(eta, t), eta)


def mmck_blocking(lam: float, mu: float, c: int, queue_capacity: int) -> float:
    """Probability an arrival finds the waiting room of an M/M/c/K queue full (see ``mmck``)."""
    return mmck(lam, mu, c, queue_capacity).blocking
