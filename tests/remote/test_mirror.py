"""The interviewer's mirror follows the candidate's design by small edits, and ends up identical."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from inferboard.model import Design, Edge
from inferboard.remote.mirror import edits_between, follow
from inferboard.store import design_to_bytes, parse_design

EXAMPLES = Path(__file__).resolve().parents[2] / "assets" / "examples"


def copy(design: Design) -> Design:
    return parse_design(design_to_bytes(design), "<copy>")


def test_one_move_is_one_edit_and_the_mirror_ends_up_identical():
    old = parse_design((EXAMPLES / "multi-region.json").read_bytes(), "multi-region.json")
    new = copy(old)
    node = next(iter(new.nodes.values()))
    from inferboard.model import ops

    new.apply(ops.MoveNodes({node.id: (node.x + 40, node.y)}))
    edits = edits_between(old, new)
    assert [type(e).__name__ for e in edits] == ["MoveNodes"]
    mirror = copy(old)
    assert follow(mirror, new) and design_to_bytes(mirror) == design_to_bytes(new)


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(["add", "remove", "move", "param", "wire", "unwire", "region",
                                                 "label", "title"]), st.integers(0, 50)), max_size=12))
def test_any_sequence_of_edits_is_followed_exactly(steps):
    from inferboard.model import ops

    old = parse_design((EXAMPLES / "multi-region.json").read_bytes(), "multi-region.json")
    new = copy(old)
    for n, (kind, k) in enumerate(steps):
        ids = list(new.nodes)
        pools = [i for i in ids if new.nodes[i].kind == "cpu_pool"]
        regions = [i for i in ids if new.nodes[i].kind == "region"]
        try:
            if kind == "add":
                new.add_node("cpu_pool", 10 * k, 5 * n, {}, node_id=f"added{n}",
                             region=regions[k % len(regions)] if regions and k % 2 else None)
            elif kind == "remove" and ids:
                new.apply(ops.RemoveNode(ids[k % len(ids)]))
            elif kind == "move" and ids:
                node = new.nodes[ids[k % len(ids)]]
                new.apply(ops.MoveNodes({node.id: (node.x + k, node.y - k)}))
            elif kind == "param" and pools:
                new.apply(ops.SetParams(pools[k % len(pools)], {**new.nodes[pools[k % len(pools)]].params,
                                                                "replicas": 1 + k % 7}))
            elif kind == "wire" and pools:
                sources = [i for i in ids if new.nodes[i].kind == "traffic_source"]
                if sources:
                    new.apply(ops.AddEdge(Edge(new.new_edge_id(), sources[k % len(sources)], "requests",
                                               pools[k % len(pools)], "requests")))
            elif kind == "unwire" and new.edges:
                new.apply(ops.RemoveEdge(list(new.edges)[k % len(new.edges)]))
            elif kind == "region" and pools:
                new.apply(ops.SetRegion(pools[k % len(pools)], regions[k % len(regions)] if regions else None))
            elif kind == "label" and ids:
                new.apply(ops.SetLabel(ids[k % len(ids)], f"label {k}"))
            elif kind == "title":
                new.apply(ops.SetMetadata({"title": f"take {k}", "notes": ""}))
        except Exception:  # an edit the model refuses (a wire that makes a loop, say) is just not made
            continue
    mirror = copy(old)
    assert follow(mirror, new), [type(e).__name__ for e in edits_between(old, new)]
    assert design_to_bytes(mirror) == design_to_bytes(new)


def test_a_design_too_different_is_left_to_a_full_replace():
    old = copy(Design())
    new = Design()
    for n in range(30):
        new.add_node("cpu_pool", n, 0, {}, node_id=f"p{n}")
    assert not follow(copy(old), new, max_edits=10)
    assert follow(copy(old), new)
