"""Compiling designs into queueing networks: traffic flow, hardware and cost by hand."""

import math

import pytest

from inferboard.model import Design, Requirements
from inferboard.model import ops
from inferboard.sim.design.compile import compile_design
from inferboard.sim.design.routing import FALLBACK_THRESHOLD
from inferboard.sim.design.faults import Fault, parse_fault
from inferboard.sim.design.hardware import PRECISION_SPEED
from inferboard.store import read_design
from inferboard.cli import templates


def chain(*kinds_and_params, rps=100.0, requirements=None):
    design = Design(requirements=requirements or Requirements(mean_rps=rps, peak_rps=rps * 2))
    previous = design.add_node("traffic_source", node_id="src")
    for i, (kind, params) in enumerate(kinds_and_params):
        node = design.add_node(kind, node_id=f"n{i}", params=params)
        design.connect(previous.id, "requests", node.id, "requests")
        previous = node
    return design


def test_cache_hits_end_and_misses_continue():
    design = chain(("cache", {"hit_ratio": 0.4}), ("cpu_pool", {"replicas": 4}))
    compiled = compile_design(design, 200)
    assert compiled.node_rates["n1"] == pytest.approx(120)
    shares = {p.stations: p.share for p in compiled.network.paths}
    assert shares[("n0",)] == pytest.approx(0.4) and shares[("n0", "n1")] == pytest.approx(0.6)


def test_canary_split_and_cost_by_hand():
    design = chain(("canary_router", {"canary_share": 0.1}))
    design.add_node("cpu_pool", node_id="stable", params={"replicas": 3, "vcpus_per_replica": 8})
    design.add_node("gpu_pool", node_id="canary", params={"gpu_type": "t4", "replicas": 2, "spot_share": 0.5})
    design.connect("n0", "stable", "stable", "requests")
    design.connect("n0", "canary", "canary", "requests")
    compiled = compile_design(design, 100)
    assert compiled.node_rates["stable"] == pytest.approx(90)
    assert compiled.node_rates["canary"] == pytest.approx(10)
    t4 = design.catalog.gpus["t4"]
    cpu = design.catalog.kind("cpu_pool").cost.per_replica_per_hour
    expected = 3 * cpu * 2 + (t4.on_demand_per_hour + t4.spot_per_hour)
    assert compiled.cost_items["stable"] == pytest.approx(3 * cpu * 2)
    assert compiled.cost_per_hour == pytest.approx(expected)


def test_gpu_service_time_scales_with_speed_precision_and_batching():
    design = chain(("dynamic_batcher", {"max_batch_size": 8, "max_queue_delay_ms": 4}),
                   ("gpu_pool", {"gpu_type": "l4", "precision": "int8", "replicas": 2, "base_ms": 6.0,
                                 "per_item_ms": 1.5}))
    station = compile_design(design, 100).network.stations["n1"]
    scale = PRECISION_SPEED["int8"] / design.catalog.gpus["l4"].relative_speed
    assert station.batch_max == 8 and station.batch_timeout_s == pytest.approx(0.004)
    assert station.batch_base_s == pytest.approx(0.006 * scale)
    assert station.batch_item_s == pytest.approx(0.0015 * scale)
    assert station.capacity_rps == pytest.approx(2 * 8 / ((0.006 + 0.0015 * 8) * scale))


def test_model_that_does_not_fit_makes_the_pool_unusable():
    design = chain(("gpu_pool", {"gpu_type": "t4", "precision": "fp32"}),
                   requirements=Requirements(model_size_gb=10, mean_rps=50, peak_rps=60))
    compiled = compile_design(design, 50)
    assert compiled.plans["n0"].memory_fit is False
    assert compiled.lost_rps == pytest.approx(50)
    design.set_params("n0", precision="int8")
    assert compile_design(design, 50).plans["n0"].memory_fit is True


def test_mig_slices_split_memory_and_compute():
    design = chain(("gpu_pool", {"gpu_type": "a100_80gb", "partitioning": "mig", "partitions": 7, "replicas": 1}),
                   requirements=Requirements(model_size_gb=8, mean_rps=50, peak_rps=60))
    plan = compile_design(design, 50).plans["n0"]
    assert plan.servers == 7
    assert plan.memory_available_gb == pytest.approx(80 / 7 * 0.9)
    assert plan.memory_fit is True


def test_region_outage_fails_over_through_the_global_balancer():
    design, _ = read_design(templates()["multi-region"])
    normal = compile_design(design, 5000)
    assert normal.node_rates["us-east-gw"] == pytest.approx(3000)
    failed = compile_design(design, 5000, [Fault("region_outage", "us-east")])
    assert failed.node_rates["us-east-gw"] == 0
    assert failed.node_rates["eu-west-gw"] == pytest.approx(5000)
    assert failed.lost_rps == 0
    assert any(s.startswith("net:glb->eu-west") for s in failed.network.stations)
    design.set_params("glb", failover=False)
    no_failover = compile_design(design, 5000, [Fault("region_outage", "us-east")])
    assert no_failover.lost_rps == pytest.approx(3000)


def test_fallback_takes_the_overflow_above_primary_capacity():
    design = chain(("regional_load_balancer", {}), ("cpu_pool", {"replicas": 1, "workers_per_replica": 2,
                                                                   "service_ms": 10}))
    design.add_node("fallback_model", node_id="fb", params={"replicas": 2})
    design.connect("n0", "requests", "fb", "requests")
    compiled = compile_design(design, 400)  # primary capacity 200 rps
    assert compiled.node_rates["n1"] == pytest.approx(FALLBACK_THRESHOLD * 200)
    assert compiled.node_rates["fb"] == pytest.approx(400 - FALLBACK_THRESHOLD * 200)


def test_admission_control_sheds_above_its_threshold():
    design = chain(("admission_control", {"shed_above_utilisation": 0.8}),
                   ("cpu_pool", {"replicas": 1, "workers_per_replica": 4, "service_ms": 10}))  # 400 rps
    compiled = compile_design(design, 500)
    assert compiled.node_rates["n1"] == pytest.approx(320)
    assert compiled.shed_rps["n0"] == pytest.approx(180)


def test_rate_limit_and_spot_and_shortage_faults():
    design = chain(("regional_load_balancer", {"rate_limit_rps": 150}),
                   ("gpu_pool", {"replicas": 8, "spot_share": 0.25}))
    compiled = compile_design(design, 200)
    assert compiled.shed_rps["n0"] == pytest.approx(50)
    assert compile_design(design, 200, [Fault("spot_reclaimed")]).plans["n1"].replicas == 6
    assert compile_design(design, 200, [Fault("gpu_shortage", "n1", 3)]).plans["n1"].replicas == 3


def test_generation_pool_is_bounded_by_kv_cache():
    req = Requirements(workload="generative", model_size_gb=14, prompt_tokens=1000, output_tokens=500,
                       mean_rps=5, peak_rps=10)
    design = chain(("generation_pool", {"gpu_type": "a10g", "replicas": 1}), requirements=req)
    plan = compile_design(design, 5).plans["n0"]
    # 24 GB * 0.9 = 21.6 GB usable, 14 GB weights, 1500 tokens * 0.5 MB = 0.73 GB per sequence -> 10 slots
    assert plan.servers == math.floor((24 * 0.9 - 14) / (1500 * 0.5 / 1024))
    assert plan.tpot_s > 14 / (600 * 0.6)  # at least the weight-read time per step (600 GB/s at 60%)


def test_parse_fault_syntax():
    fault = parse_fault("region_outage:us-east@2h+30m")
    assert (fault.kind, fault.target, fault.start_s, fault.duration_s) == ("region_outage", "us-east", 7200, 1800)
    assert parse_fault("traffic_surge*3:*@600+60").amount == 3
    with pytest.raises(ValueError, match="unknown fault"):
        parse_fault("meteor:*@1+1")


def canary_design(auto_rollback):
    design = chain(("canary_router", {"canary_share": 0.2, "auto_rollback": auto_rollback,
                                      "rollback_latency_ratio": 1.5}))
    design.add_node("cpu_pool", node_id="stable", params={"replicas": 4})
    design.add_node("cpu_pool", node_id="canary", params={"replicas": 4})
    design.connect("n0", "stable", "stable", "requests")
    design.connect("n0", "canary", "canary", "requests")
    return design


def test_slow_canary_slows_the_canary_pool_unless_rolled_back():
    exposed = compile_design(canary_design(False), 100, [Fault("slow_canary", "*", 3.0)])
    assert exposed.network.stations["canary"].service_mean_s == pytest.approx(
        3 * exposed.network.stations["stable"].service_mean_s)
    assert exposed.node_rates["canary"] == pytest.approx(20)
    guarded = compile_design(canary_design(True), 100, [Fault("slow_canary", "*", 3.0)])
    assert guarded.node_rates["canary"] == 0 and guarded.node_rates["stable"] == pytest.approx(100)
    assert any("rolled back" in note for note in guarded.notes)


def test_kv_prefix_cache_shortens_prefill_instead_of_answering():
    req = Requirements(workload="generative", model_size_gb=14, prompt_tokens=2000, output_tokens=100,
                       mean_rps=1, peak_rps=2)
    design = chain(("cache", {"cache_type": "kv_prefix", "hit_ratio": 0.5}),
                   ("generation_pool", {"gpu_type": "h100", "replicas": 1}), requirements=req)
    compiled = compile_design(design, 1)
    assert compiled.node_rates["n1"] == pytest.approx(1)  # nothing answered by the cache itself
    without = compile_design(chain(("generation_pool", {"gpu_type": "h100", "replicas": 1}), requirements=req), 1)
    assert compiled.plans["n1"].ttft_s < without.plans["n0"].ttft_s


def test_fallback_below_a_pool_takes_only_the_overflow():
    design = chain(("feature_service", {"replicas": 4}), ("cpu_pool", {"replicas": 4}))
    design.add_node("fallback_model", node_id="fb")
    design.connect("n0", "requests", "fb", "requests")
    compiled = compile_design(design, 100)
    assert compiled.node_rates["fb"] == 0 and compiled.node_rates["n1"] == pytest.approx(100)
