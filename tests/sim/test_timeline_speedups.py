"""The timeline's shortcuts give what the plain computation gives: percentiles solved per group of
ticks with the paths they use equal the ones solved over every path, and a compile is reused only
for the design revision it was made of."""

from __future__ import annotations

import numpy as np

from inferboard.model import Design
from inferboard.model.requirements import Requirements
from inferboard.sim.timeline import timeline_state
from inferboard.sim.timeline.gamma_mixture import mixture_gamma, mixture_quantiles, sparse_mixture_quantiles
from inferboard.sim.timeline.series import finite
from inferboard.sim.timeline.timeline import run_timeline

PROBS = (0.5, 0.95, 0.99)


def _paths(rng: np.random.Generator, paths: int, ticks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    weights = rng.uniform(0.1, 1.0, (paths, ticks))
    mean = rng.uniform(0.01, 0.3, (paths, ticks))
    var = (mean * rng.uniform(0.2, 1.5, (paths, ticks))) ** 2
    return weights, mean, var


def test_percentiles_over_the_paths_in_use_equal_those_over_every_path():
    rng = np.random.default_rng(7)
    weights, mean, var = _paths(rng, 9, 600)
    weights[5:, :400] = 0.0  # a fault sends traffic down four more paths in the last third only
    weights[:2, 400:] = 0.0
    weights[:, 590:] = 0.0  # and nothing is served at the end
    w, mu, sigma, _ = mixture_gamma(weights, mean, var)
    assert np.count_nonzero(w) < 0.8 * w.size  # the grouped solve is taken
    assert np.array_equal(sparse_mixture_quantiles(w, mu, sigma, PROBS), mixture_quantiles(w, mu, sigma, PROBS))


def test_paths_used_throughout_take_the_plain_solve():
    rng = np.random.default_rng(8)
    w, mu, sigma, _ = mixture_gamma(*_paths(rng, 4, 50))
    expected = mixture_quantiles(w, mu, sigma, PROBS)
    assert np.array_equal(sparse_mixture_quantiles(w, mu, sigma, PROBS), expected)
    assert np.all(np.diff(expected, axis=0) > 0)  # p50 < p95 < p99


def _pool_design() -> Design:
    design = Design(requirements=Requirements(mean_rps=100.0, peak_rps=200.0, traffic_pattern="diurnal"))
    design.add_node("traffic_source", node_id="users", params={"arrival_cv": 1.0})
    design.add_node("cpu_pool", node_id="pool", params={"replicas": 2, "workers_per_replica": 4, "service_ms": 20.0})
    design.connect("users", "requests", "pool", "requests")
    return design


def test_a_design_revision_reuses_its_compiles_and_an_edit_makes_new_ones(monkeypatch):
    compiles = []
    real = timeline_state.compile_design
    monkeypatch.setattr(timeline_state, "compile_design", lambda *a, **k: compiles.append(a[1]) or real(*a, **k))
    design = _pool_design()
    first = run_timeline(design, hours=1, tick_s=60)
    made = len(compiles)
    again = run_timeline(design, hours=1, tick_s=60)
    assert len(compiles) == made  # the same revision: its compiles are reused
    assert np.array_equal(first.series["p99_ms"], again.series["p99_ms"])
    design.set_params("pool", service_ms=40.0)  # an edit replaces the node: a new revision
    slower = run_timeline(design, hours=1, tick_s=60)
    assert len(compiles) > made
    assert np.all(slower.series["utilisation:pool"] > first.series["utilisation:pool"] * 1.9)


def test_finite_series_have_no_nan_infinity_negative_or_dust():
    values = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-300, -5.0, 3.0, 1e30, 7e-201, 2e-200])
    out = finite(values, 1e6)
    assert out.tolist() == [0.0, 1e6, 0.0, 0.0, 0.0, 0.0, 3.0, 1e6, 0.0, 2e-200]
    assert not np.signbit(out).any() and np.isnan(values[0])  # a copy: the input is left alone
