"""Finite waiting rooms: the exact M/M/c/K sojourn distribution, and percentiles that never exceed
the physical maximum sojourn when service times are constant."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from inferboard.sim.steady.analytic import solve
from inferboard.sim.loadtest.loadtest import run_load_test
from inferboard.sim.design.network import Network, Path, Station

from .oracles import mmck_sojourn_tail, quantile


def one(st: Station, lam: float, ca: float = 1.0) -> Network:
    return Network({st.id: st}, (Path((st.id,), 1.0, "p"),), arrival_rate=lam, arrival_cv=ca)


@pytest.mark.parametrize("c,room,rho", [(1, 5, 0.8), (2, 10, 0.95), (4, 3, 1.2), (8, 40, 1.5), (3, 1, 0.9),
                                        (1, 60, 1.0), (4, 400, 0.98), (2, 300, 1.02), (16, 20, 0.7)])
def test_mmck_percentiles_match_the_exact_distribution(c, room, rho):
    mu = 10.0
    lam = rho * c * mu
    res = solve(one(Station("s", servers=c, service_mean_s=1 / mu, service_cv=1.0, queue_capacity=room), lam))
    for p, got in ((0.5, res.p50_s), (0.95, res.p95_s), (0.99, res.p99_s)):
        want = quantile(lambda t: mmck_sojourn_tail(lam, mu, c, c + room, t), p)
        assert got == pytest.approx(want, rel=0.005), f"p{p}"


def max_sojourn(st: Station) -> float:
    """Constant service: an admitted request waits for at most ceil(m/c) services (at most the
    time-out), then is served, then the fixed delay."""
    wait = math.ceil(st.queue_capacity / st.servers) * st.service_mean_s
    if st.timeout_s is not None:
        wait = min(wait, st.timeout_s)
    return wait + st.service_mean_s + st.fixed_delay_s


bounded = hs.builds(
    lambda c, room, s, delay, timeout: Station("s", servers=c, service_mean_s=s, service_cv=0.0, queue_capacity=room,
                                                fixed_delay_s=delay, timeout_s=timeout),
    hs.integers(1, 16), hs.integers(0, 300), hs.floats(1e-4, 2.0), hs.sampled_from([0.0, 0.002, 0.05]),
    hs.one_of(hs.none(), hs.floats(1e-3, 5.0)))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st=bounded, rho=hs.floats(0.01, 4.0), ca=hs.sampled_from([0.0, 0.5, 1.0, 1.5, 3.0]))
def test_bounded_percentiles_never_exceed_the_maximum_sojourn(st, rho, ca):
    lam = rho * st.servers / st.service_mean_s
    res = solve(one(st, lam, ca))
    top = max_sojourn(st)
    for got in (res.p50_s, res.p95_s, res.p99_s, res.p999_s):
        assert got <= top * (1 + 1e-12)
    assert res.stations["s"].mean_sojourn_s <= top * (1 + 1e-9)
    for got in res.station_quantiles("s", (0.5, 0.99, 0.999)):
        assert got <= top * (1 + 1e-12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=bounded, b=bounded, rho=hs.floats(0.05, 3.0))
def test_tandem_of_bounded_rooms_stays_below_the_sum_of_maxima(a, b, rho):
    b = Station("t", servers=b.servers, service_mean_s=b.service_mean_s, service_cv=0.0,
                queue_capacity=b.queue_capacity, fixed_delay_s=b.fixed_delay_s, timeout_s=b.timeout_s)
    net = Network({"s": a, "t": b}, (Path(("s", "t"), 1.0, "p"),), arrival_rate=rho * a.servers / a.service_mean_s)
    res = solve(net)
    top = max_sojourn(a) + max_sojourn(b)
    assert max(res.p50_s, res.p95_s, res.p99_s, res.p999_s) <= top * (1 + 1e-12)


def test_md4k_overload_p99_is_below_the_hard_maximum():
    """M/D/4/K at rho 1.25 (8 places, 100 ms): the maximum sojourn is 300 ms; p99 was 398 ms with
    an unbounded gamma wait."""
    st = Station("s", servers=4, service_mean_s=0.1, service_cv=0.0, queue_capacity=8)
    res = solve(one(st, 1.25 * 40))
    assert res.p99_s <= 0.3
    assert res.p99_s > 0.28  # the room is nearly always full: waits close to the maximum


@pytest.mark.slow
@pytest.mark.parametrize("c,room,rho,ca,cv", [(4, 8, 1.25, 1.0, 0.0), (4, 8, 0.9, 1.0, 0.0), (2, 20, 0.95, 1.0, 0.5),
                                              (8, 40, 1.1, 1.0, 0.3), (4, 30, 0.9, 0.5, 1.0)])
def test_general_bounded_rooms_against_the_load_test(c, room, rho, ca, cv):
    st = Station("s", servers=c, service_mean_s=0.1, service_cv=cv, queue_capacity=room)
    net = one(st, rho * c / 0.1, ca)
    res = solve(net)
    sim = run_load_test(net, 400_000, seed=3)
    for key in ("p95_s", "p99_s"):
        est = getattr(sim, key)
        tol = 0.04 + (est.ci_high - est.ci_low) / 2 / est.value
        assert getattr(res, key) == pytest.approx(est.value, rel=tol), key
    assert res.mean_s == pytest.approx(sim.mean_s.value, rel=0.08)
    assert res.shed_rate == pytest.approx(sim.shed / sim.offered, abs=0.005)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(c=hs.integers(1, 16), room=hs.integers(1, 2000), log_ratio=hs.floats(-3.0, 3.0), ca2=hs.floats(0.0, 4.0))
def test_room_wait_has_no_mass_beyond_the_physical_maximum(c, room, log_ratio, ca2):
    """The distribution itself (not a clamp on its percentiles) stops at ceil(m/c) service times."""
    from inferboard.sim.queues.latency_dist import choose_grid
    from inferboard.sim.queues.waiting_room import room_wait_moments, room_wait_pmf

    s = 0.01
    top = math.ceil(room / c) * s
    _, _, far = room_wait_moments(math.exp(log_ratio), room, c, s, 0.0)
    assert far <= top + 1e-12
    grid = choose_grid(top * 1.3, 1)
    pmf = room_wait_pmf(grid, math.exp(log_ratio), room, c, s, 0.0)
    beyond = pmf[int(math.floor(top / grid.dt + 0.5)) + 1:].sum()
    assert beyond < 1e-12
    assert abs(pmf.sum() - 1.0) < 1e-9
