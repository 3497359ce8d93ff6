"""Batching tables shared between grading processes: the same numbers, built once."""

from __future__ import annotations

import numpy as np
import pytest

from inferboard.sim.batching import batching
from inferboard.sim.batching.batching import BatchParams, batch_steady, share_tables


@pytest.fixture
def sharing(tmp_path):
    batching._table.cache_clear()
    share_tables(str(tmp_path))
    yield tmp_path
    share_tables(None)
    batching._table.cache_clear()


def test_a_shared_table_is_read_back_with_the_same_numbers(sharing, monkeypatch):
    params = BatchParams(batch_max=8, delay_s=0.004, base_s=0.006, item_s=0.0015, service_scv=0.09)
    share_tables(None)
    alone = batch_steady(700.0, 3, params)
    batching._table.cache_clear()
    share_tables(str(sharing))
    built = batch_steady(700.0, 3, params)
    files = list(sharing.glob("*.npz"))
    assert len(files) == 1 and not list(sharing.glob("*.building"))
    batching._table.cache_clear()  # as another process would start

    def never(*_args):
        raise AssertionError("the shared table was rebuilt")

    monkeypatch.setattr(batching, "simulate_table", never)
    read = batch_steady(700.0, 3, params)
    for solution in (built, read):
        assert solution.mean_wait == alone.mean_wait and solution.utilisation == alone.utilisation
        assert np.array_equal(solution.sojourn_q, alone.sojourn_q)


def test_a_damaged_shared_table_is_rebuilt(sharing):
    params = BatchParams(batch_max=4, delay_s=0.002, base_s=0.005, item_s=0.001)
    first = batch_steady(400.0, 2, params)
    (path,) = sharing.glob("*.npz")
    path.write_bytes(b"not a table")
    batching._table.cache_clear()
    again = batch_steady(400.0, 2, params)
    assert again.mean_wait == first.mean_wait
