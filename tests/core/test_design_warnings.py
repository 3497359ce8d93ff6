"""Live warnings: each check fires on the contradiction it names, says which component, and goes
quiet once the design is put right."""

from __future__ import annotations

from inferboard.model import Design, ops
from inferboard.model.design_warnings import design_warnings

from tests.core.helpers import serving_chain


def codes(design):
    return [(w.code, w.node_ids) for w in design_warnings(design)]


def test_a_consistent_design_has_no_warnings():
    assert design_warnings(serving_chain()) == []


def test_replicas_below_the_minimum_or_above_the_maximum():
    design = serving_chain()
    design.set_params("gpus", replicas=1, min_replicas=2, max_replicas=8)
    [warning] = design_warnings(design)
    assert warning.code == "replicas_outside_bounds" and warning.node_ids == ("gpus",)
    assert "below its minimum of 2" in warning.message
    design.set_params("gpus", replicas=9)
    assert "above its maximum of 8" in design_warnings(design)[0].message
    design.set_params("gpus", replicas=4, min_replicas=9, max_replicas=8)
    assert "min replicas 9 is above max replicas 8" in design_warnings(design)[0].message
    design.set_params("gpus", min_replicas=2)
    assert design_warnings(design) == []


def _with_autoscaler(design):
    design.add_node("metrics_collector", 560, 300, node_id="metrics")
    design.add_node("autoscaler", 760, 300, node_id="hpa")
    design.connect("gpus", "telemetry", "metrics", "telemetry")
    design.connect("metrics", "telemetry", "hpa", "metrics")
    design.connect("hpa", "scaling", "gpus", "scaling")
    return design


def test_a_pool_max_below_its_autoscaler_max_is_a_conflict():
    design = _with_autoscaler(serving_chain())
    design.set_params("gpus", max_replicas=6)
    design.set_params("hpa", min_replicas=1, max_replicas=12)
    assert codes(design) == [("autoscaler_bounds", ("gpus", "hpa"))]
    assert "caps at 6 replicas but hpa may ask for 12" in design_warnings(design)[0].message
    design.set_params("hpa", min_replicas=7)
    assert "keeps at least 7 replicas, more than gpus's max of 6" in design_warnings(design)[0].message
    design.set_params("hpa", min_replicas=1, max_replicas=6)
    assert design_warnings(design) == []


def test_unwired_components_are_named():
    design = serving_chain()
    design.add_node("cache", 900, 0, node_id="lonely")
    design.add_node("gpu_pool", 900, 200, node_id="orphan")
    design.add_node("metrics_collector", 900, 400, node_id="metrics")
    design.connect("orphan", "telemetry", "metrics", "telemetry")
    found = {w.node_ids[0]: w.message for w in design_warnings(design) if w.code == "unwired"}
    assert found == {"lonely": "lonely is not wired to anything",
                     "orphan": "orphan takes requests but nothing sends it any"}
    design.remove_node("lonely")
    design.remove_node("orphan")
    design.remove_node("metrics")
    design.add_node("traffic_source", 0, 600, {"share": 0.0}, node_id="idle")
    design.connect("idle", "requests", "lb", "requests")
    assert not [w for w in design_warnings(design) if w.code == "unwired"]


def test_traffic_shares_must_add_up_to_100_percent():
    design = serving_chain()
    design.set_params("users", share=0.6)
    design.add_node("traffic_source", 20, 200, {"share": 0.3}, node_id="eu")
    design.connect("eu", "requests", "lb", "requests")
    [warning] = design_warnings(design)
    assert warning.code == "traffic_shares" and set(warning.node_ids) == {"users", "eu"}
    assert "90%" in warning.message and "60% + 30%" in warning.message
    design.apply(ops.SetParams("eu", {"share": 0.4}))
    assert design_warnings(design) == []


def test_an_empty_design_has_nothing_to_warn_about():
    assert design_warnings(Design()) == []
