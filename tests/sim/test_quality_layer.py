"""The model-quality layer against hand computations."""

import numpy as np
import pytest

from inferboard.paths import data_dir
from inferboard.sim.quality.quality import (INT8_ACCURACY_COST_PP, BusinessRelation, DriftEvent, ModelVersion, QualityLayer,
                                    Segment, model_pools)
from inferboard.store import read_design

SEGMENTS = (Segment("a", 0.75, 96.0), Segment("b", 0.25, 88.0))


@pytest.fixture(scope="module")
def design():
    return read_design(data_dir("assets") / "drills" / "designs" / "ranker-drill.json")[0]


def arrivals(layer, shares, n=10):
    """Timeline-like series where each pool gets ``shares[pool]`` of 1000 rps."""
    out = {f"arrival_rps:{p}": np.full(n, 1000.0 * shares.get(p, 0.0)) for p in layer.pools}
    out.update(p95_ms=np.full(n, 50.0), error_rate=np.zeros(n), shed_rate=np.zeros(n))
    return out


def test_pools_are_stable_canary_or_fallback(design):
    roles = model_pools(design)
    assert roles["eu-west-gpus"] == "stable"
    assert roles["eu-west-canary-gpus"] == "canary:eu-west-canary"
    assert roles["eu-west-fallback"] == "fallback"
    assert "eu-west-features" not in roles  # preprocessing is not a model


def test_accuracy_mixes_paths_by_the_traffic_they_serve_and_the_fallback_pays_its_cost(design):
    layer = QualityLayer(design, SEGMENTS)
    times = np.arange(10) * 60.0
    s = layer.series(times, arrivals(layer, {"eu-west-gpus": 0.7, "eu-west-fallback": 0.3}))
    drop = float(design.nodes["eu-west-fallback"].params["accuracy_drop_pct"])
    # by hand: segment a = 0.7 * 96 + 0.3 * (96 - drop); overall = 0.75 a + 0.25 b
    a, b = 0.7 * 96 + 0.3 * (96 - drop), 0.7 * 88 + 0.3 * (88 - drop)
    assert s["accuracy_pct:a"] == pytest.approx(np.full(10, a))
    assert s["accuracy_pct"] == pytest.approx(np.full(10, 0.75 * a + 0.25 * b))


def test_a_canary_serves_its_own_version(design):
    layer = QualityLayer(design, SEGMENTS)
    layer.set_version(300.0, ModelVersion("v9", {"a": -10.0, "*": -2.0}), "canary:eu-west-canary")
    times = np.array([0.0, 600.0])
    s = layer.series(times, arrivals(layer, {"eu-west-gpus": 0.8, "eu-west-canary-gpus": 0.2}, 2))
    assert s["accuracy_pct:a"] == pytest.approx([96.0, 96.0 - 0.2 * 10.0])
    assert s["accuracy_pct:b"] == pytest.approx([88.0, 88.0 - 0.2 * 2.0])


def test_an_int8_pool_carries_its_accuracy_cost(design):
    from inferboard.store.design_files import design_to_bytes, parse_design

    copy = parse_design(design_to_bytes(design), "<test>", design.catalog)
    copy.set_params("eu-west-gpus", precision="int8")
    layer = QualityLayer(copy, SEGMENTS)
    s = layer.series(np.zeros(1), arrivals(layer, {"eu-west-gpus": 1.0}, 1))
    assert s["accuracy_pct"][0] == pytest.approx(0.75 * 96 + 0.25 * 88 - INT8_ACCURACY_COST_PP)


def test_drift_ramps_in_and_a_retrained_model_promoted_through_the_canary_has_learnt_it(design):
    layer = QualityLayer(design, SEGMENTS, label_delay_s=600.0, retrain_s=3600.0)
    layer.add_drift(DriftEvent("concept", "b", 1000.0, 8.0, ramp_s=2000.0))
    times = np.array([1000.0, 2000.0, 3000.0, 4000.0])
    shares = {"eu-west-gpus": 1.0}
    s = layer.series(times, arrivals(layer, shares, 4))
    assert s["accuracy_pct:b"] == pytest.approx([88.0, 84.0, 80.0, 80.0])
    layer.start_retraining(5000.0)
    window = max(float(r.params["evaluation_window_s"]) for r in design.nodes_of_kind("canary_router"))
    events = layer.advance(5000.0 + 3600.0)
    assert [e[1] for e in events] == ["model_canary"]
    assert layer.version_of("eu-west-canary-gpus", 8600.0).name == "v2"
    assert layer.version_of("eu-west-gpus", 8600.0).name == "v1"
    events = layer.advance(8600.0 + window)
    assert [e[1] for e in events] == ["model_promoted"] and events[0][0] == pytest.approx(8600.0 + window)
    after = layer.series(np.array([8600.0 + window]), arrivals(layer, shares, 1))
    assert after["accuracy_pct:b"][0] == pytest.approx(88.0)


def test_the_business_metric_follows_quality_and_latency_by_the_declared_relation(design):
    relation = BusinessRelation(base_pct=5.0, per_accuracy_pp=0.04, per_latency_ratio=0.5, reference_latency_ms=100.0)
    layer = QualityLayer(design, SEGMENTS, business=relation)
    layer.set_version(0.0, ModelVersion("v2", {"*": -5.0}), "all")
    series = arrivals(layer, {"eu-west-gpus": 1.0}, 1)
    series.update(p95_ms=np.array([150.0]), error_rate=np.array([0.02]))
    s = layer.series(np.zeros(1), series)
    # by hand: 5 x (1 - 0.04 x 5) x (1 - 0.5 x (150/100 - 1)) x (1 - 0.02)
    assert s["conversion_pct"][0] == pytest.approx(5.0 * 0.8 * 0.75 * 0.98)
