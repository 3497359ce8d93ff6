"""A closed loop of clients on one replica, iteration by iteration: N clients start together, each
sending ``rounds`` requests back to back, and the engine's scheduler admits them into a paged KV
cache.

Engine benchmarks that start N clients at once (a static batch that then drains and refills)
are not Poisson arrivals: every client of a round queues for the prefill at the same instant, so
the mean time to first token is the mean place in that queue, and rounds stay in step because
sequences admitted together finish together. The loop below replays that with the replica's own
pass times (:class:`~inferboard.sim.llm.llm.Engine`), deterministically:

* each iteration admits waiting requests first come first served while their prompt tokens fit
  the iteration's prefill budget, the KV cache has free blocks for the prompt and its first token,
  and fewer than ``max_seqs`` sequences run; the KV cache is paged, so a sequence holds the blocks
  of the tokens it has, not a block reservation for its whole length;
* an iteration with admissions is one pass over their prompt tokens and, when the engine batches
  prefill with decode (``prefill_with_decode``), one token of every running sequence too; without
  it (vLLM's default before chunked prefill) the running sequences wait for the next iteration;
  an engine may instead prefill all but each prompt's last token and give the first token from
  that iteration's decode step (``first_token_from_step``);
* a decode step that needs a block when none is free preempts the latest-admitted sequence: it
  frees its blocks and goes back to the head of the queue, to be prefilled again over its prompt
  and the tokens it had (recomputation, as vLLM and TurboMind do);
* a sequence's first token comes from its prefill pass; it finishes after ``output`` tokens and its
  client sends the next request at once.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from inferboard.sim.llm.llm import Engine


@dataclass(frozen=True)
class ClosedLoop:
    """The workload and the scheduler's limits (tokens unless said otherwise)."""

    clients: int
    prompt: int
    output: int
    rounds: int  #: requests each client sends, one after another
    kv_tokens: int  #: the replica's KV cache capacity in tokens (blocks x block size)
    block_tokens: int = 16  #: tokens per KV-cache block
    prefill_budget: int = 2048  #: prompt tokens one iteration may prefill (at least one prompt)
    max_seqs: int = 256  #: sequences running at once
    prefill_with_decode: bool = False  #: a prefill iteration also advances the running sequences
    #: the prefill pass covers all but each prompt's last token, which joins that iteration's decode
    #: step and gives the first token there (TurboMind v0.1.0a1); needs ``prefill_with_decode``
    first_token_from_step: bool = False


@dataclass(frozen=True)
class LoopFigures:
    """Means over every request of the run."""

    ttft_s: float  #: from sending a request to its first token
    tpot_s: float  #: time per output token after the first
    throughput_tok_s: float  #: output tokens over the run's length
    peak_running: int  #: most sequences running at once
    preemptions: int


@dataclass
class _Sequence:
    """One request: its client, when it was sent, and what its KV cache holds."""

    client: int
    sent_s: float
    tokens: int  #: tokens in its KV cache (prompt and generated)
    generated: int = 0
    first_s: float = -1.0


@dataclass
class _State:
    """The scheduler's queues, the free KV blocks and what has been measured so far."""

    loop: ClosedLoop
    waiting: deque = field(default_factory=deque)
    running: list = field(default_factory=list)  #: in admission order
    free_blocks: int = 0
    left: list = field(default_factory=list)  #: requests each client has still to send
    ttfts: list = field(default_factory=list)
    tpots: list = field(default_factory=list)
    preemptions: int = 0

    def blocks(self, tokens: int) -> int:
        """KV blocks that ``tokens`` tokens occupy."""
        return math.ceil(tokens / self.loop.block_tokens)


def _admit(state: _State) -> list[_Sequence]:
    """Waiting sequences the budget, the free blocks and ``max_seqs`` let in, oldest first."""
    loop, admitted, budget = state.loop, [], 0
    while state.waiting and len(state.running) + len(admitted) < loop.max_seqs:
        seq = state.waiting[0]
        need = state.blocks(seq.tokens + 1)
        if need > state.free_blocks or (admitted and budget + seq.tokens > loop.prefill_budget):
            break
        state.waiting.popleft()
        state.free_blocks -= need
        budget += seq.tokens
        admitted.append(seq)
    return admitted


def _grow(state: _State, decoding: list[_Sequence]) -> list[_Sequence]:
    """Give each decoding sequence the block its next token needs, preempting the latest-admitted
    sequences while none is free; returns the sequences that still decode this step."""
    dropped: set[int] = set()
    for seq in decoding:
        if id(seq) in dropped or state.blocks(seq.tokens + 1) == state.blocks(seq.tokens):
            continue
        while state.free_blocks == 0 and id(seq) not in dropped:
            victim = state.running.pop()
            dropped.add(id(victim))
            state.free_blocks += state.blocks(victim.tokens)
            state.waiting.appendleft(victim)
            state.preemptions += 1
        if id(seq) not in dropped:
            state.free_blocks -= 1
    return [seq for seq in decoding if id(seq) not in dropped] if dropped else decoding


def _finish(state: _State, seq: _Sequence, now: float) -> None:
    """Record a finished request, free its blocks, and send its client's next one."""
    state.running.remove(seq)
    state.free_blocks += state.blocks(seq.tokens)
    state.ttfts.append(seq.first_s - seq.sent_s)
    if state.loop.output > 1:
        state.tpots.append((now - seq.first_s) / (state.loop.output - 1))
    if state.left[seq.client] > 0:
        state.left[seq.client] -= 1
        state.waiting.append(_Sequence(seq.client, now, state.loop.prompt))


def _iteration_s(engine: Engine, loop: ClosedLoop, admitted: list[_Sequence], decoding: list[_Sequence]) -> float:
    """One pass: a prefill over the admitted prompts (one pass over them and the decoding tokens
    when both run; or their prompts less one token, then a decode step of every sequence, when the
    first token comes from the step), or one decode step."""
    if not admitted:
        return engine.step_s(len(decoding), sum(s.tokens for s in decoding) / len(decoding)) if decoding else 0.0
    if loop.first_token_from_step:
        stepping = decoding + admitted
        prefill = engine.prefill_s(sum(s.tokens - 1 for s in admitted))
        return prefill + engine.step_s(len(stepping), sum(s.tokens for s in stepping) / len(stepping))
    n = len(decoding)
    context = sum(s.tokens for s in decoding) / n if n else 0.0
    kv = n * context * engine.kv_bytes_per_token / (engine.bandwidth * engine.decode_efficiency)
    return engine.prefill_s(sum(s.tokens for s in admitted) + n) + kv


def run_closed_loop(engine: Engine, loop: ClosedLoop) -> LoopFigures:
    """Replay ``loop`` on ``engine`` until every client has sent all its requests (see the module
    docstring); raises ValueError when one prompt cannot fit the KV cache."""
    state = _State(loop, free_blocks=loop.kv_tokens // loop.block_tokens, left=[loop.rounds - 1] * loop.clients)
    if state.blocks(loop.prompt + loop.output) > state.free_blocks:
        raise ValueError(f"one sequence of {loop.prompt}+{loop.output} tokens does not fit {loop.kv_tokens} "
                         f"KV-cache tokens")
    state.waiting.extend(_Sequence(c, 0.0, loop.prompt) for c in range(loop.clients))
    now, peak = 0.0, 0
    while state.waiting or state.running:
        admitted = _admit(state)
        decoding = list(state.running) if not admitted or loop.prefill_with_decode else []
        decoding = _grow(state, decoding)
        now += _iteration_s(engine, loop, admitted, decoding)
        for seq in decoding:
            seq.tokens += 1
            seq.generated += 1
        for seq in admitted:
            seq.tokens += 1
            seq.generated += 1
            if seq.first_s < 0:
                seq.first_s = now
            state.running.append(seq)
        peak = max(peak, len(state.running))
        for seq in [s for s in state.running if s.generated >= loop.output]:
            _finish(state, seq, now)
    tpot = sum(state.tpots) / len(state.tpots) if state.tpots else 0.0
    return LoopFigures(sum(state.ttfts) / len(state.ttfts), tpot, loop.clients * loop.rounds * loop.output / now,
                       peak, state.preemptions)
