"""Timeline speed: a 24-hour day at 10-second ticks (8,640 ticks) on a 52-node, five-region design.

    .venv/bin/python bench/bench_timeline.py

Target: median under 250 ms. Each region holds a regional load balancer, a result cache, a canary
router, a dynamic batcher in front of an autoscaled T4 pool, a canary pool, a CPU fallback, its
autoscaler and one traffic source; a latency-routed global load balancer and a metrics collector
join them. The autoscalers use a different metric per region (GPU utilisation, queue depth, p95
latency, requests per replica, and a predictive schedule) and diurnal traffic with a 2.5x peak
makes them scale through the day. Also timed: the same day with a region outage, a traffic surge
and a spot reclaim (more regimes to compile), and the first run in a fresh process (Erlang tables
not yet cached) is reported separately.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path as FsPath

sys.path.insert(0, str(FsPath(__file__).resolve().parents[1]))

from inferboard.model import Design  # noqa: E402
from inferboard.model.requirements import Requirements  # noqa: E402
from inferboard.sim.faults import parse_fault  # noqa: E402
from inferboard.sim.timeline import run_timeline  # noqa: E402

TARGET_MS = 250.0
RUNS = 7
REGIONS = ("us-east", "us-west", "eu-west", "eu-central", "ap-southeast")
METRICS = (("gpu_utilization", 0.6), ("queue_depth", 8.0), ("gpu_utilization", 0.7), ("rps", 350.0),
           ("gpu_utilization", 0.6))


def build() -> Design:
    req = Requirements(mean_rps=20000.0, peak_rps=50000.0, traffic_pattern="diurnal", slo_p50_ms=60.0,
                       slo_p95_ms=150.0, slo_p99_ms=250.0, availability_slo=99.95, model_size_gb=1.3)
    d = Design(requirements=req)
    d.add_node("global_load_balancer", node_id="glb")
    d.add_node("metrics_collector", node_id="metrics")
    for k, (loc, (metric, target)) in enumerate(zip(REGIONS, METRICS)):
        r = loc
        d.add_node("region", params={"location": loc}, node_id=r)
        d.add_node("traffic_source", node_id=f"{r}-users", params={"share": 0.2, "origin": loc})
        d.add_node("regional_load_balancer", node_id=f"{r}-gw", region=r)
        d.add_node("cache", node_id=f"{r}-cache", region=r, params={"hit_ratio": 0.2})
        d.add_node("canary_router", node_id=f"{r}-canary", region=r, params={"canary_share": 0.05})
        d.add_node("dynamic_batcher", node_id=f"{r}-batcher", region=r,
                   params={"max_batch_size": 32, "max_queue_delay_ms": 8.0})
        d.add_node("gpu_pool", node_id=f"{r}-gpus", region=r,
                   params={"gpu_type": "t4", "replicas": 8, "min_replicas": 2, "max_replicas": 64, "spot_share": 0.3})
        d.add_node("gpu_pool", node_id=f"{r}-canary-gpus", region=r, params={"gpu_type": "t4", "replicas": 4})
        d.add_node("fallback_model", node_id=f"{r}-fallback", region=r, params={"replicas": 4})
        scaler = {"metric": metric, "target": target, "min_replicas": 2, "max_replicas": 64}
        if k == 4:
            scaler.update(predictive=True, predictive_schedule=[[0, 2], [12, 20], [21, 2]])
        d.add_node("autoscaler", node_id=f"{r}-hpa", region=r, params=scaler)
        d.connect(f"{r}-users", "requests", "glb", "requests")
        d.connect("glb", "requests", f"{r}-gw", "requests")
        d.connect(f"{r}-gw", "requests", f"{r}-cache", "requests")
        d.connect(f"{r}-cache", "requests", f"{r}-canary", "requests")
        d.connect(f"{r}-canary", "stable", f"{r}-batcher", "requests")
        d.connect(f"{r}-canary", "canary", f"{r}-canary-gpus", "requests")
        d.connect(f"{r}-batcher", "requests", f"{r}-gpus", "requests")
        d.connect(f"{r}-gw", "requests", f"{r}-fallback", "requests")
        d.connect(f"{r}-hpa", "scaling", f"{r}-gpus", "scaling")
        d.connect(f"{r}-gpus", "telemetry", "metrics", "telemetry")
        d.connect("metrics", "telemetry", f"{r}-hpa", "metrics")
    return d


def timed(fn) -> tuple[float, float, object]:
    """(wall ms, CPU ms of this process, result); CPU time is the steadier figure on a busy machine."""
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return (time.perf_counter() - start) * 1000.0, (time.process_time() - cpu) * 1000.0, out


def main() -> int:
    design = build()
    faults = [parse_fault("region_outage:eu-west@3h+1h"), parse_fault("traffic_surge*1.5:*@14h+30m"),
              parse_fault("spot_reclaimed:us-east-gpus@9h+2h")]
    first_ms, first_cpu, result = timed(lambda: run_timeline(design, hours=24, tick_s=10))
    plain = [timed(lambda: run_timeline(design, hours=24, tick_s=10))[:2] for _ in range(RUNS)]
    faulty = [timed(lambda: run_timeline(design, hours=24, tick_s=10, faults=faults))[:2] for _ in range(RUNS)]
    scaled = sum(1 for e in result.events if e.kind == "scaled")
    print(f"design: {len(design.nodes)} nodes, {len(result.times_s)} ticks, {len(result.series)} series, "
          f"{scaled} scaling decisions")
    print(f"first run in this process:      wall {first_ms:7.1f} ms, CPU {first_cpu:7.1f} ms")
    ok = True
    for label, runs in (("24 h at 10 s, no faults", plain), ("24 h at 10 s, 3 faults", faulty)):
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        ok &= wall < TARGET_MS
        print(f"{label:<30} median wall {wall:7.1f} ms (min {min(r[0] for r in runs):.1f}), CPU {cpu:7.1f} ms, "
              f"{len(runs)} runs; target < {TARGET_MS:.0f} ms: {'OK' if wall < TARGET_MS else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
