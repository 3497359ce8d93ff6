"""Regenerates the example designs in assets/examples/ from code (run after catalog changes).

    python -m tools.make_examples
"""

from __future__ import annotations

from pathlib import Path

from inferboard.model import Design, Requirements
from inferboard.model import ops
from inferboard.store import save_design

OUT = Path(__file__).resolve().parents[1] / "assets" / "examples"


def starter() -> Design:
    d = Design(requirements=Requirements(
        model_size_gb=1.3, request_size_kb=4, slo_p50_ms=40, slo_p95_ms=100, slo_p99_ms=200,
        availability_slo=99.9, mean_rps=300, peak_rps=800, traffic_pattern="diurnal",
        budget_per_hour=8.0, budget_per_1k=0.01, allowed_regions=["us-east", "us-west"]),
        metadata={"title": "Starter: one region, batched GPUs",
                  "notes": "A single-region text classifier behind a dynamic batcher on L4 GPUs, "
                           "scaled on GPU utilisation. A good first design to extend."})
    d.add_node("region", 180, -40, {"location": "us-east", "residency": "us"}, node_id="us-east")
    d.apply(ops.ResizeNode("us-east", 760, 300))
    d.add_node("traffic_source", -60, 80, {"origin": "us-east"}, node_id="users")
    d.add_node("regional_load_balancer", 220, 80, node_id="gateway", region="us-east")
    d.add_node("dynamic_batcher", 420, 80, {"max_batch_size": 16, "max_queue_delay_ms": 5}, node_id="batcher",
               region="us-east")
    d.add_node("gpu_pool", 620, 80, {"gpu_type": "l4", "replicas": 3, "min_replicas": 2, "max_replicas": 10},
               node_id="gpus", region="us-east")
    d.add_node("autoscaler", 620, 300, {"metric": "gpu_utilisation", "target": 0.65, "min_replicas": 2,
                                        "max_replicas": 10}, node_id="hpa")
    d.add_node("metrics_collector", 980, 80, {"model_metrics": True}, node_id="metrics")
    d.add_node("alerting", 980, 300, {"runbook_url": "https://runbooks.example/classifier"}, node_id="alerts")
    for src, sp, dst, dp in [("users", "requests", "gateway", "requests"),
                             ("gateway", "requests", "batcher", "requests"),
                             ("batcher", "requests", "gpus", "requests"),
                             ("gpus", "telemetry", "metrics", "telemetry"),
                             ("metrics", "telemetry", "hpa", "metrics"),
                             ("hpa", "scaling", "gpus", "scaling"),
                             ("metrics", "telemetry", "alerts", "telemetry")]:
        d.connect(src, sp, dst, dp)
    return d


def multi_region() -> Design:
    d = Design(requirements=Requirements(
        model_size_gb=6.0, request_size_kb=8, slo_p50_ms=60, slo_p95_ms=150, slo_p99_ms=250,
        availability_slo=99.95, mean_rps=2000, peak_rps=5000, traffic_pattern="diurnal",
        budget_per_hour=60.0, budget_per_1k=0.005, accuracy_target_pct=95),
        metadata={"title": "Multi-region production: active-active with fallback",
                  "notes": "Two active regions behind a latency-routed global load balancer, each with a "
                           "result cache, a dynamic batcher, autoscaled GPUs and a CPU fallback model. "
                           "A canary router gates new model versions; drift feeds retraining."})
    d.add_node("traffic_source", -420, 120, {"origin": "us-east", "share": 0.6}, node_id="users-us")
    d.add_node("traffic_source", -420, 620, {"origin": "eu-west", "share": 0.4}, node_id="users-eu")
    d.add_node("global_load_balancer", -200, 360, {"policy": "latency"}, node_id="glb")
    for row, (rid, location, residency) in enumerate([("us-east", "us-east", "none"), ("eu-west", "eu-west", "none")]):
        y = row * 500
        d.add_node("region", 0, y - 40, {"location": location, "residency": residency}, node_id=rid)
        d.apply(ops.ResizeNode(rid, 1180, 420))
        p = rid + "-"
        d.add_node("regional_load_balancer", 30, y + 60, node_id=p + "gw", region=rid)
        d.add_node("cache", 230, y + 60, {"cache_type": "result", "hit_ratio": 0.25}, node_id=p + "cache", region=rid)
        d.add_node("canary_router", 430, y + 60, {"canary_share": 0.05}, node_id=p + "canary", region=rid)
        d.add_node("dynamic_batcher", 630, y + 60, {"max_batch_size": 32, "max_queue_delay_ms": 8},
                   node_id=p + "batcher", region=rid)
        d.add_node("gpu_pool", 850, y + 20, {"gpu_type": "a10g", "replicas": 6, "min_replicas": 4,
                                             "max_replicas": 24, "spot_share": 0.3}, node_id=p + "gpus", region=rid)
        d.add_node("gpu_pool", 850, y + 200, {"gpu_type": "a10g", "replicas": 1, "min_replicas": 1,
                                              "max_replicas": 4}, node_id=p + "canary-gpus", label="Canary GPUs",
                   region=rid)
        d.add_node("fallback_model", 430, y + 240, {"model_type": "distilled", "replicas": 4}, node_id=p + "fallback",
                   region=rid)
        d.add_node("autoscaler", 630, y + 260, {"metric": "queue_depth", "target": 8, "min_replicas": 4,
                                                "max_replicas": 24}, node_id=p + "hpa", region=rid)
        for src, sp, dst, dp in [("glb", "requests", p + "gw", "requests"),
                                 (p + "gw", "requests", p + "cache", "requests"),
                                 (p + "cache", "requests", p + "canary", "requests"),
                                 (p + "canary", "stable", p + "batcher", "requests"),
                                 (p + "canary", "canary", p + "canary-gpus", "requests"),
                                 (p + "batcher", "requests", p + "gpus", "requests"),
                                 (p + "gw", "requests", p + "fallback", "requests"),
                                 (p + "hpa", "scaling", p + "gpus", "scaling")]:
            d.connect(src, sp, dst, dp)
    d.add_node("metrics_collector", 1400, 200, {"model_metrics": True, "business_metrics": True}, node_id="metrics")
    d.add_node("alerting", 1400, 420, {"runbook_url": "https://runbooks.example/ranker"}, node_id="alerts")
    d.add_node("drift_detector", 1400, 640, {"test": "psi", "action": "alert_and_retrain"}, node_id="drift")
    d.add_node("retraining_pipeline", 1400, 860, node_id="retrain")
    d.add_node("model_registry", 1400, -60, node_id="registry")
    d.connect("users-us", "requests", "glb", "requests")
    d.connect("users-eu", "requests", "glb", "requests")
    for node_id in ("us-east-gpus", "eu-west-gpus", "us-east-canary-gpus", "eu-west-canary-gpus"):
        d.connect(node_id, "telemetry", "metrics", "telemetry")
        d.connect("registry", "artifacts", node_id, "artifacts")
    for rid in ("us-east", "eu-west"):
        d.connect("metrics", "telemetry", rid + "-hpa", "metrics")
        d.connect("registry", "artifacts", rid + "-fallback", "artifacts")
    d.connect("metrics", "telemetry", "alerts", "telemetry")
    d.connect("metrics", "telemetry", "drift", "telemetry")
    d.connect("drift", "alerts", "alerts", "alerts")
    d.connect("drift", "triggers", "retrain", "triggers")
    d.connect("retrain", "artifacts", "registry", "artifacts")
    return d


def cpu_small() -> Design:
    d = Design(requirements=Requirements(
        model_size_gb=0.05, request_size_kb=2, slo_p50_ms=15, slo_p95_ms=35, slo_p99_ms=50,
        availability_slo=99.99, mean_rps=500, peak_rps=1500, traffic_pattern="steady",
        budget_per_hour=6.0, budget_per_1k=0.004, allowed_regions=["eu-west", "eu-central"]),
        metadata={"title": "CPU-only: real-time fraud scoring",
                  "notes": "A gradient-boosted fraud model is small and fast enough for CPUs: feature "
                           "lookup, then scoring, scaled on requests per second."})
    d.add_node("region", 160, -40, {"location": "eu-west", "residency": "eu"}, node_id="eu-west")
    d.apply(ops.ResizeNode("eu-west", 780, 300))
    d.add_node("traffic_source", -80, 80, {"origin": "eu-west"}, node_id="payments")
    d.add_node("regional_load_balancer", 200, 80, {"rate_limit_rps": 3000}, node_id="gateway", region="eu-west")
    d.add_node("feature_service", 420, 80, {"replicas": 3}, node_id="features", region="eu-west")
    d.add_node("cpu_pool", 640, 80, {"replicas": 6, "min_replicas": 4, "max_replicas": 24, "service_ms": 6},
               node_id="scorers", region="eu-west")
    d.add_node("autoscaler", 640, 300, {"metric": "rps", "target": 120, "min_replicas": 4, "max_replicas": 24},
               node_id="hpa")
    d.add_node("metrics_collector", 980, 80, {"business_metrics": True}, node_id="metrics")
    for src, sp, dst, dp in [("payments", "requests", "gateway", "requests"),
                             ("gateway", "requests", "features", "requests"),
                             ("features", "requests", "scorers", "requests"),
                             ("scorers", "telemetry", "metrics", "telemetry"),
                             ("metrics", "telemetry", "hpa", "metrics"),
                             ("hpa", "scaling", "scorers", "scaling")]:
        d.connect(src, sp, dst, dp)
    return d


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, build in (("starter", starter), ("multi-region", multi_region), ("cpu-small", cpu_small)):
        save_design(build(), OUT / f"{name}.json")
        (OUT / f"{name}.json.bak").unlink(missing_ok=True)
        print(OUT / f"{name}.json")


if __name__ == "__main__":
    main()
