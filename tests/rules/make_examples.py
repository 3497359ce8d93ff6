"""Write the example designs beside every rule: ``python -m tests.rules.make_examples``.

For each rule, ``rubrics/<rubric>/examples/<RULE-ID>/`` receives ``pass-N.json`` and ``fail-N.json``
(real design files) and ``expected.yaml``, which lists for each fail example the node ids (and,
where they matter, the edge ids) the finding must name. The expectations below are written by hand:
they are the test, the engine is what is tested.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Callable

import yaml

from inferboard.model import ops
from inferboard.rules import default_rules
from inferboard.store import design_to_bytes
from tests.rules.builders import drop_edge, llm, reference, set_requirements, simple, wire

Builder = Callable[[], object]
#: rule id -> example name -> (builder, expected node ids or None for a pass, expected edge ids)
EXAMPLES: dict[str, dict[str, tuple[Builder, list[str] | None, list[str] | None]]] = {}
POOLS_USE1 = ["gpu-use1", "next-use1"]
ALL_GPU = ["gpu-use1", "next-use1", "gpu-usw2", "next-usw2"]
#: The main pools of the reference; next-* are the canary pools behind each canary router.
MAIN_GPU = ["gpu-use1", "gpu-usw2"]


def ex(rule_id: str, name: str, build: Builder, nodes: list[str] | None = None, edges: list[str] | None = None):
    EXAMPLES.setdefault(rule_id, {})[name] = (build, nodes, edges)


def params(node_id: str, design_factory: Builder = reference, **values) -> Builder:
    def build():
        design = design_factory()
        design.set_params(node_id, **values)
        return design
    return build


def req(design_factory: Builder = reference, **values) -> Builder:
    return lambda: set_requirements(design_factory(), **values)


def without(*edges: str, design_factory: Builder = reference) -> Builder:
    def build():
        design = design_factory()
        for edge in edges:
            drop_edge(design, edge)
        return design
    return build


def removed(*nodes: str, design_factory: Builder = reference) -> Builder:
    def build():
        design = design_factory()
        for node in nodes:
            design.remove_node(node)
        return design
    return build


def unwired(kind: str, node_id: str, design_factory: Builder = reference, **values) -> Builder:
    """``design_factory``'s design plus a ``kind`` node in region use1 that nothing is wired to."""
    def build():
        design = design_factory()
        design.add_node(kind, 900, 900, values, node_id=node_id, region="use1")
        return design
    return build


def then(build: Builder, step: Callable) -> Builder:
    def composed():
        design = build()
        step(design)
        return design
    return composed


# ------------------------------------------------------------------------------- requirements
ex("REQ-001", "pass-1", reference)
ex("REQ-001", "fail-1", req(slo_p95_ms=None, slo_p99_ms=None), [])
ex("REQ-002", "pass-1", reference)
ex("REQ-002", "fail-1", req(availability_slo=None), [])
ex("REQ-003", "pass-1", reference)
ex("REQ-003", "pass-2", req(budget_per_1k=None, budget_per_hour=40.0))
ex("REQ-003", "fail-1", req(budget_per_1k=None), [])
ex("REQ-004", "pass-1", reference)
ex("REQ-004", "fail-1", req(peak_rps=None), [])
ex("REQ-005", "pass-1", llm)
ex("REQ-005", "pass-2", req(slo_ttft_ms=None))
ex("REQ-005", "fail-1", lambda: llm(slo_ttft_ms=None), [])
ex("REQ-006", "pass-1", reference)
ex("REQ-006", "pass-2", lambda: removed("gpu-use1", "next-use1", "fallback-use1", "gpu-usw2", "next-usw2",
                                        "fallback-usw2", design_factory=lambda: reference(model_size_gb=None))())
ex("REQ-006", "fail-1", req(model_size_gb=None), [])
ex("REQ-007", "pass-1", reference)
ex("REQ-007", "pass-2", params("users", origin="eu-west"))
ex("REQ-007", "fail-1", then(params("users", origin="eu-west"),
                             lambda d: set_requirements(d, allowed_regions=[])), ["users"])

# -------------------------------------------------------------------------------- autoscaling
ex("SCALE-001", "pass-1", reference)
ex("SCALE-001", "fail-1", removed("scaler-use1"), ["gpu-use1"])
# Steady traffic still needs capacity that follows the load; traffic with nothing serving it too.
ex("SCALE-001", "fail-2", removed("scaler-use1", design_factory=lambda: reference(traffic_pattern="steady")),
   ["gpu-use1"])
ex("SCALE-001", "pass-2", without("scaler-use1:next-use1"))  # a canary pool needs no autoscaler
ex("SCALE-001", "fail-3", lambda: reference(()), [])
ex("SCALE-002", "pass-1", reference)
ex("SCALE-002", "pass-2", params("scaler-use1", metric="gpu_utilisation"))
ex("SCALE-002", "fail-1", params("scaler-use1", metric="cpu_utilisation"), POOLS_USE1)
ex("SCALE-003", "pass-1", llm)
ex("SCALE-003", "pass-2", params("scaler-use1", metric="gpu_utilisation"))
ex("SCALE-003", "fail-1", params("scaler", llm, metric="gpu_utilisation"), ["llm"])
ex("SCALE-004", "pass-1", reference)
ex("SCALE-004", "pass-2", then(params("gpu-use1", min_replicas=1), lambda d: set_requirements(d, availability_slo=99.5)))
ex("SCALE-004", "pass-3", params("next-use1", min_replicas=1))  # nor a floor of two
ex("SCALE-004", "fail-1", params("gpu-use1", min_replicas=1), ["gpu-use1"])
ex("SCALE-005", "pass-1", reference)
ex("SCALE-005", "fail-1", params("gpu-use1", max_replicas=2), ["gpu-use1"])
ex("SCALE-005", "fail-2", params("scaler-usw2", max_replicas=2), ["scaler-usw2"])
ex("SCALE-006", "pass-1", reference)


def _cpu_scaled_to_zero(provisioning_s: float):
    def build():
        design = simple("cpu_pool", {"provisioning_s": provisioning_s, "min_replicas": 0})
        design.add_node("metrics_collector", 500, 300, node_id="metrics")
        design.add_node("autoscaler", 540, -100, {"scale_to_zero": True, "min_replicas": 0, "metric": "rps"},
                        node_id="scaler")
        wire(design, "cpus", "telemetry", "metrics", "telemetry")
        wire(design, "metrics", "telemetry", "scaler", "metrics")
        wire(design, "scaler", "scaling", "cpus", "scaling")
        return design
    return build


ex("SCALE-006", "pass-2", _cpu_scaled_to_zero(0.2))
ex("SCALE-006", "fail-1", params("scaler-use1", scale_to_zero=True, min_replicas=0), ["gpu-use1"])
ex("SCALE-006", "fail-2", _cpu_scaled_to_zero(20.0), ["cpus"])
ex("SCALE-007", "pass-1", reference)
ex("SCALE-007", "pass-2", then(params("scaler-use1", predictive=False, predictive_schedule=[]),
                               lambda d: set_requirements(d, traffic_pattern="bursty")))
ex("SCALE-007", "fail-1", params("scaler-use1", predictive=False, predictive_schedule=[]), ["gpu-use1"])
ex("SCALE-007", "fail-2", removed("scaler-usw2"), ["gpu-usw2"])
ex("SCALE-008", "pass-1", reference)
ex("SCALE-008", "fail-1", without("metrics:scaler-use1"), ["scaler-use1"])

# ----------------------------------------------------------------------------------- hardware
ex("HW-001", "pass-1", reference)
ex("HW-001", "pass-2", params("gpu-use1", gpu_type="a100_40gb", partitioning="mig", partitions=7))
ex("HW-001", "pass-3", then(params("llm", llm, gpu_type="h100", tensor_parallel=4),
                            lambda d: set_requirements(d, model_size_gb=140)))  # 140 GB over 4 x 80 GB
ex("HW-001", "pass-4", then(params("llm", llm, gpu_type="h100", tensor_parallel=2, precision="fp8"),
                            lambda d: set_requirements(d, model_size_gb=140)))  # 70 GB at FP8 over 2 x 80 GB
ex("HW-001", "fail-4", then(params("llm", llm, gpu_type="h100", tensor_parallel=1, precision="fp8"),
                            lambda d: set_requirements(d, model_size_gb=200)), ["llm"])  # 100 GB on one 80 GB card
ex("HW-001", "fail-1", req(model_size_gb=30), ALL_GPU)
ex("HW-001", "fail-2", then(params("gpu-use1", gpu_type="a100_40gb", partitioning="mig", partitions=7),
                            lambda d: set_requirements(d, model_size_gb=9)), ["gpu-use1"])
ex("HW-001", "fail-3", lambda: llm(model_size_gb=140), ["llm"])
ex("HW-002", "pass-1", llm)
ex("HW-002", "fail-1", then(params("llm", llm, gpu_type="a100_40gb"), lambda d: set_requirements(d, model_size_gb=26)),
   ["llm"])
def _gpu_beside_cpu():
    design = simple("cpu_pool", model_size_gb=3)
    design.add_node("gpu_pool", 540, 600, {"gpu_type": "l4"}, node_id="idle-gpus", region="use1")
    return design


ex("HW-003", "pass-1", reference)
ex("HW-003", "pass-2", lambda: simple("cpu_pool", model_size_gb=0.5))
ex("HW-003", "fail-1", lambda: simple("cpu_pool", model_size_gb=3), ["cpus"])
ex("HW-003", "fail-2", _gpu_beside_cpu, ["cpus"])  # a GPU pool elsewhere does not fix the CPU path
ex("HW-004", "pass-1", reference)
ex("HW-004", "pass-2", params("gpu-use1", gpu_type="h100", partitioning="mig", partitions=7))
ex("HW-004", "fail-1", params("gpu-use1", gpu_type="h100"), ["gpu-use1"])
ex("HW-005", "pass-1", reference)
ex("HW-005", "pass-2", params("gpu-use1", gpu_type="a100_80gb", partitioning="mig", partitions=7))
ex("HW-005", "fail-1", params("gpu-use1", partitioning="mig", partitions=2), ["gpu-use1"])
ex("HW-005", "fail-2", params("next-usw2", partitioning="mig", partitions=1), ["next-usw2"])
ex("HW-006", "pass-1", reference)
ex("HW-006", "pass-2", llm)
ex("HW-006", "fail-1", lambda: reference(fallback=False), MAIN_GPU)
ex("HW-006", "fail-2", unwired("fallback_model", "spare", lambda: reference(fallback=False), hardware="cpu"),
   [*MAIN_GPU, "spare"])  # drawn, not wired
ex("HW-007", "pass-1", lambda: simple("cpu_pool", {"service_ms": 20}))
ex("HW-007", "fail-1", lambda: simple("cpu_pool", {"service_ms": 200}), ["cpus"])
ex("HW-008", "pass-1", reference)
ex("HW-008", "pass-2", lambda: simple("cpu_pool"))
ex("HW-008", "fail-1", lambda: reference(()), [])
ex("HW-008", "fail-2", without("lb:cpus", design_factory=lambda: simple("cpu_pool")), ["cpus"])  # drawn, not wired

# ------------------------------------------------------------------------------- multi-region
ex("REGION-001", "pass-1", reference)
ex("REGION-001", "pass-2", lambda: reference((("use1", "us-east"),), availability_slo=99.5))
ex("REGION-001", "fail-1", lambda: reference((("use1", "us-east"),)), ["use1"])
ex("REGION-001", "fail-2", lambda: reference(()), [])


def _no_global_lb():
    design = reference()
    design.remove_node("glb")
    wire(design, "users", "requests", "lb-use1", "requests")
    wire(design, "users", "requests", "lb-usw2", "requests")
    return design


ex("REGION-002", "pass-1", reference)
ex("REGION-002", "pass-2", lambda: removed("glb", design_factory=lambda: reference((("use1", "us-east"),)))())
ex("REGION-002", "fail-1", _no_global_lb, ["use1", "usw2"])
ex("REGION-002", "fail-2", lambda: then(_no_global_lb, lambda d: d.add_node("global_load_balancer", 0, 900,
                                                                          node_id="spare"))(), ["use1", "usw2", "spare"])
CPU_4 = {"replicas": 4, "min_replicas": 4, "max_replicas": 4, "workers_per_replica": 4, "service_ms": 12}
CPU_8 = {**CPU_4, "replicas": 8, "min_replicas": 8, "max_replicas": 8}
N_PLUS_1 = {"mean_rps": 1000, "peak_rps": 2000, "availability_slo": 99.9}
ex("REGION-003", "pass-1", lambda: simple("cpu_pool", CPU_8, regions=("use1", "usw2"), **N_PLUS_1))
ex("REGION-003", "pass-2", lambda: simple("cpu_pool", CPU_4, **{**N_PLUS_1, "availability_slo": 99.5}))  # not implied
ex("REGION-003", "fail-1", lambda: simple("cpu_pool", CPU_4, regions=("use1", "usw2"), **N_PLUS_1),
   ["use1", "cpus-usw2"])
ex("REGION-003", "fail-2", lambda: simple("cpu_pool", CPU_8, **N_PLUS_1), ["use1"])  # one region: nothing remains


def _passive(min_replicas: int):
    def build():
        design = params("usw2", role="passive")()
        for pool in ("gpu-usw2", "next-usw2"):
            design.set_params(pool, min_replicas=min_replicas)
        return design
    return build


ex("REGION-004", "pass-1", _passive(2))
ex("REGION-004", "fail-1", _passive(0), ["gpu-usw2"])
ex("REGION-005", "pass-1", reference)
ex("REGION-005", "fail-1", params("glb", failover=False), ["glb"])
ex("REGION-005", "fail-2", params("glb", health_check_interval_s=30.0, unhealthy_threshold=5), ["glb"])
ex("REGION-006", "pass-1", reference)
ex("REGION-006", "pass-2", lambda: params("registry", lambda: reference((("use1", "us-east"),)),
                                          replicate_to_regions=False)())
ex("REGION-006", "fail-1", params("registry", replicate_to_regions=False), ALL_GPU, ["registry:gpu-use1", "registry:next-use1", "registry:gpu-usw2", "registry:next-usw2"])
ex("REGION-006", "fail-2", without("registry:gpu-use1"), ["gpu-use1"], [])
ex("REGION-007", "pass-1", reference)
ex("REGION-007", "fail-1", params("users", origin="eu-west"), ["users", "use1", "usw2"],
   ["glb:lb-use1", "glb:lb-usw2"])
ex("REGION-008", "pass-1", reference)
ex("REGION-008", "fail-1", req(allowed_regions=["us-east"]), ["usw2"])

# ---------------------------------------------------------------------------- capacity and cost
ex("COST-001", "pass-1", lambda: simple("cpu_pool", {**CPU_4, "replicas": 16, "max_replicas": 16}))
ex("COST-001", "fail-1", lambda: simple("cpu_pool", CPU_4), ["cpus"])
ex("COST-001", "fail-2", lambda: reference(()), [])
ex("COST-002", "pass-1", lambda: simple("cpu_pool", CPU_8))
ex("COST-002", "fail-1", lambda: simple("cpu_pool", CPU_8, budget_per_1k=0.00001), ["cpus"])
ex("COST-003", "pass-1", reference)
ex("COST-003", "pass-2", params("gpu-use1", spot_share=0.5))
ex("COST-003", "fail-1", params("gpu-use1", spot_share=0.8), ["gpu-use1"])


def _spot(with_fallback: bool):
    def build():
        design = simple("cpu_pool", {**CPU_8, "spot_share": 0.5}, peak_rps=2000, mean_rps=1000)
        if with_fallback:
            design.add_node("fallback_model", 540, 200, {"replicas": 8, "workers_per_replica": 4, "service_ms": 6},
                            node_id="fallback", region="use1")
            wire(design, "lb", "requests", "fallback", "requests")
        return design
    return build


ex("COST-004", "pass-1", _spot(True))
ex("COST-004", "fail-1", _spot(False), ["cpus"])
GPU_IDLE = {"gpu_type": "l4", "replicas": 8, "min_replicas": 8, "max_replicas": 8}
ex("COST-006", "pass-1", reference)
ex("COST-006", "pass-2", removed("fallback-use1", "fallback-usw2"))  # no fallback: LAT-010 and HW-006 judge that
ex("COST-006", "fail-1", params("fallback-use1", replicas=1, workers_per_replica=1), ["fallback-use1"])
ex("COST-005", "pass-1", lambda: simple("gpu_pool", {**GPU_IDLE, "replicas": 1, "min_replicas": 1}, batcher=True))
ex("COST-005", "pass-2", lambda: simple("cpu_pool", {**CPU_8, "replicas": 64, "max_replicas": 64}))
ex("COST-005", "fail-1", lambda: simple("gpu_pool", GPU_IDLE, batcher=True, mean_rps=50, peak_rps=100), ["gpus"])

# -------------------------------------------------------------------------------------- latency
ex("LAT-001", "pass-1", lambda: simple("cpu_pool", {**CPU_4, "replicas": 16, "max_replicas": 16}, peak_rps=2000))
ex("LAT-001", "fail-1", lambda: simple("cpu_pool", CPU_4, peak_rps=2000), ["cpus"])
ex("LAT-001", "fail-2", lambda: reference(()), [])
ex("LAT-002", "pass-1", reference)
ex("LAT-002", "fail-1", params("batch-use1", max_queue_delay_ms=100.0), ["batch-use1"])


def _batcher_skipped():
    design = reference()
    drop_edge(design, "canary-use1:batch-use1")
    wire(design, "canary-use1", "stable", "gpu-use1", "requests")
    return design


ex("LAT-003", "pass-1", reference)
ex("LAT-003", "pass-2", llm)
ex("LAT-003", "fail-3", without("lb:gpus", design_factory=lambda: simple("gpu_pool")), ["gpus"])  # not wired
ex("LAT-003", "fail-1", _batcher_skipped, ["gpu-use1"],
   ["users:glb", "glb:lb-use1", "lb-use1:cache-use1", "cache-use1:adm-use1", "adm-use1:canary-use1",
    "canary-use1:gpu-use1"])


def _batcher_before_llm():
    design = llm()
    drop_edge(design, "adm:llm")
    design.add_node("dynamic_batcher", 480, 60, node_id="batch", region="use1")
    wire(design, "adm", "requests", "batch", "requests")
    wire(design, "batch", "requests", "llm", "requests")
    return design


ex("LAT-004", "pass-1", llm)
ex("LAT-004", "pass-2", reference)
ex("LAT-004", "fail-1", _batcher_before_llm, ["batch"])
ex("LAT-005", "pass-1", reference)
ex("LAT-005", "pass-2", lambda: simple("cpu_pool"))
ex("LAT-005", "fail-1", lambda: reference(cache=False), MAIN_GPU)
ex("LAT-005", "fail-2", unwired("cache", "spare", lambda: reference(cache=False)), MAIN_GPU)  # beside the path
ex("LAT-006", "pass-1", reference)
ex("LAT-006", "pass-2", params("gpu-use1", precision="int8"))
ex("LAT-006", "fail-2", then(params("gpu-use1", precision="int8"), lambda d: drop_edge(d, "gpu-use1:metrics")),
   ["gpu-use1"])  # a target is declared, but nothing measures the INT8 pool
ex("LAT-006", "fail-1", then(params("gpu-use1", precision="int8"),
                             lambda d: set_requirements(d, accuracy_target_pct=None)), ["gpu-use1"])


def _spiky_without_admission():
    return reference((("use1", "us-east"),), admission=False, fallback=False, traffic_pattern="spike",
                     allowed_regions=["us-east"])


ex("LAT-011", "pass-1", reference)
ex("LAT-011", "pass-2", params("cache-use1", cached_output="personalised", key_scope="per_user"))
ex("LAT-011", "pass-3", params("cache-use1", cached_output="sampled", cache_type="kv_prefix"))
ex("LAT-011", "fail-1", params("cache-use1", cached_output="personalised"), ["cache-use1"])
ex("LAT-011", "fail-2", params("cache-use1", cached_output="sampled"), ["cache-use1"])
ex("LAT-012", "pass-1", reference)
ex("LAT-012", "pass-2", params("cache-use1", ttl_s=0, cache_type="embedding"))
ex("LAT-012", "fail-1", params("cache-use1", ttl_s=0), ["cache-use1"])
ex("LAT-007", "pass-1", lambda: reference(traffic_pattern="spike"))
ex("LAT-007", "pass-2", lambda: reference((("use1", "us-east"),), admission=False, fallback=False))
ex("LAT-007", "fail-2", lambda: reference((), traffic_pattern="spike"), [])
ex("LAT-007", "fail-1", _spiky_without_admission, ["gpu-use1"],
   ["users:glb", "glb:lb-use1", "lb-use1:cache-use1", "batch-use1:gpu-use1", "cache-use1:canary-use1",
    "canary-use1:batch-use1"])
ex("LAT-008", "pass-1", llm)
ex("LAT-008", "pass-2", params("adm-use1", degrade_mode="none"))
ex("LAT-008", "fail-1", params("adm", llm, degrade_mode="none"), ["adm"])
ex("LAT-008", "fail-2", removed("adm", design_factory=llm), [])
ex("LAT-010", "pass-1", reference)
ex("LAT-010", "pass-2", llm)
ex("LAT-010", "fail-1", lambda: reference(fallback=False), [])
ex("LAT-010", "fail-2", unwired("fallback_model", "spare", lambda: reference(fallback=False)), ["spare"])
ex("LAT-009", "pass-1", reference)
ex("LAT-009", "fail-1", params("batch-use1", timeout_ms=5000.0), ["batch-use1"])

# -------------------------------------------------------------------------------- observability
ex("OBS-001", "pass-1", reference)
ex("OBS-001", "fail-1", without("gpu-use1:metrics"), ["gpu-use1"])
ex("OBS-001", "fail-2", removed("metrics"), ALL_GPU)
ex("OBS-002", "pass-1", reference)
ex("OBS-002", "fail-1", without("metrics:alerts"), ["metrics"])
ex("OBS-002", "fail-2", removed("alerts"), ["metrics"])
ex("OBS-003", "pass-1", reference)
ex("OBS-003", "pass-2", then(params("alerts", burn_rate_alerts=False), lambda d: set_requirements(d, availability_slo=None)))
ex("OBS-003", "fail-1", params("alerts", burn_rate_alerts=False), ["alerts"])
ex("OBS-003", "fail-2", removed("alerts"), [])
ex("OBS-004", "pass-1", reference)
ex("OBS-004", "fail-1", params("alerts", severity_levels=1), ["alerts"])
ex("OBS-005", "pass-1", reference)
ex("OBS-005", "fail-1", params("alerts", runbook_url=""), ["alerts"])
ex("OBS-006", "pass-1", reference)
ex("OBS-006", "fail-1", params("alerts", grouping=False), ["alerts"])
ex("OBS-006", "fail-2", params("alerts", dedup_window_s=0.0), ["alerts"])
ex("OBS-007", "pass-1", reference)
ex("OBS-007", "fail-1", params("metrics", business_metrics=False), ["metrics"])

# ---------------------------------------------------------------------------------------- drift
ex("DRIFT-001", "pass-1", reference)
ex("DRIFT-001", "pass-2", lambda: reference(()))
ex("DRIFT-001", "fail-1", removed("drift"), [])
ex("DRIFT-002", "pass-1", reference)
ex("DRIFT-002", "pass-2", params("metrics", model_metrics=False))
ex("DRIFT-002", "fail-1", without("metrics:drift"), ["drift"])
ex("DRIFT-003", "pass-1", reference)
ex("DRIFT-003", "pass-2", then(without("drift:retrain"), lambda d: d.set_params("drift", action="alert")))
ex("DRIFT-003", "fail-1", without("drift:retrain"), ["drift"])
ex("DRIFT-003", "fail-2", without("drift:alerts"), ["drift"])
ex("DRIFT-004", "pass-1", reference)
ex("DRIFT-004", "fail-1", params("drift", drift_type="input"), ["drift"])
ex("DRIFT-005", "pass-1", reference)
ex("DRIFT-005", "pass-2", params("drift", test="ks", threshold=0.05))
ex("DRIFT-005", "fail-1", params("drift", window_hours=0.25), ["drift"])
ex("DRIFT-005", "fail-2", params("drift", threshold=0.5), ["drift"])
ex("DRIFT-006", "pass-1", reference)
ex("DRIFT-006", "fail-1", removed("drift"), [])
ex("DRIFT-006", "fail-2", then(without("drift:retrain"), lambda d: d.set_params("drift", action="alert")), ["drift"])
ex("DRIFT-006", "fail-3", params("drift", window_hours=168.0), ["drift"])
ex("DRIFT-007", "pass-1", reference)
ex("DRIFT-007", "fail-1", without("drift:alerts"), ["drift"])
ex("DRIFT-007", "fail-2", params("drift", action="retrain"), ["drift"])
ex("DRIFT-008", "pass-1", reference)
ex("DRIFT-008", "fail-1", params("retrain", promote_via_canary=False), ["retrain"])

# -------------------------------------------------------------------------------------- rollout
ex("ROLL-001", "pass-1", reference)
ex("ROLL-001", "fail-1", lambda: reference(canary=False), [])
ex("ROLL-001", "fail-2", lambda: reference(()), [])
ex("ROLL-001", "fail-3", unwired("canary_router", "spare", lambda: reference(canary=False)), ["spare"])
ex("ROLL-002", "pass-1", reference)
ex("ROLL-002", "pass-2", params("canary-use1", auto_rollback=False, shadow=True))
ex("ROLL-002", "fail-1", params("canary-use1", auto_rollback=False), ["canary-use1"])
ex("ROLL-003", "pass-1", reference)
ex("ROLL-003", "pass-2", params("canary-use1", canary_share=0.5, shadow=True))
ex("ROLL-003", "fail-1", params("canary-use1", canary_share=0.5), ["canary-use1"])
ex("ROLL-007", "pass-1", reference)
ex("ROLL-007", "pass-2", params("canary-use1", rollback_error_rate=0.2, shadow=True))  # mirrored: users never see it
ex("ROLL-007", "fail-1", params("canary-use1", rollback_error_rate=0.2), ["canary-use1"])
ex("ROLL-007", "fail-2", params("canary-usw2", rollback_latency_ratio=3.0), ["canary-usw2"])
ex("ROLL-004", "pass-1", reference)
ex("ROLL-004", "fail-1", params("registry", versioned=False), ["registry"])
ex("ROLL-005", "pass-1", reference)
ex("ROLL-005", "fail-1", params("retrain", validation_gate=False), ["retrain"])
ex("ROLL-006", "pass-1", reference)
ex("ROLL-006", "fail-1", params("retrain", promote_via_canary=False), ["retrain"])


def write_examples(root: Path | None = None) -> int:
    rules = default_rules()
    count = 0
    for rule_id, examples in EXAMPLES.items():
        folder = rules.examples_dir(rule_id)
        if root is not None:
            folder = root / folder.relative_to(rules.folder)
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        expected = {}
        for name, (build, nodes, edges) in sorted(examples.items()):
            design = build()
            design.apply(ops.SetMetadata({"title": f"{rule_id} {name}",
                                          "notes": f"Example for {rule_id}: {rules.get(rule_id).title}"}))
            (folder / f"{name}.json").write_bytes(design_to_bytes(design))
            if nodes is not None:
                expected[name] = {"nodes": nodes} if edges is None else {"nodes": nodes, "edges": edges}
            count += 1
        header = f"# Offending ids each fail example of {rule_id} must produce (generated by make_examples.py).\n"
        (folder / "expected.yaml").write_text(header + yaml.safe_dump(expected, sort_keys=True), encoding="utf-8")
    return count


if __name__ == "__main__":
    print(f"wrote {write_examples()} example designs")
    sys.exit(0)
