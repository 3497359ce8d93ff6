"""The timeline against theory computed here: Erlang C, HPA/KEDA/Knative rules, failover timing."""

from __future__ import annotations

import json
import math
from dataclasses import astuple
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inferboard.catalog import default_catalog
from inferboard.model import Design
from inferboard.model.faults import FAULT_KINDS
from inferboard.model.requirements import Requirements
from inferboard.sim.design.faults import TimedFault, parse_fault
from inferboard.sim.design.hardware import CPU_SPOT_PRICE_FACTOR
from inferboard.sim.timeline import autoscaling as autoscaling_module
from inferboard.sim.timeline import timeline_state
from inferboard.sim.timeline.series import TimelineEvent
from inferboard.sim.timeline.timeline import run_timeline
from inferboard.store import read_design
from tests.sim.oracles import erlang_c

EXAMPLES = Path(__file__).resolve().parents[2] / "assets" / "examples"
#: cpu_pool per replica per hour at 4 vCPUs, as the catalog prices it (components/cpu_pool.yaml)
CPU_PRICE = default_catalog().kinds["cpu_pool"].cost.per_replica_per_hour


def example(name: str) -> Design:
    return read_design(EXAMPLES / f"{name}.json")[0]


def cpu_design(pool: dict | None = None, scaler: dict | None = None, queue: dict | None = None, **req) -> Design:
    """users -> (request queue ->) cpu pool, optionally autoscaled; no other cost."""
    defaults = dict(mean_rps=100.0, peak_rps=400.0, slo_p99_ms=100.0, availability_slo=99.9)
    design = Design(requirements=Requirements(**{**defaults, **req}))
    design.add_node("traffic_source", node_id="users", params={"arrival_cv": 1.0})
    design.add_node("cpu_pool", node_id="pool", params={"replicas": 2, "workers_per_replica": 4, "service_ms": 10.0,
                                                        "service_cv": 1.0, "provisioning_s": 30.0, **(pool or {})})
    if queue is not None:
        design.add_node("request_queue", node_id="queue", params=queue)
        design.connect("users", "requests", "queue", "requests")
        design.connect("queue", "requests", "pool", "requests")
    else:
        design.connect("users", "requests", "pool", "requests")
    if scaler is not None:
        design.add_node("autoscaler", node_id="hpa", params={"metric": "rps", "target": 50.0, **scaler})
        design.connect("hpa", "scaling", "pool", "scaling")
    return design


def trace(tmp_path, rows) -> Path:
    path = tmp_path / "trace.csv"
    path.write_text("time_s,rps\n" + "".join(f"{t},{r}\n" for t, r in rows))
    return path


def events_of(result, kind, node=None) -> list[TimelineEvent]:
    return [e for e in result.events if e.kind == kind and (node is None or e.node_id == node)]


# ----------------------------------------------------------------------------- steady queues
def mmc_sojourn_quantile(c: int, mu: float, lam: float, p: float) -> float:
    """The p-quantile of the M/M/c sojourn (seconds): the service exponential plus, with probability
    Erlang C, an exponential wait at rate theta = c*mu - lam; its tail, from the convolution,
    P(T > t) = e^{-mu t} + K mu (e^{-theta t} - e^{-mu t}) / (mu - theta), solved by bisection."""
    theta, k = c * mu - lam, erlang_c(c, lam / mu)

    def tail(t):
        if abs(mu - theta) < 1e-9 * mu:  # the limit theta -> mu
            return math.exp(-mu * t) * (1 + k * mu * t)
        return math.exp(-mu * t) + k * mu / (mu - theta) * (math.exp(-theta * t) - math.exp(-mu * t))

    lo, hi = 0.0, -2 * math.log(1 - p) / min(mu, theta)  # the tail at hi is below 1 - p
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if tail(mid) > 1 - p else (lo, mid)
    return lo


@pytest.mark.parametrize("replicas, workers, service_ms, lam", [(2, 4, 10.0, 600.0), (3, 1, 20.0, 120.0),
                                                                 (1, 1, 10.0, 90.0), (10, 8, 5.0, 14000.0),
                                                                 (4, 2, 10.0, 700.0)])
def test_steady_tick_is_erlang_c_and_its_percentiles_the_exact_mmc_ones(replicas, workers, service_ms, lam):
    design = cpu_design({"replicas": replicas, "workers_per_replica": workers, "service_ms": service_ms},
                        mean_rps=lam, peak_rps=lam, traffic_pattern="steady")
    result = run_timeline(design, hours=0.25, tick_s=60)
    c, mu = replicas * workers, 1000.0 / service_ms
    wait = erlang_c(c, lam / mu) / (c * mu - lam)
    assert result.series["wait_ms:pool"][10] == pytest.approx(wait * 1000, rel=0.01)
    assert result.series["queue:pool"][10] == pytest.approx(lam * wait, rel=0.01)
    assert result.series["utilisation:pool"][10] == pytest.approx(lam / (c * mu), rel=1e-6)
    assert result.series["throughput_rps"][10] == pytest.approx(lam, rel=1e-6)
    for p, key in ((0.5, "p50_ms"), (0.95, "p95_ms"), (0.99, "p99_ms")):  # within 3% (docs/simulator.md)
        want = mmc_sojourn_quantile(c, mu, lam, p) * 1000
        assert result.series[key][10] == pytest.approx(want, rel=0.03), key


def test_overload_sheds_the_excess_and_keeps_series_finite():
    design = cpu_design({"replicas": 1, "workers_per_replica": 1, "service_ms": 10.0}, mean_rps=300,
                        peak_rps=300, traffic_pattern="steady")
    series = run_timeline(design, hours=0.2, tick_s=60).series
    assert series["shed_rate"][3] == pytest.approx(1 - 100 / 300, abs=0.01)  # fluid loss 1 - 1/rho
    assert series["throughput_rps"][3] == pytest.approx(100, rel=0.02)
    assert series["p99_ms"][3] <= 30_000 * 1.01  # clients' patience
    # Every served request waits seconds (> the 100 ms SLO): bad = shed + (1 - 1% allowance) of the served.
    bad = series["shed_rate"][3] + 0.99 * (1 - series["shed_rate"][3])
    assert series["burn_rate"][3] == pytest.approx(bad / 0.001, rel=0.01)
    assert events_of(run_timeline(design, hours=0.2, tick_s=60), "shedding_started", "pool")


# ----------------------------------------------------------------------------- HPA
def test_hpa_step_response_rate_limit_provisioning_and_scale_down_window(tmp_path):
    design = cpu_design(scaler={})
    csv = trace(tmp_path, [(0, 100), (1800, 400), (3600, 100)])
    result = run_timeline(design, hours=1.5, tick_s=5, replay_csv=csv)
    reps, ready, t = result.series["replicas:pool"], result.series["ready:pool"], result.times_s
    lo, hi, target, prov = 2, 10, 50.0, 30.0  # max(autoscaler 1, pool 2), min(autoscaler 10, pool 20)
    desired_high = min(math.ceil(400 / target), hi)
    first = max(2 + 4, 2 * 2)  # HPA default policy: max(+4 pods, +100%) per 60 s
    assert desired_high == 8 and first == 6
    assert np.all(reps[t < 1800] == 2)
    assert reps[t == 1800][0] == first and reps[t == 1855][0] == first
    assert reps[t == 1860][0] == desired_high  # the 60 s policy period has passed
    # ready provisioning_s after each decision, not a tick sooner
    assert ready[t == 1800 + prov - 5][0] == 2 and ready[t == 1800 + prov][0] == first
    assert ready[t == 1860 + prov - 5][0] == first and ready[t == 1860 + prov][0] == desired_high
    # Step down at 3600: the last high recommendation is from the 3585 sync; it leaves the 300 s window at 3885.
    assert reps[t == 3880][0] == desired_high and reps[t == 3885][0] == lo
    assert ready[t == 3885][0] == lo
    scaled = [(e.time_s, e.message.split(":")[0]) for e in events_of(result, "scaled", "pool")]
    assert scaled == [(1800.0, "2 → 6 replicas"), (1860.0, "6 → 8 replicas"), (3885.0, "8 → 2 replicas")]
    assert [e.time_s for e in events_of(result, "replica_ready", "pool")] == [1830.0, 1890.0]
    cost = result.series["cost_per_hour"]
    assert cost[t == 1860][0] == pytest.approx(8 * CPU_PRICE)  # replicas starting are billed


def test_tolerance_suppresses_small_changes(tmp_path):
    design = cpu_design({"replicas": 2}, scaler={"tolerance": 0.1})
    small = run_timeline(design, hours=0.5, tick_s=15, replay_csv=trace(tmp_path, [(0, 100), (300, 109)]))
    assert np.all(small.series["replicas:pool"] == 2)  # 109/100 within 1 ± 0.1
    large = run_timeline(design, hours=0.5, tick_s=15, replay_csv=trace(tmp_path, [(0, 100), (300, 115)]))
    assert large.series["replicas:pool"][-1] == math.ceil(115 / 50)


def test_clamped_to_the_intersection_of_autoscaler_and_pool_limits(tmp_path):
    design = cpu_design({"min_replicas": 3, "max_replicas": 7}, scaler={"min_replicas": 2, "max_replicas": 12})
    result = run_timeline(design, hours=1, tick_s=15, replay_csv=trace(tmp_path, [(0, 10), (900, 5000), (1800, 1)]))
    reps = result.series["replicas:pool"]
    assert reps.max() == 7 and reps.min() == 3
    assert reps[0] == 3  # the configured 2 is below the pool's minimum


def test_queue_depth_and_utilisation_metrics_follow_their_definitions():
    design = cpu_design({"replicas": 2, "workers_per_replica": 4, "service_ms": 10.0},
                        scaler={"metric": "cpu_utilisation", "target": 0.5, "min_replicas": 1},
                        mean_rps=600, peak_rps=600, traffic_pattern="steady")
    result = run_timeline(design, hours=0.25, tick_s=15)
    # 2 replicas at utilisation 0.75: desired = ceil(2 * 0.75 / 0.5) = 3
    assert result.series["replicas:pool"][0] == 3
    assert result.series["utilisation:pool"][-1] == pytest.approx(600 / (3 * 4 * 100))
    design = cpu_design({"replicas": 2, "workers_per_replica": 4, "service_ms": 10.0},
                        scaler={"metric": "queue_depth", "target": 0.25, "min_replicas": 1},
                        mean_rps=600, peak_rps=600, traffic_pattern="steady")
    lq = 600 * erlang_c(8, 6.0) / (800 - 600)
    result = run_timeline(design, hours=0.1, tick_s=15)
    assert math.ceil(lq / 0.25) == 5
    assert result.series["replicas:pool"][0] == 5  # KEDA AverageValue: ceil(total queue / target)


# ----------------------------------------------------------------------------- faults
def test_region_outage_fails_over_after_health_check_detection():
    design = example("multi-region")
    glb = design.nodes["glb"].params
    detection = glb["health_check_interval_s"] * glb["unhealthy_threshold"]
    start, tick = 7200.0, 10.0
    result = run_timeline(design, hours=4, tick_s=tick, faults=[parse_fault("region_outage:us-east@2h+1h")])
    s, t = result.series, result.times_s
    window = (t >= start) & (t < start + detection)
    after = (t >= start + detection) & (t < start + 3600)
    us_share = design.nodes["users-us"].params["share"]
    assert np.allclose(s["error_rate"][window], us_share)  # everything sent to us-east is lost
    assert np.all(s["error_rate"][after] < 1e-6) and np.all(s["error_rate"][t < start] < 1e-6)
    # eu-west's GPUs take (1 - hit ratio) * (1 - canary share) of all traffic instead of eu's share of it
    nodes = design.nodes
    miss = (1 - nodes["eu-west-cache"].params["hit_ratio"]) * (1 - nodes["eu-west-canary"].params["canary_share"])
    ratio = s["arrival_rps:eu-west-gpus"] / s["offered_rps"]
    assert np.allclose(ratio[t < start], (1 - us_share) * miss)
    assert np.allclose(ratio[after], miss)
    assert ratio[after][0] / ratio[t < start][0] == pytest.approx(1 / (1 - us_share))
    assert np.all(s["arrival_rps:us-east-gpus"][after] == 0)
    started = events_of(result, "failover_started", "us-east")
    assert [e.time_s for e in started] == [start + detection]
    assert [e.time_s for e in events_of(result, "failover_done", "us-east")] == [start + detection]
    assert [e.time_s for e in events_of(result, "fault_ended", "us-east")] == [start + 3600]


def test_region_outage_without_surviving_capacity_shows_as_errors():
    both = [parse_fault("region_outage:us-east@1h+1h"), parse_fault("region_outage:eu-west@1h+1h")]
    result = run_timeline(example("multi-region"), hours=3, tick_s=60, faults=both)
    s, t = result.series, result.times_s
    down = (t >= 3600) & (t < 7200)
    assert np.all(s["error_rate"][down] + s["shed_rate"][down] > 0.999)
    assert np.all(s["throughput_rps"][down] == 0)
    assert events_of(result, "burn_rate_alert")
    single = run_timeline(example("starter"), hours=2, tick_s=60, faults=[parse_fault("region_outage:us-east@1h+10m")])
    assert np.all(single.series["error_rate"][(single.times_s >= 3600) & (single.times_s < 4200)] == 1)
    assert not events_of(single, "failover_started")  # no global load balancer: nothing fails over


def test_spot_reclaim_removes_exactly_the_spot_replicas():
    design = cpu_design({"replicas": 6, "spot_share": 0.5})
    result = run_timeline(design, hours=1, tick_s=60, faults=[parse_fault("spot_reclaimed:pool@20m+20m")])
    reps, t = result.series["replicas:pool"], result.times_s
    assert np.all(reps[t < 1200] == 6)
    assert np.all(reps[(t >= 1200) & (t < 2400)] == 6 - round(6 * 0.5))
    # back after the fault once the replacements have provisioned
    assert reps[t == 2400][0] == 6 and result.series["ready:pool"][t == 2400][0] == 3
    spot, on_demand = 0.5 * 6 * CPU_PRICE * CPU_SPOT_PRICE_FACTOR, 0.5 * 6 * CPU_PRICE
    assert result.series["cost_per_hour"][0] == pytest.approx(spot + on_demand)
    assert result.series["cost_per_hour"][t == 1200][0] == pytest.approx(3 * CPU_PRICE)
    multi = run_timeline(example("multi-region"), hours=1, tick_s=15,
                         faults=[parse_fault("spot_reclaimed:us-east-gpus@10m+30m")])
    reps, ready = multi.series["replicas:us-east-gpus"], multi.series["ready:us-east-gpus"]
    i = int(np.searchsorted(multi.times_s, 600))
    assert ready[i] == ready[i - 1] - round(reps[i - 1] * 0.3)
    # the autoscaler's minimum (4) asks for an on-demand replacement at once; it serves after provisioning
    assert reps[i] == 4 and ready[i + 90 // 15] == 4
    messages = [e.message for e in events_of(multi, "scaled", "us-east-gpus") if e.time_s == 600]
    assert messages[0].startswith("4 → 3 replicas: 1 spot replica(s) reclaimed") and messages[1].startswith("3 → 4")


def test_gpu_shortage_caps_replicas(tmp_path):
    result = run_timeline(example("starter"), hours=1, tick_s=30, faults=[parse_fault("gpu_shortage*1:gpus@10m+20m")],
                          replay_csv=trace(tmp_path, [(0, 2000)]))
    reps, t = result.series["replicas:gpus"], result.times_s
    assert reps[t < 600].max() > 1
    assert np.all(reps[(t >= 600) & (t < 1800)] <= 1)


def test_traffic_surge_multiplies_the_offered_rate():
    result = run_timeline(example("cpu-small"), hours=1, tick_s=60, faults=[parse_fault("traffic_surge*3:*@20m+10m")])
    offered, t = result.series["offered_rps"], result.times_s
    assert np.all(offered[(t >= 1200) & (t < 1800)] == pytest.approx(1500))
    assert np.all(offered[t < 1200] == pytest.approx(500))


def test_compiles_once_per_distinct_fault_set(monkeypatch):
    calls = []
    real = timeline_state.compile_design
    monkeypatch.setattr(timeline_state, "compile_design", lambda *a, **k: calls.append(1) or real(*a, **k))
    faults = [parse_fault("region_outage:us-east@1h+1h"), parse_fault("traffic_surge:*@5h+1h")]
    run_timeline(example("multi-region"), hours=8, tick_s=10, faults=faults)
    assert len(calls) == 4  # none, outage undetected, outage detected, surge


# ----------------------------------------------------------------------------- Knative / predictive
def test_scale_to_zero_after_idle_window_and_cold_start(tmp_path):
    design = cpu_design({"replicas": 2, "min_replicas": 0, "provisioning_s": 20.0},
                        scaler={"scale_to_zero": True, "min_replicas": 0, "scale_to_zero_grace_s": 30.0})
    result = run_timeline(design, hours=0.6, tick_s=5, replay_csv=trace(tmp_path, [(0, 100), (600, 0), (1200, 100)]))
    reps, t, s = result.series["replicas:pool"], result.times_s, result.series
    zero_at = 600 + 60 + 30  # Knative stable window + grace
    assert reps[t == zero_at - 5][0] > 0 and reps[t == zero_at][0] == 0
    assert np.all(reps[(t >= zero_at) & (t < 1200)] == 0)
    first = t == 1200
    assert reps[first][0] == 1 and s["ready:pool"][first][0] == 0
    assert s["p50_ms"][first][0] == pytest.approx(20_000, rel=0.01)  # waits for the whole cold start
    # The requests that arrived during the cold start (100/s for 20 s) are a backlog that the first
    # replica (4 workers, 400/s) drains at 300/s: in the tick from 1220 s it falls from 2000 to 500, so
    # the requests completing in it arrived from 1200 s (waited 20 s) to 1220 s (2000 served by 1225 s:
    # waited 5 s).
    assert s["ready:pool"][t == 1220][0] == 1
    assert s["wait_ms:pool"][t == 1220][0] == pytest.approx((20 + 5) / 2 * 1000, rel=0.05)
    assert s["p50_ms"][t == 1230][0] < 100
    assert s["shed_rate"][first][0] == 0


def test_cold_start_longer_than_the_queue_timeout_times_out(tmp_path):
    design = cpu_design({"replicas": 0, "min_replicas": 0, "provisioning_s": 20.0},
                        scaler={"scale_to_zero": True, "min_replicas": 0}, queue={"timeout_ms": 5000.0})
    result = run_timeline(design, hours=0.1, tick_s=5, replay_csv=trace(tmp_path, [(0, 0), (60, 50)]))
    s, t = result.series, result.times_s
    assert s["replicas:pool"][0] == 0
    assert s["shed_rate"][t == 60][0] == 1.0  # the 20 s cold start is longer than the 5 s timeout
    assert s["shed_rate"][t == 80][0] < 1e-6


def test_predictive_schedule_raises_the_floor_before_the_hour():
    design = cpu_design({"replicas": 2, "provisioning_s": 90.0},
                        scaler={"predictive": True, "predictive_schedule": [[0, 2], [10, 8], [20, 2]],
                                "min_replicas": 2}, mean_rps=50, peak_rps=50, traffic_pattern="steady")
    result = run_timeline(design, hours=12, tick_s=60)
    reps, ready, t = result.series["replicas:pool"], result.series["ready:pool"], result.times_s
    hour = 10 * 3600
    asked = t[np.argmax(reps >= 8)]
    assert hour - 90 - 60 <= asked <= hour - 90  # asked provisioning_s (plus one tick) early
    assert ready[t == hour][0] == 8 and ready[t == hour - 60][0] == 2


def test_skipping_quiet_stretches_changes_nothing(monkeypatch):
    design = cpu_design({"replicas": 2, "max_replicas": 40, "provisioning_s": 45.0},
                        scaler={"metric": "cpu_utilisation", "target": 0.5, "scale_up_stabilization_s": 60.0,
                                "max_replicas": 40, "predictive": True,
                                "predictive_schedule": [[0, 0], [2, 10], [3, 0]]},
                        mean_rps=300, peak_rps=900, traffic_pattern="bursty")
    faults = [parse_fault("spot_reclaimed:pool@1h+1h"), parse_fault("traffic_surge*3:*@4h+20m")]
    cases = [(design, dict(hours=6, tick_s=10, faults=faults, seed=3)),
             (example("starter"), dict(hours=24, tick_s=30, faults=[parse_fault("traffic_surge*6:*@14h+2h")]))]
    for case, kwargs in cases:
        fast = run_timeline(case, **kwargs)
        monkeypatch.setattr(autoscaling_module, "SKIP_QUIET_STRETCHES", False)
        slow = run_timeline(case, **kwargs)
        monkeypatch.setattr(autoscaling_module, "SKIP_QUIET_STRETCHES", True)
        assert [astuple(e) for e in fast.events] == [astuple(e) for e in slow.events]
        assert all(np.array_equal(fast.series[k], slow.series[k]) for k in fast.series)
        assert len(events_of(fast, "scaled")) >= 5


# ----------------------------------------------------------------------------- events, output
def test_slo_breach_and_recovery_events_follow_p99():
    design = cpu_design({"replicas": 1, "workers_per_replica": 2, "service_ms": 10.0}, mean_rps=100, peak_rps=190,
                        traffic_pattern="spike", slo_p99_ms=100.0)
    result = run_timeline(design, hours=10, tick_s=60)
    p99 = result.series["p99_ms"]
    breached = [e.time_s for e in events_of(result, "slo_breached")]
    assert breached and all(p99[result.times_s == b][0] > 100 for b in breached)
    assert events_of(result, "slo_recovered")[0].time_s == 0.4 * 36000 + 600


def test_result_keys_and_json(tmp_path):
    result = run_timeline(example("multi-region"), hours=1, tick_s=60)
    keys = result.series.keys()
    for key in ("offered_rps", "throughput_rps", "p50_ms", "p95_ms", "p99_ms", "shed_rate", "error_rate",
                "cost_per_hour", "burn_rate"):
        assert key in keys
    for pool in ("us-east-gpus", "eu-west-fallback"):
        for prefix in ("replicas", "ready", "utilisation", "queue"):
            assert f"{prefix}:{pool}" in keys
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert len(data["times_s"]) == 60 and set(data["series"]) == set(keys)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["starter", "cpu-small", "multi-region"]),
       schedule=st.lists(st.tuples(st.sampled_from(sorted(FAULT_KINDS)), st.floats(0, 6 * 3600), st.floats(1, 4 * 3600),
                                   st.sampled_from([None, 0.0, 0.5, 1.0, 3.0, 50.0]), st.booleans()), max_size=4),
       pattern=st.sampled_from(["steady", "diurnal", "step", "spike", "bursty"]))
def test_series_are_finite_under_random_fault_schedules(name, schedule, pattern):
    design = example(name)
    targets = {"region_outage": [n.id for n in design.nodes.values() if n.kind == "region"]}
    faults = []
    for kind, start, duration, magnitude, wildcard in schedule:
        pools = [n.id for n in design.nodes.values() if n.kind in ("gpu_pool", "cpu_pool", "feature_service")]
        options = targets.get(kind, pools)
        target = "*" if wildcard and kind != "region_outage" else options[int(start) % len(options)]
        if kind in ("failing_replica", "dependency_errors") and magnitude is not None:
            magnitude = min(magnitude, 1.0)
        faults.append(TimedFault(kind, target, magnitude, start, duration))
    result = run_timeline(design, hours=8, tick_s=120, faults=faults, pattern=pattern)
    for key, values in result.series.items():
        assert values.shape == result.times_s.shape
        assert np.all(np.isfinite(values)) and np.all(values >= 0), key
    for key in ("shed_rate", "error_rate"):
        assert np.all(result.series[key] <= 1)
    assert np.all(result.series["error_rate"] + result.series["shed_rate"] <= 1 + 1e-9)
    json.dumps(result.to_dict(), allow_nan=False)
