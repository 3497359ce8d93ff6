"""The LLM pool against hand computations from its formulas, with the FLOPs and bytes taken here
from the GPU table: prefill = 2·P·L / (F·e_p) + weights / (B·e_d), a decode step =
max(weights / (B·e_d), 2·P·n / (F·e_p)) + sequences × context × KV per token / (B·e_d), the running
batch from n = λ·S(n), time to first token = prefill wait + prefill (no decode step), and its
percentiles against the exact M/D/1 waiting-time distribution."""

from __future__ import annotations

import math

import pytest

from inferboard.catalog import default_catalog
from inferboard.model import Design, Requirements, ops
from inferboard.rules import behaviour
from inferboard.rules import conditions as c
from inferboard.rules.context import DesignIndex
from inferboard.sim.steady.design_sim import evaluate

CATALOG = default_catalog()
SPEC = CATALOG.kind("generation_pool")
E_P = SPEC.param("prefill_efficiency").default
E_D = SPEC.param("decode_efficiency").default


def llm_design(model_gb=14.0, prompt=1000, out=200, **params) -> Design:
    design = Design(requirements=Requirements(workload="generative", model_size_gb=model_gb, prompt_tokens=prompt,
                                              output_tokens=out, slo_ttft_ms=500))
    design.add_node("traffic_source", node_id="src")
    design.add_node("generation_pool", node_id="llm", params={"replicas": 1, **params})
    design.connect("src", "requests", "llm", "requests")
    return design


def hand_state(rate, *, params, weight_bytes, flops, bandwidth, kv_bytes, prompt, out, fixed_s=0.0, per_token_s=0.0):
    """The replica by the formulas, the fixed point by plain iteration. ``fixed_s`` is the fixed
    time of a forward pass (engine overhead and all-reduce latencies), ``per_token_s`` the
    all-reduce link time per token of a pass."""
    t_p = fixed_s + prompt * per_token_s + 2 * params * prompt / (flops * E_P) + weight_bytes / (bandwidth * E_D)
    rho = rate * t_p
    wait = rho * t_p / (2 * (1 - rho))
    context = prompt + out / 2

    def step(batch):
        return (fixed_s + batch * per_token_s + max(weight_bytes / (bandwidth * E_D), 2 * params * batch / (flops * E_P))
                + batch * context * kv_bytes / (bandwidth * E_D))

    n = 0.0
    for _ in range(2000):
        n = rate * (wait + t_p + out * step(n + 1) / (1 - rho))
    return {"prefill_s": t_p, "prefill_share": rho, "prefill_wait_s": wait, "running": n, "step_s": step(n + 1),
            "tpot_s": step(n + 1) / (1 - rho), "service_s": wait + t_p + out * step(n + 1) / (1 - rho)}


@pytest.mark.parametrize("gpu_id, precision, tp, rate", [
    ("h100", "fp16", 1, 2.0), ("h100", "fp8", 1, 5.0), ("a100_80gb", "fp16", 1, 1.0), ("a100_40gb", "int8", 1, 1.5),
    ("h100", "fp8", 2, 6.0), ("l4", "fp8", 1, 0.2)])
def test_prefill_decode_and_the_running_batch_follow_the_formulas(gpu_id, precision, tp, rate):
    gpu = CATALOG.gpus[gpu_id]
    peak = getattr(gpu.peak_tflops, precision) * 1e12 * tp
    low_precision = precision in ("fp8", "int8")
    bytes_per_weight = {"fp16": 2, "fp8": 1, "int8": 1}[precision]
    design = llm_design(gpu_type=gpu_id, precision=precision, tensor_parallel=tp, kv_cache_mb_per_token=0.125,
                        step_overhead_ms=2.0, layers=32, hidden_size=4096)
    plan = evaluate(design, rate).compiled.plans["llm"]
    params = 14e9 / 2
    flops_eff_scale = 0.7 if low_precision else 1.0  # FP8/INT8 prefill reaches 70% of the FP16 share
    # two all-reduces per layer when split: a ring moves 2(tp-1)/tp of the 4096 x 2-byte activations
    calls = 64 if tp > 1 else 0
    per_token = calls * 2 * (tp - 1) / tp * 4096 * 2 / (gpu.interconnect_gb_s * 1e9)
    expect = hand_state(rate, params=params, weight_bytes=params * bytes_per_weight, flops=peak * flops_eff_scale,
                        bandwidth=gpu.hbm_bandwidth_tb_s * 1e12 * tp, kv_bytes=0.125e6, prompt=1000, out=200,
                        fixed_s=2e-3 + calls * gpu.allreduce_latency_us * 1e-6, per_token_s=per_token)
    for key, value in expect.items():
        assert getattr(plan.replica, key) == pytest.approx(value, rel=1e-9), key
    assert plan.price_per_hour == pytest.approx(tp * gpu.on_demand_per_hour)
    assert plan.ttft_s == pytest.approx(expect["prefill_wait_s"] + expect["prefill_s"])
    assert plan.service_mean_s == pytest.approx(expect["service_s"])


def test_a_gpu_without_fp8_tensor_cores_keeps_fp8_weights_but_computes_at_fp16():
    gpu = CATALOG.gpus["a100_80gb"]
    assert gpu.peak_tflops.fp8 is None
    plan = evaluate(llm_design(gpu_type="a100_80gb", precision="fp8", step_overhead_ms=0.0), 0.5).compiled.plans["llm"]
    assert plan.replica.prefill_s == pytest.approx(2 * 7e9 * 1000 / (gpu.peak_tflops.fp16 * 1e12 * E_P)
                                                   + 7e9 / (gpu.hbm_bandwidth_tb_s * 1e12 * E_D))
    assert plan.engine.weight_bytes == pytest.approx(7e9)
    assert any("no FP8 tensor cores" in note for note in plan.notes)


def test_a_large_batch_of_short_contexts_is_compute_bound():
    """Near capacity with 1,000 short sequences, 2·P FLOPs per sequence outweigh the weight reads;
    attention's KV reads come on top."""
    gpu = CATALOG.gpus["h100"]
    design = llm_design(prompt=16, out=64, gpu_type="h100", precision="fp16", kv_cache_mb_per_token=0.001,
                        max_num_seqs=1000, step_overhead_ms=0.0)
    capacity = evaluate(design, 1.0).compiled.plans["llm"].capacity_rps
    plan = evaluate(design, capacity * 0.9999).compiled.plans["llm"]
    batch = plan.replica.running + 1
    assert batch > 800
    flops_step = 2 * 7e9 * batch / (gpu.peak_tflops.fp16 * 1e12 * E_P)
    weights_step = 14e9 / (gpu.hbm_bandwidth_tb_s * 1e12 * E_D)
    kv_step = batch * 48 * 1e3 / (gpu.hbm_bandwidth_tb_s * 1e12 * E_D)
    assert flops_step > weights_step and plan.replica.compute_bound
    assert plan.replica.step_s == pytest.approx(flops_step + kv_step, rel=1e-9)


def test_capacity_is_where_the_running_batch_fills_the_kv_cache():
    design = llm_design(gpu_type="h100", precision="fp16", max_num_seqs=64, kv_cache_mb_per_token=0.125)
    plan = evaluate(design, 1.0).compiled.plans["llm"]
    capacity = plan.capacity_rps
    at = evaluate(design, capacity * 0.999999).compiled.plans["llm"].replica
    assert at.slots == 64 and at.running == pytest.approx(64, rel=1e-4)
    assert evaluate(design, capacity * 0.8).compiled.plans["llm"].replica.running < 64
    over = evaluate(design, capacity * 1.5)
    assert over.nodes["llm"].saturated and over.nodes["llm"].capacity_rps == pytest.approx(capacity)


def md1_wait_cdf(t, rho, d):
    """Exact M/D/1 waiting-time CDF (Erlang): (1-ρ) Σ_{k ≤ t/D} (λ(kD - t))^k / k! · e^{-λ(kD - t)}."""
    lam = rho / d
    total = 0.0
    for k in range(int(math.floor(t / d)) + 1):
        x = lam * (k * d - t)
        total += x ** k / math.factorial(k) * math.exp(-x)
    return (1 - rho) * total


def md1_wait_quantile(p, rho, d):
    if p <= 1 - rho:
        return 0.0
    lo, hi = 0.0, d
    while md1_wait_cdf(hi, rho, d) < p:
        hi *= 2
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if md1_wait_cdf(mid, rho, d) < p else (lo, mid)
    return lo


@pytest.mark.parametrize("target_rho", [0.3, 0.6])
def test_ttft_percentiles_are_prefill_plus_the_exact_md1_wait(target_rho):
    """With many sequence slots there is no slot wait, so TTFT = M/D/1 prefill wait + prefill (its
    logits give the first token); its p50/p95/p99 must match the exact M/D/1 distribution."""
    design = llm_design(model_gb=16.0, prompt=4000, out=20, gpu_type="h100", precision="fp16",
                        kv_cache_mb_per_token=0.01, max_num_seqs=4096)
    t_p = evaluate(design, 0.01).compiled.plans["llm"].replica.prefill_s
    result = evaluate(design, target_rho / t_p)
    node, replica = result.nodes["llm"], result.compiled.plans["llm"].replica
    assert replica.prefill_share == pytest.approx(target_rho)
    assert result.network.stations["llm"].p_wait < 1e-9  # no wait for a slot
    fixed = replica.prefill_s
    for p, got in ((0.5, node.ttft_p50_ms), (0.95, node.ttft_p95_ms), (0.99, node.ttft_p99_ms)):
        exact = (fixed + md1_wait_quantile(p, target_rho, t_p)) * 1000
        assert got == pytest.approx(exact, rel=0.01), p
    mean_wait = target_rho * t_p / (2 * (1 - target_rho))
    assert node.ttft_ms == pytest.approx((fixed + mean_wait) * 1000, rel=1e-6)


def test_the_ttft_slo_is_checked_at_its_95th_percentile():
    """LAT-001's leaf passes just above the pool's TTFT p95 and fails just below it, naming the pool."""
    design = llm_design(model_gb=16.0, prompt=4000, out=20, gpu_type="h100", precision="fp16",
                        kv_cache_mb_per_token=0.01, max_num_seqs=4096)
    t_p = evaluate(design, 0.01).compiled.plans["llm"].replica.prefill_s
    rps = 0.6 / t_p
    p95 = evaluate(design, rps).nodes["llm"].ttft_p95_ms
    for slo, passes in ((p95 * 1.001, True), (p95 * 0.999, False)):
        design.apply(ops.SetRequirements(design.requirements.model_copy(update={"slo_ttft_ms": slo, "peak_rps": rps})))
        result = behaviour.latency_within_slo(c.LatencyWithinSlo(load="peak"), DesignIndex(design))
        assert result.holds is passes
        if not passes:
            assert result.neg.nodes == {"llm"} and any("time to first token p95" in d for d in result.neg.details)
