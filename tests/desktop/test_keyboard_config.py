"""Configuring a design without a mouse: every inspector field, the requirements and the fault
editor are reached with Tab and changed with the arrow keys, Space or typing; only key events are
sent (to whatever has the focus, as a keyboard would)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QLineEdit

from desktop.editor.number_keys import number_step, stepped

CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier


def press(qtbot, key, modifiers=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(QApplication.focusWidget(), key, modifiers)


def test_the_step_suits_the_value():
    assert number_step(3, True) == 1 and number_step(0.65, False) == 0.01 and number_step(250.0, False) == 10
    assert stepped("0.65", 1, False) == "0.66" and stepped("12.5", -1, False, times=10) == "2"
    assert stepped("1", -1, True, low=1) == "1" and stepped("not a number", 1, True) is None


def test_every_inspector_field_is_reached_by_tab_and_changed_by_keys(window, qtbot):
    design = window.document.design
    window.view.setFocus()
    window.scene.select_ids(["gpus"])
    qtbot.waitUntil(lambda: window.inspector.label_edit is not None and window.inspector.label_edit.isVisible())
    press(qtbot, Qt.Key.Key_I, CTRL)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.inspector.label_edit)
    qtbot.keyClicks(QApplication.focusWidget(), "Main GPUs")
    press(qtbot, Qt.Key.Key_Tab)
    assert design.node("gpus").label == "Main GPUs"
    kind = design.catalog.kind("gpu_pool")
    reached = []
    for spec in kind.params:
        field = QApplication.focusWidget()
        reached.append(field)
        assert field is window.inspector.editors[spec.name].field, spec.name
        press(qtbot, Qt.Key.Key_Tab)
    assert len(reached) == len(kind.params)
    edits = {type(f): name for name, f in ((s.name, window.inspector.editors[s.name].field) for s in kind.params)}
    stack = window.document.undo_stack
    replicas = design.node("gpus").params["replicas"]
    window.inspector.editors["replicas"].field.setFocus()
    press(qtbot, Qt.Key.Key_Up)
    press(qtbot, Qt.Key.Key_Up, SHIFT)
    assert design.node("gpus").params["replicas"] == replicas + 11
    choice = edits[QComboBox]
    before = design.node("gpus").params[choice]
    window.inspector.editors[choice].field.setFocus()
    press(qtbot, Qt.Key.Key_Down)
    assert design.node("gpus").params[choice] != before
    if QCheckBox in edits:
        flag = edits[QCheckBox]
        was = design.node("gpus").params[flag]
        window.inspector.editors[flag].field.setFocus()
        press(qtbot, Qt.Key.Key_Space)
        assert design.node("gpus").params[flag] is (not was)
    assert stack.count() >= 4  # label, two steps, a choice: each its own undo step


def test_requirements_by_f7_tab_and_arrows(window, qtbot):
    req = window.document.design.requirements
    window.view.setFocus()
    press(qtbot, Qt.Key.Key_F7)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.requirements.title)
    order = [window.requirements.title, window.requirements.notes, *window.requirements.fields.values(),
             *window.requirements.region_boxes.values()]
    for widget in order:
        assert QApplication.focusWidget() is widget, widget.accessibleName()
        press(qtbot, Qt.Key.Key_Tab)
    mean = window.requirements.fields["mean_rps"]
    mean.setFocus()
    press(qtbot, Qt.Key.Key_Up)  # 200 req/s steps by 10
    assert window.document.design.requirements.mean_rps == req.mean_rps + 10
    pattern = window.requirements.fields["traffic_pattern"]
    pattern.setFocus()
    press(qtbot, Qt.Key.Key_Down)
    assert window.document.design.requirements.traffic_pattern != req.traffic_pattern
    window.requirements.region_boxes["eu-west"].setFocus()
    press(qtbot, Qt.Key.Key_Space)
    assert "eu-west" in window.document.design.requirements.allowed_regions


def test_the_fault_editor_from_the_keyboard(window, qtbot):
    window.readouts.fault_plan.add_fault("region_outage", "use1", start_s=3600.0, duration_s=3600.0)
    window.view.setFocus()
    press(qtbot, Qt.Key.Key_F, CTRL | SHIFT)
    editor = window.fault_editor
    qtbot.addWidget(editor)  # closed at the end even if a check fails
    qtbot.waitExposed(editor)
    editor.windowHandle().requestActivate()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is editor)
    faults = lambda: window.document.design.faults  # noqa: E731
    editor.strip.setFocus()
    press(qtbot, Qt.Key.Key_Down)  # pick the first fault
    press(qtbot, Qt.Key.Key_Right, SHIFT)  # an hour later
    press(qtbot, Qt.Key.Key_Right, CTRL)  # five minutes longer
    assert (faults()[0].start_s, faults()[0].duration_s) == (7200.0, 3900.0)
    seen = []
    for _ in range(12):  # Tab goes through the row's controls and on to the buttons
        press(qtbot, Qt.Key.Key_Tab)
        seen.append(QApplication.focusWidget())
    names = [w.accessibleName() or w.text() for w in seen]
    assert "Fault 1 duration" in names and "Remove fault 1" in names and "Add Fault" in names
    duration = editor.table.cellWidget(0, 3)
    duration.setFocus()
    press(qtbot, Qt.Key.Key_Up)
    press(qtbot, Qt.Key.Key_Tab)  # leaving the field commits it
    assert faults()[0].duration_s == 3960.0
    editor.add_button.setFocus()
    press(qtbot, Qt.Key.Key_Space)
    assert len(faults()) == 2
    kind = editor.table.cellWidget(1, 0)
    kind.setFocus()
    before = faults()[1].kind
    press(qtbot, Qt.Key.Key_Down)
    assert faults()[1].kind != before
    editor.close()


def test_a_typed_number_field_ignores_arrows_on_text_it_cannot_read(window, qtbot):
    window.scene.select_ids(["gpus"])
    qtbot.waitUntil(lambda: window.inspector.label_edit is not None and window.inspector.label_edit.isVisible())
    field: QLineEdit = window.inspector.editors["replicas"].field
    field.setFocus()
    field.setText("lots")
    press(qtbot, Qt.Key.Key_Up)
    assert field.text() == "lots"
