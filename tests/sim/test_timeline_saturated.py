"""A batching station offered its full-batch capacity or more runs full batches: the timeline solves
such ticks in closed form (no batch table), its served requests wait less than their patience, and
the autoscaler's metric tables are built only over the loads the ticks bring, with the same figures
as over the whole grid."""

from __future__ import annotations

import numpy as np
import pytest

from inferboard.model import Design
from inferboard.model.requirements import Requirements
from inferboard.sim.design.faults import parse_fault
from inferboard.sim.timeline import tickqueue, timeline_state
from inferboard.sim.timeline.tickqueue import StationParams, saturated_batches
from inferboard.sim.timeline.timeline import run_timeline
from inferboard.sim.timeline.timeline_state import Timeline


def params(batch: int = 16, base_s: float = 0.01, item_s: float = 0.002, cv: float = 0.3) -> StationParams:
    one = np.ones(1)
    return StationParams(servers_per_replica=one, service_s=one * 0.0, service_cv=one * cv, ca2=one,
                         error_rate=one * 0.0, timeout_s=one * np.inf, queue_capacity=one * np.inf,
                         batch_max=one * batch, batch_base_s=one * base_s, batch_item_s=one * item_s,
                         batch_window_s=one * 0.005)


@pytest.mark.parametrize("overload", [1.5, 20.0])
def test_a_saturated_batcher_is_the_fluid_queue_of_full_batches(overload):
    p, servers, patience = params(), 3, 1.0
    tau = 0.01 + 0.002 * 16  # a full batch's time
    capacity = servers * 16 / tau
    fig = saturated_batches(np.array([overload * capacity]), np.array([servers * 1.0]), p, np.array([patience]))
    assert fig["service"][0] == pytest.approx(tau)
    assert fig["busy"][0] == 1.0
    # what the servers cannot complete leaves: the fluid loss 1 - capacity / offered
    assert fig["lost"][0] == pytest.approx(1.0 - 1.0 / overload, abs=0.01)
    # the served requests wait for the queue ahead of them, never longer than their patience
    assert 0.5 * patience < fig["wait"][0] <= patience
    assert fig["var"][0] >= (0.3 * tau) ** 2
    assert fig["shape_mean"][0] == pytest.approx(fig["wait"][0] + tau)


def overloaded_design(rps: float = 400.0, metric: str = "gpu_utilisation", target: float = 0.6) -> Design:
    design = Design(requirements=Requirements(mean_rps=rps, peak_rps=rps, traffic_pattern="steady",
                                              slo_p99_ms=300.0))
    design.add_node("traffic_source", node_id="users", params={"arrival_cv": 1.0})
    design.add_node("dynamic_batcher", node_id="batcher", params={"max_batch_size": 8, "max_queue_delay_ms": 5.0,
                                                                  "timeout_ms": 500.0})
    design.add_node("gpu_pool", node_id="gpus", params={"gpu_type": "t4", "replicas": 2, "min_replicas": 2,
                                                        "max_replicas": 6, "base_ms": 20.0, "per_item_ms": 10.0,
                                                        "service_cv": 0.3, "provisioning_s": 60.0})
    design.add_node("autoscaler", node_id="hpa", params={"metric": metric, "target": target, "min_replicas": 2,
                                                         "max_replicas": 6})
    design.connect("users", "requests", "batcher", "requests")
    design.connect("batcher", "requests", "gpus", "requests")
    design.connect("hpa", "scaling", "gpus", "scaling")
    return design


def test_a_timeline_always_over_capacity_reads_no_batch_table(monkeypatch):
    """Offered 50 times what the pool completes at its largest, every tick runs full batches: no
    batch table is read, the served wait stays within the batcher's time-out and the station's time
    is that wait plus a full batch's time."""
    design = overloaded_design(rps=40_000.0)
    real = tickqueue.batch_station

    def no_table(lam, *args):
        assert lam.size == 0, "a saturated tick read the batch table"
        return real(lam, *args)

    monkeypatch.setattr(tickqueue, "batch_station", no_table)
    result = run_timeline(design, hours=0.5, tick_s=60)
    s = result.series
    assert s["ready:gpus"].max() == 6  # the autoscaler went to its ceiling
    wait = s["wait_ms:gpus"]
    assert np.all(wait <= 500.0 + 1e-6) and wait[-1] == pytest.approx(500.0)
    full_batch_ms = s["sojourn_ms:gpus"][-1] - wait[-1]
    assert full_batch_ms == pytest.approx(s["sojourn_ms:gpus"][-5] - wait[-5])
    assert np.all(s["sojourn_ms:gpus"] >= full_batch_ms + wait - 1e-6)


@pytest.mark.parametrize("metric", ["gpu_utilisation", "latency_p95", "queue_depth"])
def test_metric_tables_built_for_an_overload_first_give_the_figures_of_one_run(metric):
    """A drill stepping through an overload and then a quiet spell builds its metric tables first
    over the overloaded loads only and later over lighter ones: the same figures as one run."""
    design = overloaded_design(metric=metric, target={"gpu_utilisation": 0.6, "latency_p95": 200.0}.get(metric, 10.0))
    faults = [parse_fault("traffic_surge*6:*@0m+20m")]
    whole = run_timeline(design, hours=1, tick_s=10, faults=faults)
    state = Timeline.start(design, faults=faults, hours=1, tick_s=10)
    for seconds in (600, 60, 2940):
        state.advance(seconds)
    stepped = state.result()
    assert whole.series.keys() == stepped.series.keys()
    for key in whole.series:
        assert np.array_equal(whole.series[key], stepped.series[key]), key
    assert whole.series["ready:gpus"].max() > 2


def test_a_metric_table_built_over_heavy_loads_is_extended_for_a_lighter_run():
    """Metric tables are kept between runs with the same station: one built for an overloaded run
    covers only heavy loads, and a later run at a light load gets the figures a fresh table gives."""
    light = overloaded_design(rps=100.0, metric="latency_p95", target=100.0)
    heavy = overloaded_design(rps=4_000.0, metric="latency_p95", target=100.0)
    timeline_state._METRIC_TABLES.clear()
    fresh = run_timeline(light, hours=0.5, tick_s=10)
    timeline_state._METRIC_TABLES.clear()
    run_timeline(heavy, hours=0.5, tick_s=10)
    after_heavy = run_timeline(light, hours=0.5, tick_s=10)
    for key in fresh.series:
        assert np.array_equal(fresh.series[key], after_heavy.series[key]), key
    assert fresh.series["ready:gpus"].max() < 6  # read off the heavy loads only, it would scale to its ceiling
