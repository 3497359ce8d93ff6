"""The batching model's public API: scalar and tick-vectorised figures agree, and basic invariants."""

import math

import numpy as np

from inferboard.sim.batching.batching import BatchParams, batch_arrays, batch_steady

P = BatchParams(batch_max=16, delay_s=0.005, base_s=0.004, item_s=0.0005, service_scv=0.09)


def test_capacity_is_full_batches_on_every_server():
    s = batch_steady(100.0, 3, P)
    assert math.isclose(s.capacity, 3 * 16 / (0.004 + 0.0005 * 16))
    assert not s.saturated and s.throughput == 100.0


def test_saturated_above_capacity():
    s = batch_steady(5000.0, 3, P)
    assert s.saturated and s.utilisation == 1.0 and s.quantile(0.99) == math.inf


def test_arrays_match_scalar_solution():
    lam = np.array([150.0, 1200.0, 2500.0, 9000.0])
    out = batch_arrays(lam, np.full(4, 3), P)
    for i, x in enumerate(lam[:3]):
        s = batch_steady(float(x), 3, P)
        assert math.isclose(out["utilisation"][i], s.utilisation, rel_tol=0.03, abs_tol=0.01)
        assert math.isclose(out["mean_batch"][i], s.mean_batch, rel_tol=0.03)
        assert math.isclose(out["p99"][i], s.quantile(0.99), rel_tol=0.03)
    assert out["throughput"][3] == out["capacity"][3] and out["p99"][3] == math.inf
