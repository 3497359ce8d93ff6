"""Align, distribute, group and ungroup: each one undo step, from the keyboard, worked out from the
model's rectangles (expected positions computed here from the cards' sizes)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from inferboard.model import Design, Requirements, ops

from desktop.editor.canvas import arrange
from desktop.editor.canvas.placement import node_rect

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def scattered() -> Design:
    """Three cards of different heights at uneven places, and a region to the far right."""
    design = Design(requirements=Requirements(mean_rps=100, peak_rps=200, slo_p99_ms=300))
    design.add_node("traffic_source", 0, 0, node_id="a")
    design.add_node("cache", 300, 95, node_id="b")
    design.add_node("gpu_pool", 900, 40, node_id="c")
    design.add_node("region", 2000, 0, node_id="far")
    return design


def run(design: Design, op) -> None:
    assert op is not None
    design.apply(op)


def test_align_on_the_outermost_edge_and_on_the_mean_centre():
    design = scattered()
    rects = {i: node_rect(design, design.node(i)) for i in "abc"}
    run(design, arrange.align_op(design, "abc", "bottom"))
    lowest = max(r[1] + r[3] for r in rects.values())
    assert all(abs(design.node(i).y + rects[i][3] - lowest) < 1e-6 for i in "abc")
    assert [design.node(i).x for i in "abc"] == [0, 300, 900]  # only one axis moves
    run(design, arrange.align_op(design, "abc", "centre_x"))
    mean = round(sum(r[0] + r[2] / 2 for r in rects.values()) / 3)
    assert all(abs(design.node(i).x + rects[i][2] / 2 - mean) < 1e-6 for i in "abc")
    assert arrange.align_op(design, ["a"], "left") is None  # one card: nothing to line up with


def test_distribute_leaves_equal_gaps_and_keeps_the_ends():
    design = scattered()
    run(design, arrange.distribute_op(design, ["c", "a", "b"], "x"))
    rects = sorted(node_rect(design, design.node(i)) for i in "abc")
    gaps = [rects[k + 1][0] - (rects[k][0] + rects[k][2]) for k in range(2)]
    assert abs(gaps[0] - gaps[1]) < 0.02
    assert design.node("a").x == 0 and design.node("c").x == 900
    assert arrange.distribute_op(design, "ab", "x") is None


def test_a_card_aligned_into_a_region_joins_it_and_a_region_carries_its_members():
    design = scattered()
    design.add_node("cache", 2100, 120, node_id="inside", region="far")
    run(design, arrange.align_op(design, ["c", "far"], "right"))  # c moves right, into the region
    assert design.node("c").region == "far" and design.node("far").x == 2000
    run(design, arrange.align_op(design, ["a", "far"], "left"))  # the region moves left to x=0
    assert design.node("far").x == 0 and design.node("inside").x == 100 and design.node("inside").region == "far"
    assert design.node("c").region == "far"  # a member moves with its region


def test_group_fits_a_region_round_the_cards_and_ungroup_removes_it():
    design = scattered()
    run(design, arrange.group_op(design, ["a", "b"], "g1"))
    group = node_rect(design, design.node("g1"))
    for i in "ab":
        x, y, w, h = node_rect(design, design.node(i))
        assert design.node(i).region == "g1"
        assert group[0] < x and group[1] < y and x + w < group[0] + group[2] and y + h < group[1] + group[3]
    before = {i: (design.node(i).x, design.node(i).y) for i in "ab"}
    run(design, arrange.ungroup_op(design, ["a"]))  # a member names its region
    assert "g1" not in design.nodes and design.node("a").region is None
    assert {i: (design.node(i).x, design.node(i).y) for i in "ab"} == before


def test_keys_arrange_the_selection_each_one_undo_step(window, qtbot):
    design = window.document.design
    window.document.execute(ops.MoveNodes({"batcher": (290.0, 100.0)}), "Move batcher down")
    window.view.setFocus()
    window.scene.select_ids(["lb", "batcher", "gpus"])
    design_before = {i: (n.x, n.y) for i, n in design.nodes.items()}
    stack = window.document.undo_stack
    count = stack.count()
    qtbot.keyClick(window.view, Qt.Key.Key_Up, CTRL_SHIFT)
    tops = {design.node(i).y for i in ("lb", "batcher", "gpus")}
    assert tops == {60.0} and stack.count() == count + 1
    qtbot.keyClick(window.view, Qt.Key.Key_G, CTRL_SHIFT)  # ungroup use1
    assert "use1" not in design.nodes and stack.count() == count + 2
    qtbot.keyClick(window.view, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)  # group them again
    region = window.scene.selected_node_ids()[0]
    assert arrange.is_region(design, region)
    assert {m.id for m in design.members(region)} == {"lb", "batcher", "gpus"}
    for _ in range(3):
        qtbot.keyClick(window.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert {i: (n.x, n.y) for i, n in design.nodes.items()} == design_before
    assert design.node("gpus").region == "use1"


def test_too_small_a_selection_is_told_and_changes_nothing(window, qtbot):
    window.view.setFocus()
    window.scene.select_ids(["gpus"])
    count = window.document.undo_stack.count()
    qtbot.keyClick(window.view, Qt.Key.Key_H, CTRL_SHIFT)
    assert window.document.undo_stack.count() == count
    assert "three or more" in window.statusBar().currentMessage()


def test_arrange_keys_typed_in_a_text_field_move_no_card(window, qtbot):
    window.scene.select_ids(["lb", "batcher", "gpus"])
    window.finder.open()
    field = window.finder.bar.field
    qtbot.waitUntil(field.hasFocus, timeout=5000)
    count = window.document.undo_stack.count()
    for key in (Qt.Key.Key_V, Qt.Key.Key_H, Qt.Key.Key_Up):
        qtbot.keyClick(field, key, CTRL_SHIFT)
    qtbot.keyClick(field, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert window.document.undo_stack.count() == count
    window.view.setFocus()
    qtbot.waitUntil(window.view.hasFocus, timeout=5000)
    qtbot.keyClick(window.view, Qt.Key.Key_V, CTRL_SHIFT)  # on the canvas the same key distributes
    assert window.document.undo_stack.count() == count + 1
