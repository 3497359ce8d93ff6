"""Batch grading of a room: 200 varied submissions of 30 components against one scenario, graded
on every core (the process pool) and then in this process alone.

    .venv/bin/python bench/bench_grade.py [--count 200] [--scenario fraud-scoring-cpu] [--batching-count 16]

Target: 200 submissions of 30 nodes in under 20 s on 2 cores, for a scenario served by CPU pools
(fraud-scoring-cpu). The submissions are made from the
scenario's reference design with seeded, learner-like variations: pools resized, components
removed (their wires with them) and replaced by other components so every design keeps 30,
cache hit ratios and autoscaler targets changed, a region moved outside the allowed list, the
written-down requirements loosened or dropped. Timing starts before the worker processes are
started, so their start-up is counted. Each run is timed once (a run is many gradings already);
the process-pool speed-up is printed with the CPU count, since other load on the machine shows.

A scenario served by dynamic batchers (p99-latency-spike) is also timed on a smaller room and
printed for information: there the simulator's batching model builds a table for every distinct
pool size, batch setting and arrival variability (about a second of CPU each, cached per
process), and a room of hand-sized pools needs a few tables per design, so grading time is set by
the simulator, not by the pool.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("INFERBOARD_CACHE_DIR", tempfile.mkdtemp(prefix="bench-tables-"))  # tables built, not read back

from inferboard.practice.library import ScenarioLibrary  # noqa: E402
from inferboard.workshop.grading import default_jobs, grade_submissions  # noqa: E402
from inferboard.workshop.submissions import Submission  # noqa: E402

TARGET_S = 20.0
NODES = 30
#: Components a learner may leave out (and the fillers drawn instead, so every design has 30).
OPTIONAL = ("cache", "canary_router", "fallback_model", "drift_detector", "retraining_pipeline", "alerting",
            "feature_service", "dynamic_batcher")
FILLERS = ("metrics_collector", "alerting", "model_registry", "drift_detector")


def vary(reference: dict, seed: int) -> dict:
    rng = random.Random(seed)
    design = copy.deepcopy(reference)
    nodes = design["nodes"]
    for node in nodes:
        params = node.setdefault("params", {})
        if node["kind"] in ("gpu_pool", "cpu_pool") and "replicas" in params:
            params["replicas"] = max(1, int(params["replicas"]) + rng.choice((-2, -1, 0, 0, 1, 2, 3)))
            params["max_replicas"] = max(params["replicas"], int(params.get("max_replicas", 1)))
            params["min_replicas"] = min(params["replicas"], int(params.get("min_replicas", 1)))
        elif node["kind"] == "cache":
            params["hit_ratio"] = rng.choice((0.1, 0.2, 0.35, 0.5))
        elif node["kind"] == "autoscaler" and "target" in params:
            params["target"] = float(params["target"]) * rng.choice((0.5, 1.0, 1.5, 2.0))
        node["x"] = float(node.get("x", 0)) + rng.randint(-40, 40)
        node["y"] = float(node.get("y", 0)) + rng.randint(-40, 40)
    removable = [n["id"] for n in nodes if n["kind"] in OPTIONAL]
    dropped = set(rng.sample(removable, rng.randint(0, min(4, len(removable)))))
    design["nodes"] = [n for n in nodes if n["id"] not in dropped]
    design["edges"] = [e for e in design["edges"] if e["source"] not in dropped and e["target"] not in dropped]
    n = 0
    left = min(float(node.get("x", 0)) for node in design["nodes"])
    bottom = max(float(node.get("y", 0)) + float(node.get("height", 56) or 56) for node in design["nodes"])
    while len(design["nodes"]) < NODES:
        n += 1
        design["nodes"].append({"id": f"extra-{n}", "kind": rng.choice(FILLERS), "x": left + 200 * (n - 1),
                                "y": bottom + 40, "params": {}})
    design["nodes"] = design["nodes"][:NODES]
    kept = {node["id"] for node in design["nodes"]}
    design["edges"] = [e for e in design["edges"] if e["source"] in kept and e["target"] in kept]
    if rng.random() < 0.2:
        for node in design["nodes"]:
            if node["kind"] == "region" and node.get("params", {}).get("location"):
                node["params"]["location"] = "eu-west"
                break
    requirements = design.get("requirements", {})
    if rng.random() < 0.25:
        design["requirements"] = {}
    elif rng.random() < 0.3 and "slo_p99_ms" in requirements:
        requirements["slo_p99_ms"] = float(requirements["slo_p99_ms"]) * 3
    design.setdefault("metadata", {})["title"] = f"Learner {seed}"
    return design


def submissions(reference: dict, count: int) -> list[Submission]:
    return [Submission(f"learner-{i:03d}.json", json.dumps(vary(reference, i)).encode()) for i in range(count)]


def timed(entry, subs, jobs: int):
    wall, cpu = time.perf_counter(), time.process_time()
    run = grade_submissions(entry.scenario, entry.reference_bytes, subs, jobs=jobs)
    return run, time.perf_counter() - wall, time.process_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--scenario", default="fraud-scoring-cpu")
    parser.add_argument("--batching-scenario", default="p99-latency-spike")
    parser.add_argument("--batching-count", type=int, default=16, help="0 to skip the batching room")
    args = parser.parse_args()
    met = room(args.scenario, args.count, target=True) if args.count else True
    if args.batching_count:
        room(args.batching_scenario, args.batching_count, target=False)
    return 0 if met else 1


def room(scenario: str, count: int, target: bool) -> bool:
    class args:  # noqa: N801 - the names the report lines use
        pass

    args.scenario, args.count = scenario, count
    entry = ScenarioLibrary().load().get(args.scenario)
    reference = json.loads(entry.reference_bytes)
    subs = submissions(reference, args.count)
    cores = default_jobs()
    print(f"{args.count} submissions of {NODES} components against '{args.scenario}' on {cores} core(s) "
          f"(load average {os.getloadavg()[0]:.2f})")
    pooled, pooled_s, _ = timed(entry, subs, cores)
    single, single_s, single_cpu = timed(entry, subs, 1)
    same = [r.to_dict() for r in pooled.results] == [r.to_dict() for r in single.results]
    errors = len(pooled.errors)
    overall = [r.overall for r in single.graded]
    print(f"  process pool ({pooled.jobs} workers): {pooled_s:6.2f} s  ({1000 * pooled_s / args.count:.0f} ms "
          "per submission)")
    print(f"  one process:               {single_s:6.2f} s  ({1000 * single_s / args.count:.0f} ms per submission, "
          f"CPU {1000 * single_cpu / args.count:.0f} ms)")
    print(f"  speed-up {single_s / pooled_s:.2f}x; same rows in both: {same}; {errors} error rows; overall "
          f"median {statistics.median(overall):.1f} (range {min(overall):.1f}-{max(overall):.1f})")
    tables = ""
    try:
        from inferboard.sim.batching import batching

        tables = f"; batching tables built in this process: {batching._table.cache_info().misses}"
    except AttributeError:
        pass
    print(f"  {len(single.graded)} graded{tables}")
    if not target:
        return same
    met = pooled_s < TARGET_S * count / 200
    print(f"  target: {count} in under {TARGET_S * count / 200:.0f} s on the pool: {'met' if met else 'NOT met'}")
    return met and same


if __name__ == "__main__":
    sys.exit(main())
