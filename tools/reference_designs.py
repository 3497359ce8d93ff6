"""Builds the reference design of every shipped scenario from code and writes it beside the
scenario as ``reference.json`` (run after changing a scenario's requirements or the catalog):

    python -m tools.reference_designs [--check]

Each design takes its requirements from the scenario's YAML, so the two always agree; the shared
helpers live in ``refbuild``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable

from inferboard.model import Design
from tools.refbuild import (COL, ROW, SCENARIOS, add, chain, new_design, ops_plane, region, scale,
                                          schedule, serving_region, wire)
from inferboard.store import design_to_bytes

# ------------------------------------------------------------------------------ the scenarios
def global_llm_chat() -> Design:
    d = new_design("global-llm-chat")
    add(d, "traffic_source", "users-us", -420, 40, origin="us-east", share=0.45, high_priority_share=0.3)
    add(d, "traffic_source", "users-eu", -420, 520, origin="eu-west", share=0.35, high_priority_share=0.3)
    add(d, "traffic_source", "users-ap", -420, 1000, origin="ap-northeast", share=0.20, high_priority_share=0.3)
    add(d, "global_load_balancer", "glb", -200, 520, policy="latency", failover=True, health_check_interval_s=5,
        unhealthy_threshold=3)
    for source in ("users-us", "users-eu", "users-ap"):
        wire(d, source, "glb")
    pools, scalers = [], []
    sizes = {"us-east": (10, 5, 20), "eu-west": (11, 4, 20), "ap-northeast": (8, 3, 16)}
    for row, (location, (replicas, low, high)) in enumerate(sizes.items()):
        y = row * 480.0
        rid = region(d, location, location, "none", 0, y - 40, 1000, 400)
        p = location + "-"
        add(d, "regional_load_balancer", p + "lb", 30, y + 40, rid)
        add(d, "admission_control", p + "admit", 30 + COL, y + 40, rid, shed_above_utilisation=0.9,
            priority_classes=2, degrade_mode="shorter_max_tokens", degrade_max_tokens=120)
        add(d, "canary_router", p + "canary", 30 + 2 * COL, y + 40, rid, canary_share=0.05, auto_rollback=True,
            rollback_latency_ratio=1.5)
        add(d, "generation_pool", p + "llm", 30 + 3 * COL, y + 40, rid, label="H100 engine", gpu_type="h100",
            replicas=replicas, min_replicas=low, max_replicas=high, max_num_seqs=64)
        add(d, "generation_pool", p + "llm-canary", 30 + 3 * COL, y + 40 + ROW, rid, label="Canary engine",
            gpu_type="h100", replicas=2, min_replicas=2, max_replicas=4, max_num_seqs=64)
        add(d, "autoscaler", p + "hpa", 30 + 2 * COL, y + 40 + 2 * ROW, rid, metric="queue_depth", target=8,
            min_replicas=low, max_replicas=high, predictive=True,
            predictive_schedule=schedule(range(13, 23), replicas, low))
        chain(d, "glb", p + "lb", p + "admit", p + "canary")
        wire(d, p + "canary", p + "llm", "stable")
        wire(d, p + "canary", p + "llm-canary", "canary")
        scale(d, p + "hpa", p + "llm", p + "llm-canary")
        pools += [p + "llm", p + "llm-canary"]
        scalers.append(p + "hpa")
    ops_plane(d, 1200, 520, pools, scalers, "https://runbooks.example/llm-chat", drift=False)
    return d


def _sources(d: Design, shares: dict[str, float], y_step: float = 480.0, priority: float = 0.2) -> list[str]:
    ids = []
    for row, (location, share) in enumerate(shares.items()):
        ids.append(add(d, "traffic_source", f"users-{location}", -420, row * y_step + 40, origin=location,
                       share=share, high_priority_share=priority))
    return ids


def _glb(d: Design, sources: list[str], y: float) -> str:
    add(d, "global_load_balancer", "glb", -200, y, policy="latency", failover=True, health_check_interval_s=5,
        unhealthy_threshold=3)
    for source in sources:
        wire(d, source, "glb")
    return "glb"


def fraud_scoring_cpu() -> Design:
    d = new_design("fraud-scoring-cpu")
    glb = _glb(d, _sources(d, {"us-east": 0.6, "us-west": 0.4}), 260)
    pools, scalers = [], []
    for row, location in enumerate(("us-east", "us-west")):
        got = serving_region(
            d, location, location, "us", row * 480.0, upstream=glb,
            front=[("regional_load_balancer", "lb", {"rate_limit_rps": 12000}),
                   ("admission_control", "admit", {"shed_above_utilisation": 0.85, "priority_classes": 2}),
                   ("feature_service", "features", {"replicas": 4, "service_ms": 3})],
            pool_kind="cpu_pool", label="Tree scorer",
            pool={"replicas": 9, "min_replicas": 6, "max_replicas": 30, "workers_per_replica": 4, "service_ms": 4,
                  "service_cv": 0.5},
            canary={"canary_share": 0.05, "auto_rollback": True}, canary_replicas=2,
            fallback={"model_type": "rules_based", "accuracy_drop_pct": 8, "replicas": 2, "service_ms": 1},
            fallback_from="admit",
            autoscaler={"metric": "rps", "target": 700, "min_replicas": 6, "max_replicas": 30,
                        "scale_up_stabilization_s": 0, "predictive": True,
                        "predictive_schedule": schedule(range(17, 23), 9, 6)})
        pools += got[0]
        scalers += got[1]
    ops_plane(d, 1500, 260, pools, scalers, "https://runbooks.example/fraud-scoring")
    return d


def image_embedding_search() -> Design:
    d = new_design("image-embedding-search")
    glb = _glb(d, _sources(d, {"us-east": 0.6, "eu-west": 0.4}), 260)
    pools, scalers = [], []
    for row, (location, replicas, low) in enumerate((("us-east", 5, 3), ("eu-west", 4, 3))):
        got = serving_region(
            d, location, location, "none", row * 480.0, upstream=glb,
            front=[("regional_load_balancer", "lb", {}),
                   ("cache", "cache", {"cache_type": "embedding", "hit_ratio": 0.4, "size_gb": 32})],
            batcher={"max_batch_size": 32, "max_queue_delay_ms": 10, "timeout_ms": 400},
            pool={"gpu_type": "l4", "replicas": replicas, "min_replicas": low, "max_replicas": 16,
                  "spot_share": 0.25},
            label="L4 encoder", canary={"canary_share": 0.1, "auto_rollback": True}, canary_replicas=2,
            fallback={"model_type": "distilled", "accuracy_drop_pct": 4, "replicas": 4, "service_ms": 25},
            fallback_from="lb",
            autoscaler={"metric": "queue_depth", "target": 16, "min_replicas": low, "max_replicas": 16,
                        "predictive": True, "predictive_schedule": schedule(range(17, 23), replicas, low)})
        pools += got[0]
        scalers += got[1]
    ops_plane(d, 1700, 260, pools, scalers, "https://runbooks.example/image-embedding", drift=False)
    return d


def recsys_ranking_diurnal() -> Design:
    d = new_design("recsys-ranking-diurnal")
    glb = _glb(d, _sources(d, {"us-east": 0.55, "us-west": 0.45}), 260)
    pools, scalers = [], []
    for row, location in enumerate(("us-east", "us-west")):
        got = serving_region(
            d, location, location, "us", row * 480.0, upstream=glb,
            front=[("regional_load_balancer", "lb", {}),
                   ("feature_service", "features", {"replicas": 6, "service_ms": 2})],
            batcher={"max_batch_size": 32, "max_queue_delay_ms": 8, "timeout_ms": 300},
            pool={"gpu_type": "a10g", "replicas": 8, "min_replicas": 3, "max_replicas": 24, "spot_share": 0.25},
            label="A10G ranker", canary={"canary_share": 0.05, "auto_rollback": True}, canary_replicas=2,
            fallback={"model_type": "distilled", "accuracy_drop_pct": 3, "replicas": 6, "service_ms": 8},
            fallback_from="lb",
            autoscaler={"metric": "queue_depth", "target": 24, "min_replicas": 3, "max_replicas": 24,
                        "predictive": True, "predictive_schedule": schedule(range(16, 24), 8, 3)})
        pools += got[0]
        scalers += got[1]
    ops_plane(d, 1700, 260, pools, scalers, "https://runbooks.example/ranking")
    return d


def bursty_speech() -> Design:
    d = new_design("bursty-speech")
    glb = _glb(d, _sources(d, {"us-east": 0.55, "us-west": 0.45}, priority=0.2), 260)
    pools, scalers = [], []
    for row, location in enumerate(("us-east", "us-west")):
        got = serving_region(
            d, location, location, "us", row * 480.0, upstream=glb,
            front=[("regional_load_balancer", "lb", {}),
                   ("admission_control", "admit", {"shed_above_utilisation": 0.85, "priority_classes": 2,
                                                    "shed_low_priority_first": True})],
            batcher={"max_batch_size": 16, "max_queue_delay_ms": 100, "queue_capacity": 4000, "timeout_ms": 3000},
            pool={"gpu_type": "l4", "replicas": 5, "min_replicas": 3, "max_replicas": 24, "base_ms": 40,
                  "per_item_ms": 10, "spot_share": 0.2},
            label="L4 speech", canary={"canary_share": 0.05, "auto_rollback": True}, canary_replicas=2,
            fallback={"model_type": "distilled", "accuracy_drop_pct": 2, "replicas": 8, "workers_per_replica": 4,
                      "service_ms": 300},
            fallback_from="admit",
            autoscaler={"metric": "queue_depth", "target": 32, "min_replicas": 3, "max_replicas": 24,
                        "scale_up_stabilization_s": 0, "sync_period_s": 10, "scale_to_zero": False})
        pools += got[0]
        scalers += got[1]
    ops_plane(d, 1700, 260, pools, scalers, "https://runbooks.example/speech", drift=False)
    return d


def multi_tenant_small_models() -> Design:
    d = new_design("multi-tenant-small-models")
    glb = _glb(d, _sources(d, {"us-east": 0.6, "us-west": 0.4}, priority=0.3), 260)
    pools, scalers = [], []
    for row, location in enumerate(("us-east", "us-west")):
        got = serving_region(
            d, location, location, "us", row * 480.0, upstream=glb,
            front=[("regional_load_balancer", "lb", {"rate_limit_rps": 6000}),
                   ("admission_control", "admit", {"shed_above_utilisation": 0.9, "priority_classes": 3})],
            batcher={"max_batch_size": 16, "max_queue_delay_ms": 10, "timeout_ms": 500},
            pool={"gpu_type": "a100_40gb", "replicas": 3, "min_replicas": 2, "max_replicas": 8,
                  "partitioning": "mig", "partitions": 3},
            label="A100 MIG x3", canary={"canary_share": 0.05, "auto_rollback": True}, canary_replicas=2,
            fallback={"model_type": "distilled", "accuracy_drop_pct": 3, "replicas": 4, "service_ms": 15},
            fallback_from="admit",
            autoscaler={"metric": "queue_depth", "target": 16, "min_replicas": 2, "max_replicas": 8,
                        "predictive": True, "predictive_schedule": schedule(range(13, 23), 4, 2)})
        pools += got[0]
        scalers += got[1]
    ops_plane(d, 1700, 260, pools, scalers, "https://runbooks.example/tenant-models", drift=False)
    return d


def eu_medical_imaging() -> Design:
    d = new_design("eu-medical-imaging")
    glb = _glb(d, _sources(d, {"eu-west": 0.55, "eu-central": 0.45}), 260)
    pools, scalers = [], []
    for row, location in enumerate(("eu-west", "eu-central")):
        got = serving_region(
            d, location, location, "eu", row * 480.0, upstream=glb,
            front=[("regional_load_balancer", "lb", {})],
            batcher={"max_batch_size": 4, "max_queue_delay_ms": 200, "timeout_ms": 20000},
            pool={"gpu_type": "l4", "replicas": 20, "min_replicas": 8, "max_replicas": 40, "base_ms": 800,
                  "per_item_ms": 1000},
            label="L4 segmentation", canary={"canary_share": 0.05, "auto_rollback": True}, canary_replicas=2,
            fallback={"model_type": "distilled", "accuracy_drop_pct": 5, "replicas": 2, "service_ms": 8000},
            fallback_from="lb",
            autoscaler={"metric": "queue_depth", "target": 4, "min_replicas": 8, "max_replicas": 40,
                        "predictive": True, "predictive_schedule": schedule(range(6, 17), 20, 8)})
        pools += got[0]
        scalers += got[1]
    ops_plane(d, 1500, 260, pools, scalers, "https://runbooks.example/imaging")
    return d


def p99_latency_spike() -> Design:
    d = new_design("p99-latency-spike")
    glb = _glb(d, _sources(d, {"us-east": 0.6, "us-west": 0.4}), 260)
    pools, scalers = [], []
    for row, location in enumerate(("us-east", "us-west")):
        got = serving_region(
            d, location, location, "us", row * 480.0, upstream=glb,
            front=[("regional_load_balancer", "lb", {}),
                   ("cache", "cache", {"cache_type": "result", "hit_ratio": 0.35}),
                   ("feature_service", "features", {"replicas": 3, "service_ms": 3})],
            batcher={"max_batch_size": 16, "max_queue_delay_ms": 8, "timeout_ms": 400},
            pool={"gpu_type": "l4", "replicas": 5, "min_replicas": 3, "max_replicas": 20},
            label="L4 ranker", canary={"canary_share": 0.05, "auto_rollback": True, "rollback_latency_ratio": 1.5,
                                       "evaluation_window_s": 120}, canary_replicas=2,
            fallback={"model_type": "distilled", "accuracy_drop_pct": 3, "replicas": 3, "service_ms": 10},
            fallback_from="lb",
            autoscaler={"metric": "queue_depth", "target": 16, "min_replicas": 3, "max_replicas": 20,
                        "predictive": True, "predictive_schedule": schedule(range(15, 23), 5, 3)})
        pools += got[0]
        scalers += got[1]
    ops_plane(d, 1900, 260, pools, scalers, "https://runbooks.example/ranking-latency")
    return d


def llm_cost_cut() -> Design:
    d = new_design("llm-cost-cut")
    glb = _glb(d, _sources(d, {"us-east": 0.55, "us-west": 0.45}), 260)
    pools, scalers = [], []
    for row, location in enumerate(("us-east", "us-west")):
        got = serving_region(
            d, location, location, "us", row * 480.0, upstream=glb,
            front=[("regional_load_balancer", "lb", {}),
                   ("cache", "prefix-cache", {"cache_type": "kv_prefix", "hit_ratio": 0.3, "hit_latency_ms": 1}),
                   ("admission_control", "admit", {"shed_above_utilisation": 0.9, "degrade_mode": "shorter_max_tokens",
                                                    "degrade_max_tokens": 100})],
            pool_kind="generation_pool",
            pool={"gpu_type": "a100_40gb", "precision": "int8", "replicas": 4, "min_replicas": 2, "max_replicas": 12,
                  "max_num_seqs": 128, "kv_cache_mb_per_token": 0.125},
            label="A100 INT8 engine", canary={"canary_share": 0.05, "auto_rollback": True}, canary_replicas=2,
            autoscaler={"metric": "queue_depth", "target": 8, "min_replicas": 2, "max_replicas": 12,
                        "predictive": True, "predictive_schedule": schedule(range(13, 22), 4, 2)})
        pools += got[0]
        scalers += got[1]
    ops_plane(d, 1700, 260, pools, scalers, "https://runbooks.example/summarise", drift=False)
    return d


BUILDERS: dict[str, Callable[[], Design]] = {
    "global-llm-chat": global_llm_chat,
    "fraud-scoring-cpu": fraud_scoring_cpu,
    "image-embedding-search": image_embedding_search,
    "recsys-ranking-diurnal": recsys_ranking_diurnal,
    "bursty-speech": bursty_speech,
    "multi-tenant-small-models": multi_tenant_small_models,
    "eu-medical-imaging": eu_medical_imaging,
    "p99-latency-spike": p99_latency_spike,
    "llm-cost-cut": llm_cost_cut,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a checked-in reference is stale")
    parser.add_argument("ids", nargs="*", help="scenario ids (default: all)")
    args = parser.parse_args(argv)
    stale = []
    for scenario_id in args.ids or list(BUILDERS):
        data = design_to_bytes(BUILDERS[scenario_id]())
        path = SCENARIOS / scenario_id / "reference.json"
        if args.check:
            if not path.is_file() or path.read_bytes() != data:
                stale.append(str(path))
            continue
        path.write_bytes(data)
        print(path)
    for path in stale:
        print(f"{path}: stale; run python -m tools.reference_designs", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
