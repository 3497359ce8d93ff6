"""Gestures on the canvas: each is exactly one undo step, and undo gives the design back exactly."""

from __future__ import annotations

import pytest

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QKeyEvent
from PySide6.QtWidgets import QApplication

from inferboard.store import design_to_bytes

from desktop.editor.canvas.view import KIND_MIME
from tests.desktop.gestures import centre_of, click, drag, header_of, port_of

# Qt 6 keeps QPoint constructors for drag events; PySide marks them deprecated.
pytestmark = pytest.mark.filterwarnings("ignore:Function.*QDrag.*deprecated:DeprecationWarning")


def drop_kind(window, kind: str, scene_pos: QPointF) -> None:
    item = window.component_palette.item_for(kind)
    mime = window.component_palette.tree.mimeData([item])
    assert bytes(mime.data(KIND_MIME)).decode() == kind
    viewport = window.view.viewport()
    pos = QPointF(window.view.mapFromScene(scene_pos))
    actions, left, none = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    for event in (QDragEnterEvent(pos.toPoint(), actions, mime, left, none),
                  QDragMoveEvent(pos.toPoint(), actions, mime, left, none),
                  QDropEvent(pos, actions, mime, left, none)):
        QApplication.sendEvent(viewport, event)


def test_palette_drop_adds_a_node_as_one_undo_step(window):
    before = design_to_bytes(window.document.design)
    drop_kind(window, "cache", QPointF(100, 500))
    design = window.document.design
    assert "cache-1" in design.nodes
    assert window.document.undo_stack.count() == 1
    assert window.scene.selected_node_ids() == ["cache-1"]
    assert "cache-1" in window.scene.nodes
    window.document.undo_stack.undo()
    assert "cache-1" not in window.scene.nodes
    assert design_to_bytes(design) == before


def test_dropping_into_a_region_places_the_node_in_it(window):
    drop_kind(window, "cache", QPointF(400, 250))
    assert window.document.design.node("cache-1").region == "use1"
    assert window.document.undo_stack.count() == 1


def test_palette_enter_adds_at_the_view_centre(window):
    window.component_palette.search.setText("autoscal")
    visible = [i.data(0, Qt.ItemDataRole.UserRole + 1) for i in window.component_palette.kind_items()
               if not i.isHidden()]
    assert "autoscaler" in visible and "gpu_pool" not in visible
    window.component_palette.search.returnPressed.emit()
    assert "autoscaler-1" in window.document.design.nodes
    window.component_palette.kind_activated.emit("autoscaler")
    second = window.document.design.node("autoscaler-2")
    first = window.document.design.node("autoscaler-1")
    assert (first.x, first.y) != (second.x, second.y)


def test_wiring_by_mouse_drag_from_output_to_input(window):
    drop_kind(window, "cache", QPointF(300, 600))
    stack = window.document.undo_stack
    assert stack.count() == 1
    drag(window.view, port_of(window, "users", "out", "requests"), port_of(window, "cache-1", "in", "requests"))
    edges = [e for e in window.document.design.edges.values() if e.target == "cache-1"]
    assert [(e.source, e.source_port, e.target_port) for e in edges] == [("users", "requests", "requests")]
    assert stack.count() == 2
    assert edges[0].id in window.scene.edges
    stack.undo()
    assert not [e for e in window.document.design.edges.values() if e.target == "cache-1"]


def test_wiring_onto_a_card_picks_a_matching_port(window):
    drop_kind(window, "metrics_collector", QPointF(300, 600))
    drag(window.view, port_of(window, "gpus", "out", "telemetry"), centre_of(window, "metrics_collector-1"))
    assert any(e.source == "gpus" and e.source_port == "telemetry" and e.target == "metrics_collector-1"
               for e in window.document.design.edges.values())


def test_a_refused_connection_says_why_at_the_cursor(window):
    stack = window.document.undo_stack
    messages = []
    window.scene.message.connect(messages.append)
    # gpus -> lb would make requests loop (lb already sends to gpus through the batcher)
    drag(window.view, port_of(window, "gpus", "out", "requests"), port_of(window, "lb", "in", "requests"))
    assert stack.count() == 0
    hint = window.scene.interactions.hint
    assert hint.isVisible() and "loop" in hint.text
    assert messages and "loop" in messages[-1]
    # the preview while hovering a refused port says why, too
    drag(window.view, port_of(window, "gpus", "out", "telemetry"), port_of(window, "lb", "in", "requests"))
    assert "telemetry" in hint.text and stack.count() == 0


def test_dragging_one_node_is_one_step_and_snaps_to_the_grid(window):
    start = window.document.design.node("users")
    drag(window.view, header_of(window, "users"), header_of(window, "users") + QPointF(-63, 207),
         modifiers=Qt.KeyboardModifier.NoModifier)
    moved = window.document.design.node("users")
    assert window.document.undo_stack.count() == 1
    assert (moved.x, moved.y) != (start.x, start.y)
    assert moved.x % 10 == 0 and moved.y % 10 == 0
    window.document.undo_stack.undo()
    assert (window.document.design.node("users").x, window.document.design.node("users").y) == (start.x, start.y)
    assert window.scene.nodes["users"].pos() == QPointF(start.x, start.y)


def test_multi_node_drag_is_one_undo_step(window):
    window.actions_by_id["view.snap_lines"].setChecked(False)
    design = window.document.design
    before = design_to_bytes(design)
    click(window.view, header_of(window, "lb"))
    click(window.view, header_of(window, "gpus"), Qt.KeyboardModifier.ControlModifier)
    assert window.scene.selected_node_ids() == ["lb", "gpus"]
    drag(window.view, header_of(window, "lb"), header_of(window, "lb") + QPointF(40, 30))
    assert window.document.undo_stack.count() == 1
    assert (design.node("lb").x, design.node("lb").y) == (80, 90)
    assert (design.node("gpus").x, design.node("gpus").y) == (580, 90)
    assert design.node("batcher").x == 290
    window.document.undo_stack.undo()
    assert design_to_bytes(design) == before


def test_two_drags_are_two_steps_never_merged(window):
    z = window.scene.nodes["users"].zValue()
    for _ in range(2):
        drag(window.view, header_of(window, "users"), header_of(window, "users") + QPointF(0, 40))
    assert window.document.undo_stack.count() == 2
    assert window.scene.nodes["users"].zValue() == z  # raised while dragged only


def test_dragging_a_region_takes_its_members_along(window):
    design = window.document.design
    drag(window.view, header_of(window, "use1"), header_of(window, "use1") + QPointF(100, 50))
    assert window.document.undo_stack.count() == 1
    assert (design.node("use1").x, design.node("use1").y) == (100, 50)
    assert (design.node("gpus").x, design.node("gpus").y) == (640, 110)
    assert design.node("gpus").region == "use1"


def test_dropping_a_node_into_a_region_sets_its_region_in_the_same_step(window):
    design = window.document.design
    before = design_to_bytes(design)
    drag(window.view, header_of(window, "users"), QPointF(200, 150))
    assert design.node("users").region == "use1"
    assert window.document.undo_stack.count() == 1
    drag(window.view, header_of(window, "gpus"), QPointF(700, 700))
    assert design.node("gpus").region is None
    window.document.undo_stack.undo()
    window.document.undo_stack.undo()
    assert design_to_bytes(design) == before


def test_rubber_band_selects_the_nodes_inside(window):
    drag(window.view, QPointF(20, 40), QPointF(500, 290))
    assert window.scene.selected_node_ids() == ["lb", "batcher"]
    assert window.document.undo_stack.count() == 0


def test_deleting_a_wired_node_then_undo_restores_it_exactly(window):
    design = window.document.design
    before = design_to_bytes(design)
    click(window.view, header_of(window, "batcher"))
    window.actions_by_id["edit.delete"].trigger()
    assert "batcher" not in design.nodes and "e2" not in design.edges and "e3" not in design.edges
    assert "batcher" not in window.scene.nodes and "e2" not in window.scene.edges
    assert window.document.undo_stack.count() == 1
    window.document.undo_stack.undo()
    assert design_to_bytes(design) == before
    assert set(window.scene.edges) == {"e1", "e2", "e3"}
    window.document.undo_stack.redo()
    assert "batcher" not in design.nodes


def test_delete_selection_of_nodes_and_links_is_one_step(window):
    window.scene.select_ids(["users", "use1"], ["e3"])
    before = design_to_bytes(window.document.design)
    window.actions_by_id["edit.delete"].trigger()
    assert window.document.undo_stack.count() == 1
    assert set(window.document.design.edges) == {"e2"}
    window.document.undo_stack.undo()
    assert design_to_bytes(window.document.design) == before


def test_copy_paste_and_duplicate_keep_internal_links(window):
    design = window.document.design
    window.scene.select_ids(["batcher", "gpus"])
    window.actions_by_id["edit.copy"].trigger()
    window.actions_by_id["edit.paste"].trigger()
    assert {"dynamic_batcher-1", "gpu_pool-1"} <= set(design.nodes)
    pasted = [e for e in design.edges.values() if e.source == "dynamic_batcher-1"]
    assert [(e.target, e.source_port) for e in pasted] == [("gpu_pool-1", "requests")]
    assert window.scene.selected_node_ids() == ["dynamic_batcher-1", "gpu_pool-1"]
    window.actions_by_id["edit.duplicate"].trigger()
    assert {"dynamic_batcher-2", "gpu_pool-2"} <= set(design.nodes)
    assert window.document.undo_stack.count() == 2


def _arrow(window, key, auto_repeat=False):
    event = QKeyEvent(QEvent.Type.KeyPress, key, Qt.KeyboardModifier.NoModifier, "", auto_repeat)
    QApplication.sendEvent(window.view, event)


def test_arrow_key_nudges_merge_into_one_step_while_repeating(window):
    window.scene.select_ids(["users"])
    window.view.setFocus()
    x0 = window.document.design.node("users").x
    _arrow(window, Qt.Key.Key_Right)
    for _ in range(5):
        _arrow(window, Qt.Key.Key_Right, auto_repeat=True)
    assert window.document.design.node("users").x == x0 + 60
    assert window.document.undo_stack.count() == 1
    window.document.undo_stack.undo()
    assert window.document.design.node("users").x == x0
    # a drag after a nudge is a step of its own
    _arrow(window, Qt.Key.Key_Down)
    drag(window.view, header_of(window, "users"), header_of(window, "users") + QPointF(0, 60))
    _arrow(window, Qt.Key.Key_Down, auto_repeat=True)
    assert window.document.undo_stack.count() == 3


def test_escape_cancels_a_drag_in_flight(window):
    from tests.desktop.gestures import send_mouse

    start = window.scene.nodes["users"].pos()
    viewport = window.view.viewport()
    a = window.view.mapFromScene(header_of(window, "users"))
    send_mouse(viewport, QEvent.Type.MouseButtonPress, a)
    send_mouse(viewport, QEvent.Type.MouseMove, a + QPoint(80, 80), button=Qt.MouseButton.NoButton)
    assert window.scene.nodes["users"].pos() != start
    escape = QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window.view, escape)
    assert window.scene.nodes["users"].pos() == start
    send_mouse(viewport, QEvent.Type.MouseButtonRelease, a + QPoint(80, 80), buttons=Qt.MouseButton.NoButton)
    assert window.document.undo_stack.count() == 0


def test_zoom_actions(window):
    window.actions_by_id["view.reset_zoom"].trigger()
    assert window.view.zoom() == pytest.approx(1.0)
    window.actions_by_id["view.zoom_in"].trigger()
    assert window.view.zoom() > 1.0
    window.scene.select_ids(["gpus"])
    window.actions_by_id["view.fit_selection"].trigger()
    visible = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    assert visible.contains(window.scene.nodes_rect(["gpus"]))
    window.actions_by_id["view.fit_all"].trigger()
    visible = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    assert visible.contains(window.scene.nodes_rect())


def test_resizing_a_region_is_one_step(window):
    region = window.scene.nodes["use1"]
    grip = region.mapToScene(region.grip_rect().center())
    drag(window.view, grip, grip + QPointF(100, 40))
    assert window.document.design.node("use1").width == 860
    assert window.document.design.node("use1").height == 340
    assert window.document.undo_stack.count() == 1


def test_wheel_zooms_at_the_cursor_and_panning_moves_the_view(window):
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QWheelEvent

    from tests.desktop.gestures import send_mouse

    view, viewport = window.view, window.view.viewport()
    view.reset_zoom()
    at = QPointF(viewport.width() / 2 + 100, viewport.height() / 2)
    under = view.mapToScene(at.toPoint())
    wheel = QWheelEvent(at, QPointF(viewport.mapToGlobal(at.toPoint())), QPoint(), QPoint(0, 240),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(viewport, wheel)
    assert view.zoom() > 1.2
    assert (view.mapToScene(at.toPoint()) - under).manhattanLength() < 3  # the point under the cursor stays
    h, v = view.horizontalScrollBar().value(), view.verticalScrollBar().value()
    start = QPoint(viewport.width() // 2, viewport.height() // 2)
    send_mouse(viewport, QEvent.Type.MouseButtonPress, start, Qt.MouseButton.MiddleButton, Qt.MouseButton.MiddleButton)
    send_mouse(viewport, QEvent.Type.MouseMove, start + QPoint(-80, -50), Qt.MouseButton.NoButton,
               Qt.MouseButton.MiddleButton)
    send_mouse(viewport, QEvent.Type.MouseButtonRelease, start + QPoint(-80, -50), Qt.MouseButton.MiddleButton,
               Qt.MouseButton.NoButton)
    assert (view.horizontalScrollBar().value(), view.verticalScrollBar().value()) == (h + 80, v + 50)
    # Space + left drag pans too, even over a node, and edits nothing
    QApplication.sendEvent(view, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Space, Qt.KeyboardModifier.NoModifier))
    drag(window.view, header_of(window, "gpus"), header_of(window, "gpus") + QPointF(-60, 0))
    QApplication.sendEvent(view, QKeyEvent(QEvent.Type.KeyRelease, Qt.Key.Key_Space, Qt.KeyboardModifier.NoModifier))
    assert view.horizontalScrollBar().value() != h + 80
    assert window.document.undo_stack.count() == 0
