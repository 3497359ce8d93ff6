"""Queueing results written from first principles for the tests (textbook forms, not the
recursions or shortcuts in ``inferboard.sim.queues.queueing``), shared by the test modules.

* M/M/c: Erlang C from its defining sums; the sojourn time is a mixture of exponentials.
* Tandems of M/M/c stations (Jackson): the sojourn times are independent, so the end-to-end tail
  is the tail of a sum of mixtures of exponentials, in closed form.
"""

from __future__ import annotations

import math

import numpy as np


def erlang_c(c: int, a: float) -> float:
    """Erlang C from its definition, terms a^k/k! in log space (no recursion)."""
    rho = a / c
    logs = [k * math.log(a) - math.lgamma(k + 1) for k in range(c)]
    top = c * math.log(a) - math.lgamma(c + 1) - math.log(1 - rho)
    hi = max(logs + [top])
    below = sum(math.exp(x - hi) for x in logs)
    tail = math.exp(top - hi)
    return tail / (below + tail)


def quantile(tail, p: float) -> float:
    """The p-quantile of a distribution given by its (monotone) tail function, by bisection."""
    lo, hi = 0.0, 1.0
    while tail(hi) > 1 - p:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if tail(mid) > 1 - p else (lo, mid)
    return (lo + hi) / 2


def mmc_sojourn_terms(lam: float, mu: float, c: int) -> list[tuple[float, float]]:
    """The M/M/c sojourn density as ``sum w_i * r_i * exp(-r_i t)`` (weights may be negative):
    ``[(w_i, r_i)]``. T = W + S, W = 0 w.p. 1 - C else Exp(theta), S ~ Exp(mu); with
    K = C*mu/(mu - theta): P(T > t) = (1 - K) e^{-mu t} + K e^{-theta t}."""
    cw = erlang_c(c, lam / mu)
    theta = c * mu - lam
    k = cw * mu / (mu - theta)
    return [(1 - k, mu), (k, theta)]


def exp_sum_tail(terms_a, terms_b, t: float) -> float:
    """P(A + B > t) for independent A, B whose densities are the exponential mixtures ``terms_*``:
    Exp(a) + Exp(b) has tail (a e^{-bt} - b e^{-at})/(a - b), or (1 + a t) e^{-a t} when a = b."""
    total = 0.0
    for wa, a in terms_a:
        for wb, b in terms_b:
            if abs(a - b) < 1e-12 * max(a, b):
                tail = (1 + a * t) * math.exp(-a * t)
            else:
                tail = (a * math.exp(-b * t) - b * math.exp(-a * t)) / (a - b)
            total += wa * wb * tail
    return total


def mmc_sojourn_quantile(lam: float, mu: float, c: int, p: float) -> float:
    terms = mmc_sojourn_terms(lam, mu, c)
    return quantile(lambda t: sum(w * math.exp(-r * t) for w, r in terms), p)


def mmc_tandem_quantile(lam: float, mu: float, c: int, p: float) -> float:
    """p-quantile of the end-to-end sojourn of two identical M/M/c stations in tandem."""
    terms = mmc_sojourn_terms(lam, mu, c)
    return quantile(lambda t: exp_sum_tail(terms, terms, t), p)


# ---- GI/M/c from the embedded Markov chain at arrival instants ---------------------------------

def _gamma_arrival_counts(lam: float, ca2: float, rate: float, k_max: int) -> np.ndarray:
    """P(k events of a Poisson process of ``rate`` fall in one interarrival time), k < k_max, for
    gamma interarrival times with mean 1/lam and SCV ca2 (negative binomial; Poisson when ca2 = 0)."""
    k = np.arange(k_max)
    if ca2 == 0:
        x = rate / lam
        return np.exp(k * math.log(x) - x - np.array([math.lgamma(v + 1) for v in k]))
    s = 1.0 / ca2  # gamma shape; rate of the gamma s*lam
    p = s * lam / (s * lam + rate)
    logs = [math.lgamma(v + s) - math.lgamma(v + 1) - math.lgamma(s) + s * math.log(p) + v * math.log1p(-p) for v in k]
    return np.exp(np.array(logs))


def gimc_arrival_distribution(lam: float, mu: float, c: int, ca2: float, n_max: int = 400) -> np.ndarray:
    """Stationary number in system seen by an arriving request in GI/M/c (gamma interarrival
    times), from the embedded chain: after an arrival (n -> n + 1) the system is a pure-death
    process with rate min(n, c)*mu until the next arrival. Its transition matrix over one
    interarrival time is sum_k a_k R^k by uniformisation (R = I + Q/(c mu)), and the chain is
    solved directly (states above n_max are lumped into n_max)."""
    size = n_max + 1
    cmu = c * mu
    r = np.eye(size)
    for n in range(1, size):
        d = min(n, c) * mu / cmu
        r[n, n] = 1 - d
        r[n, n - 1] = d
    a = _gamma_arrival_counts(lam, ca2, cmu, 400)
    a = a[: int(np.searchsorted(np.cumsum(a), 1 - 1e-15)) + 1]
    m = np.zeros((size, size))
    power = np.eye(size)
    for ak in a:
        m += ak * power
        power = power @ r
    step = np.zeros((size, size))  # from n seen: n + 1 after joining, then the deaths
    for n in range(size):
        step[n] = m[min(n + 1, n_max)]
    # pi (step - I) = 0, sum pi = 1
    lhs = np.vstack([(step - np.eye(size)).T, np.ones(size)])
    rhs = np.zeros(size + 1)
    rhs[-1] = 1.0
    pi, *_ = np.linalg.lstsq(lhs, rhs, rcond=None)
    return np.maximum(pi, 0.0)


def _log_erlang_cdf(m: int, r: float, t: float) -> float:
    """log P(Erlang(m, r) <= t) = log P(Poisson(r t) >= m), summing the smaller side's terms."""
    x = r * t
    if x <= 0:
        return -math.inf
    log_term = lambda i: i * math.log(x) - x - math.lgamma(i + 1)  # noqa: E731
    if x < m:  # upper terms, decreasing from i = m: no cancellation
        first = log_term(m)
        total, i, ratio = 1.0, m, 1.0
        while ratio > 1e-17:
            i += 1
            ratio *= x / i
            total += ratio
        return first + math.log(total)
    below = sum(math.exp(log_term(i)) for i in range(m))
    return math.log(max(1e-300, 1.0 - below))


def erlang_plus_exp_tail(m: int, r: float, mu: float, t: float) -> float:
    """P(Erlang(m, r) + Exp(mu) > t) for r >= mu: P(E > t) + e^{-mu t} (r/(r-mu))^m P(Erlang(m, r-mu) <= t)."""
    if m == 0:
        return math.exp(-mu * t)
    if abs(r - mu) < 1e-12 * r:
        log_inner = m * math.log(mu * t) - math.lgamma(m + 1) if t > 0 else -math.inf
    else:
        log_inner = m * math.log(r / (r - mu)) + _log_erlang_cdf(m, r - mu, t)
    return (1.0 - math.exp(_log_erlang_cdf(m, r, t))) + math.exp(-mu * t + log_inner)


def gimc_sojourn_tail(pi: np.ndarray, mu: float, c: int, t: float) -> float:
    """FCFS: a request that finds n >= c waits for n - c + 1 departures at rate c*mu, then is served."""
    total = 0.0
    for n, p in enumerate(pi):
        if p < 1e-13:
            continue
        total += p * erlang_plus_exp_tail(max(n - c + 1, 0), c * mu, mu, t)
    return total


# ---- M/M/c/K: the sojourn time of admitted requests ----------------------------------------------

def mmck_state_probabilities(lam: float, mu: float, c: int, k: int) -> list[float]:
    """Stationary P(n in system), n = 0..K, of the M/M/c/K birth–death chain (log space)."""
    logp = [0.0]
    for n in range(1, k + 1):
        logp.append(logp[-1] + math.log(lam) - math.log(min(n, c) * mu))
    top = max(logp)
    p = [math.exp(x - top) for x in logp]
    z = sum(p)
    return [x / z for x in p]


def _log_poisson_upper(x: float, top: int) -> np.ndarray:
    """log P(Poisson(x) >= m) for m = 0..top, summed from the far end (no cancellation)."""
    i = np.arange(top + 400 + int(x + 12 * math.sqrt(x + 1)))
    logpmf = i * math.log(x) - x - np.array([math.lgamma(v + 1) for v in i]) if x > 0 else np.where(i == 0, 0.0, -np.inf)
    peak = float(np.max(logpmf))
    upper = np.cumsum(np.exp(logpmf - peak)[::-1])[::-1]
    with np.errstate(divide="ignore"):
        return (np.log(upper) + peak)[: top + 1]


def mmck_sojourn_tail(lam: float, mu: float, c: int, k: int, t: float) -> float:
    """P(T > t) for an admitted request: finding n < K in the system (PASTA, renormalised over the
    admitted), it waits for m = n - c + 1 departures at rate r = c*mu if n >= c, then is served,
    Exp(mu): P(Erlang(m, r) + Exp(mu) > t) = P(Poisson(r t) < m) + e^{-mu t} (r/(r-mu))^m P(Poisson((r-mu) t) >= m)."""
    p = mmck_state_probabilities(lam, mu, c, k)
    admitted = 1.0 - p[k]
    r = c * mu
    top = max(k - c + 1, 1)
    up_r = _log_poisson_upper(r * t, top)
    total = 0.0
    for n in range(k):
        if p[n] <= 1e-14 * admitted:
            continue
        m = max(n - c + 1, 0)
        if m == 0:
            tail = math.exp(-mu * t)
        elif c == 1:
            tail = erlang_plus_exp_tail(m, r, mu, t)
        else:
            if n == c:
                up_s = _log_poisson_upper((r - mu) * t, top)
            tail = (1.0 - math.exp(up_r[m])) + math.exp(-mu * t + m * math.log(r / (r - mu)) + up_s[m])
        total += p[n] / admitted * tail
    return total
