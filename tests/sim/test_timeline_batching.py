"""The timeline's batching stations read the steady state's shared-queue batch model: a steady tick
agrees with the steady-state solution (analytic.py, exact convolution) and with the request-level
load test, and server counts between the tables' anchors are interpolated closely enough."""

from __future__ import annotations

import numpy as np
import pytest

from inferboard.model import Design
from inferboard.model.requirements import Requirements
from inferboard.sim.steady.analytic import solve
from inferboard.sim.batching.batching import BatchParams, batch_arrays, batch_capacity, batch_steady
from inferboard.sim.design.compile import compile_design
from inferboard.sim.loadtest.loadtest import run_load_test
from inferboard.sim.timeline.timeline import run_timeline
from inferboard.sim.timeline.timeline_batching import anchors, batch_tick_figures


def batcher_design(rps: float, replicas: int = 3, batch: int = 16, delay_ms: float = 5.0) -> Design:
    design = Design(requirements=Requirements(mean_rps=rps, peak_rps=rps, traffic_pattern="steady", slo_p99_ms=100.0))
    design.add_node("traffic_source", node_id="users", params={"arrival_cv": 1.0})
    design.add_node("dynamic_batcher", node_id="batcher", params={"max_batch_size": batch,
                                                                  "max_queue_delay_ms": delay_ms})
    design.add_node("gpu_pool", node_id="gpus", params={"gpu_type": "t4", "replicas": replicas, "service_cv": 0.3})
    design.connect("users", "requests", "batcher", "requests")
    design.connect("batcher", "requests", "gpus", "requests")
    return design


def test_anchor_counts():
    assert anchors(3) == (3, 3, 0.0)
    assert anchors(8) == (8, 8, 0.0)
    lo, hi, w = anchors(10)
    assert (lo, hi) == (8, 11) and w == pytest.approx(np.log(10 / 8) / np.log(11 / 8))
    assert anchors(45)[:2] == (45, 45) and anchors(50)[:2] == (45, 64)


# 1200 rps is 75% of the three T4s' full-batch capacity (3 x 16 / 30 ms = 1600 rps)
@pytest.mark.parametrize("rps", [300.0, 1200.0])
def test_a_steady_tick_is_the_steady_state_and_the_load_test(rps):
    design = batcher_design(rps)
    network = compile_design(design, rps).network
    steady = solve(network)
    result = run_timeline(design, hours=0.25, tick_s=60)
    s = result.series
    # the same station solution: utilisation exactly, p50 and p99 to the gamma fit through them
    assert s["utilisation:gpus"][-1] == pytest.approx(steady.stations["gpus"].utilisation, abs=0.005)
    assert s["p50_ms"][-1] == pytest.approx(steady.p50_s * 1000, rel=0.01)
    assert s["p99_ms"][-1] == pytest.approx(steady.p99_s * 1000, rel=0.01)
    assert s["p95_ms"][-1] == pytest.approx(steady.p95_s * 1000, rel=0.06)  # between them: gamma shape
    lt = run_load_test(network, 300_000, seed=5)
    assert s["utilisation:gpus"][-1] == pytest.approx(lt.stations["gpus"].utilisation, abs=0.01)
    for key, est in (("p50_ms", lt.p50_s), ("p95_ms", lt.p95_s), ("p99_ms", lt.p99_s)):
        tol = 0.06 + (est.ci_high - est.ci_low) / 2 / est.value  # the model's error plus the test's own interval
        assert s[key][-1] == pytest.approx(est.value * 1000, rel=tol), key


def test_utilisation_is_not_one_below_capacity():
    """The tick formula the batch model replaced put the pool at 100% from about half its capacity."""
    result = run_timeline(batcher_design(800.0), hours=0.1, tick_s=60)
    util = result.series["utilisation:gpus"][-1]
    assert 0.5 < util < 0.8


@pytest.mark.parametrize("servers", [5, pytest.param(13, marks=pytest.mark.slow)])
def test_between_anchors_the_figures_follow_the_table_of_that_count(servers):
    params = BatchParams(16, 0.005, 0.004, 0.0005, 0.09)
    x = np.array([0.1, 0.3, 0.5, 0.7, 0.85, 0.93])
    exact = batch_arrays(x * batch_capacity(servers, params), np.full(x.size, servers), params)
    read = batch_tick_figures(x, servers, params, np.full(x.size, 30.0))
    for key in ("p50", "p95", "p99"):
        np.testing.assert_allclose(read[key], exact[key], rtol=0.05, err_msg=key)
    np.testing.assert_allclose(read["utilisation"], exact["utilisation"], atol=0.01)
    np.testing.assert_allclose(read["mean_batch"], exact["mean_batch"], rtol=0.03)
    assert np.all(read["timed_out"] == 0.0)  # nobody waits 30 s below capacity


def test_a_short_time_out_removes_the_wait_tail_of_the_model():
    params = BatchParams(8, 0.004, 0.006, 0.0015, 0.09)
    x = 0.93
    sol = batch_steady(x * batch_capacity(3, params), 3, params)
    read = batch_tick_figures(np.array([x]), 3, params, np.array([0.02]))
    assert read["timed_out"][0] == pytest.approx(sol.wait_tail(0.02), rel=1e-3)
    assert 0.05 < read["timed_out"][0] < 0.5
