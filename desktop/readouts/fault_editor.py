"""The fault editor: the faults planned on the simulated day, each with its kind, target, start,
duration and magnitude, drawn as bars on a 24-hour strip (drag a bar to move it, its right end to
lengthen it; or with the strip focused, the arrow keys). Every change is one undo step of the design, so faults are saved with it."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QPointF, QRectF, Qt, QTime, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QHBoxLayout,
                               QHeaderView, QLabel, QPushButton, QSpinBox, QTableWidget, QTimeEdit, QVBoxLayout,
                               QWidget)

from inferboard.model import PlannedFault
from inferboard.model import events as ev
from inferboard.model.faults import FAULT_KINDS, describe, fault_targets

from desktop.theme import PLOT
from desktop.window_placement import fit_window


DAY_S = 24 * 3600.0
SNAP_S = 5 * 60.0
#: Room left and right of the day for the hour labels.
EDGE = 26.0
COLUMNS = ("Fault", "Target", "Start", "Duration", "Magnitude", "")


class FaultStrip(QWidget):
    """The day as a strip, a lane per fault; dragging edits start or duration."""

    #: row, new start (s), new duration (s): sent when a drag ends.
    moved = Signal(int, float, float)
    row_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.faults: tuple[PlannedFault, ...] = ()
        self.selected = -1
        self.playhead_s: float | None = None
        self._drag: tuple[int, str, float, PlannedFault] | None = None
        self._preview: tuple[int, float, float] | None = None
        self.setMinimumHeight(70)
        self.setMouseTracking(True)
        self.setAccessibleName("Faults on the timeline")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def span_s(self) -> float:
        """The seconds the strip covers: the day, or longer if a fault ends later."""
        return max([DAY_S] + [f.end_s() for f in self.faults])

    def set_faults(self, faults, selected: int = -1) -> None:
        """Draw ``faults``, the one at row ``selected`` picked out."""
        self.faults = tuple(faults)
        self.selected = selected
        self.setMinimumHeight(34 + 22 * max(1, len(self.faults)))
        self.update()

    def x_of(self, seconds: float) -> float:
        """The strip's x coordinate for ``seconds`` into the day."""
        return EDGE + (self.width() - 2 * EDGE) * seconds / self.span_s()

    def _seconds(self, x: float) -> float:
        return (x - EDGE) / max(1.0, self.width() - 2 * EDGE) * self.span_s()

    def bar(self, row: int) -> QRectF:
        """The rectangle of the fault at ``row`` (where a drag in progress puts it)."""
        fault = self.faults[row]
        start, duration = fault.start_s, fault.duration_s
        if self._preview and self._preview[0] == row:
            start, duration = self._preview[1], self._preview[2]
        left = self.x_of(start)
        return QRectF(left, 24 + 22 * row, max(6.0, self.x_of(start + duration) - left), 18)

    def paintEvent(self, event) -> None:
        """Draw the hours, the playhead and one bar per fault."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text = palette.windowText().color()
        grid = QColor(text)
        grid.setAlphaF(0.25)
        hours = int(self.span_s() // 3600)
        step = 2 if hours <= 30 else 12
        for hour in range(0, hours + 1, step):
            x = self.x_of(hour * 3600)
            painter.setPen(QPen(grid, 1))
            painter.drawLine(QPointF(x, 18), QPointF(x, self.height() - 4))
            painter.setPen(text)
            painter.drawText(QRectF(x - 24, 0, 48, 16), Qt.AlignmentFlag.AlignCenter, f"{hour % 24:02d}:00")
        accent = palette.highlight().color()
        for row, fault in enumerate(self.faults):
            rect = self.bar(row)
            fill = QColor(PLOT["outage"] if fault.kind == "region_outage" else accent)
            fill.setAlphaF(0.85 if row == self.selected else 0.55)
            painter.setPen(QPen(text, 2) if row == self.selected else Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRoundedRect(rect, 4, 4)
            label = describe(fault, None).split(", ")[0]
            room = painter.fontMetrics().horizontalAdvance(label) + 10
            if room <= rect.width():
                painter.setPen(palette.highlightedText().color())
                painter.drawText(rect.adjusted(5, 0, -3, 0), Qt.AlignmentFlag.AlignVCenter, label)
            else:  # too short to hold its name: the name goes beside it (left of it near the end)
                painter.setPen(text)
                right_side = rect.right() + room < self.width()
                where = (QRectF(rect.right() + 5, rect.top(), room, rect.height()) if right_side
                         else QRectF(rect.left() - room - 5, rect.top(), room, rect.height()))
                painter.drawText(where, Qt.AlignmentFlag.AlignVCenter, label)
        if self.playhead_s is not None:
            painter.setPen(QPen(text, 1.5, Qt.PenStyle.DashLine))
            x = self.x_of(self.playhead_s)
            painter.drawLine(QPointF(x, 16), QPointF(x, self.height()))

    def _hit(self, pos: QPointF) -> tuple[int, str] | None:
        for row in range(len(self.faults)):
            rect = self.bar(row)
            if rect.adjusted(-4, 0, 6, 0).contains(pos):
                return row, "end" if pos.x() >= rect.right() - 6 else "move"
        return None

    def mousePressEvent(self, event) -> None:
        """Start dragging a bar (its body moves it, its end stretches it) and select its fault."""
        hit = self._hit(event.position())
        if hit is None:
            return
        row, part = hit
        self._drag = (row, part, event.position().x(), self.faults[row])
        self.row_clicked.emit(row)

    def mouseMoveEvent(self, event) -> None:
        """Move or stretch the dragged bar (snapped), or show which cursor a press would get."""
        if self._drag is None:
            hit = self._hit(event.position())
            self.setCursor(Qt.CursorShape.SizeHorCursor if hit and hit[1] == "end" else
                           Qt.CursorShape.OpenHandCursor if hit else Qt.CursorShape.ArrowCursor)
            return
        row, part, x0, fault = self._drag
        delta = self._seconds(event.position().x()) - self._seconds(x0)
        start, duration = fault.start_s, fault.duration_s
        if part == "move":
            start = max(0.0, round((start + delta) / SNAP_S) * SNAP_S)
        else:
            duration = max(SNAP_S, round((duration + delta) / SNAP_S) * SNAP_S)
        self._preview = (row, start, duration)
        self.update()

    def mouseReleaseEvent(self, event) -> None:
        """Commit the dragged bar's new start and duration."""
        preview, self._drag, self._preview = self._preview, None, None
        if preview is not None:
            self.moved.emit(*preview)
        self.update()

    def keyPressEvent(self, event) -> None:
        """Without a mouse: Up/Down pick a fault, Left/Right move it five minutes (Shift: an hour),
        Ctrl+Left/Right shorten or lengthen it by as much."""
        key, mods = event.key(), event.modifiers()
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down) and self.faults:
            step = -1 if key == Qt.Key.Key_Up else 1
            self.row_clicked.emit(min(len(self.faults) - 1, max(0, self.selected + step)))
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_Right) and 0 <= self.selected < len(self.faults):
            fault = self.faults[self.selected]
            delta = (3600.0 if mods & Qt.KeyboardModifier.ShiftModifier else SNAP_S) * (
                -1 if key == Qt.Key.Key_Left else 1)
            if mods & Qt.KeyboardModifier.ControlModifier:
                self.moved.emit(self.selected, fault.start_s, max(SNAP_S, fault.duration_s + delta))
            else:
                self.moved.emit(self.selected, max(0.0, fault.start_s + delta), fault.duration_s)
        else:
            super().keyPressEvent(event)
            return
        self.setFocus()  # selecting the row in the table hands the focus to its first control
        event.accept()


class FaultEditor(QDialog):
    """Non-modal; ``set_faults(faults, title)`` is how it edits the design (one undo step each)."""

    def __init__(self, document, set_faults: Callable[..., bool], default_start: Callable[[], float],
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("fault_editor")
        self.setWindowTitle("Planned Faults")
        self.document = document
        self.apply_faults = set_faults
        self.default_start = default_start
        intro = QLabel("Faults planned on the simulated day: the timeline plays them and they are saved with the "
                       "design. Drag a bar to move it, its right end to change how long it lasts; from the keyboard, "
                       "Up/Down in the strip pick a fault, Left/Right move it, Ctrl+Left/Right change its length.",
                       self)
        intro.setWordWrap(True)
        self.strip = FaultStrip(self)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setAccessibleName("Planned faults")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        # Tab goes from control to control and on to the buttons, not from cell to cell inside the table.
        self.table.setTabKeyNavigation(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.empty = QLabel("No faults planned: the day runs without failures. Add one to see how the design "
                            "copes.", self)
        self.empty.setWordWrap(True)
        self.add_button = QPushButton("Add Fault", self)
        self.add_button.clicked.connect(self.add_fault)
        self.clear_button = QPushButton("Remove All", self)
        self.clear_button.clicked.connect(lambda: self.apply_faults((), "Clear faults"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.clear_button)
        row.addStretch(1)
        row.addWidget(buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.strip)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty)
        layout.addLayout(row)
        fit_window(self, 820, 420)
        self.strip.moved.connect(self._strip_moved)
        self.strip.row_clicked.connect(self.table.selectRow)
        self.table.itemSelectionChanged.connect(lambda: self.strip.set_faults(self.faults, self.current_row()))
        document.changed.connect(self._on_event)
        document.replaced.connect(self.refresh)
        self.refresh()

    @property
    def faults(self) -> tuple[PlannedFault, ...]:
        """The design's planned faults."""
        return self.document.design.faults

    def current_row(self) -> int:
        """The selected fault's row, or -1."""
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else -1

    def _on_event(self, event) -> None:
        if isinstance(event, (ev.FaultsChanged, ev.NodeAdded, ev.NodeRemoved, ev.LabelChanged)):
            self.refresh()

    # ------------------------------------------------------------------ showing
    def refresh(self) -> None:
        """Fill the table and the strip from the design's faults, keeping the selection."""
        design = self.document.design
        selected = self.current_row()
        self.table.setRowCount(0)
        for row, fault in enumerate(self.faults):
            self.table.insertRow(row)
            kind = QComboBox(self.table)
            kind.setAccessibleName(f"Fault {row + 1} kind")
            for key, spec in FAULT_KINDS.items():
                kind.addItem(spec.title, key)
            kind.setCurrentIndex(kind.findData(fault.kind))
            kind.activated.connect(lambda _i, r=row, w=kind: self._change(r, kind=w.currentData()))
            target = QComboBox(self.table)
            target.setAccessibleName(f"Fault {row + 1} target")
            for node_id, name in fault_targets(design, fault.kind):
                target.addItem(name, node_id)
            if target.findData(fault.target) < 0:
                target.addItem(fault.target, fault.target)
            target.setCurrentIndex(target.findData(fault.target))
            target.activated.connect(lambda _i, r=row, w=target: self._change(r, target=w.currentData()))
            start = QTimeEdit(self.table)
            start.setAccessibleName(f"Fault {row + 1} start")
            start.setDisplayFormat("HH:mm")
            start.setTime(QTime(0, 0).addSecs(int(fault.start_s) % 86400))
            start.editingFinished.connect(
                lambda r=row, w=start: self._change(r, start_s=float(QTime(0, 0).secsTo(w.time()))
                                                    + 86400 * (self.faults[r].start_s // 86400)))
            duration = QSpinBox(self.table)
            duration.setAccessibleName(f"Fault {row + 1} duration")
            duration.setRange(1, 7 * 24 * 60)
            duration.setSuffix(" min")
            duration.setValue(max(1, round(fault.duration_s / 60)))
            duration.editingFinished.connect(lambda r=row, w=duration: self._change(r, duration_s=w.value() * 60.0))
            magnitude = QDoubleSpinBox(self.table)
            magnitude.setAccessibleName(f"Fault {row + 1} magnitude")
            magnitude.setRange(-1, 1 if FAULT_KINDS[fault.kind].on_segment else 1_000_000)  # drift: a share
            magnitude.setDecimals(2)
            magnitude.setSpecialValueText("default")
            magnitude.setToolTip(FAULT_KINDS[fault.kind].magnitude)
            magnitude.setValue(-1 if fault.magnitude is None else fault.magnitude)
            magnitude.editingFinished.connect(
                lambda r=row, w=magnitude: self._change(r, magnitude=None if w.value() < 0 else w.value()))
            remove = QPushButton("Remove", self.table)
            remove.setAccessibleName(f"Remove fault {row + 1}")
            remove.clicked.connect(lambda _c=False, r=row: self.remove(r))
            for column, widget in enumerate((kind, target, start, duration, magnitude, remove)):
                self.table.setCellWidget(row, column, widget)
        self._fit_columns()
        self.empty.setVisible(not self.faults)
        self.clear_button.setEnabled(bool(self.faults))
        if 0 <= selected < len(self.faults):
            self.table.selectRow(selected)
        self.strip.set_faults(self.faults, self.current_row())

    def _fit_columns(self) -> None:
        """Each column as wide as its widest control (the header sizes columns by their text only,
        so a row's spin boxes and buttons were cut: "R▾", "03", "emov")."""
        header = self.table.horizontalHeader()
        for column in range(self.table.columnCount()):
            widths = [header.sectionSizeHint(column)]
            widths += [self.table.cellWidget(row, column).sizeHint().width() for row in range(self.table.rowCount())
                       if self.table.cellWidget(row, column) is not None]
            header.setMinimumSectionSize(min(header.minimumSectionSize(), 40))
            if column != 1:  # the target column stretches
                header.setSectionResizeMode(column, QHeaderView.ResizeMode.Fixed)
                self.table.setColumnWidth(column, max(widths))
        self.table.resizeRowsToContents()

    # ------------------------------------------------------------------ editing
    def _change(self, row: int, **changes) -> bool:
        faults = list(self.faults)
        if not 0 <= row < len(faults):
            return False
        old = faults[row]
        fields = {"kind": old.kind, "target": old.target, "start_s": old.start_s, "duration_s": old.duration_s,
                  "magnitude": old.magnitude, **changes}
        if "kind" in changes and changes["kind"] != old.kind:
            valid = [t for t, _ in fault_targets(self.document.design, changes["kind"])]
            fields["target"] = old.target if old.target in valid else valid[0]
            fields["magnitude"] = None
        new = PlannedFault(**fields)
        if new == old:
            return False
        faults[row] = new
        return self.apply_faults(tuple(faults), f"Change {describe(new, self._name(new.target))}")

    def _name(self, node_id: str) -> str | None:
        node = self.document.design.nodes.get(node_id)
        return (node.label or node.id) if node else None

    def _strip_moved(self, row: int, start_s: float, duration_s: float) -> None:
        self._change(row, start_s=start_s, duration_s=duration_s)

    def add_fault(self) -> bool:
        """Plan a new fault at the playhead (a region outage when there are regions) as one undo step."""
        design = self.document.design
        kind = "region_outage" if any(n.kind == "region" for n in design.nodes.values()) else "traffic_surge"
        target = fault_targets(design, kind)[-1][0]
        start = max(0.0, round(self.default_start() / SNAP_S) * SNAP_S)
        fault = PlannedFault(kind, target, start, 3600.0)
        ok = self.apply_faults((*self.faults, fault), f"Plan {describe(fault, self._name(target))}")
        if ok:
            self.table.selectRow(len(self.faults) - 1)
        return ok

    def remove(self, row: int) -> bool:
        """Remove the fault at ``row`` as one undo step; False when there is no such row."""
        faults = list(self.faults)
        if not 0 <= row < len(faults):
            return False
        gone = faults.pop(row)
        return self.apply_faults(tuple(faults), f"Remove {describe(gone, self._name(gone.target))}")

    def set_playhead(self, seconds: float | None) -> None:
        """Mark the playhead's time on the strip (None: no timeline)."""
        self.strip.playhead_s = seconds
        self.strip.update()
