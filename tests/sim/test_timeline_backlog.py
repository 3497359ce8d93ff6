"""The timeline's carried backlog against the request-level load test driven by the same rate function
(time-varying Poisson arrivals), and against fluid arithmetic done here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from inferboard.model import Design
from inferboard.model.requirements import Requirements
from inferboard.sim.loadtest.arrivals import thinned_arrivals, tick_arrivals
from inferboard.sim.design.compile import compile_design
from inferboard.sim.loadtest.loadtest import SERVED, run_load_test
from inferboard.sim.timeline.timeline import run_timeline

TICK = 10.0
CAPACITY = 200.0  # 4 workers at 20 ms


def queue_design(timeout_ms: float, scaler: dict | None = None, **pool) -> Design:
    design = Design(requirements=Requirements(mean_rps=150, peak_rps=300, slo_p99_ms=200.0, availability_slo=99.9))
    design.add_node("traffic_source", node_id="users", params={"arrival_cv": 1.0})
    design.add_node("request_queue", node_id="queue", params={"timeout_ms": timeout_ms, "capacity": 1_000_000})
    design.add_node("cpu_pool", node_id="pool", params={"replicas": 1, "min_replicas": 1, "workers_per_replica": 4,
                                                        "service_ms": 20.0, "service_cv": 1.0, **pool})
    design.connect("users", "requests", "queue", "requests")
    design.connect("queue", "requests", "pool", "requests")
    if scaler is not None:
        design.add_node("autoscaler", node_id="keda", params=scaler)
        design.connect("keda", "scaling", "pool", "scaling")
    return design


def surge_trace(tmp_path: Path, surge: float, start: float, end: float) -> Path:
    path = tmp_path / "trace.csv"
    path.write_text(f"time_s,rps\n0,150\n{start:g},{surge:g}\n{end:g},150\n3600,150\n")
    return path


class LoadTestView:
    """The load test's trace seen as the timeline reports it: p99 of the requests completing in each
    minute, loss over the run, requests in the system at a time, when the queue is gone."""

    def __init__(self, design: Design, times: np.ndarray, rates: np.ndarray, joining=None, seed: int = 1):
        network = compile_design(design, 150.0, replicas={"pool": 1}).network
        arrivals = tick_arrivals(times, rates, TICK, seed=seed)
        result = run_load_test(network, len(arrivals), seed=seed + 1, warmup_fraction=0.0, keep_trace=True,
                               arrival_s=arrivals, servers_joining={"pool": tuple(joining or ())})
        trace = result.trace
        self.served = trace.outcome == SERVED
        self.latency = trace.finish_s - trace.arrival_s
        self.finish, self.arrival = trace.finish_s, trace.arrival_s
        self.sorted_arrival, self.sorted_finish = np.sort(trace.arrival_s), np.sort(trace.finish_s)
        self.loss = 1.0 - self.served.mean()

    def p99_by_minute(self, minutes: int) -> np.ndarray:
        minute = (self.finish // 60).astype(int)
        out = np.zeros(minutes)
        for m in range(minutes):
            picked = self.latency[(minute == m) & self.served]
            out[m] = np.percentile(picked, 99) if picked.size > 20 else 0.0
        return out

    def in_system(self, t: float) -> int:
        return int(np.searchsorted(self.sorted_arrival, t) - np.searchsorted(self.sorted_finish, t, side="right"))

    def drained_at(self, after: float, level: int = 50) -> float:
        t = after
        while self.in_system(t) > level:
            t += TICK
        return t


def timeline_p99_by_minute(series) -> np.ndarray:
    return series["p99_ms"].reshape(-1, int(60 / TICK)).max(axis=1) / 1000.0


def drained_at(result, after: float) -> float:
    backlog = result.series["backlog:pool"]
    return float(result.times_s[(result.times_s >= after) & (backlog <= 0)][0])


def compare(result, view: LoadTestView, surge_end: float) -> dict:
    s = result.series
    timeline_loss = float((s["shed_rate"] * s["offered_rps"]).sum() / s["offered_rps"].sum())
    peak = int(np.argmax(s["queue:pool"]))
    return dict(p99=(timeline_p99_by_minute(s).max(), view.p99_by_minute(60).max()),
                loss=(timeline_loss, view.loss),
                drain=(drained_at(result, surge_end) - surge_end, view.drained_at(surge_end) - surge_end),
                queue=(s["queue:pool"][peak], view.in_system(result.times_s[peak])))


def assert_close(figures: dict, keys=("p99", "drain", "queue"), rel=0.15) -> None:
    for key in keys:
        ours, theirs = figures[key]
        assert ours == pytest.approx(theirs, rel=rel), key


@pytest.mark.slow
def test_spike_builds_a_queue_that_drains_long_after_it(tmp_path):
    """Capacity 200/s, 150 -> 300 -> 150 req/s with the surge in minutes 10-20, 600 s time-out."""
    design = queue_design(600_000)
    result = run_timeline(design, hours=1, tick_s=TICK, replay_csv=surge_trace(tmp_path, 300, 600, 1200))
    view = LoadTestView(design, result.times_s, result.series["offered_rps"])
    figures = compare(result, view, 1200.0)
    assert_close(figures)
    assert figures["loss"][0] < 1e-3 and figures["loss"][1] < 1e-3  # the deep queue loses nothing
    # Fluid arithmetic: +100/s for 600 s is 60,000 waiting (300 s of wait), drained at 50/s in 20 min.
    assert figures["queue"][0] == pytest.approx(60_000, rel=0.02)
    assert figures["p99"][0] == pytest.approx(300, rel=0.03)
    assert figures["drain"][0] == pytest.approx(1200, rel=0.03)
    kinds = [(e.kind, e.time_s) for e in result.events]
    assert ("queue_drained", figures["drain"][0] + 1200) in kinds
    assert any(k == "slo_recovered" and t >= 2300 for k, t in kinds)  # the breach lasts ~30 min, not 10


@pytest.mark.slow
def test_slow_drain_against_a_time_out(tmp_path):
    """260 req/s for 15 min against 200/s with a 120 s time-out: the queue stops at 120 s of wait and
    the excess times out; the 24,000 waiting then drain at 50/s."""
    design = queue_design(120_000)
    result = run_timeline(design, hours=1, tick_s=TICK, replay_csv=surge_trace(tmp_path, 260, 600, 1500))
    view = LoadTestView(design, result.times_s, result.series["offered_rps"])
    figures = compare(result, view, 1500.0)
    assert_close(figures, ("p99", "drain", "queue", "loss"))
    assert figures["p99"][0] == pytest.approx(120, rel=0.02)
    expected_loss = (260 - 200) * (900 - 24_000 / 60) / (150 * 2700 + 260 * 900)
    assert figures["loss"][0] == pytest.approx(expected_loss, rel=0.05)
    assert figures["drain"][0] == pytest.approx(24_000 / 50, rel=0.05)


@pytest.mark.slow
def test_queue_depth_autoscaler_catches_up(tmp_path):
    """KEDA on queue depth (1,000 per replica), 120 s provisioning: it scales out once the backlog
    forms, the new replicas drain it before the surge is over. The load test replays the replica
    track the timeline's autoscaler produced."""
    scaler = {"metric": "queue_depth", "target": 1000.0, "min_replicas": 1, "max_replicas": 3,
              "scale_down_stabilization_s": 3600.0}
    design = queue_design(600_000, scaler, provisioning_s=120.0, max_replicas=3)
    result = run_timeline(design, hours=1, tick_s=TICK, replay_csv=surge_trace(tmp_path, 300, 600, 1200))
    s, t = result.series, result.times_s
    ready = s["ready:pool"]
    joining = [t[k] for k in np.flatnonzero(np.diff(ready) > 0) + 1
               for _ in range(int(round((ready[k] - ready[k - 1]) * 4)))]
    assert joining and min(joining) < 1200  # it caught up during the surge
    scaled = [e for e in result.events if e.kind == "scaled"][0]
    assert 600 < scaled.time_s <= 660  # within a few syncs of the backlog reaching 1,000
    view = LoadTestView(design, t, s["offered_rps"], joining)
    figures = compare(result, view, 600.0)
    assert_close(figures)
    assert figures["drain"][0] < 600  # drained before the surge ended


def test_thinning_gives_the_rate_function():
    rate = lambda t: np.where(t < 100, 50.0, 200.0)  # noqa: E731
    arrivals = thinned_arrivals(rate, 200.0, 200.0, seed=3)
    assert np.all(np.diff(arrivals) >= 0)
    assert np.count_nonzero(arrivals < 100) == pytest.approx(5000, rel=0.05)
    assert np.count_nonzero(arrivals >= 100) == pytest.approx(20000, rel=0.03)
