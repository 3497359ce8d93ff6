"""The design model: events, exact inverses, refusals."""

import pytest

from inferboard.model import (ConnectionRefused, Design, DuplicateId, Edge, ParamRefused, RegionRefused, Requirements,
                              UnknownNode)
from inferboard.model import events as ev
from inferboard.model import ops
from inferboard.store import design_to_dict

from tests.core.helpers import serving_chain


def recorded(design):
    log = []
    design.events.subscribe(log.append)
    return log


def test_add_node_fills_catalog_defaults_and_announces_it():
    design = Design()
    log = recorded(design)
    node = design.add_node("gpu_pool", 10, 20)
    assert node.id == "gpu_pool-1"
    assert node.params["replicas"] == design.catalog.kind("gpu_pool").param("replicas").default
    assert log == [ev.NodeAdded(node, 0)]
    assert "gpu_pool-1" in design.graph


def test_every_edit_kind_announces_one_event_with_old_and_new():
    design = serving_chain()
    log = recorded(design)
    design.set_params("gpus", replicas=6)
    design.apply(ops.MoveNodes({"gpus": (600.0, 80.0)}))
    design.apply(ops.SetRegion("gpus", None))
    design.apply(ops.SetLabel("gpus", "Primary GPUs"))
    new_req = Requirements(slo_p99_ms=300, mean_rps=100, peak_rps=300)
    design.apply(ops.SetRequirements(new_req))
    design.apply(ops.SetMetadata({"title": "T", "notes": "n"}))
    design.apply(ops.RemoveEdge("e3"))
    assert [type(e) for e in log] == [ev.ParamsChanged, ev.NodesMoved, ev.RegionChanged, ev.LabelChanged,
                                      ev.RequirementsChanged, ev.MetadataChanged, ev.EdgeRemoved]
    assert log[0].old == {"replicas": 2} and log[0].new == {"replicas": 6}
    assert log[1].moves == {"gpus": ((560.0, 40.0), (600.0, 80.0))}
    assert log[2] == ev.RegionChanged("gpus", "use1", None)
    assert log[4].new == new_req


def test_unchanged_values_announce_nothing():
    design = serving_chain()
    log = recorded(design)
    design.set_params("gpus", replicas=design.node("gpus").params["replicas"])
    design.apply(ops.MoveNodes({"gpus": (560.0, 40.0)}))
    assert log == []


@pytest.mark.parametrize("make_op", [
    lambda d: ops.RemoveNode("gpus"),
    lambda d: ops.RemoveNode("use1"),
    lambda d: ops.RemoveNode("lb"),
    lambda d: ops.RemoveEdge("e2"),
    lambda d: ops.SetParams("gpus", {"replicas": 9, "precision": "int8"}),
    lambda d: ops.MoveNodes({"gpus": (1.5, 2.5), "lb": (3.0, 4.0)}),
    lambda d: ops.SetRegion("users", "use1"),
    lambda d: ops.SetLabel("lb", "edge"),
    lambda d: ops.ResizeNode("use1", 800.0, 400.0),
    lambda d: ops.SetRequirements(Requirements(slo_p95_ms=120, availability_slo=99.9)),
    lambda d: ops.SetMetadata({"title": "Changed", "notes": "", "author": "x"}),
    lambda d: ops.AddNode(d.make_node("cache", 5, 5, node_id="c1"), index=1),
    lambda d: ops.Compound((ops.RemoveNode("batcher"), ops.AddEdge(
        __import__("inferboard.model", fromlist=["Edge"]).Edge("e9", "lb", "requests", "gpus", "requests")))),
])
def test_every_edit_has_an_exact_inverse(make_op):
    design = serving_chain()
    before = design_to_dict(design)
    edge_order = list(design.edges)
    inverse = design.apply(make_op(design))
    assert design_to_dict(design) != before
    redo = design.apply(inverse)
    assert design_to_dict(design) == before
    assert list(design.edges) == edge_order
    design.apply(redo)
    assert design_to_dict(design) != before


def test_removing_a_node_returns_what_restores_it_and_its_edges_in_place():
    design = serving_chain()
    node_order, edges = list(design.nodes), dict(design.edges)
    inverse = design.remove_node("batcher")
    assert "batcher" not in design.nodes and "e2" not in design.edges and "e3" not in design.edges
    design.apply(inverse)
    assert list(design.nodes) == node_order
    assert dict(design.edges) == edges
    assert design.graph.has_edge("lb", "batcher", key="e2")


def test_removing_a_region_releases_and_restores_its_members():
    design = serving_chain()
    inverse = design.remove_node("use1")
    assert all(n.region is None for n in design.nodes.values())
    design.apply(inverse)
    assert {n.id for n in design.members("use1")} == {"lb", "batcher", "gpus"}


def test_failed_compound_rolls_back_what_it_already_did():
    design = serving_chain()
    before = design_to_dict(design)
    with pytest.raises(UnknownNode):
        design.apply(ops.Compound((ops.SetParams("gpus", {"replicas": 7}), ops.RemoveNode("nope"))))
    assert design_to_dict(design) == before


@pytest.mark.parametrize("source,sport,target,tport,reason", [
    ("gpus", "requests", "gpus", "requests", "itself"),
    ("users", "nope", "lb", "requests", "no output port 'nope'"),
    ("users", "requests", "lb", "scaling", "no input port"),
    ("gpus", "telemetry", "lb", "requests", "sends telemetry"),
    ("users", "requests", "lb", "requests", "already wired"),
    ("gpus", "requests", "lb", "requests", "requests would loop"),
    ("users", "requests", "ghost", "requests", "no node 'ghost'"),
])
def test_refused_connections_say_why(source, sport, target, tport, reason):
    design = serving_chain()
    with pytest.raises(ConnectionRefused) as info:
        design.connect(source, sport, target, tport)
    assert reason in str(info.value)
    assert "e4" not in design.edges


def test_port_kind_restrictions_and_capacity_are_enforced():
    design = serving_chain()
    design.add_node("autoscaler", node_id="hpa")
    design.add_node("autoscaler", node_id="hpa2")
    design.add_node("retraining_pipeline", node_id="train")
    with pytest.raises(ConnectionRefused, match="connects only to"):
        design.connect("train", "artifacts", "gpus", "artifacts")
    design.connect("hpa", "scaling", "gpus", "scaling")
    with pytest.raises(ConnectionRefused, match="at most 1"):
        design.connect("hpa2", "scaling", "gpus", "scaling")


@pytest.mark.parametrize("params,fragment", [
    ({"replicas": -1}, "below the minimum"),
    ({"replicas": 2.5}, "whole number"),
    ({"replicas": "3"}, "must be a number"),
    ({"precision": "fp8"}, "not one of"),
    ({"colour": "red"}, "no parameter 'colour'"),
    ({"spot_share": float("nan")}, "finite"),
])
def test_bad_params_are_refused_and_never_reach_the_model(params, fragment):
    design = serving_chain()
    before = dict(design.node("gpus").params)
    with pytest.raises(ParamRefused) as info:
        design.set_params("gpus", **params)
    assert fragment in str(info.value) and "node 'gpus'" in str(info.value)
    assert dict(design.node("gpus").params) == before


def test_duplicate_ids_and_bad_regions_are_refused():
    design = serving_chain()
    with pytest.raises(DuplicateId):
        design.add_node("cache", node_id="gpus")
    with pytest.raises(RegionRefused, match="not a region"):
        design.apply(ops.SetRegion("users", "lb"))
    with pytest.raises(RegionRefused, match="nested"):
        design.add_node("region", node_id="r2", region="use1")


def test_request_graph_holds_only_request_wires():
    design = serving_chain()
    design.add_node("metrics_collector", node_id="metrics")
    design.connect("gpus", "telemetry", "metrics", "telemetry")
    graph = design.request_graph()
    assert set(graph.edges) == {("users", "lb"), ("lb", "batcher"), ("batcher", "gpus")}
    assert design.graph.number_of_edges() == 4


def test_request_loop_names_the_closing_steps_of_one_loop():
    design = Design()
    for node_id, kind in (("x", "traffic_source"), ("a", "regional_load_balancer"), ("b", "dynamic_batcher"),
                          ("c", "regional_load_balancer"), ("d", "gpu_pool")):
        design.add_node(kind, node_id=node_id)
    for edge_id, source, target in (("e0", "x", "a"), ("e1", "a", "b"), ("e2", "b", "c"), ("e5", "b", "d")):
        design.connect(source, "requests", target, "requests", edge_id=edge_id)
    assert design.request_loop() == []
    design.load_edge(Edge("e3", "c", "requests", "a", "requests"))  # loading skips the loop check
    loop = design.request_loop()
    assert sorted(edge for _, _, edge in loop) == ["e1", "e2", "e3"]
    assert all(loop[i][1] == loop[i + 1][0] for i in range(len(loop) - 1)) and loop[0][0] == loop[-1][1]


def test_networkx_is_only_imported_when_a_graph_is_asked_for():
    import subprocess
    import sys

    code = ("import sys; from inferboard.model.design import Design; d = Design();"
            "d.add_node('traffic_source', node_id='users'); d.add_node('regional_load_balancer', node_id='lb');"
            "assert 'networkx' not in sys.modules, 'imported too early';"
            "d.connect('users', 'requests', 'lb', 'requests', edge_id='e1');"
            "assert 'networkx' in sys.modules, 'a request wire asks whether requests would loop';"
            "assert d.graph.has_edge('users', 'lb', key='e1')")
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
