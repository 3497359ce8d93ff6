"""Routing per tick follows the replicas that are ready: load-balancer weights, fallback overflow and
admission thresholds count what each pool has ready at the end of the tick before, not its
configured replica count. Every expectation is computed here from the timeline's own ready series
and the pools' parameters (capacity per replica = workers / service time), independently of the
simulator's routing code; the per-tick router is also checked against the steady state's compile."""

from __future__ import annotations

import numpy as np
import pytest

from inferboard.model import Design
from inferboard.model.requirements import Requirements
from inferboard.sim.timeline import timeline_routing
from inferboard.sim.design.compile import compile_design
from inferboard.sim.design.design_structure import DesignStructure
from inferboard.sim.design.faults import parse_fault
from inferboard.sim.design.routing import Routing
from inferboard.sim.timeline.tick_routing import RegimeRouter
from inferboard.sim.timeline.timeline import run_timeline
from inferboard.sim.timeline.timeline_state import Timeline
from inferboard.store.design_files import read_design

TICK = 10.0
SERVICE_MS = 20.0
WORKERS = 4
PER_REPLICA = WORKERS / (SERVICE_MS / 1000.0)  # 200 req/s a replica


def _pool(design: Design, node_id: str, replicas: int, **extra) -> None:
    params = {"replicas": replicas, "workers_per_replica": WORKERS, "service_ms": SERVICE_MS, "service_cv": 1.0,
              "provisioning_s": 60.0, "min_replicas": 1, "max_replicas": 12, **extra}
    design.add_node("cpu_pool", node_id=node_id, params=params)


def _scaler(design: Design, pool: str, high: int = 12) -> None:
    design.add_node("autoscaler", node_id=f"hpa-{pool}", params={
        "metric": "cpu_utilisation", "target": 0.6, "min_replicas": 1, "max_replicas": high})
    design.connect(f"hpa-{pool}", "scaling", pool, "scaling")


def two_pools(pattern: str = "spike", mean: float = 300.0, peak: float = 900.0) -> Design:
    """users -> regional LB -> {'auto': 1 replica, autoscaled up to 12; 'fixed': 2 replicas}."""
    design = Design(requirements=Requirements(mean_rps=mean, peak_rps=peak, traffic_pattern=pattern))
    design.add_node("traffic_source", node_id="users", params={"arrival_cv": 1.0})
    design.add_node("regional_load_balancer", node_id="gw")
    _pool(design, "auto", 1)
    _pool(design, "fixed", 2)
    _scaler(design, "auto")
    design.connect("users", "requests", "gw", "requests")
    design.connect("gw", "requests", "auto", "requests")
    design.connect("gw", "requests", "fixed", "requests")
    return design


def routed_ready(series: dict, pool: str, initial: float) -> np.ndarray:
    """What routing counts in each tick: the replicas ready at the end of the tick before (one at least)."""
    ready = series[f"ready:{pool}"]
    return np.maximum(np.concatenate(([initial], ready[:-1])), 1.0)


def test_a_load_balancer_weighs_its_pools_by_the_replicas_they_have_ready():
    series = run_timeline(two_pools(), hours=1.0, tick_s=TICK).series
    auto, fixed = routed_ready(series, "auto", 1), routed_ready(series, "fixed", 2)
    assert auto.max() >= 4, "the autoscaled pool must scale for this test to mean anything"
    total = series["arrival_rps:auto"] + series["arrival_rps:fixed"]
    np.testing.assert_allclose(total, series["offered_rps"], rtol=1e-9)
    expected = series["offered_rps"] * auto / (auto + fixed)
    np.testing.assert_allclose(series["arrival_rps:auto"], expected, rtol=1e-9, atol=1e-9)
    # The configured split (1 : 2) would have sent the fixed pool two thirds of the spike all along
    spike = series["offered_rps"] >= 0.9 * series["offered_rps"].max()
    assert series["arrival_rps:fixed"][spike][-1] < 0.5 * series["offered_rps"][spike][-1]


def test_the_fixed_pool_is_not_overloaded_while_its_neighbour_scales():
    """With the split by ready capacity both pools run at the same utilisation λ / (ready x 200/s)
    wherever the ready counts did not change in the tick; by configured counts the two-replica pool
    would take 2/3 of 900 req/s = 600 req/s against 400 req/s of capacity."""
    series = run_timeline(two_pools(pattern="steady", mean=700.0, peak=700.0), hours=1.0, tick_s=TICK).series
    ready_auto, ready_fixed = series["ready:auto"], series["ready:fixed"]
    steady = np.flatnonzero((np.diff(ready_auto, prepend=1.0) == 0) & (series["backlog:auto"] == 0)
                            & (series["backlog:fixed"] == 0))
    steady = steady[steady > 0]
    assert steady.size > 100
    rho_auto = series["arrival_rps:auto"][steady] / (ready_auto[steady] * PER_REPLICA)
    rho_fixed = series["arrival_rps:fixed"][steady] / (ready_fixed[steady] * PER_REPLICA)
    np.testing.assert_allclose(rho_auto, rho_fixed, rtol=1e-9)
    settled = slice(len(ready_auto) // 2, None)
    assert series["utilisation:fixed"][settled].max() < 0.9
    assert series["shed_rate"][settled].max() == 0.0


def fallback_design(admission: bool = False) -> Design:
    """users -> gateway -> (admission control ->) autoscaled primary pool, with a CPU fallback model
    below the router that takes what is above 95% of the primary's ready capacity."""
    design = Design(requirements=Requirements(mean_rps=150.0, peak_rps=900.0, traffic_pattern="spike"))
    design.add_node("traffic_source", node_id="users", params={"arrival_cv": 1.0})
    design.add_node("regional_load_balancer", node_id="gw")
    _pool(design, "primary", 1, provisioning_s=120.0)
    _scaler(design, "primary", high=8)
    design.connect("users", "requests", "gw", "requests")
    if admission:
        design.add_node("admission_control", node_id="adm", params={"shed_above_utilisation": 0.8,
                                                                    "degrade_mode": "none"})
        design.connect("gw", "requests", "adm", "requests")
        design.connect("adm", "requests", "primary", "requests")
    else:
        design.add_node("fallback_model", node_id="fallback", params={"replicas": 4})
        design.connect("gw", "requests", "primary", "requests")
        design.connect("gw", "requests", "fallback", "requests")
    return design


def test_the_fallback_takes_what_the_ready_replicas_cannot():
    series = run_timeline(fallback_design(), hours=1.0, tick_s=TICK).series
    ready = routed_ready(series, "primary", 1)
    offered = series["offered_rps"]
    threshold = 0.95 * ready * PER_REPLICA
    np.testing.assert_allclose(series["arrival_rps:fallback"], np.maximum(0.0, offered - threshold), rtol=1e-9,
                               atol=1e-9)
    np.testing.assert_allclose(series["arrival_rps:primary"], np.minimum(offered, threshold), rtol=1e-9)
    overflowing = series["arrival_rps:fallback"] > 0
    assert overflowing.any() and not overflowing.all()
    # as the primary's replicas come up, the same rate overflows less: the configured count (1) would
    # have kept overflow at offered - 190 req/s all through the spike
    assert (series["ready:primary"].max() > 2
            and np.any(overflowing & (offered > 0.95 * 2 * PER_REPLICA) & (ready >= 3)))


def test_admission_control_sheds_above_its_share_of_the_ready_capacity():
    series = run_timeline(fallback_design(admission=True), hours=1.0, tick_s=TICK).series
    ready = routed_ready(series, "primary", 1)
    offered = series["offered_rps"]
    admitted = np.minimum(offered, 0.8 * ready * PER_REPLICA)
    np.testing.assert_allclose(series["arrival_rps:primary"], admitted, rtol=1e-9)
    shed = np.where(offered > 0, 1.0 - admitted / offered, 0.0)
    np.testing.assert_allclose(series["shed_rate"], shed, rtol=1e-6, atol=1e-9)
    assert shed.max() > 0.2 and np.any((shed > 0) & (ready > 2))


def test_a_spot_reclaim_moves_the_traffic_to_the_replicas_left():
    """'auto' (here fixed at 4 replicas, half of them spot) loses 2 replicas at minute 20 for 10
    minutes: the load balancer shifts its share to 'fixed' from the tick after."""
    design = two_pools(pattern="steady", mean=600.0, peak=600.0)
    design.remove_node("hpa-auto")
    design.set_params("auto", replicas=4, spot_share=0.5)
    series = run_timeline(design, hours=1.0, tick_s=TICK, faults=[parse_fault("spot_reclaimed:auto@20m+10m")]).series
    auto, fixed = routed_ready(series, "auto", 4), routed_ready(series, "fixed", 2)
    assert auto.min() == 2 and auto.max() == 4
    np.testing.assert_allclose(series["arrival_rps:auto"], 600.0 * auto / (auto + fixed), rtol=1e-9)
    during = slice(int(21 * 60 / TICK), int(29 * 60 / TICK))
    assert series["arrival_rps:fixed"][during] == pytest.approx(300.0)


def both_scaled() -> Design:
    """Both pools behind the load balancer autoscaled, with different targets and bounds."""
    design = two_pools()
    design.add_node("autoscaler", node_id="hpa-fixed", params={
        "metric": "cpu_utilisation", "target": 0.8, "min_replicas": 2, "max_replicas": 6})
    design.connect("hpa-fixed", "scaling", "fixed", "scaling")
    return design


@pytest.mark.parametrize("build", [two_pools, both_scaled, fallback_design])
def test_chunked_routing_equals_routing_tick_by_tick(monkeypatch, build):
    """Running the control loops one tick at a time needs no re-routing and no going back: each tick
    is routed with the replicas decided before it. The chunked run (which stops a pool where its
    replicas change, routes again and, with two such pools, goes back) must give exactly the same day."""
    faults = [parse_fault("traffic_surge*1.4:*@25m+10m")]
    design = build()
    chunked = Timeline.start(design, faults=faults, hours=1.0, tick_s=TICK)
    chunked.advance(3600)
    monkeypatch.setattr(timeline_routing, "FIRST_CHUNK", 1)
    monkeypatch.setattr(timeline_routing, "LARGEST_CHUNK", 1)
    single = Timeline.start(design, faults=faults, hours=1.0, tick_s=TICK)
    single.advance(3600)
    a, b = chunked.result(), single.result()
    assert a.series.keys() == b.series.keys()
    for key in a.series:
        np.testing.assert_array_equal(a.series[key], b.series[key], err_msg=key)
    assert [(e.time_s, e.kind, e.message) for e in a.events] == [(e.time_s, e.kind, e.message) for e in b.events]
    assert sum(e.kind == "scaled" for e in a.events) >= 3


def test_stepping_a_coupled_design_equals_one_run():
    design = fallback_design()
    whole = run_timeline(design, hours=1.0, tick_s=TICK)
    state = Timeline.start(design, hours=1.0, tick_s=TICK)
    for seconds in (10, 70, 900, 30, 1200, 3600):
        state.advance(seconds)
    stepped = state.result()
    for key in whole.series:
        np.testing.assert_array_equal(whole.series[key], stepped.series[key], err_msg=key)


def _path_shares(design: Design, rps: float, faults=()) -> tuple[dict, float, dict]:
    """The compile's path shares keyed as the per-tick router keys them."""
    compiled = compile_design(design, rps, faults)
    index = {sid: i for i, sid in enumerate(sorted(compiled.plans))}
    shares: dict = {}
    for path in compiled.network.paths:
        stations = [compiled.network.stations[s] for s in path.stations]
        key = (tuple(sorted(index[s.id] for s in stations if s.id in index)),
               round(sum(s.fixed_delay_s for s in stations), 9))
        shares[key] = shares.get(key, 0.0) + path.share
    shed = {k: v / compiled.offered_rps for k, v in compiled.shed_rps.items()}
    return shares, compiled.lost_rps / compiled.offered_rps, shed, index, compiled


@pytest.mark.parametrize("example", ["starter", "multi-region"])
@pytest.mark.parametrize("fault", [None, "region_outage:eu-west", "traffic_surge*3:*"])
def test_the_per_tick_router_splits_as_the_steady_state_does(example, fault):
    """At the configured replica counts the router must give the compile's paths, losses and shed at
    every rate, the rates where limits and fallbacks act included."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    design = read_design(root / "assets" / "examples" / f"{example}.json")[0]
    faults = [parse_fault(fault)] if fault else []
    structure = DesignStructure(design)
    mean = float(design.requirements.mean_rps or 100.0)
    for rps in (0.3 * mean, mean, 3 * mean, 10 * mean):
        shares, lost, shed, index, compiled = _path_shares(design, rps, faults)
        routing = Routing(design, rps, faults, None, (), structure)
        for pool in structure.pools:
            routing.plan(pool)
        router = RegimeRouter(routing)
        from inferboard.sim.design.routing import pool_station_capacity

        pools = {p: np.array([pool_station_capacity(structure, compiled.plans[p])]) for p in structure.pools}
        base = np.array([rps])
        got = router.paths(base, pools, index)
        assert set(k for k, v in got.weights.items() if v[0] > 1e-12) == set(k for k, v in shares.items() if v > 1e-12)
        for key, value in shares.items():
            assert got.weights.get(key, np.zeros(1))[0] == pytest.approx(value, rel=1e-9, abs=1e-12)
        assert got.lost[0] == pytest.approx(lost, rel=1e-9, abs=1e-12)
        assert {k: v[0] for k, v in got.shed.items() if v[0] > 0} == pytest.approx(shed, rel=1e-9)


def test_a_rate_limit_counts_every_source_behind_it():
    """Two sources of 80 req/s each behind one 100 req/s rate limit: 60 req/s are shed (each
    source's traffic alone is under the limit, all of it together is not)."""
    design = Design(requirements=Requirements(mean_rps=160.0, peak_rps=160.0))
    design.add_node("traffic_source", node_id="web", params={"share": 1.0})
    design.add_node("traffic_source", node_id="app", params={"share": 1.0})
    design.add_node("regional_load_balancer", node_id="gw", params={"rate_limit_rps": 100.0})
    _pool(design, "pool", 2)
    design.connect("web", "requests", "gw", "requests")
    design.connect("app", "requests", "gw", "requests")
    design.connect("gw", "requests", "pool", "requests")
    compiled = compile_design(design, 160.0)
    assert sum(compiled.shed_rps.values()) == pytest.approx(60.0)
    assert compiled.node_rates["pool"] == pytest.approx(100.0)
