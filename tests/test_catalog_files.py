"""The shipped catalog files under components/ satisfy the schema and the naming contract.

These tests read the YAML files directly (yaml.safe_load + the pydantic schema) so they do not
depend on the catalog loader. Parameter and port names below are a contract with the simulator
and the rule engine: renaming one must fail here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from inferboard.catalog.schema import ComponentKind, GpuTable

COMPONENTS = Path(__file__).parents[1] / "components"
GPU_FILE = COMPONENTS / "gpu_types.yaml"

GPU_IDS = {"t4", "l4", "a10g", "l40s", "a100_40gb", "a100_80gb", "h100", "h200", "mi300x"}

#: kind id -> category
KINDS = {
    "traffic_source": "traffic",
    "global_load_balancer": "routing",
    "regional_load_balancer": "routing",
    "request_queue": "queueing",
    "dynamic_batcher": "queueing",
    "gpu_pool": "compute",
    "generation_pool": "compute",
    "cpu_pool": "compute",
    "cache": "caching",
    "autoscaler": "scaling",
    "admission_control": "resilience",
    "canary_router": "model_lifecycle",
    "fallback_model": "resilience",
    "model_registry": "model_lifecycle",
    "feature_service": "compute",
    "metrics_collector": "observability",
    "alerting": "observability",
    "drift_detector": "observability",
    "retraining_pipeline": "model_lifecycle",
    "region": "placement",
}

#: Kinds that emit a `telemetry` output port.
TELEMETRY_KINDS = {
    "global_load_balancer", "regional_load_balancer", "request_queue", "dynamic_batcher", "gpu_pool",
    "generation_pool", "cpu_pool", "cache", "admission_control", "canary_router", "fallback_model",
    "feature_service",
}

#: Pools: they take `scaling` from an autoscaler and `artifacts` from a model registry.
POOL_KINDS = {"gpu_pool", "generation_pool", "cpu_pool", "fallback_model", "feature_service"}

#: Kinds on the request path: an input `requests` port and an output `requests` port.
REQUEST_PATH_KINDS = TELEMETRY_KINDS - {"canary_router"}

#: The contract: kind -> {param name: type}. Kinds may declare more params than these.
CONTRACT_PARAMS = {
    "traffic_source": {"share": "float", "origin": "choice", "arrival_cv": "float",
                       "high_priority_share": "float"},
    "global_load_balancer": {"policy": "choice", "health_check_interval_s": "float",
                             "unhealthy_threshold": "int", "failover": "bool", "added_latency_ms": "float"},
    "regional_load_balancer": {"policy": "choice", "rate_limit_rps": "float", "added_latency_ms": "float",
                               "health_check_interval_s": "float"},
    "request_queue": {"capacity": "int", "timeout_ms": "float"},
    "dynamic_batcher": {"max_batch_size": "int", "max_queue_delay_ms": "float", "queue_capacity": "int",
                        "timeout_ms": "float"},
    "gpu_pool": {"gpu_type": "choice", "replicas": "int", "min_replicas": "int", "max_replicas": "int",
                 "precision": "choice", "partitioning": "choice", "partitions": "int", "spot_share": "float",
                 "base_ms": "float", "per_item_ms": "float", "service_cv": "float", "provisioning_s": "float",
                 "error_rate": "float"},
    "generation_pool": {"gpu_type": "choice", "replicas": "int", "min_replicas": "int", "max_replicas": "int",
                        "precision": "choice", "spot_share": "float", "max_num_seqs": "int",
                        "decode_efficiency": "float", "prefill_efficiency": "float", "tensor_parallel": "int",
                        "kv_cache_mb_per_token": "float", "provisioning_s": "float", "error_rate": "float",
                        "step_overhead_ms": "float", "experts": "int", "experts_per_token": "int",
                        "active_param_share": "float", "layers": "int", "hidden_size": "int"},
    "cpu_pool": {"replicas": "int", "min_replicas": "int", "max_replicas": "int", "vcpus_per_replica": "int",
                 "workers_per_replica": "int", "service_ms": "float", "service_cv": "float",
                 "spot_share": "float", "provisioning_s": "float", "error_rate": "float"},
    "cache": {"cache_type": "choice", "hit_ratio": "float", "hit_latency_ms": "float", "size_gb": "float"},
    "autoscaler": {"metric": "choice", "target": "float", "tolerance": "float", "sync_period_s": "float",
                   "scale_up_stabilization_s": "float", "scale_down_stabilization_s": "float",
                   "min_replicas": "int", "max_replicas": "int", "scale_to_zero": "bool",
                   "scale_to_zero_grace_s": "float", "predictive": "bool", "predictive_schedule": "schedule"},
    "admission_control": {"shed_above_utilisation": "float", "priority_classes": "int",
                          "shed_low_priority_first": "bool", "degrade_mode": "choice",
                          "degrade_max_tokens": "int", "max_concurrency": "int"},
    "canary_router": {"canary_share": "float", "auto_rollback": "bool", "rollback_error_rate": "float",
                      "rollback_latency_ratio": "float", "evaluation_window_s": "float", "shadow": "bool"},
    "fallback_model": {"model_type": "choice", "accuracy_drop_pct": "float", "hardware": "choice",
                       "replicas": "int", "workers_per_replica": "int", "service_ms": "float",
                       "service_cv": "float", "provisioning_s": "float", "error_rate": "float"},
    "model_registry": {"replicate_to_regions": "bool", "versioned": "bool", "pull_bandwidth_mb_s": "float"},
    "feature_service": {"replicas": "int", "workers_per_replica": "int", "service_ms": "float",
                        "service_cv": "float", "provisioning_s": "float", "error_rate": "float",
                        "spot_share": "float"},
    "metrics_collector": {"system_metrics": "bool", "model_metrics": "bool", "business_metrics": "bool",
                          "scrape_interval_s": "float", "retention_days": "int"},
    "alerting": {"burn_rate_alerts": "bool", "fast_burn_rate": "float", "slow_burn_rate": "float",
                 "severity_levels": "int", "runbook_url": "text", "grouping": "bool", "dedup_window_s": "float"},
    "drift_detector": {"test": "choice", "drift_type": "choice", "window_hours": "float", "threshold": "float",
                       "action": "choice"},
    "retraining_pipeline": {"schedule": "choice", "validation_gate": "bool", "promote_via_canary": "bool"},
    "region": {"location": "choice", "residency": "choice", "role": "choice"},
}

#: Contract choices that must be offered exactly (order free).
CONTRACT_CHOICES = {
    ("traffic_source", "origin"): {"us-east", "us-west", "eu-west", "eu-central", "ap-southeast", "ap-northeast"},
    ("global_load_balancer", "policy"): {"latency", "geo", "weighted", "round_robin"},
    ("regional_load_balancer", "policy"): {"round_robin", "least_outstanding"},
    ("gpu_pool", "gpu_type"): GPU_IDS,
    ("gpu_pool", "precision"): {"fp32", "fp16", "int8"},
    ("gpu_pool", "partitioning"): {"none", "mig", "time_slicing"},
    ("generation_pool", "gpu_type"): GPU_IDS,
    ("generation_pool", "precision"): {"fp32", "fp16", "fp8", "int8", "int8_weight_only", "int4_weight_only"},
    ("cache", "cache_type"): {"result", "embedding", "kv_prefix"},
    ("autoscaler", "metric"): {"queue_depth", "gpu_utilisation", "latency_p95", "rps", "cpu_utilisation"},
    ("admission_control", "degrade_mode"): {"none", "shorter_max_tokens", "smaller_model"},
    ("fallback_model", "model_type"): {"distilled", "quantized", "rules_based", "cached_default"},
    ("fallback_model", "hardware"): {"cpu", "gpu"},
    ("drift_detector", "test"): {"psi", "ks", "wasserstein"},
    ("drift_detector", "drift_type"): {"input", "concept", "both"},
    ("drift_detector", "action"): {"alert", "retrain", "alert_and_retrain"},
    ("retraining_pipeline", "schedule"): {"on_trigger", "daily", "weekly"},
    ("region", "location"): {"us-east", "us-west", "eu-west", "eu-central", "ap-southeast", "ap-northeast"},
    ("region", "residency"): {"us", "eu", "apac", "none"},
    ("region", "role"): {"active", "passive"},
}


def _kind_files() -> list[Path]:
    return sorted(p for p in COMPONENTS.glob("*.yaml") if p.name != GPU_FILE.name)


def _load(path: Path):
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@pytest.fixture(scope="module")
def kinds() -> dict[str, ComponentKind]:
    out = {}
    for path in _kind_files():
        kind = ComponentKind.model_validate(_load(path))
        out[kind.id] = kind
    return out


@pytest.fixture(scope="module")
def gpu_table() -> GpuTable:
    return GpuTable.model_validate(_load(GPU_FILE))


# --- every file is valid ------------------------------------------------------------------------

@pytest.mark.parametrize("path", _kind_files(), ids=lambda p: p.stem)
def test_kind_file_validates_and_is_named_after_its_id(path: Path):
    kind = ComponentKind.model_validate(_load(path))
    assert kind.id == path.stem


def test_gpu_table_validates(gpu_table: GpuTable):
    ids = [gpu.id for gpu in gpu_table.gpus]
    assert len(ids) == len(set(ids)), "duplicate GPU id"
    assert GPU_IDS <= set(ids)


@pytest.mark.parametrize("path", sorted(COMPONENTS.glob("*.yaml")), ids=lambda p: p.name)
def test_files_use_no_anchors_or_aliases(path: Path):
    for event in yaml.parse(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader):
        assert not isinstance(event, yaml.AliasEvent), f"{path.name}: alias"
        assert getattr(event, "anchor", None) is None, f"{path.name}: anchor"


# --- the catalog is complete and consistent -----------------------------------------------------

def test_every_kind_exists_with_its_category(kinds: dict[str, ComponentKind]):
    missing = set(KINDS) - set(kinds)
    assert not missing, f"missing kinds: {sorted(missing)}"
    for kind_id, category in KINDS.items():
        assert kinds[kind_id].category == category, kind_id


def test_gpu_type_choices_are_in_the_gpu_table(kinds: dict[str, ComponentKind], gpu_table: GpuTable):
    table = {gpu.id for gpu in gpu_table.gpus}
    for kind_id in ("gpu_pool", "generation_pool"):
        spec = kinds[kind_id].param("gpu_type")
        assert spec is not None and spec.type == "choice", kind_id
        unknown = set(spec.choices) - table
        assert not unknown, f"{kind_id}: gpu_type choices not in gpu_types.yaml: {sorted(unknown)}"


def test_port_accepts_name_existing_kinds(kinds: dict[str, ComponentKind]):
    for kind in kinds.values():
        for port in kind.inputs + kind.outputs:
            for other in port.accepts:
                assert other in kinds, f"{kind.id}.{port.name} accepts unknown kind {other!r}"


def test_icon_paths(kinds: dict[str, ComponentKind]):
    for kind in kinds.values():
        assert kind.icon == f"icons/{kind.id}.svg", kind.id


def test_texts_and_cards(kinds: dict[str, ComponentKind]):
    for kind in kinds.values():
        assert kind.description.strip() and kind.when_to_use.strip(), kind.id
        assert 2 <= len(kind.card_params) <= 3, f"{kind.id}: card_params should name 2-3 params"
        for spec in kind.params:
            assert spec.help.strip(), f"{kind.id}.{spec.name}: empty help"
            assert "\n" not in spec.help.strip(), f"{kind.id}.{spec.name}: help should be one line"


# --- the naming contract ------------------------------------------------------------------------

def test_contract_params(kinds: dict[str, ComponentKind]):
    for kind_id, params in CONTRACT_PARAMS.items():
        kind = kinds[kind_id]
        for name, type_ in params.items():
            spec = kind.param(name)
            assert spec is not None, f"{kind_id}: missing contract parameter {name!r}"
            assert spec.type == type_, f"{kind_id}.{name}: type {spec.type!r}, contract says {type_!r}"
    for (kind_id, name), choices in CONTRACT_CHOICES.items():
        assert set(kinds[kind_id].param(name).choices) == choices, f"{kind_id}.{name}"


def test_contract_defaults(kinds: dict[str, ComponentKind]):
    d = {kind_id: kind.defaults() for kind_id, kind in kinds.items()}
    assert d["gpu_pool"]["gpu_type"] == "l4"
    assert d["generation_pool"]["gpu_type"] == "h100"
    assert d["autoscaler"]["predictive_schedule"] == []
    assert d["autoscaler"]["tolerance"] == pytest.approx(0.1)
    assert d["autoscaler"]["scale_down_stabilization_s"] == pytest.approx(300)
    assert d["alerting"]["fast_burn_rate"] == pytest.approx(14.4)
    assert d["generation_pool"]["max_num_seqs"] == 256


def test_request_ports(kinds: dict[str, ComponentKind]):
    source = kinds["traffic_source"]
    assert [p.name for p in source.inputs] == []
    assert source.port("requests", "out").signal == "requests"
    assert kinds["global_load_balancer"].port("requests", "in").accepts == ["traffic_source"]
    for kind_id in REQUEST_PATH_KINDS:
        kind = kinds[kind_id]
        for direction in ("in", "out"):
            port = kind.port("requests", direction)
            assert port is not None and port.signal == "requests", f"{kind_id}: requests/{direction}"
    canary = kinds["canary_router"]
    assert canary.port("requests", "in").signal == "requests"
    for name in ("stable", "canary"):
        port = canary.port(name, "out")
        assert port is not None and port.signal == "requests" and port.max_connections == 1, name


def test_telemetry_ports(kinds: dict[str, ComponentKind]):
    for kind_id in TELEMETRY_KINDS:
        port = kinds[kind_id].port("telemetry", "out")
        assert port is not None and port.signal == "telemetry", kind_id
    collector = kinds["metrics_collector"]
    assert collector.port("telemetry", "in").signal == "telemetry"
    assert set(collector.port("telemetry", "out").accepts) == {"alerting", "drift_detector", "autoscaler"}


def test_pool_ports(kinds: dict[str, ComponentKind]):
    for kind_id in POOL_KINDS:
        kind = kinds[kind_id]
        scaling = kind.port("scaling", "in")
        assert scaling is not None and scaling.signal == "control", kind_id
        assert scaling.accepts == ["autoscaler"] and scaling.max_connections == 1, kind_id
        artifacts = kind.port("artifacts", "in")
        assert artifacts is not None and artifacts.signal == "artifacts", kind_id
        assert artifacts.accepts == ["model_registry"], kind_id
    autoscaler = kinds["autoscaler"]
    assert autoscaler.port("metrics", "in").accepts == ["metrics_collector"]
    assert set(autoscaler.port("scaling", "out").accepts) == POOL_KINDS
    registry = kinds["model_registry"]
    assert registry.port("artifacts", "in").accepts == ["retraining_pipeline"]
    assert set(registry.port("artifacts", "out").accepts) == POOL_KINDS


def test_lifecycle_ports(kinds: dict[str, ComponentKind]):
    alerting = kinds["alerting"]
    assert alerting.port("telemetry", "in").accepts == ["metrics_collector"]
    assert alerting.port("alerts", "in").signal == "alerts"
    drift = kinds["drift_detector"]
    assert drift.port("alerts", "out").accepts == ["alerting"]
    assert drift.port("triggers", "out").accepts == ["retraining_pipeline"]
    retrain = kinds["retraining_pipeline"]
    assert retrain.port("triggers", "in").signal == "triggers"
    assert retrain.port("artifacts", "out").accepts == ["model_registry"]
    region = kinds["region"]
    assert region.container and not region.inputs and not region.outputs


def test_cost_models(kinds: dict[str, ComponentKind]):
    for kind_id in ("gpu_pool", "generation_pool"):
        cost = kinds[kind_id].cost
        assert cost.model == "gpu" and cost.fixed_per_hour == 0, kind_id
    for kind_id in ("cpu_pool", "fallback_model", "feature_service"):
        cost = kinds[kind_id].cost
        assert cost.model == "per_replica" and cost.replica_param == "replicas", kind_id
        assert cost.per_replica_per_hour > 0, kind_id
    for kind_id in ("global_load_balancer", "regional_load_balancer"):
        cost = kinds[kind_id].cost
        assert cost.fixed_per_hour > 0 and cost.per_million_requests > 0, kind_id
    for kind in kinds.values():
        if kind.cost.fixed_per_hour or kind.cost.per_replica_per_hour or kind.cost.per_million_requests:
            assert kind.cost.source.strip(), f"{kind.id}: a priced kind must say where the price comes from"


def test_gpu_figures_are_plausible(gpu_table: GpuTable):
    gpus = {gpu.id: gpu for gpu in gpu_table.gpus}
    assert gpus["t4"].relative_speed == 1.0
    for gpu in gpus.values():
        assert gpu.spot_per_hour < gpu.on_demand_per_hour, gpu.id
        assert gpu.source.strip(), gpu.id
    for gpu_id in ("a100_40gb", "a100_80gb", "h100", "h200"):
        assert gpus[gpu_id].mig_max_instances == 7, gpu_id
    for gpu_id in ("t4", "l4", "a10g", "l40s", "mi300x"):
        assert gpus[gpu_id].mig_max_instances == 0, gpu_id
    order = ["t4", "l4", "a10g", "a100_40gb", "a100_80gb", "h100"]
    speeds = [gpus[g].relative_speed for g in order]
    assert speeds == sorted(speeds)
    # dense tensor peaks (datasheet figures with structured sparsity halved): 16-bit A100 : H100 is
    # 312 : 989, the ratio an LLM prefill scales by; FP8 exists only on Ada and Hopper
    assert gpus["a100_80gb"].peak_tflops.fp16 / gpus["h100"].peak_tflops.fp16 == pytest.approx(0.315, abs=0.002)
    assert [g for g in order if gpus[g].peak_tflops.fp8 is not None] == ["l4", "h100"]
    assert all(gpus[g].peak_tflops.fp8 is not None for g in ("l40s", "h200", "mi300x"))
    for gpu in gpus.values():
        # the L40S datasheet prints 362.05 (FP16) beside 733 (INT8): 1.2% off twice
        assert gpu.peak_tflops.int8 == pytest.approx(2 * gpu.peak_tflops.fp16, rel=0.015), gpu.id
        assert gpu.peak_tflops.fp32 < gpu.peak_tflops.fp16, gpu.id
    assert gpus["a100_80gb"].hbm_bandwidth_tb_s > gpus["a100_40gb"].hbm_bandwidth_tb_s
    # the H200 is the H100's compute with more and faster memory
    assert gpus["h200"].peak_tflops == gpus["h100"].peak_tflops
    assert gpus["h200"].hbm_bandwidth_tb_s > gpus["h100"].hbm_bandwidth_tb_s
    # NVLink / Infinity Fabric parts all-reduce an order of magnitude faster than PCIe cards
    pcie = [g for g in gpus.values() if g.interconnect == "pcie"]
    fast = [g for g in gpus.values() if g.interconnect != "pcie"]
    assert {g.id for g in pcie} == {"t4", "l4", "a10g", "l40s"}
    assert min(g.interconnect_gb_s for g in fast) >= 5 * max(g.interconnect_gb_s for g in pcie)
    assert max(g.allreduce_latency_us for g in fast) < min(g.allreduce_latency_us for g in pcie)


# --- unknown fields are refused -----------------------------------------------------------------

def test_unknown_kind_field_is_refused(tmp_path: Path):
    raw = _load(COMPONENTS / "gpu_pool.yaml")
    raw["colour"] = "green"
    copy = tmp_path / "gpu_pool.yaml"
    copy.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    with pytest.raises(ValidationError) as info:
        ComponentKind.model_validate(_load(copy))
    errors = info.value.errors()
    assert any(e["type"] == "extra_forbidden" and e["loc"] == ("colour",) for e in errors), errors
    assert "colour" in str(info.value)


def test_unknown_param_field_is_refused(tmp_path: Path):
    raw = _load(COMPONENTS / "cpu_pool.yaml")
    raw["params"][0]["step"] = 1
    copy = tmp_path / "cpu_pool.yaml"
    copy.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    with pytest.raises(ValidationError) as info:
        ComponentKind.model_validate(_load(copy))
    assert any(e["type"] == "extra_forbidden" and e["loc"][-1] == "step" for e in info.value.errors())


def test_unknown_gpu_field_is_refused(tmp_path: Path):
    raw = _load(GPU_FILE)
    raw["gpus"][0]["tdp_w"] = 70
    copy = tmp_path / "gpu_types.yaml"
    copy.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    with pytest.raises(ValidationError) as info:
        GpuTable.model_validate(_load(copy))
    assert any(e["type"] == "extra_forbidden" and e["loc"][-1] == "tdp_w" for e in info.value.errors())
