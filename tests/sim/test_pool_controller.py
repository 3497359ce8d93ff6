"""One pool's control loop, one rule at a time, against the Kubernetes HPA and Knative rules worked
out by hand here: desired = ceil(current × metric / target) unless |metric / target − 1| ≤ tolerance;
starting replicas count as 0% when scaling up; the highest recommendation of the last 300 s when
scaling down; at most max(+4 pods, +100%) per 60 s when scaling up; scale to zero after the 60 s
stable window plus the grace period without traffic."""

from __future__ import annotations

import math

import numpy as np
import pytest

from inferboard.sim.timeline.autoscaling import PoolController, PoolPlanOverTime
from inferboard.sim.timeline.hpa import AutoscalerConfig

TICK_S = 15.0


def controller(initial: int = 4, provisioning_s: float = 0.0, lam: float = 1.0, **scaler) -> PoolController:
    config = AutoscalerConfig("hpa", **{"metric": "cpu_utilisation", "target": 0.5, **scaler})
    plan = PoolPlanOverTime("pool", initial, provisioning_s, 0.0, config)
    times = np.arange(0.0, 3600.0, TICK_S)
    events: list[tuple] = []
    control = PoolController(plan, times, np.full(len(times), lam), lambda *event: events.append(event))
    control.events = events
    return control


def hand_hpa(current: int, metric: float, target: float, tolerance: float = 0.1) -> int:
    ratio = metric / target
    return current if abs(ratio - 1) <= tolerance else math.ceil(current * ratio)


@pytest.mark.parametrize("utilisation", [0.2, 0.46, 0.54, 0.56, 0.8, 1.0])
def test_recommendation_is_the_hpa_formula_with_its_tolerance(utilisation):
    control = controller(initial=4)
    assert control.recommend(utilisation) == hand_hpa(4, utilisation, 0.5)


def test_recommendation_counts_starting_replicas_as_idle_when_scaling_up():
    control = controller(initial=4)
    control.scale_to(0, 6, "by hand")  # provisioning 0: ready at once
    control.ready = 4  # two of the six still starting
    # 0.8 measured on 4 ready pods is 0.8 × 4 / 6 = 0.533 averaged over all 6: within 10% of 0.5
    assert control.recommend(0.8) == hand_hpa(6, 0.8 * 4 / 6, 0.5) == 6
    assert control.recommend(1.0) == hand_hpa(6, 1.0 * 4 / 6, 0.5) == 8


def test_queue_depth_is_a_total_divided_by_the_target_per_replica():
    control = controller(initial=4, metric="queue_depth", target=8.0)
    assert control.recommend(45.0) == math.ceil(45.0 / 8.0)
    assert control.recommend(33.0) == 4  # 33 / (8 × 4) = 1.03, within tolerance


def test_scale_down_waits_for_the_highest_recommendation_of_the_window():
    control = controller(initial=8, down_window_s=300.0)
    assert control.stabilise(0.0, 8) == 8
    assert control.stabilise(15.0, 3) == 8  # 8 was recommended 15 s ago
    assert control.stabilise(285.0, 3) == 8
    assert control.stabilise(300.0, 3) == 3  # the 8 of t = 0 has left the 300 s window


def test_scale_up_stabilisation_takes_the_lowest_recommendation_of_its_window():
    control = controller(initial=2, up_window_s=60.0)
    assert control.stabilise(0.0, 10) == 10
    assert control.stabilise(15.0, 6) == 6
    assert control.stabilise(30.0, 9) == 6
    assert control.stabilise(75.0, 9) == 9  # the 6 of t = 15 has left the 60 s window


def test_scale_up_rate_is_four_pods_or_double_per_minute():
    control = controller(initial=3, max_replicas=100)
    assert control.scale_up_limit(0.0, 20) == max(3 + 4, 2 * 3)
    control.scale_to(0, 7, "first step")
    # within the same minute the base is still the 3 replicas of a minute ago
    assert control.scale_up_limit(30.0, 20) == 7
    # a minute later the base is 7: max(7 + 4, 14)
    assert control.scale_up_limit(60.0, 20) == 14
    big = controller(initial=10, max_replicas=100)
    assert big.scale_up_limit(0.0, 50) == 2 * 10


def test_bounds_and_predictive_floor_clamp_the_recommendation():
    control = controller(initial=4, min_replicas=2, max_replicas=10)
    assert control.clamp(1, 0, control.upper_bound()) == 2
    assert control.clamp(14, 0, control.upper_bound()) == 10
    assert control.clamp(3, 6, control.upper_bound()) == 6  # the floor lifts it
    control.cap = 5  # a GPU shortage
    assert control.upper_bound() == 5 and control.clamp(3, 6, control.upper_bound()) == 5


def test_one_sync_tick_reads_the_metric_at_the_ready_count_and_scales():
    control = controller(initial=4, max_replicas=20, provisioning_s=60.0)
    work = 3.2  # replicas' worth of busy time: utilisation 0.8 on 4 ready replicas
    control.metric_at = lambda ready, lo, hi: np.full(hi - lo, work / ready)
    control.control(0)
    wanted = hand_hpa(4, work / 4, 0.5)  # ceil(4 × 1.6) = 7, under the rate limit of 8
    assert (control.replicas, control.ready) == (wanted, 4) == (7, 4)
    assert control.events[-1][1:3] == ("scaled", "pool")
    assert control.events[-1][3].startswith("4 → 7 replicas")


def test_provisioning_delays_readiness_to_the_first_tick_after_it():
    control = controller(initial=2, provisioning_s=40.0)
    control.scale_to(0, 5, "more")
    assert (control.replicas, control.ready) == (5, 2)
    control.mature(2)  # t = 30 s: still starting
    assert control.ready == 2
    control.mature(3)  # t = 45 s, the first tick at or after 40 s
    assert control.ready == 5
    assert control.events[-1][1] == "replica_ready"


def test_scale_to_zero_after_stable_window_and_grace_then_cold_start():
    control = controller(initial=2, provisioning_s=20.0, scale_to_zero=True, min_replicas=0, zero_grace_s=30.0)
    hi = control.upper_bound()
    control.idle_since = 0.0
    quiet = int((60.0 + 30.0) / TICK_S)  # Knative stable window + grace, in ticks
    assert not control.scale_from_or_to_zero(quiet - 1, 0.0, 0, hi)
    assert control.replicas == 2
    assert control.scale_from_or_to_zero(quiet, 0.0, 0, hi)
    assert control.replicas == 0
    assert control.scale_from_or_to_zero(quiet + 1, 0.0, 0, hi) and control.replicas == 0  # no traffic: stays
    assert control.scale_from_or_to_zero(quiet + 2, 5.0, 0, hi)  # the first request activates one replica
    assert (control.replicas, control.ready) == (1, 0)
    assert "cold start" in control.events[-1][3]
