"""An LLM generation pool from first principles: prefill from FLOPs, decode from HBM bytes, the
running batch from Little's law, and time to first token as a distribution.

One replica is ``tensor_parallel`` GPUs serving one engine (weights and KV cache split across them,
their peak FLOPs and HBM bandwidth added). With ``P`` parameters (``model_size_gb`` / 2 bytes at
FP16), ``w`` weight bytes at the pool's precision and ``kv`` bytes of KV cache per token:

* every forward pass over ``T`` tokens pays a fixed engine time ``o`` and, split over ``tp > 1``
  GPUs, two all-reduces per layer: ``comm(T) = 2·layers·(a + T·2(tp-1)/tp·h·2 B / link)``;
* a mixture of experts (E experts, top-k) holds every expert but a pass over ``b`` tokens reads the
  shared weights and the share ``1 - (1 - k/E)^b`` of the expert weights; FLOPs use the active
  parameters ``P_a`` (``P`` for a dense model);
* prefill of ``L`` prompt tokens: ``t_p = o + comm(L) + 2·P_a·L / (F · e_p) + weights read`` (F the
  replica's peak dense FLOP/s at the compute precision, ``e_p`` the declared prefill efficiency): the
  weight stream is not hidden behind the arithmetic, which matters only for short prompts (at 128
  tokens a pass's matrices are too small to overlap the two; at 2k+ the read is a few per cent);
* one decode step with ``n`` running sequences of mean context ``C``: its matrix products read the
  weights touched and do ``2·P_a·n`` FLOPs (a roofline: the larger of the two), then attention reads
  every sequence's KV cache in kernels of its own, so
  ``t_step(n) = o + comm(n) + max(w(n) / (B·e_d·q), 2·P_a·n / (F·e_p)) + n·C·kv / (B·e_d)`` (B the
  replica's HBM bandwidth, ``e_d`` the declared decode efficiency, ``q`` < 1 for weight-only
  quantisation, whose kernels dequantise as they read);
* prefills take the GPU ahead of decode steps (vLLM's default scheduling), so with ``ρ_p = λ·t_p``
  of the GPU's time spent in prefill (λ the replica's arrival rate) a stream advances one token per
  ``TPOT = t_step(n + 1) / (1 - ρ_p)`` (a stream shares its steps with the ``n`` others running, the
  time-average count an arrival finds); prefills queue for the GPU among themselves as an M/D/1 queue
  (Poisson arrivals, all prompts ``L`` tokens): mean wait ``W_p = ρ_p·t_p / (2(1 - ρ_p))``;
* a request holds one of the ``slots`` (sequences whose KV cache fits beside the weights, capped
  by ``max_num_seqs``) for ``S(n) = W_p + t_p + out·TPOT(n)``; the running count solves
  ``n = λ·S(n)``. ``S`` is affine in ``n`` on each side of the roofline's max, so the smallest fixed
  point is the larger of the two sides' least fixed points (when both slopes are below 1; with
  experts the memory side is concave and its root is found by bisection). The replica's
  capacity is the rate at which ``n`` reaches ``slots``.
* time to first token = wait for a slot (the pool's M/G/c station, from the steady-state solver)
  + wait for the prefill engine (M/D/1) + ``t_p``: the prefill pass's logits give the first token,
  so no decode step is part of it. Its
  percentiles come from that sum's distribution: the M/D/1 wait is exactly a geometric(ρ_p) sum of
  uniform(0, t_p) residual times (Pollaczek–Khinchine), composed on the solver's grid with the slot
  wait.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from inferboard.catalog.schema import GpuType
from inferboard.sim.queues import latency_dist as ld
from inferboard.sim.queues import sojourn as sj

#: Bytes per weight by precision.
BYTES_PER_WEIGHT = {"fp32": 4.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int8_weight_only": 1.0,
                    "int4_weight_only": 0.5}
#: Weight-only modes (INT8/INT4 weights dequantised to FP16 inside the matrix kernels): the share of
#: FP16's achieved bandwidth their decode reaches. gpt-fast's README (pytorch-labs/gpt-fast,
#: Llama-2-7B, batch 1, one A100) measures 1,397 GB/s at BF16, 1,069 GB/s int8 and 863 GB/s int4
#: (group 32): 0.77 and 0.62. See docs/catalog.md.
WEIGHT_ONLY = {"int8_weight_only": 0.77, "int4_weight_only": 0.62}
#: Bisection steps for the replica's capacity (relative precision 2**-60).
_CAPACITY_STEPS = 60
#: Bisection steps for a mixture-of-experts replica's running count.
_ROOT_STEPS = 80
#: Below this share of GPU time in prefill the prefill queue's wait is left out of the TTFT
#: distribution: it is non-zero with probability ρ_p, far below the 1% a p99 can see.
_NEGLIGIBLE_PREFILL_SHARE = 1e-9


@dataclass(frozen=True)
class Engine:
    """One replica's hardware and model, in SI units (bytes, FLOP/s, bytes/s, seconds)."""

    params: float  #: model parameters, all experts included
    weight_bytes: float  #: every weight the replica holds (all experts)
    kv_bytes_per_token: float
    flops: float  #: peak dense FLOP/s of the replica at the compute precision
    bandwidth: float  #: HBM bytes/s of the replica
    prefill_efficiency: float
    decode_efficiency: float
    compute_precision: str
    gpus: int
    active_params: float = 0.0  #: parameters one token runs through (0: all of them, a dense model)
    expert_weight_bytes: float = 0.0  #: the part of ``weight_bytes`` in routed experts
    experts: int = 1  #: routed experts per layer (1: a dense model)
    experts_per_token: int = 1  #: top-k routing
    step_overhead_s: float = 0.0  #: fixed engine time per forward pass (scheduling, launches, sampling)
    allreduce_calls: int = 0  #: tensor-parallel all-reduces per forward pass (2 per layer)
    allreduce_latency_s: float = 0.0  #: fixed time of one all-reduce
    allreduce_s_per_token: float = 0.0  #: link time one token's activations add to a pass's all-reduces
    weight_read_share: float = 1.0  #: share of the decode efficiency reached reading (dequantised) weights

    @property
    def flops_params(self) -> float:
        """Parameters a token's arithmetic runs through."""
        return self.active_params or self.params

    def experts_touched_share(self, tokens: float) -> float:
        """Expected share of a layer's experts that ``tokens`` top-k-routed tokens touch:
        ``1 - (1 - k/E)^tokens`` (each expert is missed by one token with probability ``1 - k/E``)."""
        if self.experts <= 1 or self.expert_weight_bytes <= 0.0:
            return 1.0
        return 1.0 - (1.0 - self.experts_per_token / self.experts) ** max(tokens, 0.0)

    def pass_fixed_s(self, tokens: float) -> float:
        """Engine overhead and tensor-parallel all-reduces of one forward pass over ``tokens`` tokens."""
        return (self.step_overhead_s + self.allreduce_calls * self.allreduce_latency_s
                + tokens * self.allreduce_s_per_token)

    def weights_read_s(self, tokens: float) -> float:
        """Time to read the weights a pass over ``tokens`` tokens needs (dense part and touched experts)."""
        dense = self.weight_bytes - self.expert_weight_bytes
        read = dense + self.expert_weight_bytes * self.experts_touched_share(tokens)
        return read / (self.bandwidth * self.decode_efficiency * self.weight_read_share)

    def prefill_s(self, tokens: float, routed_tokens: float | None = None) -> float:
        """One prefill pass over ``tokens`` prompt tokens: its FLOPs, its weight reads and its fixed
        costs. ``routed_tokens``: distinct tokens the experts see (default all; 1 when every prompt
        token is the same token, as in synthetic benchmark prompts)."""
        compute = 2.0 * self.flops_params * tokens / (self.flops * self.prefill_efficiency)
        routed = tokens if routed_tokens is None else routed_tokens
        return self.pass_fixed_s(tokens) + compute + self.weights_read_s(routed)

    def step_terms(self, context: float) -> tuple[float, float, float]:
        """``(memory time with no sequence, memory time per sequence, compute time per sequence)`` of
        a decode step at mean context ``context`` tokens, for a dense model (all weights read)."""
        bw = self.bandwidth * self.decode_efficiency
        return (self.weights_read_s(math.inf), context * self.kv_bytes_per_token / bw,
                2.0 * self.flops_params / (self.flops * self.prefill_efficiency))

    def step_s(self, n: float, context: float, routed_tokens: float | None = None) -> float:
        """One decode step of ``n`` sequences at mean context ``context``: matrix products (weight
        reads or FLOPs, the larger), then attention's KV-cache reads. ``routed_tokens`` as in
        :meth:`prefill_s`."""
        _, per_seq, compute = self.step_terms(context)
        weights = self.weights_read_s(n if routed_tokens is None else routed_tokens)
        return self.pass_fixed_s(n) + max(weights, n * compute) + n * per_seq


def compute_precision(gpu: GpuType, precision: str) -> tuple[str, str]:
    """The precision the GPU computes at for weights stored at ``precision``, and a note when it
    differs (no FP8 or INT8 tensor cores, or a weight-only mode: FP16 arithmetic)."""
    if precision in WEIGHT_ONLY:
        return "fp16", ""
    if getattr(gpu.peak_tflops, precision) is not None:
        return precision, ""
    return "fp16", (f"{gpu.title} has no {precision.upper()} tensor cores: {precision.upper()} weights, "
                    f"FP16 arithmetic")


@dataclass(frozen=True)
class ModelShape:
    """What the engine needs of the model beyond its size: mixture-of-experts routing and the
    layer count and hidden size the tensor-parallel all-reduces move (0: estimated from the size)."""

    experts: int = 1
    experts_per_token: int = 2
    active_share: float = 1.0  #: active parameters / total parameters
    layers: int = 0
    hidden_size: int = 0

    def dims(self, active_params: float) -> tuple[int, int]:
        """``(layers, hidden size)``, either stated or estimated from a Llama-like shape:
        ``12·L·h²`` parameters with ``h = 128·L``."""
        if self.layers and self.hidden_size:
            return self.layers, self.hidden_size
        layers = self.layers or max(1, round((active_params / (12.0 * 128.0 ** 2)) ** (1.0 / 3.0)))
        return layers, self.hidden_size or 128 * layers


def engine_for(gpu: GpuType, precision: str, model_gb_fp16: float, kv_mb_per_token: float, tensor_parallel: int,
               prefill_efficiency: float, decode_efficiency: float, shape: ModelShape = ModelShape(),
               step_overhead_s: float = 0.0) -> Engine:
    """One replica of ``tensor_parallel`` GPUs serving the model (see the module docstring)."""
    compute, _ = compute_precision(gpu, precision)
    params = model_gb_fp16 * 1e9 / BYTES_PER_WEIGHT["fp16"]
    weight_bytes = params * BYTES_PER_WEIGHT[precision]
    # every token reading every expert (k >= E) is a dense model whatever the stated active share
    moe = shape.experts > max(1, shape.experts_per_token) and shape.active_share < 1.0
    active = params * shape.active_share if moe else params
    expert_bytes = 0.0
    if moe:  # total = shared + experts, active = shared + experts·k/E
        routed = min(1.0, (1.0 - shape.active_share) / (1.0 - shape.experts_per_token / shape.experts))
        expert_bytes = weight_bytes * routed
    layers, hidden = shape.dims(active)
    tp = tensor_parallel
    link = gpu.interconnect_gb_s * 1e9
    per_token = 2 * layers * 2.0 * (tp - 1) / tp * hidden * BYTES_PER_WEIGHT["fp16"] / link if tp > 1 else 0.0
    return Engine(params, weight_bytes, kv_mb_per_token * 1e6,
                  getattr(gpu.peak_tflops, compute) * 1e12 * tp,
                  gpu.hbm_bandwidth_tb_s * 1e12 * tp, prefill_efficiency, decode_efficiency, compute, tp,
                  active_params=active if moe else 0.0, expert_weight_bytes=expert_bytes,
                  experts=shape.experts if moe else 1, experts_per_token=shape.experts_per_token,
                  step_overhead_s=step_overhead_s, allreduce_calls=2 * layers if tp > 1 else 0,
                  allreduce_latency_s=gpu.allreduce_latency_us * 1e-6 if tp > 1 else 0.0,
                  allreduce_s_per_token=per_token, weight_read_share=WEIGHT_ONLY.get(precision, 1.0))


@dataclass(frozen=True)
class ReplicaState:
    """One replica at arrival rate ``rate`` (requests/s), all times in seconds."""

    rate: float  #: the rate solved for (at most the capacity)
    capacity_rps: float
    prefill_s: float
    prefill_share: float  #: ρ_p, the GPU's time share spent in prefill
    prefill_wait_s: float  #: mean M/D/1 wait for the prefill engine
    running: float  #: n, the time-average number of sequences running
    step_s: float  #: one decode step of a stream's batch (itself and the n others)
    tpot_s: float  #: time per output token of a stream
    service_s: float  #: how long a request holds its slot
    slots: int
    compute_bound: bool  #: the decode step is limited by FLOPs rather than bytes
    prompt_tokens: int = 0  #: the prompt tokens prefilled per request (after any prefix-cache hit)
    output_tokens: int = 0

    @property
    def ttft_s(self) -> float:
        """Mean time to first token once a slot is held: the prefill wait and the prefill pass, whose
        logits give the first token."""
        return self.prefill_wait_s + self.prefill_s


def _least_root(side, upper: float) -> float:
    """The least ``n ≥ 0`` with ``side(n) = n`` for a concave increasing ``side`` with ``side(0) > 0``
    and ``side(upper) ≤ upper`` (``side(n) - n`` is concave, so it crosses zero once)."""
    lo, hi = 0.0, upper
    for _ in range(_ROOT_STEPS):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if side(mid) > mid else (lo, mid)
    return hi


def _fixed_point(engine: Engine, rate: float, prompt: int, out: int, context: float) -> tuple[float, float, float]:
    """``(n, ρ_p, W_p)`` at ``rate``; ``n`` is ``inf`` when the stream cannot keep up.

    ``S(n) = W_p + t_p + out·t_step(n + 1)/(1 - ρ_p)`` with ``t_step`` the larger of a memory side
    (affine in n, plus the concave share of experts touched) and a compute side (affine), both with
    the KV reads; the least fixed point of ``n = λ·S(n)`` is the larger of the two sides' least
    fixed points."""
    t_p = engine.prefill_s(prompt)
    rho = rate * t_p
    if rho >= 1.0:
        return math.inf, rho, math.inf
    wait = rho * t_p / (2.0 * (1.0 - rho))
    _, per_seq, compute = engine.step_terms(context)
    k = rate * out / (1.0 - rho)
    base = rate * (wait + t_p)
    link = engine.allreduce_s_per_token
    fixed = engine.pass_fixed_s(0.0)
    memory_slope, compute_slope = k * (per_seq + link), k * (compute + per_seq + link)
    if memory_slope >= 1.0 or compute_slope >= 1.0:
        return math.inf, rho, wait
    compute_side = (base + k * (fixed + compute + per_seq + link)) / (1.0 - compute_slope)

    def memory_side(n: float) -> float:
        return base + k * (fixed + engine.weights_read_s(n + 1.0) + (n + 1.0) * (per_seq + link))

    # every expert read: exact for a dense model, an upper bound for a mixture of experts
    upper = (base + k * (fixed + engine.weights_read_s(math.inf) + per_seq + link)) / (1.0 - memory_slope)
    if engine.experts_touched_share(2.0) >= 1.0:
        return max(upper, compute_side), rho, wait
    return max(_least_root(memory_side, upper), compute_side), rho, wait


def replica_state(engine: Engine, rate: float, prompt: int, out: int, slots: int) -> ReplicaState:
    """The replica at ``rate`` (capped at its capacity; see the module docstring)."""
    context = prompt + out / 2.0
    t_p = engine.prefill_s(prompt)
    capacity = 0.0
    if slots > 0:
        lo, hi = 0.0, 1.0 / t_p if t_p > 0 else 1e12
        for _ in range(_CAPACITY_STEPS):
            mid = 0.5 * (lo + hi)
            if _fixed_point(engine, mid, prompt, out, context)[0] <= slots:
                lo = mid
            else:
                hi = mid
        capacity = lo
    solved = min(max(rate, 0.0), capacity)
    n, rho, wait = _fixed_point(engine, solved, prompt, out, context)
    n = min(n, float(slots))
    batch = min(n + 1.0, float(max(slots, 1)))
    step = engine.step_s(batch, context)
    tpot = step / (1.0 - rho)
    service = wait + t_p + out * tpot
    compute = engine.step_terms(context)[2]
    return ReplicaState(solved, capacity, t_p, rho, wait, n, step, tpot, service, slots,
                        batch * compute > engine.weights_read_s(batch), int(prompt), int(out))


def md1_wait_row(grid: ld.Grid, rho: float, service_s: float) -> np.ndarray:
    """Transform of the M/D/1 waiting time: ``(1 - ρ) / (1 - ρ·U(z))`` with U uniform on [0, D]."""
    if rho < _NEGLIGIBLE_PREFILL_SHARE or service_s <= 0.0:
        return np.ones(grid.k.shape[0], dtype=complex)
    uniform = ld.uniform_factor(grid, np.array([service_s]))[0]
    return (1.0 - rho) / (1.0 - rho * uniform)


def md1_decay_rate(rho: float, service_s: float) -> float:
    """θ with ``P(W > t) ~ C·e^{-θt}`` for the M/D/1 wait: the root of ``ρ(e^{θD} - 1) = θD``."""
    if rho < _NEGLIGIBLE_PREFILL_SHARE:
        return math.inf
    lo, hi = 1e-12, 1.0
    while rho * math.expm1(hi) < hi:
        hi *= 2.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if rho * math.expm1(mid) < mid:
            lo = mid
        else:
            hi = mid
    return lo / service_s


def ttft_quantiles(slot_wait: sj.SojournSpec | None, rho: float, prefill_s: float, fixed_s: float,
                   ps=(0.5, 0.95, 0.99)) -> list[float]:
    """Quantiles (seconds) of slot wait + M/D/1 prefill wait + ``fixed_s`` (prefill and first step).
    ``slot_wait`` is the pool station's sojourn spec from the solver (its service part is dropped);
    None means no slot wait."""
    wait_only = None
    horizon = fixed_s
    if slot_wait is not None:
        wait_only = replace(slot_wait, service_mean=0.0, service_cv=0.0)
        horizon += wait_only.moments()[2]
    if rho >= _NEGLIGIBLE_PREFILL_SHARE:
        horizon += math.log(1e6) / md1_decay_rate(rho, prefill_s) + prefill_s
    grid = ld.choose_grid(max(horizon, 1e-6) * 1.2, 2)
    row = np.ones(grid.k.shape[0], dtype=complex)
    if wait_only is not None:
        rows, _ = sj.build_transforms(grid, [wait_only])
        row = rows[0] * ld.shift_factor(grid, np.array([wait_only.shift]))[0]
    row = row * md1_wait_row(grid, rho, prefill_s) * ld.shift_factor(grid, np.array([fixed_s]))[0]
    return ld.percentiles(grid, ld.to_pmf(grid, row), ps)
