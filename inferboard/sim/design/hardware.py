"""How a pool's parameters and its GPU type turn into servers, service times and memory fit."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

from inferboard.catalog import Catalog
from inferboard.model.elements import Node
from inferboard.model.requirements import Requirements
from inferboard.sim.llm import llm

#: Service-time multiplier against the FP16 reference. FP32 roughly halves tensor-core throughput;
#: INT8 gains about 1.6x where kernels support it.
PRECISION_SPEED = {"fp32": 2.0, "fp16": 1.0, "int8": 0.6}
#: Weight memory against FP16.
PRECISION_MEMORY = {"fp32": 2.0, "fp16": 1.0, "fp8": 0.5, "int8": 0.5, "int8_weight_only": 0.5,
                    "int4_weight_only": 0.25}
#: An FP8/INT8 prefill reaches this share of the FP16 prefill efficiency, of its (doubled) peak: the
#: attention, normalisation and sampling kernels stay at 16 bits. Least squares on the log ratios of
#: bench/bench_llm.py's calibration rows (0.69-0.70; its validation rows play no part); see
#: docs/catalog.md.
LOW_PRECISION_PREFILL_SHARE = 0.7
#: Share of GPU memory usable for weights (the rest: activations, workspace, CUDA context).
USABLE_MEMORY = 0.9
#: Time-slicing shares one GPU by context switching; assume a 10% switching penalty.
TIME_SLICING_PENALTY = 1.1
#: CPU spot capacity is billed at about 35% of on-demand (illustrative; AWS quotes up to 90% off).
CPU_SPOT_PRICE_FACTOR = 0.35
#: Assumed model size (FP16 GB) when the requirements do not declare one.
DEFAULT_MODEL_GB = {"gpu_pool": 2.0, "generation_pool": 14.0}
DEFAULT_PROMPT_TOKENS = 512
DEFAULT_OUTPUT_TOKENS = 256
#: Coefficient of variation of a generation's service time (output lengths vary).
GENERATION_CV = 0.7



@dataclass
class PoolPlan:
    """What a pool node amounts to for the simulator."""

    node_id: str
    kind: str
    replicas: int
    servers: int
    service_mean_s: float
    service_cv: float
    batch_base_s: float = 0.0
    batch_item_s: float = 0.0
    memory_needed_gb: float | None = None
    memory_available_gb: float | None = None
    error_rate: float = 0.0
    price_per_hour: float = 0.0
    ttft_s: float | None = None
    tpot_s: float | None = None
    notes: list[str] = field(default_factory=list)
    #: requests/s the pool completes at most, when the pool's station capacity (servers / service
    #: time) is not it: an LLM pool's service time grows with its load
    capacity_rps: float | None = None
    #: LLM pools: one replica's engine and its state at the offered rate
    engine: llm.Engine | None = None
    replica: llm.ReplicaState | None = None

    @property
    def memory_fit(self) -> bool | None:
        """Whether the model fits in a server's memory (None when the memory is not known)."""
        if self.memory_needed_gb is None or self.memory_available_gb is None:
            return None
        return self.memory_needed_gb <= self.memory_available_gb

    @property
    def live(self) -> bool:
        """Whether the pool serves at all: it has servers and the model fits."""
        return self.servers > 0 and self.memory_fit is not False


def effective_replicas(node: Node, faults, replicas_override: Mapping[str, int] | None,
                       gpu_kinds: tuple[str, ...] = ()) -> tuple[int, int, list[str]]:
    """Replicas in service after faults; returns (replicas, of which spot, notes). ``gpu_kinds``: the
    kinds that run on GPUs (a GPU shortage caps them), from the design's catalog."""
    notes = []
    replicas = int(node.params.get("replicas", 1))
    if replicas_override and node.id in replicas_override:
        replicas = int(replicas_override[node.id])
    spot_share = float(node.params.get("spot_share", 0.0))
    spot = int(round(replicas * spot_share))
    gpus_per_replica = int(node.params["tensor_parallel"]) if node.kind == "generation_pool" else 1
    for fault in faults:
        if fault.kind == "gpu_shortage" and fault.hits(node.id) and node.kind in gpu_kinds:
            cap = int(fault.amount) // gpus_per_replica
            if replicas > cap:
                notes.append(f"GPU shortage: capped at {cap} replicas (of {replicas})"
                             + (f", {gpus_per_replica} GPUs each" if gpus_per_replica > 1 else ""))
                spot = min(spot, cap)
                replicas = cap
        if fault.kind == "spot_reclaimed" and fault.hits(node.id) and spot:
            notes.append(f"spot reclaimed: {spot} of {replicas} replicas lost")
            replicas -= spot
            spot = 0
    return max(0, replicas), spot, notes


def plan_pool(node: Node, catalog: Catalog, req: Requirements, faults, replicas_override=None,
              arrival_rps: float = 0.0, degraded_tokens: int | None = None, prefix_hit: float = 0.0) -> PoolPlan:
    """A pool's plan under ``faults``: replicas in service, servers, service times, memory fit, error rate
    and price (``replicas_override`` replaces the configured count; ``arrival_rps``, ``degraded_tokens`` and
    ``prefix_hit`` shape an LLM pool's replica model)."""
    replicas, spot, notes = effective_replicas(node, faults, replicas_override, catalog.kinds_with_role("gpu_pool"))
    p = node.params
    error_rate = float(p.get("error_rate", 0.0))
    slow = 1.0
    for fault in faults:
        if fault.kind in ("failing_replica", "dependency_errors") and fault.hits(node.id):
            error_rate = min(1.0, error_rate + fault.amount)
            notes.append(f"{fault.title()}: error rate +{fault.amount:.0%}")
        if fault.kind == "slow_replica" and fault.hits(node.id):
            slow *= fault.amount
            notes.append(f"slow replicas: service x{fault.amount:g}")
    if node.kind == "gpu_pool":
        plan = _plan_gpu(node, catalog, req, replicas, spot, notes)
    elif node.kind == "generation_pool":
        plan = _plan_generation(node, catalog, req, replicas, spot, notes, arrival_rps, degraded_tokens, prefix_hit)
    else:
        workers = int(p.get("workers_per_replica", 1))
        spec = catalog.kind(node.kind)
        vcpu_scale = float(p.get("vcpus_per_replica", 4)) / 4.0 if "vcpus_per_replica" in p else 1.0
        spot_fraction = spot / replicas if replicas else 0.0
        price = spec.cost.per_replica_per_hour * vcpu_scale * replicas * (
            1 - spot_fraction + spot_fraction * CPU_SPOT_PRICE_FACTOR)
        service = float(p.get("service_ms", 10.0)) / 1000
        share = float(p.get("batch_fixed_share", 0.0))  # a batch of b: service*(share + (1 - share)*b)
        plan = PoolPlan(node.id, node.kind, replicas, replicas * workers, service, float(p.get("service_cv", 1.0)),
                        service * share, service * (1.0 - share), price_per_hour=price, notes=notes)
        plan.notes.append(f"{replicas} replicas x {workers} workers = {replicas * workers} servers, "
                          f"{p.get('service_ms')} ms per request")
    plan.error_rate = error_rate
    plan.service_mean_s *= slow
    plan.batch_base_s *= slow
    plan.batch_item_s *= slow
    return plan


def _gpu_price(catalog: Catalog, gpu_id: str, replicas: int, spot: int, gpus_per_replica: int = 1) -> float:
    gpu = catalog.gpus[gpu_id]
    return ((replicas - spot) * gpu.on_demand_per_hour + spot * gpu.spot_per_hour) * gpus_per_replica


def _plan_gpu(node: Node, catalog: Catalog, req: Requirements, replicas: int, spot: int, notes: list[str]) -> PoolPlan:
    p = node.params
    gpu = catalog.gpus[p["gpu_type"]]
    precision = p.get("precision", "fp16")
    mode = p.get("partitioning", "none")
    parts = int(p.get("partitions", 1)) if mode != "none" else 1
    if mode == "mig" and parts > gpu.mig_max_instances:
        if gpu.mig_max_instances == 0:
            notes.append(f"{gpu.title} has no MIG: served as one whole GPU per replica")
            parts, mode = 1, "none"
        else:
            notes.append(f"{gpu.title} allows at most {gpu.mig_max_instances} MIG slices; using that")
            parts = gpu.mig_max_instances
    slowdown = parts * (TIME_SLICING_PENALTY if mode == "time_slicing" else 1.0)
    scale = PRECISION_SPEED[precision] / gpu.relative_speed * slowdown
    base = float(p["base_ms"]) / 1000 * scale
    item = float(p["per_item_ms"]) / 1000 * scale
    model_gb = req.model_size_gb if req.model_size_gb is not None else DEFAULT_MODEL_GB["gpu_pool"]
    if req.model_size_gb is None:
        notes.append(f"model size not declared: assuming {model_gb:g} GB at FP16")
    weights = model_gb * PRECISION_MEMORY[precision]
    if mode == "mig":
        needed, available = weights, gpu.memory_gb / parts * USABLE_MEMORY
    else:
        needed, available = weights * parts, gpu.memory_gb * USABLE_MEMORY
    notes.append(f"{gpu.title} (speed x{gpu.relative_speed:g} of a T4), {precision.upper()}"
                 + (f", {parts} {mode.replace('_', '-')} partitions" if parts > 1 else "")
                 + f": batch of b takes {base * 1000:.2f} + {item * 1000:.3f}*b ms")
    return PoolPlan(node.id, node.kind, replicas, replicas * parts, base + item, float(p.get("service_cv", 0.3)),
                    base, item, needed, available, price_per_hour=_gpu_price(catalog, gpu.id, replicas, spot),
                    notes=notes)


def _plan_generation(node: Node, catalog: Catalog, req: Requirements, replicas: int, spot: int, notes: list[str],
                     arrival_rps: float, degraded_tokens: int | None, prefix_hit: float = 0.0) -> PoolPlan:
    """Continuous batching from first principles (``llm``): a multi-server queue whose servers are
    the sequences the KV cache holds, each holding its slot for the prefill wait, the prefill and
    one decode step per output token at the replica's arrival rate."""
    p = node.params
    gpu = catalog.gpus[p["gpu_type"]]
    precision = p["precision"]
    tp = int(p["tensor_parallel"])
    model_gb = req.model_size_gb if req.model_size_gb is not None else DEFAULT_MODEL_GB["generation_pool"]
    if req.model_size_gb is None:
        notes.append(f"model size not declared: assuming {model_gb:g} GB at FP16")
    compute, why = llm.compute_precision(gpu, precision)
    if why:
        notes.append(why)
    prefill_eff = float(p["prefill_efficiency"]) * (LOW_PRECISION_PREFILL_SHARE if compute in ("fp8", "int8") else 1.0)
    shape = llm.ModelShape(int(p.get("experts", 1)), int(p.get("experts_per_token", 2)),
                           float(p.get("active_param_share", 1.0)), int(p.get("layers", 0)),
                           int(p.get("hidden_size", 0)))
    engine = llm.engine_for(gpu, precision, model_gb, float(p["kv_cache_mb_per_token"]), tp, prefill_eff,
                            float(p["decode_efficiency"]), shape, float(p.get("step_overhead_ms", 0.0)) / 1000)
    weights_gb = engine.weight_bytes / 1e9
    usable = gpu.memory_gb * USABLE_MEMORY * tp
    prompt = req.prompt_tokens or DEFAULT_PROMPT_TOKENS
    out = req.output_tokens or DEFAULT_OUTPUT_TOKENS
    if degraded_tokens is not None and degraded_tokens < out:
        notes.append(f"degraded: output capped at {degraded_tokens} tokens (of {out})")
        out = degraded_tokens
    kv_gb_per_seq = (prompt + out) * engine.kv_bytes_per_token / 1e9
    kv_free = usable - weights_gb
    slots = 0 if kv_free <= 0 else min(int(p["max_num_seqs"]), int(kv_free // kv_gb_per_seq))
    if prefix_hit > 0:
        # A KV-prefix cache hit skips the prefill of the shared prefix; count the whole prompt as
        # shared on a hit (an upper bound on the saving): the mean prefill work shrinks by the hit ratio.
        notes.append(f"KV-prefix cache: {prefix_hit:.0%} of prompts skip prefill")
    prefill_tokens = max(1, round(prompt * (1 - prefix_hit)))
    state = llm.replica_state(engine, arrival_rps / replicas if replicas else 0.0, prefill_tokens, out, slots)
    if slots == 0:
        notes.append("the model and one sequence's KV cache do not fit this GPU" + (" set" if tp > 1 else ""))
    gpus = f"{tp} x {gpu.title}" if tp > 1 else gpu.title
    notes.append(f"{gpus} {precision.upper()}: weights {weights_gb:.1f} GB, KV room {max(kv_free, 0):.1f} GB "
                 f"= {slots} sequences of {prompt}+{out} tokens; prefill {state.prefill_s * 1000:.0f} ms "
                 f"({state.prefill_share:.0%} of GPU time), step {state.step_s * 1000:.1f} ms at "
                 f"{state.running:.0f} running ({'compute' if state.compute_bound else 'memory'}-bound)")
    return PoolPlan(node.id, node.kind, replicas, replicas * slots, state.service_s, GENERATION_CV,
                    memory_needed_gb=weights_gb + (kv_gb_per_seq if slots == 0 else 0.0), memory_available_gb=usable,
                    price_per_hour=_gpu_price(catalog, gpu.id, replicas, spot, tp),
                    ttft_s=state.ttft_s, tpot_s=state.tpot_s,
                    notes=notes, capacity_rps=replicas * state.capacity_rps, engine=engine, replica=state)


def cost_of_node(node: Node, catalog: Catalog, plan: PoolPlan | None, rate_rps: float, down: bool) -> float:
    """Cost per hour of one node: its pool plan's price, fixed costs, and per-request charges."""
    spec = catalog.kind(node.kind)
    if down:
        return 0.0
    cost = spec.cost.fixed_per_hour + spec.cost.per_million_requests * rate_rps * 3600 / 1e6
    if plan is not None:
        cost += plan.price_per_hour
    elif spec.cost.model == "per_replica" and spec.cost.replica_param:
        cost += spec.cost.per_replica_per_hour * float(node.params.get(spec.cost.replica_param, 0))
    return cost if math.isfinite(cost) else 0.0
