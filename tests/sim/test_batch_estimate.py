"""Estimated batching tables: a station whose table is not built yet is solved at once on a table
estimated from the nearest one at hand (inferboard.sim.batching.batch_estimate), and is named so that its
exact table can be built; the estimate keeps its anchor's figures when nothing changed, follows
the Erlang-C wait between server counts, and stays near the exact table on a replica edit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from inferboard.sim.batching import batching
from inferboard.sim.batching.batch_estimate import erlang_c, estimate_table, nearest_anchor
from inferboard.sim.batching.batch_replications import PROBS, BatchParams, BatchTable, batch_capacity

PARAMS = BatchParams(batch_max=8, delay_s=0.01, base_s=0.02, item_s=0.005, service_scv=0.1)


def synthetic_table(servers: int, p: BatchParams = PARAMS) -> BatchTable:
    """A plausible table (not a solution): waits growing as 1/(1 - x), batches with the load."""
    loads = np.array([0.0, 0.1, 0.3, 0.5, 0.7, 0.9])
    form = 0.01 * (1.0 - loads)
    wait = form + 0.02 * loads / (1.0 - loads)
    wait_q = np.outer(wait, 0.2 + 3.0 * PROBS)
    service = np.full(loads.size, p.batch_time(4))
    return BatchTable(batch_capacity(servers, p), loads, 1.0 + 7.0 * loads, loads.copy(), wait, form, service,
                      np.full(loads.size, 0.8), wait_q + service[:, None], wait_q)


def test_erlang_c_matches_its_closed_forms_for_one_and_two_servers():
    load = np.array([0.1, 0.5, 0.9])
    assert np.allclose(erlang_c(1, load), load)
    assert np.allclose(erlang_c(2, load), 2 * load ** 2 / (1 + load))


def test_an_estimate_on_its_own_station_keeps_the_figures_above_no_traffic():
    anchor = synthetic_table(3)
    same = estimate_table(anchor, (3, PARAMS), 3, PARAMS)
    for name in ("mean_batch", "util", "mean_wait", "forming_wait", "p_wait", "wait_q", "sojourn_q"):
        assert np.allclose(getattr(same, name)[1:], getattr(anchor, name)[1:]), name
    assert same.capacity == anchor.capacity


def test_more_servers_wait_less_for_a_replica_at_the_same_load():
    anchor = synthetic_table(2)
    more = estimate_table(anchor, (2, PARAMS), 4, PARAMS)
    assert more.capacity == pytest.approx(2 * anchor.capacity)
    queued = anchor.mean_wait - anchor.forming_wait
    expected = anchor.forming_wait + queued * (erlang_c(4, anchor.util) / 4) / np.maximum(erlang_c(2, anchor.util) / 2,
                                                                                          1e-12)
    assert np.allclose(more.mean_wait[1:], expected[1:])
    assert np.all(more.wait_q[1:, -1] < anchor.wait_q[1:, -1])
    assert np.all(np.diff(more.sojourn_q, axis=1) >= 0)


def test_the_no_traffic_row_is_the_target_s_own_limit():
    wide = BatchParams(batch_max=8, delay_s=0.03, base_s=0.02, item_s=0.005, service_scv=0.1)
    estimate = estimate_table(synthetic_table(3), (3, PARAMS), 3, wide)
    assert estimate.mean_wait[0] == estimate.wait_q[0, 0] == pytest.approx(0.03)
    assert estimate.mean_service[0] == pytest.approx(wide.batch_time(1))


def test_the_nearest_anchor_prefers_the_same_batcher_then_the_nearest_server_count():
    other = BatchParams(batch_max=16, delay_s=0.01, base_s=0.02, item_s=0.005, service_scv=0.1)
    held = [(3, PARAMS), (8, PARAMS), (4, other)]
    assert nearest_anchor(held, 4, PARAMS) == (3, PARAMS)
    assert nearest_anchor(held, 6, PARAMS) == (8, PARAMS)  # nearer in ratio
    assert nearest_anchor([(4, other)], 4, PARAMS) == (4, other)
    assert nearest_anchor([], 4, PARAMS) is None


@pytest.fixture
def held_anchor(tmp_path, monkeypatch):
    """A process holding the synthetic table of 2 servers only; building any table fails the test."""
    monkeypatch.setenv(batching.CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(batching, "_READY", {(2, PARAMS)})
    built = []

    def table(servers, p):
        if (servers, p) != (2, PARAMS):
            built.append((servers, p))
        return synthetic_table(servers, p)

    monkeypatch.setattr(batching, "_table", table)
    batching._estimate.cache_clear()
    yield built
    batching._estimate.cache_clear()


def test_within_estimating_a_missing_table_is_estimated_and_named(held_anchor):
    lam = 0.5 * batch_capacity(3, PARAMS)
    with batching.estimating() as estimated:
        solution = batching.batch_steady(lam, 3, PARAMS)
        arrays = batching.batch_arrays(np.array([lam]), np.array([3]), PARAMS)
    assert held_anchor == [] and estimated == {(3, PARAMS)}
    assert math.isfinite(solution.quantile(0.99)) and solution.quantile(0.99) > solution.mean_service
    assert arrays["p99"][0] == pytest.approx(solution.quantile(0.99), rel=0.02)
    batching.batch_steady(lam, 3, PARAMS)
    assert held_anchor == [(3, PARAMS)]  # outside: the exact table is asked for


@pytest.mark.slow
def test_a_replica_edit_s_estimate_is_near_the_exact_table(tmp_path, monkeypatch):
    """Two real tables (about a second each): 3 servers estimated from 2, against 3 built."""
    anchor, exact = batching._table(2, PARAMS), batching._table(3, PARAMS)
    estimate = estimate_table(anchor, (2, PARAMS), 3, PARAMS)
    loads = np.array([0.2, 0.5, 0.7, 0.85])
    got = batching._figures(estimate, loads, PARAMS.delay_s)
    want = batching._figures(exact, loads, PARAMS.delay_s)
    # one replica away the estimate's p99 is off by 5% (median) and up to about 18% near capacity
    # (bench/bench_estimate.py, docs/simulator.md); both tables also carry their own sampling noise
    for name in ("p50", "p99", "mean_wait"):
        assert np.all(np.abs(got[name] / want[name] - 1.0) < 0.2), (name, got[name] / want[name])


def test_a_batcher_up_to_256_keeps_its_exact_table_and_a_huger_one_is_estimated_from_a_halved_one():
    from inferboard.sim.batching.batch_estimate import EXACT_WORK_LIMIT, affordable_anchor, table_work

    for big_b in (1, 8, 16, 64, 256):
        for servers in (1, 16, 1024):
            for delay in (0.0, 0.005, 1.0):
                p = BatchParams(big_b, delay, 0.002, 0.0005, 0.09)
                assert affordable_anchor(servers, p) is None, (big_b, servers, delay)
    huge = BatchParams(1022, 0.005, 0.002, 0.0005, 0.09)
    assert table_work(1024, huge) > EXACT_WORK_LIMIT
    servers, anchor = affordable_anchor(1024, huge)
    # halved (1022 -> 511 -> 255 -> ...) until a quarter of the limit; nothing else changed
    assert servers == 1024 and anchor.batch_max in (127, 63, 31)
    assert anchor == BatchParams(anchor.batch_max, 0.005, 0.002, 0.0005, 0.09)
    assert table_work(1024, anchor) <= EXACT_WORK_LIMIT / 4 < table_work(1024, BatchParams(2 * anchor.batch_max + 1,
                                                                                            0.005, 0.002, 0.0005, 0.09))
    assert batching.table_estimated(1024, huge) and not batching.table_estimated(1024, anchor)


def test_the_work_of_a_table_grows_with_its_batches():
    from inferboard.sim.batching.batch_estimate import table_work

    # past the dispatch floor every dispatch of a full-batch load moves B requests: twice B, twice the work
    small, large = (table_work(4, BatchParams(b, 1.0, 0.002, 0.0005, 0.09)) for b in (300, 600))
    assert large == pytest.approx(2 * small, rel=0.15)
