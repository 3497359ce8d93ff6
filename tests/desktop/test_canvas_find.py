"""Find on Canvas (Ctrl+F), driven by the keyboard only: components by id, label, kind and
parameter value, findings by rule id; Enter / Shift+Enter / F3 cycle, each match selected,
highlighted and centred; Esc closes."""

from __future__ import annotations

from PySide6.QtCore import Qt

from inferboard.model import ops
from inferboard.rules.engine import Finding, check_design

from desktop.editor.find_matches import find_matches
from tests.desktop.gestures import demo_design

CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier


def finding(rule_id: str, node_ids: tuple[str, ...]) -> Finding:
    return Finding(rule_id, "reliability", "major", "A title", "A message", node_ids, (), 5.0)


def test_matches_by_id_label_kind_title_and_parameter_value():
    design = demo_design()
    design.apply(ops.SetLabel("batcher", "Request batcher"))
    design.apply(ops.SetParams("gpus", {"replicas": 7}))
    ids = lambda query, found=(): [m.node_ids for m in find_matches(design, query, found)]  # noqa: E731
    assert ids("GPUS") == [("gpus",)]
    assert ids("request batcher") == [("batcher",)]
    assert ids("regional_load") == [("lb",)]
    title = design.catalog.kind("gpu_pool").title
    assert ("gpus",) in ids(title.lower())
    assert ids("replicas=7") == [("gpus",)]
    assert ids("replicas=70") == []
    assert ids("   ") == []
    rule = finding("no-autoscaler", ("gpus",))
    hits = find_matches(design, "autoscaler", [rule])
    assert hits[-1].finding is rule and hits[-1].node_ids == ("gpus",)


def open_find(window, qtbot):
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key.Key_F, CTRL)
    field = window.finder.bar.field
    qtbot.waitUntil(field.hasFocus)
    return field


def test_ctrl_f_finds_cycles_centres_and_escape_closes(window, qtbot):
    field = open_find(window, qtbot)
    window.view.centerOn(-3000, -3000)  # far away from every card
    qtbot.keyClicks(field, "e")  # matches many: ids, kinds, titles
    matches = window.finder.matches
    assert len(matches) >= 3
    first = matches[0].node_ids
    assert window.scene.selected_node_ids() == list(first)
    assert window.scene.nodes[first[0]].highlighted
    visible = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    assert visible.contains(window.scene.nodes_rect(first).center())
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert window.scene.selected_node_ids() == list(matches[1].node_ids)
    assert window.finder.bar.count.text() == f"2 of {len(matches)}"
    qtbot.keyClick(field, Qt.Key.Key_Return, SHIFT)
    qtbot.keyClick(field, Qt.Key.Key_Return, SHIFT)  # wraps round to the last
    assert window.scene.selected_node_ids() == list(matches[-1].node_ids)
    qtbot.keyClick(field, Qt.Key.Key_F3)
    assert window.scene.selected_node_ids() == list(matches[0].node_ids)
    qtbot.keyClick(field, Qt.Key.Key_Escape)
    assert not window.finder.is_open() and window.view.hasFocus()
    assert not any(item.highlighted for item in window.scene.nodes.values())
    qtbot.keyClick(window.view, Qt.Key.Key_F3, SHIFT)  # reopens on the last search, one back
    assert window.finder.is_open()
    assert window.scene.selected_node_ids() == list(matches[-1].node_ids)


def test_typing_a_value_and_no_match_are_told(window, qtbot):
    field = open_find(window, qtbot)
    qtbot.keyClicks(field, "zzz-nothing")
    assert window.finder.matches == [] and window.finder.bar.count.text() == "no match"
    field.clear()
    qtbot.keyClicks(field, "us-east")  # the region's location
    assert window.scene.selected_node_ids() == ["use1"]


def test_a_rule_id_goes_to_its_finding_in_the_panel(window, qtbot):
    report = check_design(window.document.design, behaviour=False)
    window.findings.show_report(report)
    rule = next(f for f in report.findings if f.rule_id == "LAT-009")
    field = open_find(window, qtbot)
    qtbot.keyClicks(field, "lat-009")
    assert window.findings.current_finding() is rule
    assert window.scene.selected_node_ids() == list(rule.node_ids) == ["batcher"]
    assert window.scene.nodes["batcher"].highlighted
    assert field.hasFocus()  # the search goes on from the keyboard
    field.clear()
    qtbot.keyClicks(field, "obs-")  # two findings, and no component has that in it
    assert [m.finding.rule_id for m in window.finder.matches] == ["OBS-001", "OBS-002"]


def test_an_edit_while_the_bar_is_open_is_found_at_the_next_step(window, qtbot):
    field = open_find(window, qtbot)
    qtbot.keyClicks(field, "fresh")
    assert window.finder.matches == []
    window.document.execute(ops.SetLabel("users", "Fresh users"), "Label")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert window.scene.selected_node_ids() == ["users"]
