"""Batching tables kept on disk between runs: read back with the same numbers instead of being built
again, rebuilt when the file is damaged or was made by other code, never in the way when the folder
cannot be written, and not kept at all when the user says so."""

from __future__ import annotations

import numpy as np
import pytest

from inferboard.sim.batching import batching
from inferboard.sim.batching.batching import CACHE_DIR_ENV, BatchParams, batch_steady

PARAMS = BatchParams(batch_max=8, delay_s=0.004, base_s=0.006, item_s=0.0015, service_scv=0.09)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    batching._table.cache_clear()
    yield tmp_path / "batch-tables"
    batching._table.cache_clear()


def _never(*_args):
    raise AssertionError("the kept table was built again")


def _same(a, b) -> None:
    assert a.mean_wait == b.mean_wait and a.utilisation == b.utilisation and a.mean_batch == b.mean_batch
    assert np.array_equal(a.sojourn_q, b.sojourn_q) and np.array_equal(a.wait_q, b.wait_q)


def test_a_table_is_kept_and_read_back_by_the_next_run(cache, monkeypatch):
    built = batch_steady(700.0, 3, PARAMS)
    files = list(cache.glob("*.npz"))
    assert len(files) == 1 and not list(cache.glob("*.tmp*"))
    batching._table.cache_clear()  # as a new run of the app would start
    monkeypatch.setattr(batching, "simulate_table", _never)
    _same(batch_steady(700.0, 3, PARAMS), built)
    _same(batch_steady(350.0, 3, PARAMS), batch_steady(350.0, 3, PARAMS))  # other loads: the same table


def test_a_different_station_gets_its_own_table(cache):
    batch_steady(700.0, 3, PARAMS)
    batch_steady(700.0, 4, PARAMS)
    batch_steady(700.0, 3, BatchParams(batch_max=16, delay_s=0.004, base_s=0.006, item_s=0.0015, service_scv=0.09))
    assert len(list(cache.glob("*.npz"))) == 3


@pytest.mark.parametrize("damage", ["garbage", "truncated", "nan", "wrong shape"])
def test_a_damaged_table_is_built_again(cache, damage):
    first = batch_steady(700.0, 3, PARAMS)
    (path,) = cache.glob("*.npz")
    if damage == "garbage":
        path.write_bytes(b"PK\x03\x04 not a table at all")
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:200])
    else:
        with np.load(path) as data:
            arrays = {k: data[k] for k in data.files}
        if damage == "nan":
            arrays["mean_wait"] = np.full_like(arrays["mean_wait"], np.nan)
        else:
            arrays["sojourn_q"] = arrays["sojourn_q"][:, :3]
        with open(path, "wb") as handle:
            np.savez(handle, **arrays)
    batching._table.cache_clear()
    _same(batch_steady(700.0, 3, PARAMS), first)
    batching._table.cache_clear()
    assert batching._read_shared(str(path)) is not None  # the rebuilt table replaced the damaged one


def test_a_table_made_by_other_code_is_not_read(cache, monkeypatch):
    batch_steady(700.0, 3, PARAMS)
    batching._table.cache_clear()
    monkeypatch.setattr(batching, "_model_key", lambda: "another version of the batch model")
    calls = []
    real = batching.simulate_table
    monkeypatch.setattr(batching, "simulate_table", lambda *a: calls.append(a) or real(*a))
    batch_steady(700.0, 3, PARAMS)
    assert len(calls) == 1 and len(list(cache.glob("*.npz"))) == 2


def test_an_empty_setting_keeps_no_table(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, "")
    monkeypatch.chdir(tmp_path)
    batching._table.cache_clear()
    try:
        assert batching.table_cache_dir() is None
        batch_steady(700.0, 3, PARAMS)
        assert not list(tmp_path.rglob("*.npz"))
    finally:
        batching._table.cache_clear()


def test_a_folder_that_cannot_be_written_is_no_obstacle(tmp_path, monkeypatch):
    blocker = tmp_path / "a file, not a folder"
    blocker.write_text("x")
    monkeypatch.setenv(CACHE_DIR_ENV, str(blocker))
    batching._table.cache_clear()
    try:
        solution = batch_steady(700.0, 3, PARAMS)
        assert 0 < solution.utilisation < 1 and solution.mean_wait > 0
    finally:
        batching._table.cache_clear()
