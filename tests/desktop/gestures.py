"""Designs and real mouse gestures for the desktop tests (events carry their buttons and go to the
view's viewport, as a user's would)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from inferboard.model import Design, Requirements, ops


def demo_design() -> Design:
    """users -> lb -> batcher -> gpus, the last three inside region ``use1``, spaced on the grid."""
    design = Design(requirements=Requirements(slo_p99_ms=300, mean_rps=200, peak_rps=400))
    design.add_node("region", 0, 0, {"location": "us-east"}, node_id="use1")
    design.apply(ops.ResizeNode("use1", 760, 300))
    design.add_node("traffic_source", -300, 80, node_id="users")
    design.add_node("regional_load_balancer", 40, 60, node_id="lb", region="use1")
    design.add_node("dynamic_batcher", 290, 60, node_id="batcher", region="use1")
    design.add_node("gpu_pool", 540, 60, node_id="gpus", region="use1")
    design.connect("users", "requests", "lb", "requests", edge_id="e1")
    design.connect("lb", "requests", "batcher", "requests", edge_id="e2")
    design.connect("batcher", "requests", "gpus", "requests", edge_id="e3")
    return design


# ---------------------------------------------------------------------- mouse helpers
def send_mouse(widget, kind: QEvent.Type, pos: QPoint, button=Qt.MouseButton.LeftButton,
               buttons=Qt.MouseButton.LeftButton, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    local = QPointF(pos)
    event = QMouseEvent(kind, local, QPointF(widget.mapToGlobal(pos)), button, buttons, modifiers)
    QApplication.sendEvent(widget, event)


def drag(view, start: QPointF, end: QPointF, modifiers=Qt.KeyboardModifier.NoModifier, steps: int = 8) -> None:
    """Press at ``start``, move in steps with the button held, release at ``end`` (scene coordinates)."""
    viewport = view.viewport()
    a = view.mapFromScene(start)
    b = view.mapFromScene(end)
    send_mouse(viewport, QEvent.Type.MouseButtonPress, a, modifiers=modifiers)
    for i in range(1, steps + 1):
        p = a + (b - a) * (i / steps)
        send_mouse(viewport, QEvent.Type.MouseMove, p, button=Qt.MouseButton.NoButton, modifiers=modifiers)
    send_mouse(viewport, QEvent.Type.MouseButtonRelease, b, buttons=Qt.MouseButton.NoButton, modifiers=modifiers)


def click(view, at: QPointF, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    viewport = view.viewport()
    p = view.mapFromScene(at)
    send_mouse(viewport, QEvent.Type.MouseButtonPress, p, modifiers=modifiers)
    send_mouse(viewport, QEvent.Type.MouseButtonRelease, p, buttons=Qt.MouseButton.NoButton, modifiers=modifiers)


def centre_of(window, node_id: str) -> QPointF:
    item = window.scene.nodes[node_id]
    return item.mapToScene(item.rect().center())


def header_of(window, node_id: str) -> QPointF:
    item = window.scene.nodes[node_id]
    return item.mapToScene(QPointF(item.rect().width() / 2, 12))


def port_of(window, node_id: str, direction: str, name: str) -> QPointF:
    return window.scene.nodes[node_id].port(direction, name).anchor()
