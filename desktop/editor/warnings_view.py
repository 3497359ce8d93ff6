"""Live warnings (inferboard.model.design_warnings) in a list panel, as a mark on each card they
concern, in the inspector for the selected component, and as a count in the status bar; refreshed after every edit. Clicking a warning
selects its components."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from inferboard.model.design_warnings import DesignWarning, design_warnings

from desktop.editor.canvas import style
from desktop.theme import LIGHT_INK

IDS_ROLE = Qt.ItemDataRole.UserRole + 1
MARK_COLOUR = LIGHT_INK.warning_mark


class WarningMark(QGraphicsItem):
    """A small warning triangle on a card's top-right corner; its tooltip lists the warnings."""

    def __init__(self, parent: QGraphicsItem, messages: list[str]):
        super().__init__(parent)
        self.setZValue(5)
        width = parent.rect().width() if hasattr(parent, "rect") else style.CARD_WIDTH
        self.setPos(width - 10, -10)
        self.set_messages(messages)

    def set_messages(self, messages: list[str]) -> None:
        """Show these warnings in the mark's tooltip."""
        self.messages = list(messages)
        self.setToolTip("<b>Warning</b><br>" + "<br>".join(self.messages))
        self.update()

    def boundingRect(self) -> QRectF:
        """The area the warning triangle is drawn in."""
        return QRectF(-1, -1, 22, 20)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        """Draw the yellow warning triangle with its exclamation mark."""
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        path = QPainterPath(QPointF(10, 0))
        path.lineTo(20, 18)
        path.lineTo(0, 18)
        path.closeSubpath()
        painter.setPen(QPen(QColor(LIGHT_INK.warning_rim), 1.2))
        painter.setBrush(QColor(MARK_COLOUR))
        painter.drawPath(path)
        painter.setPen(QPen(QColor(LIGHT_INK.warning_glyph), 2))
        painter.drawLine(QPointF(10, 6), QPointF(10, 11.5))
        painter.drawPoint(QPointF(10, 15))


class WarningsPanel(QWidget):
    """The list of the design's live warnings; activating one selects the nodes it concerns."""

    #: node ids of the warning the user picked
    warning_activated = Signal(list)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.list = QListWidget(self)
        self.list.setAccessibleName("Warnings")
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        self.empty = QLabel("No warnings: settings agree with each other and every component is wired.", self)
        self.empty.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.empty)
        layout.addWidget(self.list, 1)
        self.list.itemActivated.connect(self._activated)
        self.list.itemClicked.connect(self._activated)

    def show_warnings(self, warnings: list[DesignWarning]) -> None:
        """List ``warnings``, each row carrying the ids of its nodes."""
        self.list.clear()
        for warning in warnings:
            item = QListWidgetItem(f"⚠ {warning.message}")
            item.setData(IDS_ROLE, list(warning.node_ids))
            item.setToolTip(warning.message)
            self.list.addItem(item)
        self.empty.setVisible(not warnings)
        self.list.setVisible(bool(warnings))

    def messages(self) -> list[str]:
        """The warnings listed, as text."""
        return [self.list.item(i).toolTip() for i in range(self.list.count())]

    def _activated(self, item: QListWidgetItem) -> None:
        self.warning_activated.emit(list(item.data(IDS_ROLE) or []))


class LiveWarnings:
    """Runs the checks after each edit (coalesced to one per turn of the event loop) and shows
    them in the panel, on the canvas and in the status bar."""

    def __init__(self, window):
        self.window = window
        self.panel = WarningsPanel(window)
        self.count_label = QLabel("", window)
        self.count_label.setAccessibleName("Warnings")
        self.count_label.setContentsMargins(8, 0, 8, 0)
        self.marks: dict[str, WarningMark] = {}
        self.warnings: list[DesignWarning] = []
        self._timer = QTimer(window)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh)
        window.document.changed.connect(lambda _event: self._timer.start())
        window.document.replaced.connect(self._timer.start)
        self.panel.warning_activated.connect(self._select)

    def refresh(self) -> None:
        """Recompute the design's warnings and show them in the panel, the count and the inspector."""
        self.warnings = design_warnings(self.window.document.design)
        self.panel.show_warnings(self.warnings)
        count = len(self.warnings)
        self.count_label.setText(f"⚠ {count} warning{'s' if count != 1 else ''}" if count else "")
        inspector = getattr(self.window, "inspector", None)
        if inspector is not None:  # there, every component a warning concerns lists it
            every: dict[str, list[str]] = {}
            for warning in self.warnings:
                for node_id in warning.node_ids:
                    every.setdefault(node_id, []).append(warning.message)
            inspector.set_node_warnings(every)
        per_node: dict[str, list[str]] = {}
        for warning in self.warnings:
            for node_id in warning.node_ids[:1] if warning.code != "traffic_shares" else warning.node_ids:
                per_node.setdefault(node_id, []).append(warning.message)
        scene = self.window.scene
        for node_id in list(self.marks):
            mark = self.marks[node_id]
            item = scene.nodes.get(node_id)
            if not shiboken6.isValid(mark):  # went with its card
                del self.marks[node_id]
                continue
            if node_id not in per_node or item is None or mark.parentItem() is not item:
                if mark.scene() is not None:
                    mark.scene().removeItem(mark)
                del self.marks[node_id]
        for node_id, messages in per_node.items():
            item = scene.nodes.get(node_id)
            if item is None:
                continue
            if node_id in self.marks:
                self.marks[node_id].set_messages(messages)
            else:
                self.marks[node_id] = WarningMark(item, messages)

    def _select(self, node_ids: list[str]) -> None:
        present = [n for n in node_ids if n in self.window.scene.nodes]
        if present:
            self.window.scene.select_ids(present)
            self.window.scene.highlight(present)
