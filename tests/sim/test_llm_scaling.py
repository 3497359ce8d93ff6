"""Tensor parallelism, mixture-of-experts, weight-only quantisation and prefill-heavy queueing in
the LLM pool, against hand computations from the GPU table: a forward pass costs the engine
overhead plus two all-reduces per layer (latency + 2(tp-1)/tp of the activations over the link),
a decode step reads the dense weights and the share ``1 - (1 - k/E)^b`` of the experts its ``b``
tokens touch, and weight-only modes read their bytes at a fraction of FP16's bandwidth."""

from __future__ import annotations

import pytest

from inferboard.catalog import default_catalog
from inferboard.model import Design, Requirements
from inferboard.sim.llm import llm
from inferboard.sim.steady.design_sim import evaluate
from tests.sim.test_llm import md1_wait_quantile

CATALOG = default_catalog()
SPEC = CATALOG.kind("generation_pool")
E_P = SPEC.param("prefill_efficiency").default
E_D = SPEC.param("decode_efficiency").default
MIXTRAL = {"experts": 8, "experts_per_token": 2, "active_param_share": 12.9 / 46.7, "layers": 32, "hidden_size": 4096}


def pool(model_gb, prompt=128, out=128, **params):
    """One replica of a generation pool behind a traffic source."""
    design = Design(requirements=Requirements(workload="generative", model_size_gb=model_gb, prompt_tokens=prompt,
                                              output_tokens=out))
    design.add_node("traffic_source", node_id="src")
    design.add_node("generation_pool", node_id="llm", params={"replicas": 1, "max_num_seqs": 1024, **params})
    design.connect("src", "requests", "llm", "requests")
    return design


def alone(design):
    """The replica at a vanishing rate: one request, batches of one."""
    return evaluate(design, 1e-6).compiled.plans["llm"]


def test_tensor_parallel_speed_grows_less_than_the_gpu_count():
    """Batch-1 decode of a 70B model on 2, 4 and 8 H100s: each step is the per-GPU weight read plus
    160 all-reduces, so tokens/s rises with the GPU count but less than in proportion."""
    gpu = CATALOG.gpus["h100"]
    rates = {}
    for tp in (2, 4, 8):
        plan = alone(pool(138.0, gpu_type="h100", tensor_parallel=tp, layers=80, hidden_size=8192,
                          kv_cache_mb_per_token=0.001, step_overhead_ms=1.0))
        context = 128 + 64
        by_hand = (1e-3 + 160 * gpu.allreduce_latency_us * 1e-6
                   + 160 * 2 * (tp - 1) / tp * 8192 * 2 / (gpu.interconnect_gb_s * 1e9)
                   + (138e9 + context * 1e3) / (gpu.hbm_bandwidth_tb_s * 1e12 * tp * E_D))
        assert plan.replica.step_s == pytest.approx(by_hand, rel=1e-6)
        rates[tp] = 1.0 / plan.replica.step_s
    assert rates[2] < rates[4] < rates[8]
    assert rates[4] / rates[2] < 2.0 and rates[8] / rates[4] < 2.0
    assert rates[8] / rates[2] < 0.8 * 4  # well short of linear at TP8


def test_pcie_all_reduces_cost_more_than_nvlink_ones():
    """The same TP4 replica pays more per step on PCIe cards than on NVLink ones, beyond their
    HBM difference: all-reduce time per step over the two links."""
    steps = {}
    for gpu_id in ("l40s", "h100"):
        gpu = CATALOG.gpus[gpu_id]
        plan = alone(pool(138.0, gpu_type=gpu_id, precision="fp8", tensor_parallel=4, layers=80, hidden_size=8192,
                          kv_cache_mb_per_token=0.001))
        engine = plan.engine
        steps[gpu_id] = engine.pass_fixed_s(1.0) - engine.step_overhead_s
        assert steps[gpu_id] == pytest.approx(160 * (gpu.allreduce_latency_us * 1e-6 + 1.5 * 8192 * 2
                                                     / (gpu.interconnect_gb_s * 1e9)), rel=1e-6)
    assert steps["l40s"] > 2 * steps["h100"]


@pytest.mark.parametrize("tokens, distinct", [(1, 2.0), (2, 3.5), (4, 8 * (1 - 0.75 ** 4)), (64, 8 * (1 - 0.75 ** 64))])
def test_a_batch_touches_the_expected_number_of_distinct_experts(tokens, distinct):
    """E = 8 experts, top-2: one token touches 2; two tokens 8·(1 - (6/8)²) = 3.5 on average."""
    engine = alone(pool(93.4, gpu_type="h100", precision="fp16", tensor_parallel=2, **MIXTRAL)).engine
    assert 8 * engine.experts_touched_share(tokens) == pytest.approx(distinct, rel=1e-12)


def test_a_mixture_of_experts_reads_only_the_touched_experts_but_holds_them_all():
    """Mixtral-8x7B at FP16 on 2 H100s: memory holds all 93.4 GB; a batch-1 step reads the shared
    weights and a quarter of the experts. Shared + experts = 46.7 B, shared + experts/4 = 12.9 B."""
    gpu = CATALOG.gpus["h100"]
    plan = alone(pool(93.4, gpu_type="h100", precision="fp16", tensor_parallel=2, kv_cache_mb_per_token=0.001,
                      step_overhead_ms=0.0, **MIXTRAL))
    experts_params = (46.7e9 - 12.9e9) / (1 - 2 / 8)
    shared_params = 46.7e9 - experts_params
    assert plan.memory_available_gb > 93.4 and plan.engine.weight_bytes == pytest.approx(93.4e9)
    read = (shared_params + experts_params / 4) * 2
    fixed = 64 * gpu.allreduce_latency_us * 1e-6 + 64 * 1.0 * 4096 * 2 / (gpu.interconnect_gb_s * 1e9)
    context = 128 + 64
    expect = fixed + (read + context * 1e3) / (2 * gpu.hbm_bandwidth_tb_s * 1e12 * E_D)
    assert plan.replica.step_s == pytest.approx(expect, rel=1e-6)
    dense = alone(pool(93.4, gpu_type="h100", precision="fp16", tensor_parallel=2, kv_cache_mb_per_token=0.001,
                       step_overhead_ms=0.0, layers=32, hidden_size=4096))
    assert dense.replica.step_s > 3 * plan.replica.step_s


def test_weight_only_int8_is_slower_than_halving_the_bytes():
    """INT8 weight-only reads half FP16's bytes at 0.77 of its bandwidth: a batch-1 step takes
    0.5/0.77 of FP16's weight read, not half of it."""
    fp16 = alone(pool(14.0, gpu_type="a100_80gb", precision="fp16", kv_cache_mb_per_token=0.001,
                      step_overhead_ms=0.0)).replica.step_s
    int8 = alone(pool(14.0, gpu_type="a100_80gb", precision="int8_weight_only", kv_cache_mb_per_token=0.001,
                      step_overhead_ms=0.0)).replica.step_s
    share = llm.WEIGHT_ONLY["int8_weight_only"]
    assert share < 1.0
    assert int8 > 0.5 * fp16 * 1.2
    bw = CATALOG.gpus["a100_80gb"].hbm_bandwidth_tb_s * 1e12 * E_D
    assert int8 == pytest.approx(7e9 / (bw * share) + 192 * 1e3 / bw, rel=1e-6)


@pytest.mark.parametrize("target_rho", [0.5, 0.8])
def test_ttft_of_a_prefill_heavy_workload_under_poisson_arrivals(target_rho):
    """8,000-token prompts, 16-token answers on a TP2 H100 replica: the prefill (FLOPs plus the
    pass's overhead and all-reduces) dominates, prompts queue for it as M/D/1, and TTFT p50/p95/p99
    match prefill + the exact M/D/1 wait quantiles at that prefill time (the prefill's logits give
    the first token; its weight read is 16 GB over the two GPUs' bandwidth)."""
    gpu = CATALOG.gpus["h100"]
    design = pool(16.0, prompt=8000, out=16, gpu_type="h100", precision="fp16", tensor_parallel=2, layers=32,
                  hidden_size=4096, kv_cache_mb_per_token=0.01, max_num_seqs=4096, step_overhead_ms=2.0)
    t_p = (2e-3 + 64 * gpu.allreduce_latency_us * 1e-6 + 8000 * 64 * 1.0 * 4096 * 2 / (gpu.interconnect_gb_s * 1e9)
           + 2 * 8e9 * 8000 / (2 * gpu.peak_tflops.fp16 * 1e12 * E_P) + 16e9 / (2 * gpu.hbm_bandwidth_tb_s * 1e12 * E_D))
    assert alone(design).replica.prefill_s == pytest.approx(t_p, rel=1e-6)
    result = evaluate(design, target_rho / t_p)
    node, replica = result.nodes["llm"], result.compiled.plans["llm"].replica
    assert replica.prefill_share == pytest.approx(target_rho)
    fixed = t_p
    for p, got in ((0.5, node.ttft_p50_ms), (0.95, node.ttft_p95_ms), (0.99, node.ttft_p99_ms)):
        assert got == pytest.approx((fixed + md1_wait_quantile(p, target_rho, t_p)) * 1000, rel=0.01), p


def test_a_prompt_of_one_repeated_token_reads_only_the_experts_it_is_routed_to():
    """Synthetic benchmark prompts repeat one token, so every position routes alike: a 2,048-token
    prefill then reads the shared weights and 2 of 8 experts, where varied tokens touch all 8; the
    FLOPs (2 x active parameters x tokens) are the same either way."""
    gpu = CATALOG.gpus["h100"]
    engine = alone(pool(93.4, gpu_type="h100", precision="fp16", tensor_parallel=2, kv_cache_mb_per_token=0.001,
                        step_overhead_ms=0.0, **MIXTRAL)).engine
    experts_params = (46.7e9 - 12.9e9) / (1 - 2 / 8)
    bandwidth = 2 * gpu.hbm_bandwidth_tb_s * 1e12 * E_D
    saved = experts_params * 0.75 * 2 / bandwidth
    varied, repeated = engine.prefill_s(2048), engine.prefill_s(2048, routed_tokens=1)
    assert varied - repeated == pytest.approx(saved, rel=1e-3)
    assert engine.step_s(64, 2100) - engine.step_s(64, 2100, routed_tokens=1) > 0.9 * saved


def test_routing_every_token_to_every_expert_is_read_as_a_dense_model():
    """Top-k equal to the expert count reads every expert on every step: the same step time as
    the dense model of that size, whatever active share the pool states (no division by zero)."""
    shape = dict(MIXTRAL, experts_per_token=8)
    routed_all = alone(pool(93.4, gpu_type="h100", precision="fp16", tensor_parallel=2, **shape))
    dense = alone(pool(93.4, gpu_type="h100", precision="fp16", tensor_parallel=2,
                       layers=MIXTRAL["layers"], hidden_size=MIXTRAL["hidden_size"]))
    assert routed_all.replica.step_s == pytest.approx(dense.replica.step_s, rel=1e-12)
