"""Twenty scripted gestures make exactly twenty undo steps, and undoing them all gives back the
starting file byte for byte (redoing them all gives back the edited file)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication

from inferboard.store import design_to_bytes

from tests.desktop.gestures import click, drag, header_of, port_of
from tests.desktop.test_canvas import drop_kind

pytestmark = pytest.mark.filterwarnings("ignore:Function.*QDrag.*deprecated:DeprecationWarning")


def test_twenty_gestures_are_twenty_undo_steps_and_undo_restores_the_file_byte_for_byte(window):
    design = window.document.design
    stack = window.document.undo_stack
    start = design_to_bytes(design)
    inspector = window.inspector

    def edit(name: str, text: str) -> None:
        inspector.editors[name].edit.setText(text)
        inspector.editors[name].edit.editingFinished.emit()

    gestures = [
        lambda: drop_kind(window, "cache", QPointF(100, 520)),                                   # 1 add
        lambda: drop_kind(window, "metrics_collector", QPointF(500, 560)),                      # 2 add
        lambda: drag(window.view, port_of(window, "users", "out", "requests"),
                     port_of(window, "cache-1", "in", "requests")),                              # 3 wire
        lambda: drag(window.view, port_of(window, "gpus", "out", "telemetry"),
                     port_of(window, "metrics_collector-1", "in", "telemetry")),                 # 4 wire
        lambda: drag(window.view, header_of(window, "users"), header_of(window, "users") + QPointF(0, 80)),  # 5
        lambda: click(window.view, header_of(window, "gpus")),                                   # (selection only)
        lambda: edit("replicas", "5"),                                                            # 6 param
        lambda: edit("base_ms", "12.5"),                                                          # 7 param
        lambda: (inspector.label_edit.setText("GPUs"), inspector.label_edit.editingFinished.emit()),  # 8 label
        lambda: window.scene.select_ids(["lb", "batcher"]),                                      # (selection only)
        lambda: drag(window.view, header_of(window, "lb"), header_of(window, "lb") + QPointF(0, 40)),  # 9 multi
        lambda: window.actions_by_id["edit.duplicate"].trigger(),                                # 10 duplicate
        lambda: window.actions_by_id["edit.delete"].trigger(),                                   # 11 delete dup
        lambda: window.scene.select_ids(["batcher"]),
        lambda: window.actions_by_id["edit.copy"].trigger(),
        lambda: window.actions_by_id["edit.paste"].trigger(),                                    # 12 paste
        lambda: drag(window.view, header_of(window, "dynamic_batcher-1"), QPointF(-200, 450)),  # 13 out of region
        lambda: window.scene.select_ids(["cache-1"]),
        lambda: QApplication.sendEvent(window.view, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Right,
                                                              Qt.KeyboardModifier.NoModifier)),  # 14 nudge
        lambda: QApplication.sendEvent(window.view, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Right,
                                                              Qt.KeyboardModifier.NoModifier, "", True)),  # (merged)
        lambda: window.requirements.fields["mean_rps"].setText("250"),
        lambda: window.requirements.fields["mean_rps"].editingFinished.emit(),                   # 15 requirements
        lambda: window.scene.select_ids(["batcher"]),
        lambda: window.actions_by_id["edit.delete"].trigger(),                                   # 16 delete wired
        lambda: drag(window.view, header_of(window, "use1"), header_of(window, "use1") + QPointF(20, 20)),  # 17
        lambda: window.scene.select_ids([], ["e1"]),
        lambda: window.actions_by_id["edit.delete"].trigger(),                                   # 18 delete link
        lambda: window.component_palette.kind_activated.emit("autoscaler"),                      # 19 add (keyboard)
        lambda: window.actions_by_id["edit.cut"].trigger(),                                      # 20 cut
    ]
    for gesture in gestures:
        gesture()
    assert stack.count() == 20, [stack.text(i) for i in range(stack.count())]
    edited = design_to_bytes(design)
    assert edited != start
    while stack.canUndo():
        stack.undo()
    assert design_to_bytes(design) == start
    assert set(window.scene.nodes) == set(design.nodes) and set(window.scene.edges) == set(design.edges)
    while stack.canRedo():
        stack.redo()
    assert design_to_bytes(design) == edited
