"""Clients started together on one replica, replayed iteration by iteration, against hand sums of
the pass times: a static batch's first tokens all come from one prefill pass, a prefill budget of
one prompt queues the prompts (mean wait (N+1)/2 passes), and a paged KV cache
admits sequences by the blocks they hold, preempting the latest when the cache runs out."""

from __future__ import annotations

import pytest

from inferboard.sim.llm.closed_loop import ClosedLoop, run_closed_loop
from inferboard.sim.llm.llm import Engine

#: A plain dense engine: 1e9 parameters at FP16, 100 TFLOP/s, 1 TB/s, 0.1 MB of KV per token, no overhead.
PARAMS, WEIGHTS, FLOPS, BW, KV = 1e9, 2e9, 100e12, 1e12, 1e5
E_P, E_D = 0.5, 0.8
ENGINE = Engine(PARAMS, WEIGHTS, KV, FLOPS, BW, E_P, E_D, "fp16", 1)


def prefill_hand(tokens: int) -> float:
    """A prefill pass by hand: its FLOPs and one read of the weights."""
    return 2 * PARAMS * tokens / (FLOPS * E_P) + WEIGHTS / (BW * E_D)


def step_hand(n: int, context: float) -> float:
    """A decode step by hand: the weights (or the FLOPs, the larger) and every sequence's KV reads."""
    return max(WEIGHTS / (BW * E_D), 2 * PARAMS * n / (FLOPS * E_P)) + n * context * KV / (BW * E_D)


def test_a_static_batch_gets_every_first_token_from_one_pass_then_decodes_together():
    """Eight clients of 512+33 tokens, one round, a budget for all: TTFT is one pass over 8 x 512
    tokens; the 32 further tokens are steps of eight at contexts 513..544."""
    got = run_closed_loop(ENGINE, ClosedLoop(8, 512, 33, 1, kv_tokens=100_000, prefill_budget=8 * 512))
    ttft = prefill_hand(8 * 512)
    decode = sum(step_hand(8, 513 + k) for k in range(32))
    assert got.ttft_s == pytest.approx(ttft, rel=1e-12)
    assert got.tpot_s == pytest.approx(decode / 32, rel=1e-12)
    assert got.throughput_tok_s == pytest.approx(8 * 33 / (ttft + decode), rel=1e-12)
    assert got.peak_running == 8 and got.preemptions == 0


def test_a_one_prompt_budget_queues_the_prompts():
    """Output of one token: in the first round the i-th client's token comes after i passes (mean
    (N + 1)/2 passes); from then on each client re-sends as its own prompt is done, behind the other
    N - 1, so it waits N passes."""
    clients, rounds = 6, 3
    t_p = prefill_hand(1000)
    first = run_closed_loop(ENGINE, ClosedLoop(clients, 1000, 1, 1, kv_tokens=100_000, prefill_budget=1000))
    assert first.ttft_s == pytest.approx((clients + 1) / 2 * t_p, rel=1e-12)
    got = run_closed_loop(ENGINE, ClosedLoop(clients, 1000, 1, rounds, kv_tokens=100_000, prefill_budget=1000))
    assert got.ttft_s == pytest.approx(((clients + 1) / 2 + (rounds - 1) * clients) / rounds * t_p, rel=1e-12)
    assert got.throughput_tok_s == pytest.approx(1 / t_p, rel=1e-12)


def test_a_paged_cache_admits_more_sequences_than_full_length_reservations_hold():
    """A cache of 10 blocks of 16 tokens: reserving 16+64 tokens a sequence would hold two; paged,
    five are admitted at 17 tokens (two blocks each), and as they grow the latest are preempted and
    recomputed; every request still completes."""
    loop = ClosedLoop(5, 16, 64, 2, kv_tokens=160, block_tokens=16, prefill_budget=5 * 16)
    got = run_closed_loop(ENGINE, loop)
    assert (loop.kv_tokens // 16) // -(-(16 + 64) // 16) == 2  # full-length reservations: two sequences
    assert got.peak_running == 5
    assert got.preemptions > 0
    assert got.throughput_tok_s > 0


def test_a_sequence_that_cannot_fit_the_cache_is_refused():
    with pytest.raises(ValueError, match="does not fit"):
        run_closed_loop(ENGINE, ClosedLoop(1, 100, 100, 1, kv_tokens=150))


def test_an_engine_that_batches_prefill_with_decode_advances_the_running_sequences_in_the_same_pass():
    """Two clients, a one-prompt budget, prefill batched with decode: pass 1 prefills A; pass 2
    prefills B and A's token together (one pass over P + 1 tokens, plus A's KV reads); then steps
    of both, then of B alone."""
    prompt = 256
    got = run_closed_loop(ENGINE, ClosedLoop(2, prompt, 3, 1, kv_tokens=10_000, prefill_budget=prompt,
                                             prefill_with_decode=True))
    t1 = prefill_hand(prompt)
    t2 = prefill_hand(prompt + 1) + (prompt + 1) * KV / (BW * E_D)
    t3 = step_hand(2, prompt + 1.5)
    t4 = step_hand(1, prompt + 2)
    assert got.ttft_s == pytest.approx((t1 + (t1 + t2)) / 2, rel=1e-12)
    assert got.tpot_s == pytest.approx(((t2 + t3) / 2 + (t3 + t4) / 2) / 2, rel=1e-12)
    assert got.throughput_tok_s == pytest.approx(2 * 3 / (t1 + t2 + t3 + t4), rel=1e-12)


def test_an_engine_whose_first_token_comes_from_the_decode_step_pays_a_step_for_it():
    """One client, one round of 300+3 tokens, the first token from the step: pass 1 prefills 299
    tokens and then steps the one sequence at 300 tokens of context; then two steps at 301 and 302."""
    got = run_closed_loop(ENGINE, ClosedLoop(1, 300, 3, 1, kv_tokens=10_000, prefill_with_decode=True,
                                             first_token_from_step=True))
    first = prefill_hand(299) + step_hand(1, 300)
    assert got.ttft_s == pytest.approx(first, rel=1e-12)
    assert got.tpot_s == pytest.approx((step_hand(1, 301) + step_hand(1, 302)) / 2, rel=1e-12)
