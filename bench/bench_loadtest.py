"""Load-test speed: our simulator vs SimPy on the same 3-station M/M/c tandem, plus a 1M run.

    python bench/bench_loadtest.py [--requests 200000] [--runs 3] [--big 1000000]

Model: Poisson arrivals (lambda = 0.8/s) through three FCFS stations with (servers, utilisation)
(1, 0.7), (4, 0.8), (2, 0.6) and exponential service; Jackson's theorem gives the exact mean
end-to-end latency, printed next to both simulators' estimates. Each simulator runs the same
number of requests ``--runs`` times; the median wall time gives simulated requests per second.
The 1,000,000-request run happens in a fresh subprocess that reports its own wall time and
peak resident memory (VmHWM; ru_maxrss of children is printed too).
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from inferboard.sim.loadtest.loadtest import run_load_test  # noqa: E402
from inferboard.sim.design.network import Network, Path as RoutePath, Station  # noqa: E402

LAM = 0.8
SPECS = [(1, 0.7), (4, 0.8), (2, 0.6)]  # (servers, utilisation)


def tandem() -> Network:
    st = {f"s{i}": Station(f"s{i}", servers=c, service_mean_s=c * u / LAM)
          for i, (c, u) in enumerate(SPECS)}
    return Network(st, (RoutePath(tuple(st), 1.0),), LAM)


def jackson_mean() -> float:
    total = 0.0
    for c, u in SPECS:
        mu, a = LAM / (c * u), c * u  # per-server rate, offered load
        b = 1.0
        for k in range(1, c + 1):
            b = a * b / (k + a * b)
        erlang_c = b / (1.0 - u * (1.0 - b))
        total += 1.0 / mu + erlang_c / (c * mu - LAM)
    return total


def simpy_tandem(n: int, seed: int) -> float:
    """The same model in SimPy; returns the mean latency after a 10% warm-up."""
    import random

    import simpy

    rng = random.Random(seed)
    env = simpy.Environment()
    stations = [(simpy.Resource(env, capacity=c), c * u / LAM) for c, u in SPECS]
    latencies: list[float] = []

    def request(k: int):
        t0 = env.now
        for res, mean in stations:
            with res.request() as req:
                yield req
                yield env.timeout(rng.expovariate(1.0 / mean))
        if k >= n // 10:
            latencies.append(env.now - t0)

    def source():
        for k in range(n):
            yield env.timeout(rng.expovariate(LAM))
            env.process(request(k))

    env.process(source())
    env.run()
    return sum(latencies) / len(latencies)


def timed(fn, runs: int) -> tuple[float, float]:
    walls, value = [], math.nan
    for seed in range(runs):
        t0 = time.perf_counter()
        value = fn(seed)
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls), value


BIG_RUN = """
import json, sys, time
sys.path.insert(0, {root!r})
from bench.bench_loadtest import tandem
from inferboard.sim.loadtest.loadtest import run_load_test
t0 = time.perf_counter()
r = run_load_test(tandem(), {n}, seed=1)
wall = time.perf_counter() - t0
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({{"wall": wall, "hwm_kb": hwm, "served": r.served, "mean": r.mean_s.value,
                  "p99": r.p99_s.value}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--big", type=int, default=1_000_000)
    args = parser.parse_args()
    n, runs = args.requests, args.runs

    # The big run first, while this process is still small (children inherit ru_maxrss).
    proc = subprocess.run([sys.executable, "-c", BIG_RUN.format(root=str(ROOT), n=args.big)],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    big = json.loads(proc.stdout)
    children_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss

    ours_wall, ours_mean = timed(lambda s: run_load_test(tandem(), n, seed=s).mean_s.value, runs)
    simpy_wall, simpy_mean = timed(lambda s: simpy_tandem(n, s), runs)
    print(f"model: 3-station M/M/c tandem {SPECS}, lambda={LAM}; Jackson mean latency "
          f"{jackson_mean():.3f} s")
    print(f"{'simulator':<10} {'requests':>9} {'median wall s':>14} {'requests/s':>12} "
          f"{'mean latency s':>15}")
    for name, wall, mean in (("inferboard", ours_wall, ours_mean),
                             ("simpy", simpy_wall, simpy_mean)):
        print(f"{name:<10} {n:>9,} {wall:>14.3f} {n / wall:>12,.0f} {mean:>15.3f}")
    print(f"speed-up: {simpy_wall / ours_wall:.1f}x (median of {runs} runs each)")
    print(f"{args.big:,}-request 3-station run: {big['wall']:.2f} s wall, "
          f"{args.big / big['wall']:,.0f} requests/s, peak RSS {big['hwm_kb'] / 1024:.0f} MB "
          f"(VmHWM; ru_maxrss children {children_kb / 1024:.0f} MB), served {big['served']:,}, "
          f"mean {big['mean']:.3f} s, p99 {big['p99']:.3f} s")


if __name__ == "__main__":
    main()
