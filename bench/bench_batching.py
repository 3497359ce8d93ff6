"""The shared-queue batching model (inferboard/sim/batching/batching.py): solve time and accuracy.

    .venv/bin/python bench/bench_batching.py [--full]

Prints, side by side in one run, the median time to solve one station's table (all loads at once,
CPU seconds, 3 runs each) and, per case, the model's p50/p95/p99, utilisation and mean batch
against the request-level load test (1M requests, 3M above 90% load) with the ratio model/test.
Without --full: the Latin square of the tests (tests/sim/test_batching_model.py); with --full:
every B in {4, 16, 32}, D in {0, 5, 20} ms, c in {1, 3, 8} at loads 10, 30, 50, 70, 90, 95%.
"""

from __future__ import annotations

import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path as FsPath

sys.path.insert(0, str(FsPath(__file__).resolve().parents[1]))
os.environ.setdefault("INFERBOARD_CACHE_DIR", tempfile.mkdtemp(prefix="bench-tables-"))  # tables built, not read back

from inferboard.sim.batching import batching as bt  # noqa: E402
from inferboard.sim.loadtest.loadtest import run_load_test  # noqa: E402
from inferboard.sim.design.network import Network, Path, Station  # noqa: E402

BASE_S, ITEM_S, CV = 0.004, 0.0005, 0.3
LATIN = [(4, 0.0, 1), (4, 0.005, 3), (4, 0.02, 8), (16, 0.0, 3), (16, 0.005, 8), (16, 0.02, 1),
         (32, 0.0, 8), (32, 0.005, 1), (32, 0.02, 3)]
LOADS = (0.1, 0.3, 0.5, 0.7, 0.9, 0.95)


def solve_time(c: int, params: bt.BatchParams) -> float:
    times = []
    for _ in range(3):
        bt._table.cache_clear()
        t0 = time.process_time()
        bt.batch_steady(0.5 * bt.batch_capacity(c, params), c, params)
        times.append(time.process_time() - t0)
    return statistics.median(times)


def main() -> None:
    combos = list(itertools.product((4, 16, 32), (0.0, 0.005, 0.02), (1, 3, 8))) if "--full" in sys.argv else LATIN
    worst: dict[str, float] = {}
    print(f"{'case':<22}{'solve s':>8}  {'p50 m/t':>14}{'p95 m/t':>16}{'p99 m/t':>18}{'util m/t':>14}{'E[b] m/t':>14}")
    for b, d, c in combos:
        params = bt.BatchParams(b, d, BASE_S, ITEM_S, CV * CV)
        cap = bt.batch_capacity(c, params)
        secs = solve_time(c, params)
        for x in LOADS:
            st = Station("b", servers=c, service_mean_s=BASE_S + ITEM_S, service_cv=CV, batch_max=b,
                         batch_base_s=BASE_S, batch_item_s=ITEM_S, batch_timeout_s=d)
            lt = run_load_test(Network({"b": st}, (Path(("b",), 1.0),), arrival_rate=x * cap),
                               3_000_000 if x > 0.9 else 1_000_000, seed=11)
            m = bt.batch_steady(x * cap, c, params)
            ratios = [m.quantile(p) / e.value for p, e in ((0.5, lt.p50_s), (0.95, lt.p95_s), (0.99, lt.p99_s))]
            du = m.utilisation - lt.stations["b"].utilisation
            region = "load > 90%" if x > 0.9 else "load <= 90%"
            worst[region + " p99"] = max(worst.get(region + " p99", 0.0), abs(ratios[2] - 1))
            worst[region + " util"] = max(worst.get(region + " util", 0.0), abs(du))
            print(f"B{b:<3}D{d * 1000:<4g}c{c:<2}{x:>5.0%}   {secs:>7.2f}  "
                  f"{m.quantile(0.5) * 1e3:6.2f}/{lt.p50_s.value * 1e3:6.2f} {ratios[0]:.3f}  "
                  f"{m.quantile(0.95) * 1e3:6.2f}/{lt.p95_s.value * 1e3:6.2f} {ratios[1]:.3f}  "
                  f"{m.quantile(0.99) * 1e3:7.2f}/{lt.p99_s.value * 1e3:7.2f} {ratios[2]:.3f}  "
                  f"{m.utilisation:5.3f}/{lt.stations['b'].utilisation:5.3f}  "
                  f"{m.mean_batch:5.2f}/{lt.stations['b'].mean_batch_size:5.2f}", flush=True)
    for k, v in sorted(worst.items()):
        print(f"worst |model - test| {k}: {v * 100:.1f}{' points' if 'util' in k else '%'}")


if __name__ == "__main__":
    main()
