"""Estimated batching tables (inferboard/sim/batching/batch_estimate.py) against the exact ones.

    .venv/bin/python bench/bench_estimate.py

The batcher of the bench's 100-node design (bench_gui.py) on 2-8 replicas: each table estimated
from a neighbour (one and two replicas away, as a replica edit finds it), and the batcher with
another window or batch limit estimated from the one at hand (a parameter edit). Prints the
signed error of p50, p99 and the mean wait at loads 20-90% of capacity, the median and 90th
percentile of the absolute errors per kind of edit, and the time to make an estimate.
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("INFERBOARD_CACHE_DIR", tempfile.mkdtemp(prefix="bench-tables-"))

import numpy as np  # noqa: E402

from inferboard.sim.batching import batching  # noqa: E402
from inferboard.sim.batching.batch_estimate import estimate_table  # noqa: E402
from inferboard.sim.steady.design_sim import evaluate  # noqa: E402

LOADS = np.array([0.2, 0.5, 0.7, 0.85, 0.9])
FIGURES = ("p50", "p99", "mean_wait")


def bench_params():
    """The batching parameters of the 100-node design's stations."""
    from bench_gui import big_design

    with batching.recording() as used:
        evaluate(big_design(100))
    return sorted(used, key=repr)[0][1]


def errors(anchor_key, target_key) -> tuple[dict[str, np.ndarray], float]:
    anchor = batching._table(*anchor_key)
    start = time.process_time()
    estimate = estimate_table(anchor, anchor_key, *target_key)
    spent = time.process_time() - start
    exact = batching._table(*target_key)
    delay = target_key[1].delay_s
    got, want = batching._figures(estimate, LOADS, delay), batching._figures(exact, LOADS, delay)
    return {k: (got[k] / want[k] - 1.0) * 100.0 for k in FIGURES}, spent


def main() -> int:
    p = bench_params()
    print(f"station: B={p.batch_max}, D={p.delay_s * 1e3:.1f} ms, tau(1)={p.batch_time(1) * 1e3:.2f} ms, "
          f"tau(B)={p.batch_time(p.batch_max) * 1e3:.2f} ms, service SCV {p.service_scv:.2f}")
    replica = [((c, p), (c + d, p)) for c in (2, 3, 4, 6) for d in (1, -1, 2, -2) if 1 <= c + d <= 8]
    window = [((3, p), (3, dataclasses.replace(p, delay_s=p.delay_s * f))) for f in (0.5, 1.5, 2.0)]
    limit = [((3, p), (3, dataclasses.replace(p, batch_max=b))) for b in (max(p.batch_max // 2, 1), p.batch_max * 2)]
    print(f"{'edit':<28}" + "".join(f"{k + ' at ' + ', '.join(f'{x:.0%}' for x in LOADS):<44}" for k in FIGURES[:2]))
    times = []
    for label, cases in (("replicas +-1", [c for c in replica if abs(c[1][0] - c[0][0]) == 1]),
                         ("replicas +-2", [c for c in replica if abs(c[1][0] - c[0][0]) == 2]),
                         ("batcher window", window), ("batch limit", limit)):
        pooled = {k: [] for k in FIGURES}
        for anchor_key, target_key in cases:
            err, spent = errors(anchor_key, target_key)
            times.append(spent)
            for k in FIGURES:
                pooled[k].extend(np.abs(err[k]))
            name = (f"c {anchor_key[0]} -> {target_key[0]}" if anchor_key[1] == target_key[1] else
                    f"D {anchor_key[1].delay_s * 1e3:.1f} -> {target_key[1].delay_s * 1e3:.1f} ms"
                    if anchor_key[1].delay_s != target_key[1].delay_s else
                    f"B {anchor_key[1].batch_max} -> {target_key[1].batch_max}")
            print(f"  {name:<26}" + "".join(f"{' '.join(f'{v:+5.1f}' for v in err[k]):<44}" for k in FIGURES[:2]))
        print(f"{label:<28}" + "  ".join(f"{k}: median |error| {statistics.median(v):4.1f}%, 90th pct "
                                          f"{np.percentile(v, 90):4.1f}%" for k, v in pooled.items()))
    print(f"an estimate takes {statistics.median(times) * 1e3:.2f} ms of CPU (median of {len(times)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
