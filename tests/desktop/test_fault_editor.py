"""Faults belong to the design: planned in the fault editor or the readouts' Inject menu, each
change one undo step, saved with the design file, and played by the readouts' timeline."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QTime
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from inferboard.model import PlannedFault
from inferboard.sim.design.faults import TimedFault


def planned(window):
    return window.document.design.faults


def test_a_fault_injected_from_the_readouts_is_an_undoable_edit_of_the_design(window):
    stack = window.document.undo_stack
    window.readouts.fault_plan.add_fault("region_outage", "use1", start_s=3600.0, duration_s=1800.0)
    assert planned(window) == (PlannedFault("region_outage", "use1", 3600.0, 1800.0),)
    assert stack.count() == 1 and "Region outage" in stack.text(0)
    assert window.evaluator.settings.faults == (TimedFault("region_outage", "use1", None, 3600.0, 1800.0),)
    stack.undo()
    assert planned(window) == () and window.readouts.fault_plan.faults == () and window.evaluator.settings.faults == ()
    stack.redo()
    assert len(window.readouts.fault_plan.faults) == 1
    window.actions_by_id["sim.clear_faults"].trigger()
    assert planned(window) == () and stack.count() == 2


def test_the_fault_editor_sets_start_duration_and_magnitude_one_step_each(window, qtbot):
    editor = window.edit_faults()
    qtbot.waitExposed(editor)
    stack = window.document.undo_stack
    assert editor.empty.isVisible()
    editor.add_button.click()
    assert len(planned(window)) == 1 and planned(window)[0].kind == "region_outage"
    assert planned(window)[0].target == "use1"
    start = editor.table.cellWidget(0, 2)
    start.setTime(QTime(14, 30))
    start.editingFinished.emit()
    duration = editor.table.cellWidget(0, 3)
    duration.setValue(45)
    duration.editingFinished.emit()
    assert (planned(window)[0].start_s, planned(window)[0].duration_s) == (14.5 * 3600, 45 * 60)
    kind = editor.table.cellWidget(0, 0)
    kind.setCurrentIndex(kind.findData("traffic_surge"))
    kind.activated.emit(kind.currentIndex())
    assert planned(window)[0].kind == "traffic_surge" and planned(window)[0].target in ("*", "users")
    magnitude = editor.table.cellWidget(0, 4)
    magnitude.setValue(2.5)
    magnitude.editingFinished.emit()
    assert planned(window)[0].magnitude == 2.5
    assert stack.count() == 5
    stack.undo()
    assert planned(window)[0].magnitude is None
    editor.close()


def _mouse(widget, kind, x, y, buttons=Qt.MouseButton.LeftButton):
    button = Qt.MouseButton.LeftButton if kind != QEvent.Type.MouseMove else Qt.MouseButton.NoButton
    event = QMouseEvent(kind, QPointF(x, y), QPointF(widget.mapToGlobal(QPoint(int(x), int(y)))), button,
                        buttons, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)


def test_dragging_a_bar_on_the_strip_moves_the_fault_in_one_step(window, qtbot):
    window.readouts.fault_plan.add_fault("region_outage", "use1", start_s=6 * 3600.0, duration_s=3600.0)
    editor = window.edit_faults()
    qtbot.waitExposed(editor)
    strip = editor.strip
    bar = strip.bar(0)
    hour_px = strip.x_of(3600) - strip.x_of(0)  # as the hour ticks are drawn
    y = bar.center().y()
    _mouse(strip, QEvent.Type.MouseButtonPress, bar.center().x(), y)
    _mouse(strip, QEvent.Type.MouseMove, bar.center().x() + 3 * hour_px, y)
    _mouse(strip, QEvent.Type.MouseButtonRelease, bar.center().x() + 3 * hour_px, y, Qt.MouseButton.NoButton)
    fault = planned(window)[0]
    assert abs(fault.start_s - 9 * 3600) <= 300 and fault.duration_s == 3600
    bar = strip.bar(0)
    _mouse(strip, QEvent.Type.MouseButtonPress, bar.right() - 2, y)
    _mouse(strip, QEvent.Type.MouseMove, bar.right() - 2 + hour_px, y)
    _mouse(strip, QEvent.Type.MouseButtonRelease, bar.right() - 2 + hour_px, y, Qt.MouseButton.NoButton)
    assert abs(planned(window)[0].duration_s - 2 * 3600) <= 300
    assert window.document.undo_stack.count() == 3
    editor.close()


def test_planned_faults_are_saved_with_the_design_and_replayed_on_open(window, make_window, tmp_path):
    window.readouts.fault_plan.add_fault("region_outage", "use1", start_s=10 * 3600.0, duration_s=5400.0)
    window.readouts.fault_plan.add_fault("traffic_surge", "*", start_s=18 * 3600.0, duration_s=600.0, magnitude=3.0)
    path = tmp_path / "with-faults.json"
    window.files.ask_save_path = lambda: str(path)
    assert window.files.save_as()
    other = make_window()
    assert other.files.open(path)
    assert planned(other) == planned(window)
    assert other.readouts.fault_plan.faults == (TimedFault("region_outage", "use1", None, 36000.0, 5400.0),
                                     TimedFault("traffic_surge", "*", 3.0, 64800.0, 600.0))
    assert other.evaluator.settings.faults == other.readouts.fault_plan.faults
    assert other.document.undo_stack.count() == 0 and not other.document.is_modified()


def test_a_drift_is_planned_on_a_segment_with_a_share_for_its_magnitude(window, qtbot):
    editor = window.edit_faults()
    qtbot.waitExposed(editor)
    editor.add_button.click()
    kind = editor.table.cellWidget(0, 0)
    kind.setCurrentIndex(kind.findData("input_drift"))
    kind.activated.emit(kind.currentIndex())
    target = editor.table.cellWidget(0, 1)
    assert [target.itemData(i) for i in range(target.count())] == ["*", "web", "mobile", "new-users"]
    target.setCurrentIndex(target.findData("mobile"))
    target.activated.emit(target.currentIndex())
    magnitude = editor.table.cellWidget(0, 4)
    assert magnitude.maximum() == 1.0  # a share of the segment's requests
    magnitude.setValue(0.3)
    magnitude.editingFinished.emit()
    assert planned(window)[0] == PlannedFault("input_drift", "mobile", planned(window)[0].start_s, 3600.0, 0.3)
    assert window.evaluator.settings.faults[0].kind == "input_drift"  # the timeline plays it
    editor.close()
