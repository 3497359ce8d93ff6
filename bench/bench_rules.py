"""How fast the rule engine re-checks a design: ``python bench/bench_rules.py``.

Budgets (the GUI re-checks on every edit): structural rules on a 100-node design under 16 ms median
(one frame at 60 Hz); the full check with behaviour rules on a 200-node design under 100 ms median.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("INFERBOARD_CACHE_DIR", tempfile.mkdtemp(prefix="bench-tables-"))  # tables built, not read back

from inferboard.rules import check_design, default_rules  # noqa: E402
from tests.rules.builders import large  # noqa: E402

STRUCTURAL_BUDGET_MS = 16.0
FULL_BUDGET_MS = 100.0


def sized(nodes: int):
    """A reference design with enough regions to reach at least ``nodes`` nodes."""
    regions = 1
    while len(large(regions)) < nodes:
        regions += 1
    return large(regions)


def median_ms(fn, repeat: int) -> tuple[float, float]:
    """(wall, CPU) medians in ms; CPU time of this process is the steadier figure on a busy machine."""
    fn()  # warm caches (rule set, catalog, imports)
    walls, cpus = [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append((time.perf_counter() - start) * 1000.0)
        cpus.append((time.process_time() - cpu) * 1000.0)
    return statistics.median(walls), statistics.median(cpus)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args(argv)
    rules = default_rules()
    ok = True
    small, big = sized(100), sized(200)
    structural, structural_cpu = median_ms(lambda: check_design(small, rules, behaviour=False), args.repeat)
    ok &= structural < STRUCTURAL_BUDGET_MS
    print(f"structural check, {len(small)} nodes, {sum(not r.behaviour for r in rules)} rules: "
          f"median {structural:.2f} ms, CPU {structural_cpu:.2f} ms (budget {STRUCTURAL_BUDGET_MS:g} ms)")
    structural_big, structural_big_cpu = median_ms(lambda: check_design(big, rules, behaviour=False), args.repeat)
    print(f"structural check, {len(big)} nodes: median {structural_big:.2f} ms, CPU {structural_big_cpu:.2f} ms")
    if importlib.util.find_spec("inferboard.sim.steady.design_sim") is None:
        print("full check with behaviour rules: skipped (inferboard.sim.steady.design_sim is not importable)")
    else:
        report = check_design(big, rules)
        full, full_cpu = median_ms(lambda: check_design(big, rules), max(5, args.repeat // 3))
        ok &= full < FULL_BUDGET_MS
        skipped = f", {len(report.skipped)} rule(s) skipped" if report.skipped else ""
        print(f"full check, {len(big)} nodes, {len(rules)} rules: median {full:.2f} ms, CPU {full_cpu:.2f} ms "
              f"(budget {FULL_BUDGET_MS:g} ms){skipped}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
