"""Two operations of a running timeline against figures computed by hand: failing a region over
moves its share at once (no health-check delay, no errors) and changing a batcher's delay changes
the light-load batching wait to the closed form of the new window."""

from __future__ import annotations

import numpy as np
import pytest

from inferboard.model import Design
from inferboard.model.requirements import Requirements
from inferboard.paths import data_dir
from inferboard.sim.timeline import actions
from inferboard.sim.design.faults import parse_fault
from inferboard.sim.timeline.timeline_state import Timeline
from inferboard.store import read_design

TICK = 10.0


def multi_region() -> Design:
    return read_design(data_dir("assets") / "examples" / "multi-region.json")[0]


def test_fail_over_region_moves_its_share_at_once_without_errors():
    design = multi_region()
    n = design.nodes
    us_share = n["users-us"].params["share"]
    miss = (1 - n["eu-west-cache"].params["hit_ratio"]) * (1 - n["eu-west-canary"].params["canary_share"])
    state = Timeline.start(design, pattern="steady", hours=1, tick_s=TICK).advance(1200)
    state.apply(actions.FailOverRegion("us-east"))
    s = state.advance(1200).result().series
    before, after = slice(0, 120), slice(120, 240)
    ratio = s["arrival_rps:eu-west-gpus"] / s["offered_rps"]
    # eu-west's GPUs took (1 - us share) x miss of all traffic, and from the tick of the action all of it x miss
    np.testing.assert_allclose(ratio[before], (1 - us_share) * miss)
    np.testing.assert_allclose(ratio[after], miss)
    assert np.all(s["arrival_rps:us-east-gpus"][after] == 0) and np.all(s["arrival_rps:us-east-gpus"][before] > 0)
    # an operation is already "detected": nothing is lost in between, unlike an outage found by health checks
    assert np.all(s["error_rate"] < 1e-9)
    outage = Timeline.start(design, pattern="steady", hours=1, tick_s=TICK,
                            faults=[parse_fault("region_outage:us-east@20m+40m")]).advance(2400).result().series
    glb = n["glb"].params
    detection_ticks = int(glb["health_check_interval_s"] * glb["unhealthy_threshold"] / TICK)
    np.testing.assert_allclose(outage["error_rate"][120:120 + detection_ticks], us_share)
    np.testing.assert_allclose(outage["arrival_rps:eu-west-gpus"][120 + detection_ticks:],
                               s["arrival_rps:eu-west-gpus"][120 + detection_ticks:])
    # us-east's pools cost nothing while it is out: the hourly cost falls by their replicas' price
    assert s["cost_per_hour"][after].max() < s["cost_per_hour"][before].min()
    restored = Timeline.start(design, pattern="steady", hours=1, tick_s=TICK).advance(1200)
    restored.apply(actions.FailOverRegion("us-east")).advance(600).apply(actions.RestoreRegion("us-east"))
    back = restored.advance(600).result().series
    np.testing.assert_allclose(back["arrival_rps:eu-west-gpus"][180:], s["arrival_rps:eu-west-gpus"][:60])


def batcher_design(rps: float, delay_ms: float) -> Design:
    design = Design(requirements=Requirements(mean_rps=rps, peak_rps=rps, traffic_pattern="steady"))
    design.add_node("traffic_source", node_id="users", params={"arrival_cv": 1.0})
    design.add_node("dynamic_batcher", node_id="batcher", params={"max_batch_size": 32,
                                                                  "max_queue_delay_ms": delay_ms})
    design.add_node("gpu_pool", node_id="gpus", params={"gpu_type": "t4", "replicas": 3, "service_cv": 0.3})
    design.connect("users", "requests", "batcher", "requests")
    design.connect("batcher", "requests", "gpus", "requests")
    return design


def light_load_wait_s(lam: float, d: float) -> float:
    """Mean wait at light load (a replica is free when the window closes, the batch never fills): the
    first request of a window waits D, one arriving u later waits D - u; with N ~ Poisson(lam D)
    followers, E[wait] = (D + lam D * D/2) / (1 + lam D)."""
    return (d + lam * d * d / 2) / (1 + lam * d)


def test_set_batcher_delay_changes_the_batching_wait_from_that_tick():
    lam = 20.0
    state = Timeline.start(batcher_design(lam, 5.0), hours=0.5, tick_s=TICK).advance(600)
    state.apply(actions.SetBatcherDelay("batcher", 50.0))
    s = state.advance(1200).result().series
    wait = s["wait_ms:gpus"]
    assert wait[:60] == pytest.approx(light_load_wait_s(lam, 0.005) * 1000, rel=0.03)
    assert wait[60:] == pytest.approx(light_load_wait_s(lam, 0.050) * 1000, rel=0.03)
    # the end-to-end median moves by about the change of the wait (batch time grows by a few items)
    assert s["p50_ms"][-1] - s["p50_ms"][0] == pytest.approx((light_load_wait_s(lam, 0.05) - light_load_wait_s(
        lam, 0.005)) * 1000, rel=0.35)
    with pytest.raises(ValueError, match="dynamic batcher"):
        state.apply(actions.SetBatcherDelay("gpus", 1.0))


def test_scaling_a_pool_by_hand_moves_the_fallback_threshold_with_it():
    """A fallback below the gateway takes what exceeds 95% of the primary's capacity: 2 replicas x
    4 workers / 20 ms = 400 req/s, so 380 req/s stay and 120 of 500 overflow; scaled to 4 replicas
    (800 req/s, ready at once) the primary keeps all 500 from the next tick on: the load balancer
    counts the replicas ready at the end of the tick before."""
    design = Design(requirements=Requirements(mean_rps=500.0, peak_rps=500.0, traffic_pattern="steady"))
    design.add_node("traffic_source", node_id="users", params={"arrival_cv": 1.0})
    design.add_node("regional_load_balancer", node_id="gw")
    design.add_node("cpu_pool", node_id="pool", params={"replicas": 2, "workers_per_replica": 4, "service_ms": 20.0,
                                                        "provisioning_s": 0.0})
    design.add_node("fallback_model", node_id="fallback", params={"replicas": 2})
    design.connect("users", "requests", "gw", "requests")
    design.connect("gw", "requests", "pool", "requests")
    design.connect("gw", "requests", "fallback", "requests")
    state = Timeline.start(design, hours=0.5, tick_s=TICK).advance(600)
    state.apply(actions.ScalePool("pool", replicas=4))
    s = state.advance(600).result().series
    assert s["arrival_rps:pool"][:60] == pytest.approx(380.0) and s["arrival_rps:fallback"][:60] == pytest.approx(120.0)
    assert s["arrival_rps:pool"][60] == pytest.approx(380.0) and s["arrival_rps:fallback"][60] == pytest.approx(120.0)
    assert s["arrival_rps:pool"][61:] == pytest.approx(500.0) and np.all(s["arrival_rps:fallback"][61:] == 0)
    assert s["replicas:pool"][-1] == 4
