"""How fast the rule engine re-checks a design: ``python bench/bench_rules.py``.

Budgets (the GUI re-checks on every edit): structural rules on a 100-node design under 16 ms median
(one frame at 60 Hz); the full check with behaviour rules on a 200-node design under 100 ms median.
With ``--baseline REV`` the bench as it was at git revision REV runs too, side by side (a temporary
worktree, same machine and load), and each figure is printed with its ratio to it in CPU time.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("INFERBOARD_CACHE_DIR", tempfile.mkdtemp(prefix="bench-tables-"))  # tables built, not read back

from inferboard.rules import check_design, default_rules  # noqa: E402
from tests.rules.builders import large  # noqa: E402
from baseline import run_at  # noqa: E402

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


#: A figure line: its title (up to the colon) and its CPU median.
FIGURE = re.compile(r"^(structural check, \d+ nodes|full check, \d+ nodes)[^:]*: median [\d.]+ ms, CPU ([\d.]+) ms", re.M)


def baseline_cpu(revision: str, repeat: int) -> dict[str, float]:
    """Per figure title, the CPU median the bench at ``revision`` printed (empty when it could not run)."""
    text = run_at(revision, "bench_rules.py", ("--repeat", str(repeat))) or ""
    return {title: float(cpu) for title, cpu in FIGURE.findall(text)}


def report(title: str, rest: str, wall: float, cpu: float, budget: float | None, old: dict[str, float],
           revision: str | None) -> None:
    """Print one figure with its budget and, when the baseline printed it, its CPU ratio to it."""
    line = f"{title}{rest}: median {wall:.2f} ms, CPU {cpu:.2f} ms"
    if budget is not None:
        line += f" (budget {budget:g} ms{'' if wall < budget else ', OVER'})"
    if title in old and old[title] > 0:
        line += f"; at {revision}: CPU {old[title]:.2f} ms, now {cpu / old[title]:.2f}x"
    print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--baseline", metavar="REV", help="also run this bench as it was at git revision REV")
    args = parser.parse_args(argv)
    old = baseline_cpu(args.baseline, args.repeat) if args.baseline else {}
    rules = default_rules()
    ok = True
    small, big = sized(100), sized(200)
    structural, structural_cpu = median_ms(lambda: check_design(small, rules, behaviour=False), args.repeat)
    ok &= structural < STRUCTURAL_BUDGET_MS
    report(f"structural check, {len(small)} nodes", f", {sum(not r.behaviour for r in rules)} rules", structural,
           structural_cpu, STRUCTURAL_BUDGET_MS, old, args.baseline)
    structural_big, structural_big_cpu = median_ms(lambda: check_design(big, rules, behaviour=False), args.repeat)
    report(f"structural check, {len(big)} nodes", "", structural_big, structural_big_cpu, None, old, args.baseline)
    if importlib.util.find_spec("inferboard.sim.steady.design_sim") is None:
        print("full check with behaviour rules: skipped (inferboard.sim.steady.design_sim is not importable)")
    else:
        checked = check_design(big, rules)
        full, full_cpu = median_ms(lambda: check_design(big, rules), max(5, args.repeat // 3))
        ok &= full < FULL_BUDGET_MS
        skipped = f", {len(checked.skipped)} rule(s) skipped" if checked.skipped else ""
        report(f"full check, {len(big)} nodes", f", {len(rules)} rules{skipped}", full, full_cpu, FULL_BUDGET_MS,
               old, args.baseline)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
