"""The load test against queueing theory computed here, independently of the simulator.

Sizes and tolerances: heavy-traffic estimates converge slowly (the relaxation time grows like
1/(1-rho)^2), so each case uses enough requests that its tolerance is about three standard
deviations of the seed-to-seed spread measured over several seeds. Where 3% is not reachable in
a test-sized run (p95/p99 of M/M/4 at rho = 0.9) the tolerance says so explicitly.
"""

from __future__ import annotations

import heapq
import json
import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from inferboard.sim.loadtest.loadtest import ERROR, SERVED, SHED, TIMED_OUT, run_load_test
from inferboard.sim.design.network import Network, Path, Station

from .oracles import erlang_c


# ----------------------------------------------------------------------------- theory (oracles)
def mmc_mean_sojourn(lam: float, mu: float, c: int) -> float:
    return 1.0 / mu + erlang_c(c, lam / mu) / (c * mu - lam)


def mmc_sojourn_quantile(lam: float, mu: float, c: int, p: float) -> float:
    """Solve P(T > t) = 1 - p for FCFS M/M/c (T = Wq + S), by bisection."""
    cw = erlang_c(c, lam / mu)
    theta = c * mu - lam

    def tail(t: float) -> float:
        if abs(mu - theta) < 1e-12:
            return math.exp(-mu * t) * (1.0 + cw * mu * t)
        k = cw * mu / (mu - theta)
        return (1.0 - k) * math.exp(-mu * t) + k * math.exp(-theta * t)

    lo, hi = 0.0, 1.0 / mu
    while tail(hi) > 1.0 - p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if tail(mid) > 1.0 - p else (lo, mid)
    return 0.5 * (lo + hi)


def pollaczek_khinchine_wait(lam: float, mean: float, cv: float) -> float:
    rho = lam * mean
    return lam * mean * mean * (1.0 + cv * cv) / (2.0 * (1.0 - rho))


def allen_cunneen_wait(lam: float, mean: float, c: int, cs: float, ca: float = 1.0) -> float:
    return erlang_c(c, lam * mean) / (c / mean - lam) * (ca * ca + cs * cs) / 2.0


def mmck_blocking(lam: float, mu: float, c: int, waiting_room: int) -> float:
    a = lam / mu
    terms = [1.0]
    for n in range(1, c + waiting_room + 1):
        terms.append(terms[-1] * a / min(n, c))
    return terms[-1] / sum(terms)


def mm1_deterministic_patience_loss(lam: float, mu: float, tau: float) -> float:
    """M/M/1+D: P(virtual wait > tau), from the level-crossing density of the virtual wait."""
    d = mu - lam
    body = tau * lam if abs(d) < 1e-12 else lam * (1.0 - math.exp(-d * tau)) / d
    p0 = 1.0 / (1.0 + body + (lam / mu) * math.exp(-d * tau))
    return (lam / mu) * p0 * math.exp(-d * tau)


# ----------------------------------------------------------------------------- builders
def single(c: int, lam: float, mean: float = 1.0, cv: float = 1.0, arrival_cv: float = 1.0,
           **kw) -> Network:
    station = Station("s", servers=c, service_mean_s=mean, service_cv=cv, **kw)
    return Network({"s": station}, (Path(("s",), 1.0),), lam, arrival_cv=arrival_cv)


def tandem(lam: float, specs: list[tuple[int, float]], **kw) -> Network:
    """Stations s0, s1, ... with (servers, utilisation) each."""
    st = {f"s{i}": Station(f"s{i}", servers=c, service_mean_s=c * r / lam, **kw)
          for i, (c, r) in enumerate(specs)}
    return Network(st, (Path(tuple(st), 1.0),), lam)


def batcher(lam: float, servers: int = 1, arrival_cv: float = 1.0, **kw) -> Network:
    st = Station("b", servers=servers, **kw)
    return Network({"b": st}, (Path(("b",), 1.0),), lam, arrival_cv=arrival_cv)


def rel(x: float, y: float) -> float:
    return abs(x / y - 1.0)


def assert_conserved(r) -> None:
    assert r.offered == r.served + r.shed + r.timed_out + r.errors + r.in_flight
    for s in r.stations.values():
        assert s.arrivals >= s.served + s.shed + s.timed_out + s.errors


# ----------------------------------------------------------------------------- M/M/c
@pytest.mark.parametrize("c, rho, n, tol_mean, tol_p95, tol_p99", [
    (1, 0.8, 6_000_000, 0.03, 0.03, 0.03),
    (4, 0.9, 4_000_000, 0.03, 0.05, 0.10),  # tails: seed-to-seed sd ~1.4% / ~2.9% at 4M
    (16, 0.7, 500_000, 0.03, 0.03, 0.03),
    (64, 0.95, 2_000_000, 0.03, 0.03, 0.03),
])
def test_mmc_sojourn_mean_and_tail(c, rho, n, tol_mean, tol_p95, tol_p99):
    lam = c * rho
    r = run_load_test(single(c, lam), n, seed=11)
    assert r.served == r.offered == n
    assert rel(r.mean_s.value, mmc_mean_sojourn(lam, 1.0, c)) < tol_mean
    assert rel(r.p95_s.value, mmc_sojourn_quantile(lam, 1.0, c, 0.95)) < tol_p95
    assert rel(r.p99_s.value, mmc_sojourn_quantile(lam, 1.0, c, 0.99)) < tol_p99
    assert rel(r.stations["s"].utilisation, rho) < 0.01
    assert r.mean_s.ci_low < r.mean_s.value < r.mean_s.ci_high


def test_lindley_fast_path_matches_event_loop():
    """Same draws through the vectorised single-server path and the general loop."""
    fast = run_load_test(single(1, 0.9), 200_000, seed=3, keep_trace=True)
    loop = run_load_test(single(1, 0.9, queue_capacity=10**9), 200_000, seed=3, keep_trace=True)
    np.testing.assert_allclose(fast.trace.finish_s, loop.trace.finish_s, rtol=0, atol=1e-6)


def test_littles_law_from_time_averaged_counts():
    lam, c = 3.2, 4
    r = run_load_test(single(c, lam), 500_000, seed=5, keep_trace=True)
    arr, fin = r.trace.arrival_s, r.trace.finish_s
    t1, t2 = arr[len(arr) // 10], arr[-1]
    # Number in system N(t) as a step function: +1 at each arrival, -1 at each departure.
    times = np.concatenate([arr, fin])
    steps = np.concatenate([np.ones(len(arr)), -np.ones(len(fin))])
    order = np.argsort(times, kind="stable")
    times, level = times[order], np.cumsum(steps[order])
    seg = np.diff(np.clip(times, t1, t2))
    mean_n = float((level[:-1] * seg).sum() / (t2 - t1))
    in_window = (arr >= t1) & (arr < t2)
    mean_t = float((fin[in_window] - arr[in_window]).mean())
    assert rel(mean_n, lam * mean_t) < 0.02
    assert rel(mean_n, lam * mmc_mean_sojourn(lam, 1.0, c)) < 0.03


# ----------------------------------------------------------------------------- M/G/1, M/G/c
@pytest.mark.parametrize("rho, cv", [(0.8, 0.0), (0.7, 0.5), (0.7, 2.0)])
def test_mg1_wait_matches_pollaczek_khinchine(rho, cv):
    r = run_load_test(single(1, rho, cv=cv), 3_000_000, seed=7)
    assert rel(r.stations["s"].mean_wait_s, pollaczek_khinchine_wait(rho, 1.0, cv)) < 0.03


@pytest.mark.parametrize("c, rho, cs", [(4, 0.8, 0.5), (4, 0.9, 0.0), (8, 0.85, 1.5)])
def test_mgc_wait_matches_allen_cunneen(c, rho, cs):
    lam = c * rho
    r = run_load_test(single(c, lam, cv=cs), 1_000_000, seed=9)
    assert rel(r.stations["s"].mean_wait_s, allen_cunneen_wait(lam, 1.0, c, cs)) < 0.10


def test_tandem_matches_jackson():
    lam, specs = 0.8, [(1, 0.7), (4, 0.8), (2, 0.6)]
    r = run_load_test(tandem(lam, specs), 1_000_000, seed=13)
    jackson = sum(mmc_mean_sojourn(lam, lam / (c * u), c) for c, u in specs)
    assert rel(r.mean_s.value, jackson) < 0.03
    for i, (c, u) in enumerate(specs):
        assert rel(r.stations[f"s{i}"].utilisation, u) < 0.01
    assert r.stations["s2"].arrivals == r.stations["s1"].served == r.offered


# ----------------------------------------------------------------------------- batching
def test_saturated_batcher_runs_at_batch_capacity():
    big_b, tau0, alpha, servers = 8, 0.002, 0.0005, 2
    capacity = servers * big_b / (tau0 + alpha * big_b)
    for cv in (0.0, 0.3):
        net = batcher(2 * capacity, servers=servers, batch_max=big_b, batch_base_s=tau0,
                      batch_item_s=alpha, batch_timeout_s=0.005, queue_capacity=64, service_cv=cv)
        r = run_load_test(net, 300_000, seed=17)
        assert rel(r.throughput_rps, capacity) < 0.02
        assert r.stations["b"].mean_batch_size > 0.99 * big_b
        assert r.shed > 0.4 * r.offered
        assert_conserved(r)


def test_light_load_batcher_delay_matches_window_formula():
    lam, window, tau0, alpha = 100.0, 0.010, 0.002, 0.0005
    net = batcher(lam, batch_max=32, batch_base_s=tau0, batch_item_s=alpha,
                  batch_timeout_s=window, service_cv=0.0)
    r = run_load_test(net, 300_000, seed=19)
    mean_b = 1.0 + lam * window
    formula = (window + lam * window**2 / 2) / (1 + lam * window) + tau0 + alpha * mean_b
    assert rel(r.mean_s.value, formula) < 0.10
    assert rel(r.stations["b"].mean_batch_size, mean_b) < 0.05


def _latencies_ms(r) -> np.ndarray:
    return (r.trace.finish_s - r.trace.arrival_s) * 1000.0


def test_batch_dispatches_when_full():
    # One request every 1 ms, batches of 4, long window: waits 3, 2, 1, 0 ms plus 1 ms service.
    net = batcher(1000.0, arrival_cv=0.0, batch_max=4, batch_base_s=0.001,
                  batch_timeout_s=0.050, service_cv=0.0)
    r = run_load_test(net, 4000, warmup_fraction=0.0, keep_trace=True)
    np.testing.assert_allclose(_latencies_ms(r), np.tile([4.0, 3.0, 2.0, 1.0], 1000), atol=1e-6)
    assert r.stations["b"].batches == 1000 and r.stations["b"].max_queue_len == 3


def test_batch_dispatches_on_queue_delay():
    # One request every 10 ms, window 5 ms: each goes alone after 5 ms, then 1 ms service.
    net = batcher(100.0, arrival_cv=0.0, batch_max=4, batch_base_s=0.001,
                  batch_timeout_s=0.005, service_cv=0.0)
    r = run_load_test(net, 1000, warmup_fraction=0.0, keep_trace=True)
    np.testing.assert_allclose(_latencies_ms(r), 6.0, atol=1e-6)
    assert r.stations["b"].batches == 1000


def test_batch_grows_while_no_instance_is_free():
    # Arrivals at 1, 2, 3, ... ms; window 1.5 ms; a batch takes 20 ms on one instance.
    # [1, 2] leaves at 2.5 ms (window); 3..10 wait for the instance and leave full at 22.5 ms;
    # 11..18 leave at 42.5 ms, and so on.
    net = batcher(1000.0, arrival_cv=0.0, batch_max=8, batch_base_s=0.020,
                  batch_timeout_s=0.0015, service_cv=0.0)
    r = run_load_test(net, 40, warmup_fraction=0.0, keep_trace=True)
    arrivals = np.arange(1, 19)
    finish = np.array([22.5, 22.5] + [42.5] * 8 + [62.5] * 8)
    np.testing.assert_allclose(_latencies_ms(r)[:18], finish - arrivals, atol=1e-6)
    assert r.stations["b"].mean_batch_size > 6


# ----------------------------------------------------------------------------- event-by-event oracle
def reference_station(arrivals, st: Station):
    """A naive event-list simulation of one station with constant service (FCFS or batching).

    Returns (outcome, finish) per request with the load test's outcome codes.
    """
    batching, n = st.batch_max > 1, len(arrivals)
    service = st.batch_base_s if batching else st.service_mean_s
    outcome, finish = np.full(n, -1), np.full(n, np.nan)
    queue, free, seq = [], st.servers, iter(range(10**12))
    events = [(t, 3, next(seq), i) for i, t in enumerate(arrivals)]  # 0 free, 1 give up, 3 arrive
    heapq.heapify(events)
    while events:
        t, kind, _, i = heapq.heappop(events)
        if kind == 3:
            at_once = not queue and free > 0 and (not batching or st.batch_timeout_s == 0)
            if at_once or st.queue_capacity is None or len(queue) < st.queue_capacity:
                queue.append(i)
                if st.timeout_s is not None:
                    heapq.heappush(events, (t + st.timeout_s, 1, next(seq), i))
                if batching and st.batch_timeout_s > 0:  # wake up when the window closes
                    heapq.heappush(events, (t + st.batch_timeout_s, 2, next(seq), i))
            else:
                outcome[i], finish[i] = SHED, t
        elif kind == 0:
            free += 1
        elif kind == 1 and i in queue:
            queue.remove(i)
            outcome[i], finish[i] = TIMED_OUT, t
        while free > 0 and queue:
            size = min(len(queue), st.batch_max)
            if batching and size < st.batch_max and t < arrivals[queue[0]] + st.batch_timeout_s:
                break
            members, queue[:] = queue[:size], queue[size:]
            duration = service + st.batch_item_s * len(members) if batching else service
            free -= 1
            heapq.heappush(events, (t + duration, 0, next(seq), -1))
            outcome[members], finish[members] = SERVED, t + duration
    return outcome, finish


@pytest.mark.parametrize("lam, params", [
    (4.0, dict(servers=3, service_mean_s=1.0, queue_capacity=4, timeout_s=0.8)),
    (0.9, dict(servers=1, service_mean_s=1.0, timeout_s=0.5)),
    (1.5, dict(servers=2, service_mean_s=1.0, queue_capacity=0)),
    (1500.0, dict(servers=2, batch_max=8, batch_timeout_s=0.004, batch_base_s=0.01,
                  batch_item_s=0.001, queue_capacity=30, timeout_s=0.03)),
    (800.0, dict(servers=1, batch_max=4, batch_base_s=0.003, batch_item_s=0.0005)),
    (900.0, dict(servers=2, batch_max=4, batch_base_s=0.003, batch_item_s=0.0005,
                 queue_capacity=0)),
    (400.0, dict(servers=1, batch_max=4, batch_timeout_s=0.01, batch_base_s=0.006,
                 batch_item_s=0.001, timeout_s=0.012)),
])
def test_matches_an_event_by_event_simulation(lam, params):
    st = Station("s", service_cv=0.0, **params)
    r = run_load_test(Network({"s": st}, (Path(("s",), 1.0),), lam), 5000, seed=4,
                      warmup_fraction=0.0, keep_trace=True)
    outcome, finish = reference_station(r.trace.arrival_s, st)
    np.testing.assert_array_equal(r.trace.outcome, outcome)
    np.testing.assert_allclose(r.trace.finish_s, finish, rtol=0, atol=1e-9)


# ----------------------------------------------------------------------------- losses
@pytest.mark.parametrize("c, room, rho", [(2, 5, 1.0), (1, 3, 0.8), (4, 10, 1.2)])
def test_bounded_queue_blocking_matches_mmck(c, room, rho):
    lam = c * rho
    r = run_load_test(single(c, lam, queue_capacity=room), 500_000, seed=23)
    assert rel(r.shed / r.offered, mmck_blocking(lam, 1.0, c, room)) < 0.05
    assert r.stations["s"].max_queue_len == room
    assert r.offered == r.served + r.shed and r.timed_out == r.errors == 0


def test_timeouts_match_deterministic_patience_theory():
    lam, tau = 0.9, 5.0
    r = run_load_test(single(1, lam, timeout_s=tau), 1_000_000, seed=29)
    assert rel(r.timed_out / r.offered, mm1_deterministic_patience_loss(lam, 1.0, tau)) < 0.05
    assert r.offered == r.served + r.timed_out
    # overloaded but stable thanks to abandonment
    r = run_load_test(single(1, 1.5, timeout_s=tau), 300_000, seed=29)
    assert rel(r.timed_out / r.offered, mm1_deterministic_patience_loss(1.5, 1.0, tau)) < 0.05
    assert r.p99_s.value < tau + 20.0


def test_timeouts_counted_exactly_in_a_deterministic_queue():
    # Arrivals every 1 s, service 2 s, patience 2.5 s: after three served requests, every
    # other one would wait 3 s and leaves; the rest wait 2 s.
    net = single(1, 1.0, mean=2.0, cv=0.0, arrival_cv=0.0, timeout_s=2.5)
    r = run_load_test(net, 1001, warmup_fraction=0.0, keep_trace=True)
    assert (r.served, r.timed_out) == (502, 499)
    outcome = r.trace.outcome
    assert list(outcome[:7]) == [SERVED, SERVED, SERVED, TIMED_OUT, SERVED, TIMED_OUT, SERVED]
    timed = outcome == TIMED_OUT
    np.testing.assert_allclose(r.trace.finish_s[timed] - r.trace.arrival_s[timed], 2.5)


def test_errors_stop_requests_and_are_counted():
    specs = [(2, 0.5), (2, 0.5), (2, 0.5)]
    st = {f"s{i}": Station(f"s{i}", servers=c, service_mean_s=c * u, error_rate=0.2 * (i == 1))
          for i, (c, u) in enumerate(specs)}
    r = run_load_test(Network(st, (Path(tuple(st), 1.0),), 1.0), 200_000, seed=31)
    s1 = r.stations["s1"]
    assert abs(s1.errors / (s1.served + s1.errors) - 0.2) < 0.005
    assert r.stations["s2"].arrivals == s1.served and r.errors == s1.errors
    assert r.offered == r.served + r.errors


def mixed_network(lam: float = 3000.0) -> Network:
    st = {
        "gw": Station("gw", delay_only=True, fixed_delay_s=0.001),
        "b": Station("b", servers=2, batch_max=8, batch_base_s=0.008, batch_item_s=0.0004,
                     batch_timeout_s=0.005, queue_capacity=50, timeout_s=0.03, error_rate=0.01,
                     service_cv=0.2),
        "p": Station("p", servers=3, service_mean_s=0.002, queue_capacity=20, timeout_s=0.05,
                     error_rate=0.05, fixed_delay_s=0.0005),
        "cache": Station("cache", servers=1, service_mean_s=0.0002, service_cv=0.5),
    }
    paths = (Path(("gw", "b", "p"), 0.5, "model"), Path(("gw", "cache"), 0.3, "cache hit"))
    return Network(st, paths, lam)


def test_conservation_in_a_mixed_network():
    r = run_load_test(mixed_network(), 200_000, seed=37)
    assert r.in_flight == 0 and not r.cancelled
    assert r.offered == r.served + r.shed + r.timed_out + r.errors
    for s in r.stations.values():
        assert s.arrivals == s.served + s.shed + s.timed_out + s.errors
    assert abs(r.unrouted / r.offered - 0.2) < 0.01
    stations = r.stations
    assert stations["gw"].arrivals == r.offered - r.unrouted
    assert stations["p"].arrivals == stations["b"].served
    assert stations["b"].arrivals + stations["cache"].arrivals == stations["gw"].served
    assert r.shed == r.unrouted + sum(s.shed for s in stations.values())
    assert r.served == stations["p"].served + stations["cache"].served
    assert min(stations["b"].shed, stations["b"].timed_out, stations["b"].errors,
               stations["p"].errors) > 0
    assert 0 < stations["b"].utilisation <= 1 and stations["gw"].utilisation == 0


def test_overload_gives_finite_numbers():
    for net in (single(2, 4.0),
                batcher(5000.0, batch_max=4, batch_base_s=0.002, batch_item_s=0.001,
                        batch_timeout_s=0.001)):
        r = run_load_test(net, 100_000, seed=41)
        assert r.served == r.offered
        for e in (r.mean_s, r.p50_s, r.p95_s, r.p99_s):
            assert all(math.isfinite(v) for v in (e.value, e.ci_low, e.ci_high))
        assert all(s.utilisation > 0.99 for s in r.stations.values())
        assert math.isfinite(r.throughput_rps) and r.histogram_counts.sum() == r.latency_samples
    assert rel(run_load_test(single(2, 4.0), 100_000, seed=41).throughput_rps, 2.0) < 0.02


# ----------------------------------------------------------------------------- plumbing
def test_progress_is_monotone_and_ends_at_one():
    seen: list[float] = []
    r = run_load_test(tandem(0.8, [(1, 0.7), (4, 0.8), (2, 0.6)]), 300_000, progress=seen.append)
    assert seen[-1] == 1.0 and len(seen) >= 20 and not r.cancelled
    assert all(0.0 <= x <= 1.0 for x in seen) and seen == sorted(seen)
    assert max(np.diff([0.0] + seen)) <= 0.05


def test_cancel_stops_early_with_a_partial_result():
    polls = {"n": 0}

    def cancel() -> bool:
        polls["n"] += 1
        return polls["n"] > 20

    net = tandem(0.8, [(1, 0.7), (4, 0.8), (2, 0.6)])
    r = run_load_test(net, 2_000_000, cancel=cancel)
    assert r.cancelled and r.in_flight > 0
    assert r.offered == r.served + r.shed + r.timed_out + r.errors + r.in_flight
    assert r.stations["s2"].arrivals == 0 and r.served == 0
    r = run_load_test(mixed_network(), 2_000_000, cancel=lambda: True)
    assert r.cancelled and r.in_flight == r.offered - r.unrouted and r.served == 0
    assert math.isnan(r.mean_s.value) and r.latency_samples == 0


def test_same_seed_same_result_different_seed_different():
    net = mixed_network(2000.0)
    a, b, c = (run_load_test(net, 50_000, seed=s) for s in (5, 5, 6))
    for field in ("served", "shed", "timed_out", "errors", "mean_s", "p99_s", "stations"):
        assert getattr(a, field) == getattr(b, field)
    np.testing.assert_array_equal(a.histogram_counts, b.histogram_counts)
    assert a.mean_s != c.mean_s and a.stations != c.stations


def test_histogram_is_log_spaced_in_milliseconds():
    r = run_load_test(single(4, 300.0, mean=0.01), 50_000, seed=43)
    edges, counts = r.histogram_edges_ms, r.histogram_counts
    assert len(edges) == len(counts) + 1
    np.testing.assert_allclose(edges[1:] / edges[:-1], edges[1] / edges[0])
    assert edges[0] < 1000.0 * r.p50_s.value < edges[-1]
    assert counts.sum() == r.latency_samples == r.served - r.warmup_requests
    assert r.p50_s.ci_low <= r.p50_s.value <= r.p50_s.ci_high
    data = json.loads(json.dumps(run_load_test(mixed_network(), 20_000).to_dict(), allow_nan=False))
    assert data["stations"]["b"]["arrivals"] > 0 and data["p99_s"]["value"] > 0


def test_degenerate_inputs():
    r = run_load_test(single(1, 0.0), 1000)
    assert r.offered == 0 and r.served == 0 and r.sim_time_s == 0.0
    r = run_load_test(single(0, 1.0), 1000)
    assert r.shed == r.offered == 1000
    r = run_load_test(Network({"s": Station("s")}, (), 1.0), 1000)
    assert r.unrouted == r.shed == 1000 and r.stations["s"].arrivals == 0
    with pytest.raises(ValueError):
        run_load_test(single(1, 0.5), 10, warmup_fraction=1.0)


station_params = hs.fixed_dictionaries({
    "servers": hs.integers(0, 4),
    "service_mean_s": hs.sampled_from([0.0, 0.001, 0.01, 0.05]),
    "service_cv": hs.sampled_from([0.0, 0.5, 1.0, 2.0]),
    "batch_max": hs.sampled_from([1, 1, 4, 16]),
    "batch_base_s": hs.sampled_from([0.0, 0.005, 0.02]),
    "batch_item_s": hs.sampled_from([0.0, 0.001]),
    "batch_timeout_s": hs.sampled_from([0.0, 0.002, 0.01]),
    "queue_capacity": hs.sampled_from([None, 0, 1, 5]),
    "timeout_s": hs.sampled_from([None, 0.005, 0.05]),
    "error_rate": hs.sampled_from([0.0, 0.1, 1.0]),
    "fixed_delay_s": hs.sampled_from([0.0, 0.001]),
    "delay_only": hs.sampled_from([False, False, False, True]),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(params=hs.lists(station_params, min_size=1, max_size=3),
       shares=hs.sampled_from([(1.0,), (0.5, 0.5), (0.2, 0.3, 0.5), (0.6,), (0.0, 0.7),
                               (0.3, 0.3, 0.3)]),
       rate=hs.sampled_from([10.0, 200.0, 2000.0]), arrival_cv=hs.sampled_from([0.0, 1.0, 3.0]),
       seed=hs.integers(0, 10**6), cancel_after=hs.sampled_from([None, 0, 3]))
def test_conservation_holds_for_any_network(params, shares, rate, arrival_cv, seed,
                                            cancel_after):
    st = {f"s{i}": Station(f"s{i}", **p) for i, p in enumerate(params)}
    ids = list(st)
    paths = tuple(Path(tuple(ids[k % len(ids):]), share) for k, share in enumerate(shares))
    polls = iter(range(10**9))
    cancel = None if cancel_after is None else (lambda: next(polls) >= cancel_after)
    r = run_load_test(Network(st, paths, rate, arrival_cv=arrival_cv), 3000, seed=seed,
                      cancel=cancel, keep_trace=True)
    assert r.offered == r.served + r.shed + r.timed_out + r.errors + r.in_flight == 3000
    assert (r.in_flight > 0) <= r.cancelled
    for s in r.stations.values():
        assert s.arrivals >= s.served + s.shed + s.timed_out + s.errors
        assert s.arrivals == s.served + s.shed + s.timed_out + s.errors or r.cancelled
        assert 0.0 <= s.utilisation <= 1.0 + 1e-9 and s.mean_queue_len >= 0
        assert s.mean_batch_size <= max(st[s.id].batch_max, 1)
    tr = r.trace
    decided = tr.outcome != 4
    assert np.all(tr.finish_s[decided] >= tr.arrival_s[decided])
    assert np.bincount(tr.outcome, minlength=5)[SERVED] == r.served
    if r.latency_samples:
        assert r.p50_s.value <= r.p95_s.value <= r.p99_s.value
        assert r.histogram_counts.sum() == r.latency_samples
        assert math.isfinite(r.mean_s.value) and r.throughput_rps > 0


@pytest.mark.slow
def test_million_requests_in_small_memory():
    """A million requests are simulated in streaming memory (its speed is bench/bench_loadtest.py's)."""
    code = textwrap.dedent("""
        from inferboard.sim.design.network import Network, Path, Station
        from inferboard.sim.loadtest.loadtest import run_load_test
        lam = 0.8
        st = {f"s{i}": Station(f"s{i}", servers=c, service_mean_s=c * u / lam)
              for i, (c, u) in enumerate([(1, 0.7), (4, 0.8), (2, 0.6)])}
        r = run_load_test(Network(st, (Path(tuple(st), 1.0),), lam), 1_000_000)
        peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status")
                       if line.startswith("VmHWM:"))  # ru_maxrss would include the parent's
        print(peak_kb, r.served)
    """)
    root = str(__import__("pathlib").Path(__file__).resolve().parents[2])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                         env={"PYTHONPATH": root, "PATH": ""}, check=True).stdout.split()
    peak_kb, served = int(out[0]), int(out[1])
    assert served == 1_000_000 and peak_kb < 300 * 1024


def test_a_tiny_service_time_cv_is_deterministic_service_not_a_division_by_zero():
    """cv = 1e-200 squares to 0.0: the sampler treats it as deterministic (M/D/1), as theory says."""
    rho = 0.6
    r = run_load_test(single(1, rho, cv=1e-200), 100_000, seed=3)
    wait = r.stations["s"].mean_wait_s
    assert math.isfinite(wait)
    assert rel(wait, pollaczek_khinchine_wait(rho, 1.0, 0.0)) < 0.05
