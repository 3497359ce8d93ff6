"""How long an incident drill takes to step and to show: a GUI timer calls ``tick`` and ``view``.

Prints the median wall time of one clock tick (a simulated minute), of building the candidate's
view and of scoring, for a latency drill and an accuracy drill on the bundled drill design; then,
hours into the drill, the view of every dashboard against the one in front (what the drill window
redraws on each tick).
Run: python bench/bench_drills.py"""

from __future__ import annotations

import statistics
import time

from inferboard.drills.engine import DrillSession
from inferboard.drills.library import get_drill
from inferboard.paths import data_dir
from inferboard.store import read_design


def median_ms(call, repeats: int = 15) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times)


def main() -> None:
    design, _ = read_design(data_dir("assets") / "drills" / "designs" / "ranker-drill.json")
    for drill_id in ("slow-canary-version", "input-drift-one-segment"):
        start = time.perf_counter()
        session = DrillSession(get_drill(drill_id), design)
        opened = (time.perf_counter() - start) * 1000.0
        tick = median_ms(lambda: session.tick(1.0))
        view = median_ms(session.view, 5)
        score = median_ms(session.result, 3)
        print(f"{drill_id:26s} start {opened:7.1f} ms  tick (1 simulated min) {tick:6.2f} ms  "
              f"view {view:6.1f} ms  score {score:6.1f} ms")
        # The drill window redraws only the dashboard in front, hours into the drill.
        session.advance_to(min(session.horizon_s, 8 * 3600.0))
        full = median_ms(session.view, 5)
        front = median_ms(lambda: session.view(dashboards=["system"]), 5)
        print(f"{'':26s} at {session.now_s / 3600:4.1f} h: view of every dashboard {full:6.1f} ms, of the one in "
              f"front {front:6.1f} ms ({full / front:4.1f}x less)")


if __name__ == "__main__":
    main()
