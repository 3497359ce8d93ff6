"""Non-Poisson (renewal) arrivals: P(wait) and sojourn percentiles of GI/M/c against the embedded
Markov chain solved independently in ``oracles``, and against the load test."""

from __future__ import annotations

import math

import pytest

from inferboard.sim.steady.analytic import solve
from inferboard.sim.queues.gimc import gimc, interarrival_lst
from inferboard.sim.loadtest.loadtest import run_load_test
from inferboard.sim.design.network import Network, Path, Station

from .oracles import erlang_c, gimc_arrival_distribution, gimc_sojourn_tail, quantile

CASES = [(1, 0.8, 0.25), (1, 0.5, 0.0), (4, 0.8, 0.25), (4, 0.9, 0.0), (2, 0.7, 1.0), (8, 0.85, 2.0),
         (16, 0.9, 0.5), (3, 0.5, 0.25)]


def one(c: int, lam: float, ca: float, cv: float = 1.0) -> Network:
    return Network({"s": Station("s", servers=c, service_mean_s=1.0, service_cv=cv)}, (Path(("s",), 1.0, "p"),),
                   arrival_rate=lam, arrival_cv=ca)


@pytest.mark.parametrize("c,rho,ca2", CASES)
def test_p_wait_and_wait_rate_match_the_embedded_chain(c, rho, ca2):
    lam = rho * c
    pi = gimc_arrival_distribution(lam, 1.0, c, ca2)
    got = gimc(lam, 1.0, c, ca2)
    assert got.p_wait == pytest.approx(float(pi[c:].sum()), rel=1e-6)
    # arrivals that wait see a geometric queue: pi[n+1]/pi[n] = sigma for n >= c
    assert got.sigma == pytest.approx(pi[c + 1] / pi[c], rel=1e-5)
    assert got.rate == pytest.approx(c * (1 - got.sigma), rel=1e-9)
    if ca2 == 1.0:
        assert got.p_wait == pytest.approx(erlang_c(c, lam), rel=1e-9)


def test_gim1_smooth_arrivals_is_not_erlang_c():
    """GI/M/1, arrival CV 0.5, rho 0.8: P(wait) = sigma, about 0.69 (Erlang C would say 0.8)."""
    lam, ca2 = 0.8, 0.25
    got = gimc(lam, 1.0, 1, ca2)
    assert got.sigma == pytest.approx(interarrival_lst(1.0 - got.sigma, lam, ca2), abs=1e-12)
    assert 0.68 < got.p_wait < 0.70
    assert solve(one(1, lam, 0.5)).stations["s"].p_wait == pytest.approx(got.p_wait, rel=1e-9)


@pytest.mark.parametrize("c,rho,ca2", [(1, 0.8, 0.25), (4, 0.8, 0.25), (4, 0.9, 0.0), (8, 0.85, 2.0)])
def test_sojourn_percentiles_match_the_embedded_chain(c, rho, ca2):
    lam = rho * c
    pi = gimc_arrival_distribution(lam, 1.0, c, ca2)
    res = solve(one(c, lam, math.sqrt(ca2)))
    st = res.stations["s"]
    assert st.p_wait == pytest.approx(float(pi[c:].sum()), rel=1e-6)
    for p, got in ((0.5, res.p50_s), (0.95, res.p95_s), (0.99, res.p99_s)):
        want = quantile(lambda t: gimc_sojourn_tail(pi, 1.0, c, t), p)
        assert got == pytest.approx(want, rel=0.005), f"p{p}"
    mean_wait = sum(p * (n - c + 1) / c for n, p in enumerate(pi) if n >= c)
    assert st.mean_wait_s == pytest.approx(mean_wait, rel=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("c,rho,ca", [(1, 0.8, 0.5), (4, 0.85, 0.5)])
def test_smooth_arrivals_against_the_load_test(c, rho, ca):
    lam = rho * c
    net = one(c, lam, ca)
    res = solve(net)
    sim = run_load_test(net, 1_000_000, seed=11)
    for key in ("p50_s", "p95_s", "p99_s", "mean_s"):
        est = getattr(sim, key)
        tol = max(0.03, 1.2 * (est.ci_high - est.ci_low) / 2 / est.value)
        assert getattr(res, key) == pytest.approx(est.value, rel=tol), key
    assert res.stations["s"].mean_wait_s == pytest.approx(sim.stations["s"].mean_wait_s, rel=0.05)


def test_many_servers_use_the_halfin_whitt_correction():
    c, rho, ca2 = 200, 0.95, 0.25
    got = gimc(rho * c, 1.0, c, ca2)
    assert not got.exact
    pi = gimc_arrival_distribution(rho * c, 1.0, c, ca2, n_max=c + 300)
    assert got.p_wait == pytest.approx(float(pi[c:].sum()), rel=0.05)  # measured: +2.4%


def test_general_service_keeps_the_allen_cunneen_mean_and_says_so():
    c, lam, ca, cv = 2, 1.6, 0.5, 0.5
    st = solve(one(c, lam, ca, cv)).stations["s"]
    g = (ca * ca + cv * cv) / 2
    assert st.mean_wait_s == pytest.approx(erlang_c(c, lam) / (c - lam) * g, rel=1e-9)
    assert st.p_wait == pytest.approx(gimc(lam, 1.0, c, ca * ca).p_wait, rel=1e-9)
    text = st.figures["mean_wait_ms"].text()
    assert "Allen–Cunneen" in text and "ρ ≈ 0.5" in text
    assert "Exact GI/M/c" in solve(one(c, lam, ca)).stations["s"].figures["mean_wait_ms"].text()


def test_constant_arrivals_and_service_never_wait():
    res = solve(one(1, 0.9, 0.0, 0.0))
    assert res.stations["s"].p_wait == 0.0
    assert res.p99_s == pytest.approx(1.0, rel=0.01)


@pytest.mark.parametrize("c,rho,ca2", [(1426, 1e-3, 0.5), (1426, 0.05, 2.0), (5000, 0.3, 0.01), (300, 0.999, 4.0)])
def test_many_servers_at_any_load_give_a_probability(c, rho, ca2):
    """Light load on thousands of servers once divided by an underflowed density."""
    got = gimc(rho * c, 1.0, c, ca2)
    assert 0.0 <= got.p_wait <= 1.0
    # Poisson arrivals make the correction exactly 1: Erlang C itself
    assert gimc(rho * c, 1.0, c, 1.0).p_wait == pytest.approx(erlang_c(c, rho * c), rel=1e-9, abs=1e-300)


def test_many_servers_at_light_load_rarely_wait():
    # Erlang C is below 1e-100 here; smooth or bursty arrivals cannot make waiting likely.
    for ca2 in (0.25, 1.0, 4.0):
        assert gimc(0.3 * 2000, 1.0, 2000, ca2).p_wait < 1e-20
