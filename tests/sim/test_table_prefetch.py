"""Tables built ahead of the next edit: an evaluation names the batching stations it solved, the
likely next tables are one replica more then one fewer on each batched pool (in servers: the pool's
servers per replica), tables already at hand are left out, and two threads asking for the same
table build it once."""

from __future__ import annotations

import threading

import pytest

from inferboard.model import Design
from inferboard.model.requirements import Requirements
from inferboard.sim.batching import batching
from inferboard.sim.batching.batching import BatchParams, prepare_table, recording, table_ready
from inferboard.sim.steady.design_sim import evaluate
from inferboard.sim.design.table_prefetch import likely_next_tables


def batched(kind: str = "gpu_pool", **params) -> Design:
    design = Design(requirements=Requirements(mean_rps=300.0, peak_rps=600.0, slo_p99_ms=300.0))
    design.add_node("traffic_source", node_id="users")
    design.add_node("dynamic_batcher", node_id="batcher", params={"max_batch_size": 8, "max_queue_delay_ms": 4.0})
    design.add_node(kind, node_id="pool", params=params)
    design.connect("users", "requests", "batcher", "requests")
    design.connect("batcher", "requests", "pool", "requests")
    return design


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    monkeypatch.setenv(batching.CACHE_DIR_ENV, str(tmp_path))
    batching._table.cache_clear()
    batching._READY.clear()
    yield
    batching._table.cache_clear()
    batching._READY.clear()


def test_an_evaluation_names_the_batching_stations_it_solved(fresh):
    with recording() as used:
        evaluate(batched(replicas=3))
    assert len(used) == 1
    ((servers, params),) = used
    assert servers == 3 and params.batch_max == 8 and params.delay_s == pytest.approx(0.004)
    with recording() as none:
        evaluate(Design(requirements=Requirements(mean_rps=10.0)))
    assert none == set()


def test_the_next_tables_are_one_replica_more_then_one_fewer(fresh):
    design = batched(replicas=3)
    with recording() as used:
        evaluate(design)
    ((servers, params),) = used
    assert likely_next_tables(design, used) == [(4, params), (2, params)]
    prepare_table(4, params)
    assert table_ready(4, params)
    assert likely_next_tables(design, used) == [(2, params)]  # the one at hand is left out


def test_a_pool_with_several_servers_a_replica_steps_by_them(fresh):
    design = batched("cpu_pool", replicas=2, workers_per_replica=4, service_ms=5.0)
    with recording() as used:
        evaluate(design)
    ((servers, params),) = used
    assert servers == 8
    assert likely_next_tables(design, used) == [(12, params), (4, params)]


def test_one_replica_has_no_fewer(fresh):
    design = batched(replicas=1)
    with recording() as used:
        evaluate(design)
    ((servers, params),) = used
    assert likely_next_tables(design, used) == [(2, params)]


@pytest.mark.parametrize("kept_on_disk", [True, False])
def test_two_threads_asking_for_one_table_build_it_once(fresh, monkeypatch, kept_on_disk):
    if not kept_on_disk:
        monkeypatch.setenv(batching.CACHE_DIR_ENV, "")
        batching._MADE.clear()
    params = BatchParams(batch_max=4, delay_s=0.002, base_s=0.005, item_s=0.001)
    real = batching.simulate_table
    table = real(2, params, batching.batch_capacity(2, params))
    builds, started, release = [], threading.Event(), threading.Event()

    def slow(*args):
        builds.append(args)
        started.set()
        assert release.wait(10)
        return table

    monkeypatch.setattr(batching, "simulate_table", slow)
    results = []
    first = threading.Thread(target=lambda: results.append(batching._table(2, params)))
    first.start()
    assert started.wait(10)
    second = threading.Thread(target=lambda: results.append(batching._table(2, params)))
    second.start()
    release.set()
    first.join(10)
    second.join(10)
    assert len(builds) == 1 and len(results) == 2
    assert all((r.loads == table.loads).all() and (r.sojourn_q == table.sojourn_q).all() for r in results)
    assert table_ready(2, params)
