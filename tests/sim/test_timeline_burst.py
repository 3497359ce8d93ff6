"""A pool's output, not its input, reaches the next station: while a backlog drains, the station
behind it sees the drain rate (bounded by the upstream capacity), and never the surge itself.
Checked by fluid arithmetic done here and against the request-level load test driven by the same
rate function."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from inferboard.model import Design
from inferboard.model.requirements import Requirements
from inferboard.sim.loadtest.arrivals import tick_arrivals
from inferboard.sim.design.compile import compile_design
from inferboard.sim.loadtest.loadtest import SERVED, run_load_test
from inferboard.sim.timeline.timeline import run_timeline

TICK = 10.0


def tandem_design() -> Design:
    """users -> deep queue -> front pool (4 x 20 ms: 200 req/s) -> back pool (6 x 20 ms: 300 req/s)."""
    design = Design(requirements=Requirements(mean_rps=150, peak_rps=300, slo_p99_ms=200.0, availability_slo=99.9))
    design.add_node("traffic_source", node_id="users", params={"arrival_cv": 1.0})
    design.add_node("request_queue", node_id="queue", params={"timeout_ms": 600_000, "capacity": 1_000_000})
    design.add_node("cpu_pool", node_id="front", params={"replicas": 1, "workers_per_replica": 4, "service_ms": 20.0,
                                                         "service_cv": 1.0})
    design.add_node("cpu_pool", node_id="back", params={"replicas": 1, "workers_per_replica": 6, "service_ms": 20.0,
                                                        "service_cv": 1.0})
    design.connect("users", "requests", "queue", "requests")
    design.connect("queue", "requests", "front", "requests")
    design.connect("front", "requests", "back", "requests")
    return design


def trace(tmp_path: Path) -> Path:
    path = tmp_path / "trace.csv"
    path.write_text("time_s,rps\n0,150\n600,320\n1200,150\n3600,150\n")
    return path


def test_the_station_behind_a_draining_pool_sees_the_drain_rate(tmp_path):
    result = run_timeline(tandem_design(), hours=1, tick_s=TICK, replay_csv=trace(tmp_path))
    s, t = result.series, result.times_s
    # fluid arithmetic: +120/s for 600 s is 72,000 waiting, drained at 50/s: 1,440 s after minute 20
    drained = 1200 + 72_000 / 50
    busy = (t >= 600) & (t < drained - TICK)
    np.testing.assert_allclose(s["arrival_rps:front"][busy], 320.0 * (t[busy] < 1200) + 150.0 * (t[busy] >= 1200))
    np.testing.assert_allclose(s["arrival_rps:back"][busy], 200.0, rtol=1e-9)  # the front's capacity, not 320
    np.testing.assert_allclose(s["arrival_rps:back"][t < 600], 150.0)
    np.testing.assert_allclose(s["arrival_rps:back"][t >= drained + TICK], 150.0)
    assert s["backlog:back"].max() == 0.0  # 200/s never overloads 300/s
    # what leaves over the whole hour is what arrived (nothing is lost, the backlog is gone)
    assert (s["arrival_rps:back"] * TICK).sum() == pytest.approx((s["offered_rps"] * TICK).sum(), rel=1e-6)
    assert s["throughput_rps"][busy] == pytest.approx(200.0)


@pytest.mark.slow
def test_a_drain_through_two_pools_matches_the_load_test(tmp_path):
    design = tandem_design()
    result = run_timeline(design, hours=1, tick_s=TICK, replay_csv=trace(tmp_path))
    s = result.series
    arrivals = tick_arrivals(result.times_s, s["offered_rps"], TICK, seed=4)
    lt = run_load_test(compile_design(design, 150.0).network, len(arrivals), seed=5, warmup_fraction=0.0,
                       keep_trace=True, arrival_s=arrivals)
    tr = lt.trace
    served = tr.outcome == SERVED
    minute = (tr.finish_s[served] // 60).astype(int)
    latency = (tr.finish_s - tr.arrival_s)[served]
    lt_p99 = max(np.quantile(latency[minute == m], 0.99) for m in np.unique(minute) if (minute == m).sum() > 100)
    tl_p99 = max(s["p99_ms"][k:k + 6].max() for k in range(0, len(s["p99_ms"]), 6)) / 1000.0
    assert tl_p99 == pytest.approx(lt_p99, rel=0.15)
    # both are drained at about the same time: the last minute whose p99 is above 10 s
    slow_lt = [m for m in np.unique(minute) if np.quantile(latency[minute == m], 0.99) > 10.0]
    slow_tl = result.times_s[s["p99_ms"] > 10_000.0]
    assert slow_tl.max() / 60.0 == pytest.approx(max(slow_lt), rel=0.15)
