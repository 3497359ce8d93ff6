"""Networks: composition along paths, flow conservation, overload, and a property test that any
valid network solves to finite numbers. References are computed independently in this file."""

from __future__ import annotations

import json
import math
from dataclasses import fields

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from inferboard.sim.steady.analytic import solve
from inferboard.sim.steady.station_models import LATENCY_CAP_S
from inferboard.sim.design.network import Network, Path, Station

from .test_queueing_theory import ref_erlang_c, ref_quantile, ref_sojourn_tail


def mmc(sid: str, c: int, mean_s: float, **kw) -> Station:
    return Station(sid, servers=c, service_mean_s=mean_s, service_cv=kw.pop("cv", 1.0), **kw)


def finite_everywhere(obj) -> bool:
    if isinstance(obj, float):
        return math.isfinite(obj)
    if isinstance(obj, dict):
        return all(finite_everywhere(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return all(finite_everywhere(v) for v in obj)
    return True


def raw_numbers_finite(res) -> bool:
    """Every public field of the result objects themselves (not only their to_dict) is finite."""
    objs = [res, *res.stations.values(), *res.paths]
    return all(finite_everywhere(getattr(o, f.name)) for o in objs for f in fields(o)
               if not f.name.startswith("_") and f.name not in ("stations", "paths"))


def conserved(res) -> bool:
    total = res.throughput_rps + res.shed_rps + res.timeout_rps + res.error_rps
    return math.isclose(total, res.offered_rps, rel_tol=1e-9, abs_tol=1e-9)


# ---- tandem (Jackson) --------------------------------------------------------------------------

TANDEM = (("a", 2, 0.010), ("b", 4, 0.020), ("c", 1, 0.004))  # id, servers, mean service


def test_tandem_mean_is_sum_and_p99_is_composed_not_added():
    lam = 150.0
    stations = {sid: mmc(sid, c, s) for sid, c, s in TANDEM}
    res = solve(Network(stations, (Path(("a", "b", "c"), 1.0, "all"),), arrival_rate=lam))
    means, p99s = [], []
    for sid, c, s in TANDEM:
        mu = 1 / s
        means.append(ref_erlang_c(c, lam / mu) / (c * mu - lam) + s)
        p99s.append(ref_quantile(lambda t, mu=mu, c=c: ref_sojourn_tail(t, lam, mu, c), 0.99))
        assert res.stations[sid].arrival_rps == pytest.approx(lam)
        assert res.stations[sid].arrival_scv == pytest.approx(1.0)  # Poisson stays Poisson (Burke)
    assert res.mean_s == pytest.approx(sum(means), rel=0.01)
    assert max(p99s) < res.p99_s < sum(p99s)
    for sid, want in zip(("a", "b", "c"), p99s):  # per-station distributions are the exact M/M/c ones
        assert res.station_quantiles(sid, (0.99,))[0] == pytest.approx(want, rel=0.02)


def test_mixture_of_paths_percentiles():
    """Half the traffic through an M/M/1 (mean 10 ms service, rho 0.5), half through a 30 ms delay."""
    lam, mu = 100.0, 100.0
    stations = {"q": mmc("q", 1, 1 / mu), "d": Station("d", delay_only=True, fixed_delay_s=0.03)}
    paths = (Path(("q",), 0.5, "queue"), Path(("d",), 0.5, "delay"))
    res = solve(Network(stations, paths, arrival_rate=lam))
    lam_q = 0.5 * lam

    def tail(t):
        return 0.5 * math.exp(-(mu - lam_q) * t) + 0.5 * (1.0 if t < 0.03 else 0.0)

    for p, got in ((0.5, res.p50_s), (0.99, res.p99_s)):
        assert got == pytest.approx(ref_quantile(tail, p), rel=0.02)
    assert res.mean_s == pytest.approx(0.5 * (1 / (mu - lam_q)) + 0.5 * 0.03, rel=1e-9)


def test_qna_burstiness_passes_downstream():
    lam, s1, cv1 = 40.0, 0.02, 0.0
    stations = {"a": mmc("a", 1, s1, cv=cv1), "b": mmc("b", 1, 0.01)}
    res = solve(Network(stations, (Path(("a", "b"), 1.0),), arrival_rate=lam, arrival_cv=2.0))
    rho = lam * s1
    # Whitt QNA linking equation, c = 1: cd2 = (1 - rho^2) ca2 + rho^2 cs2
    want = (1 - rho ** 2) * 4.0 + rho ** 2 * cv1 ** 2
    assert res.stations["b"].arrival_scv == pytest.approx(want, rel=1e-9)
    kingman = rho / (1 - rho) * (4.0 + 0.0) / 2 * s1
    assert res.stations["a"].mean_wait_s == pytest.approx(kingman, rel=1e-9)


# ---- conservation and losses -----------------------------------------------------------------

def test_conservation_and_upstream_losses():
    stations = {
        "lb": Station("lb", delay_only=True, fixed_delay_s=0.002),
        "q": mmc("q", 2, 0.02, queue_capacity=3),
        "cpu": mmc("cpu", 3, 0.05, cv=0.5, timeout_s=0.2, error_rate=0.01),
        "gpu": Station("gpu", servers=1, batch_max=8, batch_base_s=0.005, batch_item_s=0.001,
                       batch_timeout_s=0.002, service_cv=0.2, queue_capacity=20, timeout_s=0.1),
    }
    paths = (Path(("lb", "q", "cpu"), 0.5), Path(("lb", "gpu"), 0.45))  # 5% unrouted
    res = solve(Network(stations, paths, arrival_rate=110.0))
    assert conserved(res)
    assert res.shed_rps >= 0.05 * 110.0  # unrouted share counts as shed
    q = res.stations["q"]
    assert res.stations["cpu"].arrival_rps == pytest.approx(q.served_rps)
    assert res.stations["cpu"].error_rps > 0
    assert res.error_rate == pytest.approx(res.error_rps / 110.0)
    assert finite_everywhere(res.to_dict())
    json.dumps(res.to_dict())


def test_zero_servers_and_zero_traffic():
    stations = {"a": Station("a", servers=0, service_mean_s=0.01), "b": mmc("b", 1, 0.01)}
    res = solve(Network(stations, (Path(("a", "b"), 1.0),), arrival_rate=10.0))
    assert res.throughput_rps == 0.0 and conserved(res)
    assert res.stations["b"].arrival_rps == 0.0
    assert finite_everywhere(res.to_dict())
    idle = solve(Network(stations, (Path(("a", "b"), 1.0),), arrival_rate=0.0))
    assert idle.throughput_rps == 0.0 and finite_everywhere(idle.to_dict())


# ---- overload ---------------------------------------------------------------------------------

@pytest.mark.parametrize("c", (1, 4))
def test_overload_bounded_queue_sheds_the_excess(c):
    lam = 1.5 * c / 0.01
    res = solve(Network({"s": mmc("s", c, 0.01, queue_capacity=1000)}, (Path(("s",), 1.0),), arrival_rate=lam))
    assert res.shed_rate == pytest.approx(1 - 1 / 1.5, rel=1e-3)
    assert res.throughput_rps == pytest.approx(c / 0.01, rel=1e-3)
    assert res.stations["s"].saturated and not res.latency_capped
    assert res.p99_s < 1000 / (c / 0.01) * 1.2 + 0.1  # about one full queue of waiting
    assert conserved(res) and finite_everywhere(res.to_dict())


def test_overload_unbounded_queue_with_timeout_times_out_the_excess():
    lam = 1.5 * 2 / 0.01
    res = solve(Network({"s": mmc("s", 2, 0.01, timeout_s=0.5)}, (Path(("s",), 1.0),), arrival_rate=lam))
    assert res.timeout_rate == pytest.approx(1 - 1 / 1.5, rel=1e-3)
    assert res.shed_rate == 0.0
    assert 0.4 < res.p50_s < 0.5 + 0.1  # served requests waited about the time-out
    assert conserved(res) and finite_everywhere(res.to_dict())


def test_overload_unbounded_queue_without_timeout_is_capped():
    lam = 1.5 * 2 / 0.01
    res = solve(Network({"s": mmc("s", 2, 0.01)}, (Path(("s",), 1.0),), arrival_rate=lam))
    st = res.stations["s"]
    assert st.backlog_growth_rps == pytest.approx(lam - 200.0)
    assert st.latency_capped and res.latency_capped
    assert res.timeout_rate == pytest.approx(1 - 1 / 1.5)  # backlog counted as timed out in totals
    assert res.p50_s == pytest.approx(LATENCY_CAP_S, rel=0.01)
    assert conserved(res) and finite_everywhere(res.to_dict()) and raw_numbers_finite(res)
    assert "backlog_growth_rps" in st.figures


def test_overload_batch_station():
    st = Station("g", servers=2, batch_max=8, batch_base_s=0.004, batch_item_s=0.001)
    cap = st.capacity_rps
    for extra in ({}, {"queue_capacity": 50}, {"timeout_s": 0.3}):
        s = Station("g", servers=2, batch_max=8, batch_base_s=0.004, batch_item_s=0.001, **extra)
        res = solve(Network({"g": s}, (Path(("g",), 1.0),), arrival_rate=1.5 * cap))
        assert res.throughput_rps == pytest.approx(cap, rel=1e-6)
        assert conserved(res) and finite_everywhere(res.to_dict())


# ---- property test ----------------------------------------------------------------------------

@hs.composite
def networks(draw):
    n = draw(hs.integers(1, 7))
    stations = {}
    for i in range(n):
        sid = f"s{i}"
        kind = draw(hs.sampled_from(["delay", "pool", "batch", "none"]))
        common = dict(
            queue_capacity=draw(hs.one_of(hs.none(), hs.integers(0, 2000))),
            timeout_s=draw(hs.one_of(hs.none(), hs.floats(1e-3, 30.0))),
            error_rate=draw(hs.sampled_from([0.0, 0.0, 0.01, 0.5, 1.0])),
            fixed_delay_s=draw(hs.sampled_from([0.0, 0.001, 0.2])))
        if kind == "delay":
            stations[sid] = Station(sid, delay_only=True, fixed_delay_s=draw(hs.floats(0.0, 2.0)))
        elif kind == "none":
            stations[sid] = Station(sid, servers=0, service_mean_s=0.01, **common)
        elif kind == "pool":
            stations[sid] = Station(sid, servers=draw(hs.integers(1, 80)), service_mean_s=draw(hs.floats(0.0, 2.0)),
                                    service_cv=draw(hs.floats(0.0, 4.0)), **common)
        else:
            stations[sid] = Station(sid, servers=draw(hs.integers(1, 8)), batch_max=draw(hs.integers(2, 128)),
                                    batch_base_s=draw(hs.floats(0.0, 0.1)), batch_item_s=draw(hs.floats(0.0, 0.01)),
                                    batch_timeout_s=draw(hs.floats(0.0, 0.05)), service_cv=draw(hs.floats(0.0, 2.0)),
                                    **common)
    ids = list(stations)
    paths = []
    budget = 1.0
    for _ in range(draw(hs.integers(0, 5))):
        members = draw(hs.lists(hs.sampled_from(ids), min_size=1, max_size=n, unique=True))
        members.sort(key=ids.index)
        share = draw(hs.floats(0.0, budget))
        budget -= share
        paths.append(Path(tuple(members), share))
    rate = draw(hs.one_of(hs.just(0.0), hs.floats(0.0, 1e5)))
    return Network(stations, tuple(paths), arrival_rate=rate, arrival_cv=draw(hs.floats(0.0, 5.0)))


@pytest.mark.slow  # each random batching station solves its own batching table (about 1 s of CPU)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks())
def test_any_valid_network_solves_to_finite_numbers(net):
    res = solve(net)
    assert raw_numbers_finite(res)
    data = res.to_dict()
    assert finite_everywhere(data)
    json.dumps(data)
    assert conserved(res)
    for rate in (res.shed_rate, res.timeout_rate, res.error_rate):
        assert -1e-12 <= rate <= 1 + 1e-12
    assert 0.0 <= res.p50_s <= res.p95_s <= res.p99_s <= res.p999_s
    for st in res.stations.values():
        assert 0.0 <= st.utilisation <= 1.0
        assert st.served_rps <= st.arrival_rps * (1 + 1e-9) + 1e-12
        for fig in st.figures.values():
            assert fig.text()
