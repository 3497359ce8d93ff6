"""The shared-queue batching model against the request-level load test and against closed forms.

The load test (loadtest.py) simulates the batcher's rules request by request; the model
(batching.py) solves the same rules by side-by-side replications written separately. Each case
runs the load test long enough that its own 95% interval for p99 is narrower than the tolerance
(checked). The grid is a Latin square over B in {4, 16, 32}, D in {0, 5, 20} ms and c in {1, 3, 8},
so every value of each appears three times, at loads from 10% to 95% of capacity.
"""

from __future__ import annotations

import math

import pytest

from inferboard.sim.steady.analytic import solve
from inferboard.sim.batching.batching import BatchParams, batch_arrays, batch_capacity, batch_steady
from inferboard.sim.loadtest.loadtest import run_load_test
from inferboard.sim.design.network import Network, Path, Station

BASE_S, ITEM_S, CV = 0.004, 0.0005, 0.3  # a GPU-like batch time: 4 ms + 0.5 ms per item, CV 0.3

GRID = [  # (B, D seconds, c, loads as fractions of full-batch capacity)
    (4, 0.0, 1, (0.1, 0.5, 0.95)),
    (4, 0.005, 3, (0.3, 0.7, 0.93)),
    (4, 0.02, 8, (0.2, 0.85)),
    (16, 0.0, 3, (0.1, 0.6, 0.95)),
    (16, 0.005, 8, (0.4, 0.8)),
    (16, 0.02, 1, (0.15, 0.5, 0.93)),
    (32, 0.0, 8, (0.25, 0.9)),
    (32, 0.005, 1, (0.1, 0.7, 0.92)),
    (32, 0.02, 3, (0.35, 0.65)),
]
CASES = [(b, d, c, x) for b, d, c, loads in GRID for x in loads]


def station(b: int, d: float, c: int) -> Station:
    return Station("b", servers=c, service_mean_s=BASE_S + ITEM_S, service_cv=CV, batch_max=b, batch_base_s=BASE_S,
                   batch_item_s=ITEM_S, batch_timeout_s=d)


@pytest.mark.slow
@pytest.mark.parametrize("b,d,c,x", CASES, ids=[f"B{b}-D{d * 1000:g}ms-c{c}-{x:.0%}" for b, d, c, x in CASES])
def test_model_matches_load_test(b, d, c, x):
    params = BatchParams(b, d, BASE_S, ITEM_S, CV * CV)
    cap = batch_capacity(c, params)
    lam = x * cap
    tol = 0.10 if x > 0.9 else 0.05
    lt = run_load_test(Network({"b": station(b, d, c)}, (Path(("b",), 1.0),), arrival_rate=lam),
                       3_000_000 if x > 0.9 else 1_000_000, seed=11)
    ref = lt.stations["b"]
    half = (lt.p99_s.ci_high - lt.p99_s.ci_low) / 2 / lt.p99_s.value
    assert half < tol  # the reference is precise enough to judge the model
    model = batch_steady(lam, c, params)
    for p, est in ((0.5, lt.p50_s), (0.95, lt.p95_s), (0.99, lt.p99_s)):
        assert model.quantile(p) == pytest.approx(est.value, rel=tol), f"p{p * 100:g}"
    assert model.utilisation == pytest.approx(ref.utilisation, abs=0.02)
    assert model.mean_batch == pytest.approx(ref.mean_batch_size, rel=0.03)
    assert model.mean_wait == pytest.approx(ref.mean_wait_s, rel=tol, abs=2e-4)
    assert model.throughput == pytest.approx(lt.throughput_rps, rel=0.01)
    # utilisation, batch size and throughput are one solution: busy = batches/s x mean batch time / c
    per_batch = BASE_S + ITEM_S * model.mean_batch
    assert model.utilisation == pytest.approx(model.throughput / model.mean_batch * per_batch / c, rel=0.01)


def _erlang_c(c: int, a: float) -> float:
    """Erlang C from the textbook sum (independent of queueing.py)."""
    rho = a / c
    top = a ** c / math.factorial(c) / (1 - rho)
    return top / (sum(a ** k / math.factorial(k) for k in range(c)) + top)


@pytest.mark.parametrize("c,x", [(1, 0.5), (3, 0.8)])
def test_batch_of_one_with_exponential_noise_is_mmc(c, x):
    """B = 1 and exponential batch times: M/M/c with service tau(1). Sojourn tail of M/M/c (FCFS):
    P(T > t) = (1 - K) e^{-mu t} + K e^{-theta t}, K = C mu / (mu - theta), theta = c mu - lam."""
    tau = BASE_S + ITEM_S
    params = BatchParams(1, 0.0, BASE_S, ITEM_S, 1.0)
    mu = 1.0 / tau
    lam = x * c * mu
    sol = batch_steady(lam, c, params)
    C, theta = _erlang_c(c, lam / mu), c * mu - lam
    assert sol.mean_wait == pytest.approx(C / theta, rel=0.04)
    assert sol.utilisation == pytest.approx(x, abs=0.01)
    assert sol.mean_batch == 1.0
    k = C * mu / (mu - theta)

    def tail(t):
        return (1 - k) * math.exp(-mu * t) + k * math.exp(-theta * t)

    for p in (0.5, 0.95, 0.99):
        lo, hi = 0.0, 1.0
        for _ in range(100):  # the exact quantile by bisection on the tail
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if tail(mid) > 1 - p else (lo, mid)
        assert sol.quantile(p) == pytest.approx(lo, rel=0.04)


def test_batch_of_one_constant_time_mean_wait_is_pollaczek_khinchine():
    """B = 1, constant batch time, one replica: M/D/1, E[W] = rho*tau/(2(1 - rho))."""
    tau = BASE_S + ITEM_S
    for rho in (0.3, 0.7):
        sol = batch_steady(rho / tau, 1, BatchParams(1, 0.0, BASE_S, ITEM_S, 0.0))
        assert sol.mean_wait == pytest.approx(rho * tau / (2 * (1 - rho)), rel=0.04)
        assert sol.utilisation == pytest.approx(rho, abs=0.01)


def test_light_load_window_closes_at_the_delay():
    """Almost no traffic, D > 0: every batch waits for its window (D) with a free replica, so the
    oldest member waits exactly D and E[b] = 1 + E[min(N, B-1)], N ~ Poisson(lam*D)."""
    d, b, lam = 0.01, 8, 20.0
    sol = batch_steady(lam, 2, BatchParams(b, d, BASE_S, ITEM_S, 0.0))
    nu = lam * d
    pmf = [math.exp(-nu) * nu ** k / math.factorial(k) for k in range(b)]
    expected = 1 + sum(min(k, b - 1) * pk for k, pk in enumerate(pmf)) + (b - 1) * (1 - sum(pmf))
    assert sol.mean_batch == pytest.approx(expected, rel=0.01)
    assert sol.wait_tail(d * 1.0001) == pytest.approx(0.0, abs=1e-3)
    assert sol.quantile(0.999) <= d + BASE_S + ITEM_S * b + 1e-6


def test_steady_state_solver_and_timeline_arrays_use_the_same_model():
    st = station(16, 0.005, 3)
    params = BatchParams(16, 0.005, BASE_S, ITEM_S, CV * CV)
    cap = batch_capacity(3, params)
    for x in (0.3, 0.8):
        res = solve(Network({"b": st}, (Path(("b",), 1.0),), arrival_rate=x * cap))
        sol = batch_steady(x * cap, 3, params)
        arr = batch_arrays([x * cap], [3], params)
        r = res.stations["b"]
        assert r.utilisation == pytest.approx(sol.utilisation, rel=1e-9)
        assert r.mean_batch == pytest.approx(sol.mean_batch, rel=1e-9)
        assert arr["utilisation"][0] == pytest.approx(sol.utilisation, rel=1e-9)
        assert arr["p99"][0] == pytest.approx(sol.quantile(0.99), rel=0.01)
        assert res.p99_s == pytest.approx(sol.quantile(0.99), rel=0.01)  # one station: its own distribution
