"""Queueing results written from first principles for the tests (textbook forms, not the
recursions or shortcuts in ``inferboard.sim.queueing``), shared by the test modules.

* M/M/c: Erlang C from its defining sums; the sojourn time is a mixture of exponentials.
* Tandems of M/M/c stations (Jackson): the sojourn times are independent, so the end-to-end tail
  is the tail of a sum of mixtures of exponentials, in closed form.
"""

from __future__ import annotations

import math


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
    for _ in range(200):
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
