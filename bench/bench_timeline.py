"""Timeline speed: a 24-hour day at 10-second ticks (8,640 ticks) on a 52-node, five-region design.

    .venv/bin/python bench/bench_timeline.py [--baseline REV]

Target: median under 250 ms for the day, under 5 ms on average to advance a live drill by one simulated
minute (a short advance simulates 60 ticks, ten minutes here, at once, so the median minute costs next to nothing).
Each region holds a regional load balancer, a result cache, a canary router, a dynamic batcher in
front of an autoscaled T4 pool, a canary pool, a CPU fallback, its autoscaler and one traffic
source; a latency-routed global load balancer and a metrics collector join them. The autoscalers
use a different metric per region (GPU utilisation, queue depth, p95 latency, requests per replica,
and a predictive schedule) and diurnal traffic with a 2.5x peak makes them scale through the day.
Also timed: the same day with a region outage, a traffic surge and a spot reclaim (more regimes to
compile), and the first run in a fresh process (Erlang tables not yet cached) is reported separately.

Beside today's figures the same run measures the timeline as it was before it carried backlogs
(``--baseline``, default: the parent of the commit that added ``inferboard/sim/timeline/timeline_state.py``),
checked out in a temporary git worktree and run in a subprocess on the same design, and prints the
ratio.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path as FsPath

sys.path.insert(0, str(FsPath(__file__).resolve().parents[1]))
sys.path.insert(0, str(FsPath(__file__).resolve().parent))
# Batching tables kept in a folder of this run's own: the first run builds them, as on a new machine.
os.environ.setdefault("INFERBOARD_CACHE_DIR", tempfile.mkdtemp(prefix="bench-tables-"))

from inferboard.model import Design  # noqa: E402
from inferboard.model.requirements import Requirements  # noqa: E402
from inferboard.sim.design.faults import parse_fault  # noqa: E402
from inferboard.sim.timeline.timeline import run_timeline  # noqa: E402
from inferboard.sim.timeline.timeline_state import Timeline  # noqa: E402
from baseline import run_at  # noqa: E402

ROOT = FsPath(__file__).resolve().parents[1]
DRILL_TARGET_MS = 5.0

TARGET_MS = 250.0
RUNS = 7
REGIONS = ("us-east", "us-west", "eu-west", "eu-central", "ap-southeast")
METRICS = (("gpu_utilisation", 0.6), ("queue_depth", 8.0), ("gpu_utilisation", 0.7), ("rps", 350.0),
           ("gpu_utilisation", 0.6))


FAULTS = ("region_outage:eu-west@3h+1h", "traffic_surge*1.5:*@14h+30m", "spot_reclaimed:us-east-gpus@9h+2h")


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


def baseline_revision() -> str:
    added = subprocess.run(["git", "-C", str(ROOT), "log", "--follow", "--diff-filter=A", "--format=%H", "--",
                            "inferboard/sim/timeline/timeline_state.py"], capture_output=True, text=True, check=True)
    first = added.stdout.split()[-1]
    return first + "^"


def measure_baseline(revision: str) -> dict | None:
    """Medians (wall, CPU ms) of the timeline at ``revision``, its own bench run from a temporary worktree."""
    text = run_at(revision, "bench_timeline.py", ("--no-baseline",))
    found = re.findall(r"(no faults|3 faults)\s+median wall\s+([\d.]+) ms.*?CPU\s+([\d.]+) ms", text or "")
    if len(found) < 2:
        if text is not None:
            print(f"baseline {revision}: no figures in its output")
        return None
    figures = {("plain" if label == "no faults" else "faulty"): [float(w), float(c)] for label, w, c in found}
    drill = re.search(r"drill: advance one minute\s+median wall\s+([\d.]+) ms.*?CPU ([\d.]+) ms", text)
    if drill:
        figures["drill"] = [float(drill.group(1)), float(drill.group(2))]
    mean = re.search(r"drill: advance one minute.*?mean wall ([\d.]+) ms, CPU ([\d.]+) ms", text)
    if mean:  # revisions that simulate ahead: most steps cost nothing and the mean is the figure
        figures["drill"] = [float(mean.group(1)), float(mean.group(2))]
    return figures


def first_run_with_tables_kept() -> float | None:
    """Wall ms of the first day in a new process once the tables of this run are on disk."""
    code = ("import sys, time; sys.path.insert(0, 'bench'); import bench_timeline as b; d = b.build(); "
            "t = time.perf_counter(); b.run_timeline(d, hours=24, tick_s=10); print((time.perf_counter() - t) * 1e3)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT))
    try:
        return float(run.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        print(f"first run in a new process: no figure ({run.stderr.strip()[-300:]})")
        return None


def drill_step_ms(design: Design) -> list[tuple[float, float]]:
    """(wall, CPU ms) of advancing a live drill by one simulated minute, from the middle of the day."""
    state = Timeline.start(design, hours=24, tick_s=10)
    state.advance(12 * 3600)
    steps = []
    for _ in range(60):
        start, cpu = time.perf_counter(), time.process_time()
        state.advance(60)
        steps.append(((time.perf_counter() - start) * 1000.0, (time.process_time() - cpu) * 1000.0))
    return steps


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", default=None, help="git revision to compare with (default: before backlogs)")
    parser.add_argument("--no-baseline", action="store_true")
    args = parser.parse_args()
    design = build()
    faults = [parse_fault(f) for f in FAULTS]
    baseline = None if args.no_baseline else measure_baseline(args.baseline or baseline_revision())
    label_of_baseline = f"at {args.baseline}" if args.baseline else "before backlogs"
    first_ms, first_cpu, result = timed(lambda: run_timeline(design, hours=24, tick_s=10))
    plain = [timed(lambda: run_timeline(design, hours=24, tick_s=10))[:2] for _ in range(RUNS)]
    faulty = [timed(lambda: run_timeline(design, hours=24, tick_s=10, faults=faults))[:2] for _ in range(RUNS)]
    scaled = sum(1 for e in result.events if e.kind == "scaled")
    print(f"design: {len(design.nodes)} nodes, {len(result.times_s)} ticks, {len(result.series)} series, "
          f"{scaled} scaling decisions")
    print(f"first run in this process:      wall {first_ms:7.1f} ms, CPU {first_cpu:7.1f} ms")
    kept = first_run_with_tables_kept()
    if kept is not None:
        print(f"first run, next process:        wall {kept:7.1f} ms (batching tables read back from disk)")
    ok = True
    for label, key, runs in (("24 h at 10 s, no faults", "plain", plain), ("24 h at 10 s, 3 faults", "faulty", faulty)):
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        ok &= wall < TARGET_MS
        print(f"{label:<30} median wall {wall:7.1f} ms (min {min(r[0] for r in runs):.1f}), CPU {cpu:7.1f} ms, "
              f"{len(runs)} runs; target < {TARGET_MS:.0f} ms: {'OK' if wall < TARGET_MS else 'MISSED'}")
        if baseline is not None:
            old_wall, old_cpu = baseline[key]
            print(f"{'  ' + label_of_baseline:<30} median wall {old_wall:7.1f} ms, CPU {old_cpu:7.1f} ms; "
                  f"now {wall / old_wall:.2f}x wall, {cpu / old_cpu:.2f}x CPU")
    steps = drill_step_ms(design)
    step, step_cpu = statistics.median(w for w, _ in steps), statistics.median(c for _, c in steps)
    # a short advance simulates ticks ahead, so most minutes cost nothing: the budget is on the mean
    mean, mean_cpu = statistics.mean(w for w, _ in steps), statistics.mean(c for _, c in steps)
    ok &= mean < DRILL_TARGET_MS
    print(f"{'drill: advance one minute':<30} median wall {step:7.2f} ms (max {max(w for w, _ in steps):.2f}), "
          f"CPU {step_cpu:.2f} ms, {len(steps)} steps; mean wall {mean:.2f} ms, CPU {mean_cpu:.2f} ms; "
          f"target < {DRILL_TARGET_MS:g} ms (mean): {'OK' if mean < DRILL_TARGET_MS else 'MISSED'}")
    if baseline is not None and "drill" in baseline:
        old_wall, old_cpu = baseline["drill"]  # its mean where it printed one, else its median
        print(f"{'  ' + label_of_baseline:<30} wall {old_wall:7.2f} ms, CPU {old_cpu:.2f} ms a step; now the "
              f"mean {mean / max(old_wall, 1e-9):.2f}x wall, {mean_cpu / max(old_cpu, 1e-9):.2f}x CPU")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
