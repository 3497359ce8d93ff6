"""Steady-state solve() times for random 10-, 50- and 200-station networks (medians of 25 runs).

    .venv/bin/python bench/bench_analytic.py [--baseline REV]

Target: a 200-station network solves in well under 10 ms median. Networks are random but seeded:
a mix of pure delays, G/G/c pools (CV 0–1.5), dynamic batchers, bounded queues and time-outs,
with paths of 3–6 stations and servers sized for utilisations of 0.3–0.95.

Timings per size (wall-clock medians; ``CPU`` is the process-time median, less sensitive to other
load on the machine): ``solve`` on the same Network object (the structure plan is cached, as when
the app re-solves an unchanged design), ``solve (new Network)`` on a freshly built equal network
(plan recomputed; building the Network itself is not timed), and ``+ figures/to_dict`` which also
materialises every explanation and the JSON-able dict (figures are built lazily on first access).
With ``--baseline REV`` the bench as it was at git revision REV runs too, side by side (a temporary
worktree, same machine and load), and each size's solve time is printed as a ratio to it.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path as FsPath

sys.path.insert(0, str(FsPath(__file__).resolve().parents[1]))
sys.path.insert(0, str(FsPath(__file__).resolve().parent))
os.environ.setdefault("INFERBOARD_CACHE_DIR", tempfile.mkdtemp(prefix="bench-tables-"))  # tables built, not read back

from inferboard.sim.steady.analytic import solve  # noqa: E402
from inferboard.sim.design.network import Network, Path, Station  # noqa: E402
from baseline import run_at  # noqa: E402

TARGET_MS = 10.0
RUNS = 25


def build(n_stations: int, seed: int = 7) -> tuple[dict, tuple, float]:
    rng = random.Random(seed)
    ids = [f"s{i:03d}" for i in range(n_stations)]
    n_paths = max(3, n_stations // 3)
    raw_paths = []
    for k in range(n_paths):
        length = rng.randint(3, min(6, n_stations))
        raw_paths.append(tuple(sorted(rng.sample(ids, length))))
    covered = {s for p in raw_paths for s in p}
    leftovers = [s for s in ids if s not in covered]
    for i in range(0, len(leftovers), 3):
        chunk = leftovers[i:i + 3]
        extra = sorted(set(chunk) | set(rng.sample(ids, 3 - len(chunk) if len(chunk) < 3 else 0)))
        raw_paths.append(tuple(extra))
    weights = [rng.random() + 0.1 for _ in raw_paths]
    total = sum(weights) / 0.99  # 1% unrouted
    lam = 200.0
    shares = [w / total for w in weights]
    rate = {s: 0.0 for s in ids}
    for p, share in zip(raw_paths, shares):
        for s in p:
            rate[s] += share * lam
    stations = {}
    for s in ids:
        r = max(rate[s], 1e-3)
        kind = rng.random()
        target = rng.uniform(0.3, 0.95)
        qcap = rng.choice([None, None, 50, 500])
        timeout = rng.choice([None, None, 0.5, 2.0])
        if kind < 0.2:
            stations[s] = Station(s, delay_only=True, fixed_delay_s=rng.uniform(0.001, 0.02))
        elif kind < 0.4:
            tau0, alpha, bmax = rng.uniform(0.002, 0.01), rng.uniform(0.0002, 0.002), rng.choice([4, 8, 16, 32])
            per_server = bmax / (tau0 + alpha * bmax)
            stations[s] = Station(s, servers=max(1, math.ceil(r / (per_server * target))), batch_max=bmax,
                                  batch_base_s=tau0, batch_item_s=alpha, batch_timeout_s=rng.choice([0.0, 0.002, 0.01]),
                                  service_cv=rng.choice([0.0, 0.2, 0.5]), queue_capacity=qcap, timeout_s=timeout)
        else:
            mean = rng.uniform(0.002, 0.05)
            stations[s] = Station(s, servers=max(1, math.ceil(r * mean / target)), service_mean_s=mean,
                                  service_cv=rng.choice([0.0, 0.3, 0.5, 1.0, 1.5]), queue_capacity=qcap,
                                  timeout_s=timeout, error_rate=rng.choice([0.0, 0.0, 0.001]),
                                  fixed_delay_s=rng.choice([0.0, 0.001]))
    paths = tuple(Path(p, share, label=f"path {i}") for i, (p, share) in enumerate(zip(raw_paths, shares)))
    return stations, paths, lam


def median_ms(fn, clock=time.perf_counter) -> float:
    times = []
    for _ in range(RUNS):
        t0 = clock()
        fn()
        times.append((clock() - t0) * 1000.0)
    return statistics.median(times)


def reference_ms() -> float:
    """A fixed numpy workload (exp of 800k doubles), to compare machines and load levels."""
    import numpy as np
    a = np.random.default_rng(0).random(800_000)
    return median_ms(lambda: np.exp(a))


SOLVE_LINE = re.compile(r"^\s*(\d+) stations.*?solve\s+([\d.]+) ms \(CPU\s+([\d.]+)\)", re.M)


def baseline_figures(revision: str) -> tuple[dict[int, tuple[float, float]], float | None]:
    """Per size (wall, CPU ms) of the bench at ``revision``, and its machine reference figure."""
    text = run_at(revision, "bench_analytic.py") or ""
    reference = re.search(r"np.exp over 800k doubles = ([\d.]+) ms", text)
    return ({int(n): (float(w), float(c)) for n, w, c in SOLVE_LINE.findall(text)},
            float(reference.group(1)) if reference else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="REV", help="also run this bench as it was at git revision REV")
    args = parser.parse_args()
    old, old_reference = baseline_figures(args.baseline) if args.baseline else ({}, None)
    print(f"solve() median of {RUNS} runs; target: 200 stations well under {TARGET_MS:.0f} ms")
    print(f"machine reference: np.exp over 800k doubles = {reference_ms():.2f} ms (median)"
          + (f"; in the baseline's run {old_reference:.2f} ms" if old_reference else ""))
    for n in (10, 50, 200):
        stations, paths, lam = build(n)
        net = Network(stations, paths, arrival_rate=lam)
        solve(net)  # warm caches (grid tables, plan)
        same = median_ms(lambda: solve(net))
        cpu = median_ms(lambda: solve(net), time.process_time)
        fresh_nets = [Network(dict(stations), paths, arrival_rate=lam) for _ in range(RUNS)]
        it = iter(fresh_nets)
        fresh = median_ms(lambda: solve(next(it)))

        def full():
            res = solve(net)
            res.to_dict()

        full_ms = median_ms(full)
        res = solve(net)
        status = "OK" if n != 200 or min(same, cpu) < TARGET_MS else "OVER TARGET"
        print(f"{n:4d} stations, {len(paths):3d} paths, {res.bins:5d} bins: solve {same:6.2f} ms (CPU {cpu:6.2f}) | "
              f"solve (new Network) {fresh:6.2f} ms | + figures/to_dict {full_ms:6.2f} ms  [{status}]  "
              f"p99={res.p99_s * 1000:.1f} ms served={res.throughput_rps:.1f}/{lam:.0f} rps")
        if n in old:
            print(f"{'':4s}  at {args.baseline}: solve {old[n][0]:6.2f} ms (CPU {old[n][1]:6.2f}); now {same / old[n][0]:.2f}x "
                  f"wall, {cpu / old[n][1]:.2f}x CPU")


if __name__ == "__main__":
    main()
