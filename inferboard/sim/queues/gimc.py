"""GI/M/c: the probability of waiting and the wait for renewal (non-Poisson) arrivals.

The interarrival times are gamma with the stream's squared CV, as the load test draws them
(``loadtest._draw``); downstream of another station the squared CV is the QNA estimate
(``analytic``), so there the renewal assumption is itself an approximation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, localcontext
from functools import lru_cache

from inferboard.sim.queues.queueing import erlang_c

__all__ = ["GIMC", "GIMC_EXACT_MAX", "gimc", "interarrival_lst"]


#: Above this many servers GI/M/c P(wait) is Erlang C corrected by the Halfin–Whitt ratio (see ``gimc``).
GIMC_EXACT_MAX = 128


def interarrival_lst(s: float, lam: float, ca2: float) -> float:
    """Laplace–Stieltjes transform ``E[exp(-s*A)]`` of the interarrival time the load test draws:
    gamma with mean 1/lam and SCV ca2, ``(1 + s*ca2/lam)^(-1/ca2)``; constant at ca2 = 0."""
    if ca2 <= 1e-12:
        return math.exp(-s / lam)
    return math.exp(-math.log1p(s * ca2 / lam) / ca2)


@dataclass(frozen=True)
class GIMC:
    """GI/M/c (gamma interarrival times, exponential service) — see ``gimc``."""

    sigma: float  #: root of sigma = A*(c*mu*(1 - sigma)) in (0, 1)
    p_wait: float  #: P(an arrival waits)
    rate: float  #: the wait of those who wait is exponential with this rate, c*mu*(1 - sigma)
    exact: bool  #: False above ``GIMC_EXACT_MAX`` servers (Halfin–Whitt-corrected Erlang C)


def gimc(lam: float, mu: float, c: int, ca2: float) -> GIMC:
    """GI/M/c FCFS with gamma interarrival times (SCV ``ca2``), requires lam < c*mu.

    [S, L. Kleinrock, *Queueing Systems* Vol. 1 (1975) §6.4 (G/M/m); Gross & Harris §6.3]: arrivals
    see n >= c - 1 in the system with probability ``J*sigma^(n-c+1)``, so ``P(wait) = J/(1 - sigma)``
    and the wait of those who wait is Exp(c*mu*(1 - sigma)), with
    ``1/J = 1/(1-sigma) + sum_{k=1..c} C(c,k)/(C_k (1-g_k)) * (c(1-g_k) - k)/(c(1-sigma) - k)``,
    ``g_k = A*(k*mu)``, ``C_k = prod_{i<=k} g_i/(1-g_i)``. The sum alternates and cancels badly, so
    it is evaluated in decimal arithmetic with as many digits as its largest term needs. Beyond
    ``GIMC_EXACT_MAX`` servers: Erlang C times the ratio of the Halfin–Whitt limits
    ``h(beta/sqrt(z))/h(beta)``, ``h(x) = 1/(1 + x*Phi(x)/phi(x))``, ``beta = (1-rho)sqrt(c)``,
    ``z = (1 + ca2)/2`` (Halfin and Whitt, Operations Research 29(3), 1981)."""
    cmu = c * mu
    if lam <= 0.0:
        return GIMC(0.0, 0.0, cmu, True)
    sigma = _sigma(lam, cmu, ca2)
    rate = cmu * (1.0 - sigma)
    if c == 1:
        return GIMC(sigma, sigma, rate, True)
    if c > GIMC_EXACT_MAX:
        a = lam / mu
        beta = (1.0 - a / c) * math.sqrt(c)
        log_ratio = _log_halfin_whitt(beta / math.sqrt(0.5 * (1.0 + ca2))) - _log_halfin_whitt(beta)
        base = erlang_c(c, a)
        pw = math.exp(min(0.0, math.log(base) + log_ratio)) if base > 0.0 else 0.0
        return GIMC(sigma, pw, rate, False)
    pw = None
    for step in (0.0, 1e-6, 1e-5, 1e-4):
        if step == 0.0:
            if _near_pole(c, sigma):
                continue
            pw = _gimc_p_wait(lam, mu, c, ca2, sigma)
            break
        # sigma = 1 - k/c makes term k 0/0; P(wait) is smooth in lam: average the neighbours
        near = [(lam * f, _sigma(lam * f, cmu, ca2)) for f in (1.0 - step, 1.0 + step)]
        if not any(_near_pole(c, sg) for _, sg in near):
            pw = 0.5 * sum(_gimc_p_wait(x, mu, c, ca2, sg) for x, sg in near)
            break
    if pw is None:  # (not met in practice) fall back on Erlang C
        pw = erlang_c(c, lam / mu)
    return GIMC(sigma, min(max(pw, 0.0), 1.0), rate, True)


def _sigma(lam: float, cmu: float, ca2: float) -> float:
    """The root in (0, 1) of ``s = A*(c*mu*(1 - s))`` by bisection: ``A*(c mu (1 - s)) - s`` is > 0
    at s = 0 and < 0 just below 1 when rho < 1."""
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if interarrival_lst(cmu * (1.0 - mid), lam, ca2) > mid:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-16:
            break
    return 0.5 * (lo + hi)


def _near_pole(c: int, sigma: float) -> bool:
    k = round(c * (1.0 - sigma))
    return 1 <= k <= c and abs(c * (1.0 - sigma) - k) < 1e-7


def _log_halfin_whitt(x: float) -> float:
    """``log h(x)``, ``h(x) = 1/(1 + x Phi(x)/phi(x))``, the many-server limit of P(wait), for
    ``x >= 0``. In logs because at light load (large x) ``phi(x)`` underflows long before the ratio
    of two ``h`` values stops being meaningful."""
    if x <= 0.0:
        return 0.0
    log_phi = -0.5 * x * x - 0.5 * math.log(2.0 * math.pi)
    log_r = math.log(x) + math.log(0.5 * math.erfc(-x / math.sqrt(2.0))) - log_phi  # log(x Phi/phi)
    return -(log_r + math.log1p(math.exp(-log_r))) if log_r > 0.0 else -math.log1p(math.exp(log_r))


@lru_cache(maxsize=1024)
def _gimc_p_wait(lam: float, mu: float, c: int, ca2: float, sigma: float) -> float:
    """Kleinrock's P(wait) for GI/M/c in decimal arithmetic (see ``gimc``)."""
    log_ck, top = 0.0, 0.0
    for k in range(1, c + 1):  # size of the largest term, for the number of digits
        g = interarrival_lst(k * mu, lam, ca2)
        log_ck += math.log(max(g, 1e-300)) - math.log(max(1.0 - g, 1e-300))
        top = max(top, math.lgamma(c + 1) - math.lgamma(k + 1) - math.lgamma(c - k + 1) - log_ck)
    with localcontext() as ctx:
        ctx.prec = int(top / math.log(10)) + 30
        one, s_, big_l, a2 = Decimal(1), Decimal(sigma), Decimal(lam), Decimal(ca2)
        total, ck, binom = one / (one - s_), one, one
        for k in range(1, c + 1):
            x = Decimal(k) * Decimal(mu)
            g = (-(x / big_l)).exp() if ca2 <= 1e-12 else (-((one + x * a2 / big_l).ln() / a2)).exp()
            ck *= g / (one - g)
            binom = binom * (c - k + 1) / k
            total += binom / (ck * (one - g)) * (c * (one - g) - k) / (c * (one - s_) - k)
        return float(one / total / (one - s_))
