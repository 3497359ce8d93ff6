"""Load, validate and save times for 100-, 1,000- and 5,000-node designs (medians).

    .venv/bin/python bench/bench_model.py

Target: a 1,000-node design loads and validates in under 100 ms median.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inferboard.catalog import default_catalog  # noqa: E402
from inferboard.model import Design  # noqa: E402
from inferboard.store import design_to_bytes, parse_design, save_design  # noqa: E402

STACK = ["regional_load_balancer", "cache", "dynamic_batcher", "gpu_pool", "metrics_collector"]


def build(n_nodes: int) -> Design:
    """Stacks of source -> LB -> cache -> batcher -> GPU pool (+ metrics) in regions."""
    design = Design()
    stacks = max(1, n_nodes // (len(STACK) + 2))
    for s in range(stacks):
        region = design.add_node("region", s * 300, 0, {"location": "us-east"}, node_id=f"r{s}")
        source = design.add_node("traffic_source", s * 300, -100, node_id=f"src{s}")
        previous = source.id
        for i, kind in enumerate(STACK):
            node = design.add_node(kind, s * 300, 100 * (i + 1), node_id=f"{kind}{s}", region=region.id)
            if kind == "metrics_collector":
                design.connect(f"gpu_pool{s}", "telemetry", node.id, "telemetry")
            else:
                design.connect(previous, "requests", node.id, "requests")
                previous = node.id
    return design


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    default_catalog()
    print(f"{'nodes':>6} {'edges':>6} {'bytes':>9} {'load+validate ms':>17} {'serialise ms':>13} {'save ms':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for target in (100, 1000, 5000):
            design = build(target)
            data = design_to_bytes(design)
            repeat = 15 if target <= 1000 else 5
            load = median_ms(lambda: parse_design(data, "bench.json"), repeat)
            dump = median_ms(lambda: design_to_bytes(design), repeat)
            path = Path(folder) / f"d{target}.json"
            save = median_ms(lambda: save_design(design, path), repeat)
            flag = "  (target < 100 ms)" if target == 1000 else ""
            print(f"{len(design.nodes):>6} {len(design.edges):>6} {len(data):>9} {load:>17.1f} {dump:>13.1f} "
                  f"{save:>8.1f}{flag}")


if __name__ == "__main__":
    main()
