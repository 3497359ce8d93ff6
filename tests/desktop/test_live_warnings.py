"""Live warnings in the editor: an edit that contradicts a setting shows in the Warnings list, as
a mark on the card and as a count in the status bar; undoing it clears all three."""

from __future__ import annotations

from inferboard.model import Edge, ops


def test_each_warning_appears_after_the_edit_and_goes_with_undo(window, qtbot):
    live = window.live_warnings
    document = window.document
    qtbot.waitUntil(lambda: live.warnings == [] and live.count_label.text() == "")
    assert live.panel.empty.isVisibleTo(window.live_warnings.panel)

    document.execute(ops.SetParams("gpus", {"replicas": 0, "min_replicas": 1}), "replicas")
    qtbot.waitUntil(lambda: len(live.warnings) == 1)
    assert "below its minimum" in live.panel.messages()[0]
    assert "gpus" in live.marks and live.marks["gpus"].parentItem() is window.scene.nodes["gpus"]
    assert live.count_label.text() == "⚠ 1 warning"
    document.undo_stack.undo()
    qtbot.waitUntil(lambda: live.warnings == [] and not live.marks)

    window.component_palette.kind_activated.emit("cache")
    qtbot.waitUntil(lambda: [w.code for w in live.warnings] == ["unwired"])
    assert "cache-1" in live.marks and "not wired to anything" in live.marks["cache-1"].toolTip()

    document.execute(ops.SetParams("users", {"share": 0.5}), "share")
    qtbot.waitUntil(lambda: len(live.warnings) == 2)
    assert any("add up to 50%" in m for m in live.panel.messages())
    # picking a warning in the list selects its components
    row = next(i for i in range(live.panel.list.count()) if "add up" in live.panel.list.item(i).text())
    live.panel.list.itemClicked.emit(live.panel.list.item(row))
    assert window.scene.selected_node_ids() == ["users"]


def test_conflicting_autoscaler_bounds_are_marked_on_the_pool(window, qtbot):
    live = window.live_warnings
    for kind in ("metrics_collector", "autoscaler"):
        window.component_palette.kind_activated.emit(kind)
    design = window.document.design
    for source, source_port, target, target_port in (("gpus", "telemetry", "metrics_collector-1", "telemetry"),
                                                     ("metrics_collector-1", "telemetry", "autoscaler-1", "metrics"),
                                                     ("autoscaler-1", "scaling", "gpus", "scaling")):
        edge = Edge(design.new_edge_id(), source, source_port, target, target_port)
        assert window.document.execute(ops.AddEdge(edge), "wire")
    window.document.execute(ops.SetParams("autoscaler-1", {"max_replicas": 20}), "max")
    window.document.execute(ops.SetParams("gpus", {"max_replicas": 6}), "max")
    qtbot.waitUntil(lambda: [w.code for w in live.warnings] == ["autoscaler_bounds"])
    assert "caps at 6 replicas" in live.marks["gpus"].toolTip()


def test_the_inspector_shows_the_selected_components_warnings(window, qtbot):
    inspector = window.inspector
    document = window.document
    window.scene.select_ids(["gpus"])
    qtbot.waitUntil(lambda: inspector.node_id == "gpus")
    assert inspector.warning_messages() == [] and inspector.warnings_label.isHidden()
    document.execute(ops.SetParams("gpus", {"replicas": 0, "min_replicas": 1}), "replicas")
    qtbot.waitUntil(lambda: len(inspector.warning_messages()) == 1)
    assert "below its minimum" in inspector.warning_messages()[0]
    assert inspector.warnings_label.isVisibleTo(inspector)
    # above the parameters, where the values it is about are edited
    assert inspector.warnings_label.y() < inspector.editors["replicas"].mapTo(inspector.body, inspector.editors[
        "replicas"].rect().topLeft()).y()
    window.scene.select_ids(["users"])  # another component: its own warnings (none)
    qtbot.waitUntil(lambda: inspector.node_id == "users")
    assert inspector.warning_messages() == []
    window.scene.select_ids(["gpus"])
    qtbot.waitUntil(lambda: inspector.node_id == "gpus" and len(inspector.warning_messages()) == 1)
    document.undo_stack.undo()
    qtbot.waitUntil(lambda: inspector.warning_messages() == [])


def test_a_warning_about_several_components_is_shown_for_each(window, qtbot):
    inspector = window.inspector
    design = window.document.design
    second = design.make_node("traffic_source", -300, 300, {"share": 0.3}, "europe")
    window.document.execute(ops.AddNode(second), "second source")
    window.document.execute(ops.SetParams("users", {"share": 0.5}), "share")
    for node_id in ("users", "europe"):  # the shares add up to 80%: both sources say so
        window.scene.select_ids([node_id])
        qtbot.waitUntil(lambda: inspector.node_id == node_id
                        and any("add up to 80%" in m for m in inspector.warning_messages()))
