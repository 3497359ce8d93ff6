"""The steady-state solver against queueing theory written independently here.

The reference formulas below use textbook forms (factorial sums in log space, the hypoexponential
tail, direct M/M/c/K state probabilities), not the recursions in ``inferboard.sim.queues.queueing``. The
only constants asserted are worked examples quoted in the simulator references.
"""

from __future__ import annotations

import math

import pytest

from inferboard.sim.queues import queueing as q
from inferboard.sim.steady.analytic import solve
from inferboard.sim.batching.batching import BatchParams, batch_capacity
from inferboard.sim.explain.explain import Figure
from inferboard.sim.design.network import Network, Path, Station

from .oracles import erlang_c, mmck_state_probabilities, quantile

RHOS = (0.3, 0.5, 0.7, 0.85, 0.95)
SERVERS = (1, 2, 4, 8, 16, 32, 64)


# ---- independent references ---------------------------------------------------------------
# Erlang C from its defining sums and quantiles by bisection live in the shared test oracles.
ref_erlang_c, ref_quantile = erlang_c, quantile


def ref_mmc_wait(lam: float, mu: float, c: int) -> float:
    return ref_erlang_c(c, lam / mu) / (c * mu - lam)


def ref_sojourn_tail(t: float, lam: float, mu: float, c: int) -> float:
    """T = W + S with W = 0 w.p. 1 - C, else Exp(theta); S ~ Exp(mu); the sum of two independent
    exponentials is hypoexponential: P(X+Y > t) = (mu e^{-theta t} - theta e^{-mu t})/(mu - theta)."""
    cw = ref_erlang_c(c, lam / mu)
    theta = c * mu - lam
    if abs(mu - theta) < 1e-9 * mu:
        hypo = (1 + mu * t) * math.exp(-mu * t)
    else:
        hypo = (mu * math.exp(-theta * t) - theta * math.exp(-mu * t)) / (mu - theta)
    return (1 - cw) * math.exp(-mu * t) + cw * hypo


def ref_mmck(lam: float, mu: float, c: int, k: int) -> tuple[float, float]:
    """(blocking, mean wait of admitted) from the birth-death state probabilities, in log space."""
    p = mmck_state_probabilities(lam, mu, c, k)
    nq = sum((n - c) * p[n] for n in range(c, k + 1))
    admitted = lam * (1 - p[k])
    return p[k], nq / admitted


def ref_pk_wait(lam: float, mean_s: float, scv: float) -> float:
    """Pollaczek–Khinchine: lam*E[S^2] / (2(1 - rho))."""
    es2 = (1 + scv) * mean_s ** 2
    return lam * es2 / (2 * (1 - lam * mean_s))


def one_station(station: Station, lam: float, arrival_cv: float = 1.0) -> Network:
    return Network({station.id: station}, (Path((station.id,), 1.0, "only"),), arrival_rate=lam,
                   arrival_cv=arrival_cv)


# ---- worked examples from the references ----------------------------------------------------

def test_reference_worked_example_mmc():
    assert q.erlang_c(3, 2.4) == pytest.approx(0.6472, abs=1e-4)
    res = solve(one_station(Station("s", servers=3, service_mean_s=1.0, service_cv=1.0), 2.4))
    assert res.p50_s == pytest.approx(1.579, abs=2e-3)
    assert res.p95_s == pytest.approx(5.729, abs=2e-3)
    assert res.p99_s == pytest.approx(8.455, abs=2e-3)
    assert res.mean_s == pytest.approx(2.079, abs=1e-3)


def test_reference_worked_examples_mm1_and_gross():
    assert q.mmc_mean_wait(3.0, 5.0, 1) == pytest.approx(0.3, rel=1e-12)  # Ciw docs, lam=3, mu=5
    res = solve(one_station(Station("s", servers=3, service_mean_s=1 / 3, service_cv=1.0), 6.0))
    assert res.mean_s == pytest.approx(0.4815, abs=1e-4)  # Gross p.72: lam=6, mu=3, c=3


# ---- M/M/1 and M/M/c grid ---------------------------------------------------------------------

@pytest.mark.parametrize("c", SERVERS)
@pytest.mark.parametrize("rho", RHOS)
def test_mmc_against_theory(rho, c):
    mu = 1.0 / 0.05
    lam = rho * c * mu
    res = solve(one_station(Station("s", servers=c, service_mean_s=1 / mu, service_cv=1.0), lam))
    st = res.stations["s"]
    want_wait = ref_mmc_wait(lam, mu, c)
    assert st.mean_wait_s == pytest.approx(want_wait, rel=0.01, abs=1e-12)
    assert q.mmc_mean_wait(lam, mu, c) == pytest.approx(want_wait, rel=1e-9, abs=1e-15)
    assert q.erlang_c(c, lam / mu) == pytest.approx(ref_erlang_c(c, lam / mu), rel=1e-9, abs=1e-15)
    assert res.mean_s == pytest.approx(want_wait + 1 / mu, rel=0.01)
    for p, got in ((0.5, res.p50_s), (0.95, res.p95_s), (0.99, res.p99_s)):
        want = ref_quantile(lambda t: ref_sojourn_tail(t, lam, mu, c), p)
        assert got == pytest.approx(want, rel=0.01), f"p{p}"
        assert q.mmc_sojourn_percentile(p, lam, mu, c) == pytest.approx(want, rel=1e-6)


def test_mm1_closed_form_percentiles():
    lam, mu = 7.0, 10.0
    for p in (0.5, 0.95, 0.99):
        assert q.mmc_sojourn_percentile(p, lam, mu, 1) == pytest.approx(-math.log(1 - p) / (mu - lam), rel=1e-9)


def test_sojourn_tail_continuous_through_mu_equals_theta():
    # c=2, mu=1, lam=1 gives theta = 1 = mu: the special case must match its neighbours
    at = q.mmc_sojourn_tail(1.7, 1.0, 1.0, 2)
    near = q.mmc_sojourn_tail(1.7, 1.0 + 1e-7, 1.0, 2)
    assert at == pytest.approx(near, rel=1e-5)
    assert at == pytest.approx(ref_sojourn_tail(1.7, 1.0, 1.0, 2), rel=1e-9)


# ---- M/D/1, M/G/1 (P-K exact for c = 1) ---------------------------------------------------------

@pytest.mark.parametrize("cv", (0.0, 0.5, 1.5))
@pytest.mark.parametrize("rho", (0.3, 0.7, 0.9))
def test_mg1_mean_wait_is_pollaczek_khinchine(rho, cv):
    mean_s = 0.02
    lam = rho / mean_s
    want = ref_pk_wait(lam, mean_s, cv * cv)
    res = solve(one_station(Station("s", servers=1, service_mean_s=mean_s, service_cv=cv), lam))
    assert res.stations["s"].mean_wait_s == pytest.approx(want, rel=1e-9)
    assert res.mean_s == pytest.approx(want + mean_s, rel=1e-9)
    assert q.pk_mean_wait(lam, mean_s, cv * cv) == pytest.approx(want, rel=1e-12)
    if cv == 0.0:  # M/D/1 waits exactly half of M/M/1
        assert want == pytest.approx(ref_mmc_wait(lam, 1 / mean_s, 1) / 2, rel=1e-12)


def test_mg1_distribution_mean_matches_pk():
    """The composed distribution (not only the closed-form mean) carries the P-K mean: the median
    of M/D/1 lies above the service time and below the mean + service spread."""
    mean_s, lam = 0.02, 35.0
    res = solve(one_station(Station("s", servers=1, service_mean_s=mean_s, service_cv=0.0), lam))
    assert mean_s < res.p50_s < res.mean_s < res.p99_s


# ---- bounded queues, time-outs, batching --------------------------------------------------------

@pytest.mark.parametrize("c,room,rho", [(1, 5, 0.8), (2, 10, 0.95), (4, 3, 1.2), (8, 40, 1.5), (1, 1000, 1.5),
                                        (3, 0, 0.9)])
def test_bounded_queue_shed_is_mmck_blocking(c, room, rho):
    mu = 10.0
    lam = rho * c * mu
    block, wait = ref_mmck(lam, mu, c, c + room)
    assert q.mmck_blocking(lam, mu, c, room) == pytest.approx(block, rel=1e-9, abs=1e-15)
    res = solve(one_station(Station("s", servers=c, service_mean_s=1 / mu, service_cv=1.0, queue_capacity=room), lam))
    st = res.stations["s"]
    assert st.shed_rps / lam == pytest.approx(block, rel=1e-6, abs=1e-12)
    assert st.mean_wait_s == pytest.approx(wait, rel=1e-6, abs=1e-12)
    assert res.shed_rate == pytest.approx(block, rel=1e-6, abs=1e-12)


def test_mm1_with_deterministic_patience_matches_closed_form():
    """M/M/1+D: P(time out) = rho(1-rho)e^{-theta T} / (1 - rho^2 e^{-theta T})."""
    lam, mu, t = 8.0, 10.0, 0.15
    rho, theta = lam / mu, mu - lam
    e = math.exp(-theta * t)
    want = rho * (1 - rho) * e / (1 - rho * rho * e)
    assert q.mmc_patience(lam, mu, 1, t).p_abandon == pytest.approx(want, rel=1e-12)
    res = solve(one_station(Station("s", servers=1, service_mean_s=1 / mu, service_cv=1.0, timeout_s=t), lam))
    assert res.timeout_rate == pytest.approx(want, rel=1e-9)
    assert res.p99_s <= t + q.mmc_sojourn_percentile(0.999, 0.0, mu, 1) + 1e-9


def test_batch_capacity():
    st = Station("g", servers=3, batch_max=16, batch_base_s=0.006, batch_item_s=0.0015, batch_timeout_s=0.004)
    want = 3 * 16 / (0.006 + 0.0015 * 16)
    assert st.capacity_rps == pytest.approx(want)
    assert batch_capacity(3, BatchParams(16, 0.004, 0.006, 0.0015)) == pytest.approx(want)
    res = solve(one_station(st, 0.5 * want))
    assert res.stations["g"].capacity_rps == pytest.approx(want)
    assert res.stations["g"].saturated is False
    assert solve(one_station(st, 1.2 * want)).stations["g"].saturated is True


# ---- explanations -------------------------------------------------------------------------------

def test_figure_text_and_sanitising():
    fig = Figure(120.0, "ms", "E[Wq] = C/(cμ − λ)", {"λ [rps]": 3.28, "μ [/s]": 1.0, "ρ": 0.82,
                                                   "Erlang C P(wait)": 0.41},
                 "Assumes Poisson arrivals, exponential service, FCFS.", model="M/M/4")
    assert fig.text() == ("M/M/4: λ=3.28 rps, μ=1.00/s, ρ=0.82, Erlang C P(wait)=0.41 → "
                          "E[Wq] = C/(cμ − λ) = 120 ms. Assumes Poisson arrivals, exponential service, FCFS.")
    bad = Figure(math.inf, "ms", "x", {"a": math.nan}, "")
    assert math.isfinite(bad.value) and all(math.isfinite(v) for v in bad.inputs.values())
    assert "Not finite" in bad.text()


def test_station_figures_explain_erlang_c():
    res = solve(one_station(Station("s", servers=4, service_mean_s=1.0, service_cv=1.0), 3.28))
    text = res.stations["s"].figures["mean_wait_ms"].text()
    assert text.startswith("M/M/4: λ=3.28 rps, μ=1.00/s, ρ=0.82, Erlang C P(wait)=")
    assert "Poisson" in text
    assert set(res.figures) >= {"p50_ms", "p95_ms", "p99_ms", "mean_ms", "throughput_rps"}
