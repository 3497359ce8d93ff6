"""An LLM generation pool from first principles: prefill from FLOPs, decode from HBM bytes, the
running batch from Little's law, and time to first token as a distribution.

One replica is ``tensor_parallel`` GPUs serving one engine (weights and KV cache split across them,
their peak FLOPs and HBM bandwidth added). With ``P`` parameters (``model_size_gb`` / 2 bytes at
FP16), ``w`` weight bytes at the pool's precision and ``kv`` bytes of KV cache per token:

* prefill of ``L`` prompt tokens: ``t_p = 2·P·L / (F · e_p)`` (F the replica's peak dense FLOP/s at
  the compute precision, ``e_p`` the declared prefill efficiency);
* one decode step with ``n`` running sequences of mean context ``C``: it reads the weights and every
  sequence's KV cache, and does ``2·P·n`` FLOPs, so
  ``t_step(n) = max((w + n·C·kv) / (B · e_d), 2·P·n / (F · e_p))`` (B the replica's HBM bandwidth,
  ``e_d`` the declared decode efficiency);
* prefills take the GPU ahead of decode steps (vLLM's default scheduling), so with ``ρ_p = λ·t_p``
  of the GPU's time spent in prefill (λ the replica's arrival rate) a stream advances one token per
  ``TPOT = t_step(n + 1) / (1 - ρ_p)`` (a stream shares its steps with the ``n`` others running, the
  time-average count an arrival finds); prefills queue for the GPU among themselves as an M/D/1 queue
  (Poisson arrivals, all prompts ``L`` tokens): mean wait ``W_p = ρ_p·t_p / (2(1 - ρ_p))``;
* a request holds one of the ``slots`` (sequences whose KV cache fits beside the weights, capped
  by ``max_num_seqs``) for ``S(n) = W_p + t_p + out·TPOT(n)``; the running count solves
  ``n = λ·S(n)``. ``S`` is affine in ``n`` on each side of the roofline's max, so the smallest fixed
  point is the larger of the two affine fixed points (when both slopes are below 1). The replica's
  capacity is the rate at which ``n`` reaches ``slots``.
* time to first token = wait for a slot (the pool's M/G/c station, from the steady-state solver)
  + wait for the prefill engine (M/D/1) + ``t_p`` + the first decode step ``t_step(n + 1)``. Its
  percentiles come from that sum's distribution: the M/D/1 wait is exactly a geometric(ρ_p) sum of
  uniform(0, t_p) residual times (Pollaczek–Khinchine), composed on the solver's grid with the slot
  wait.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from inferboard.catalog.schema import GpuType
from inferboard.sim import latency_dist as ld
from inferboard.sim import sojourn as sj

#: Bytes per weight by precision.
BYTES_PER_WEIGHT = {"fp32": 4.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0}
#: Bisection steps for the replica's capacity (relative precision 2**-60).
_CAPACITY_STEPS = 60
#: Below this share of GPU time in prefill the prefill queue's wait is left out of the TTFT
#: distribution: it is non-zero with probability ρ_p, far below the 1% a p99 can see.
_NEGLIGIBLE_PREFILL_SHARE = 1e-9


@dataclass(frozen=True)
class Engine:
    """One replica's hardware and model, in SI units (bytes, FLOP/s, bytes/s)."""

    params: float  #: model parameters
    weight_bytes: float
    kv_bytes_per_token: float
    flops: float  #: peak dense FLOP/s of the replica at the compute precision
    bandwidth: float  #: HBM bytes/s of the replica
    prefill_efficiency: float
    decode_efficiency: float
    compute_precision: str
    gpus: int

    def prefill_s(self, tokens: float) -> float:
        return 2.0 * self.params * tokens / (self.flops * self.prefill_efficiency)

    def step_terms(self, context: float) -> tuple[float, float, float]:
        """``(memory time with no sequence, memory time per sequence, compute time per sequence)`` of
        a decode step at mean context ``context`` tokens."""
        bw = self.bandwidth * self.decode_efficiency
        return (self.weight_bytes / bw, context * self.kv_bytes_per_token / bw,
                2.0 * self.params / (self.flops * self.prefill_efficiency))

    def step_s(self, n: float, context: float) -> float:
        fixed, per_seq, compute = self.step_terms(context)
        return max(fixed + n * per_seq, n * compute)


def compute_precision(gpu: GpuType, precision: str) -> tuple[str, str]:
    """The precision the GPU computes at for weights stored at ``precision``, and a note when it
    differs (no FP8 or INT8 tensor cores: weight-only quantisation, FP16 arithmetic)."""
    if getattr(gpu.peak_tflops, precision) is not None:
        return precision, ""
    return "fp16", (f"{gpu.title} has no {precision.upper()} tensor cores: {precision.upper()} weights, "
                    f"FP16 arithmetic")


def engine_for(gpu: GpuType, precision: str, model_gb_fp16: float, kv_mb_per_token: float, tensor_parallel: int,
               prefill_efficiency: float, decode_efficiency: float) -> Engine:
    compute, _ = compute_precision(gpu, precision)
    params = model_gb_fp16 * 1e9 / BYTES_PER_WEIGHT["fp16"]
    return Engine(params, params * BYTES_PER_WEIGHT[precision], kv_mb_per_token * 1e6,
                  getattr(gpu.peak_tflops, compute) * 1e12 * tensor_parallel,
                  gpu.hbm_bandwidth_tb_s * 1e12 * tensor_parallel, prefill_efficiency, decode_efficiency, compute,
                  tensor_parallel)


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


def _fixed_point(engine: Engine, rate: float, prompt: int, out: int, context: float) -> tuple[float, float, float]:
    """``(n, ρ_p, W_p)`` at ``rate``; ``n`` is ``inf`` when the stream cannot keep up."""
    t_p = engine.prefill_s(prompt)
    rho = rate * t_p
    if rho >= 1.0:
        return math.inf, rho, math.inf
    wait = rho * t_p / (2.0 * (1.0 - rho))
    fixed, per_seq, compute = engine.step_terms(context)
    k = rate * out / (1.0 - rho)
    base = rate * (wait + t_p)
    best = 0.0
    for intercept, slope in ((base + k * (fixed + per_seq), k * per_seq), (base + k * compute, k * compute)):
        if slope >= 1.0:
            return math.inf, rho, wait
        best = max(best, intercept / (1.0 - slope))
    return best, rho, wait


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
    fixed, per_seq, compute = engine.step_terms(context)
    return ReplicaState(solved, capacity, t_p, rho, wait, n, step, tpot, service, slots,
                        batch * compute > fixed + batch * per_seq, int(prompt), int(out))


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
