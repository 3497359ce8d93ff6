"""bench/bench_llm.py's published figures: the calibration set holds its bar, and the sets kept
apart really are apart (no source of the independent set is one the catalog's constants were
fitted on)."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_llm.py"


@pytest.fixture(scope="module")
def bench():
    """The bench module, loaded from its file (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location("bench_llm", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while they are built
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def test_the_three_sets_share_no_source(bench):
    """Calibration, same-family and independent rows come from disjoint sources."""
    calibration = {row.source for row in bench.CALIBRATION}
    independent = {row.source for row in bench.INDEPENDENT}
    assert not calibration & independent
    assert {row.source for row in bench.SAME_FAMILY} <= {"trt9", "gfast"}
    assert len(bench.ROWS) == len(bench.CALIBRATION) + len(bench.SAME_FAMILY) + len(bench.INDEPENDENT)


def test_the_sweep_lies_between_the_independent_sets_ends_and_is_counted_nowhere(bench):
    """The [vpr] batch sizes shown between the ends the independent set takes are in no set."""
    ends = {(row.gpu, row.concurrency) for row in bench.INDEPENDENT if row.source == "vpr"}
    assert {batch for _, batch in ends} == {1, 64}
    assert all(1 < row.concurrency < 64 and (row.gpu, 1) in ends for row in bench.VPR_SWEEP)
    assert not set(bench.VPR_SWEEP) & set(bench.ROWS)


def test_calibration_rows_hold_the_bar(bench):
    """At least 90% of the calibration ratios within 25% and all within 40%."""
    ratios = [ratio for *_, ratio in bench.ratios_of(bench.CALIBRATION)]
    assert len(ratios) == 27
    assert bench.meets_bar(ratios)
    assert not bench.meets_bar(ratios + [1.5])  # one ratio past 40% fails the bar


def test_a_sampled_static_batch_reads_more_experts_than_a_greedy_one(bench):
    """vLLM's benchmark samples at temperature 1, so a decode step of 64 sequences routes its tokens
    independently and reads nearly every Mixtral expert; TensorRT-LLM's greedy batch of one
    repeated token routes them alike."""
    row = bench.Row("vpr", "mixtral-8x7b", "a100_80gb", "fp16", 2, 2, 64, 1000, 50, throughput_tok_s=1.0,
                    engine="vllm")
    random_routed = bench.model_figures(row)["throughput_tok_s"]
    alike = bench.model_figures(dataclasses.replace(row, source="trt9"))["throughput_tok_s"]
    assert random_routed < 0.9 * alike


def test_vllm_v0_runs_pay_the_measured_step_gap_on_every_pass(bench):
    """A batch-1 vLLM V0 run of 50 output tokens makes 50 passes (one prefill, 49 steps), each 4 ms
    of engine time where the default engine has 1 ms: 150 ms more in all."""
    row = bench.Row("vpr", "mixtral-8x7b", "a100_80gb", "fp16", 2, 2, 1, 1000, 50, throughput_tok_s=1.0,
                    engine="vllm-v0")
    v0 = bench.model_figures(row)["throughput_tok_s"]
    default = bench.model_figures(dataclasses.replace(row, engine="vllm"))["throughput_tok_s"]
    assert 50 / v0 - 50 / default == pytest.approx(50 * 0.003, rel=1e-9)


def test_clients_started_together_share_one_prefill_pass(bench):
    """Four LMDeploy clients of one round and one output token: TurboMind prefills all four prompts
    but their last tokens in the iteration that admits them and takes those in that iteration's
    decode step, so every first token waits for a pass over 4 x 2,047 tokens and a step of four."""
    row = bench.Row("lmd", "llama-7b", "a100_80gb", "fp16", 1, 2, 4, 2048, 1, ttft_ms=1.0, engine="lmdeploy",
                    rounds=1, kv_blocks=1000)
    engine = bench.evaluate(bench.design_for(row), 1e-6).compiled.plans["engine"].engine
    first_s = engine.prefill_s(4 * 2047) + engine.step_s(4, 2048)
    assert bench.model_figures(row)["ttft_ms"] == pytest.approx(first_s * 1000, rel=1e-12)
