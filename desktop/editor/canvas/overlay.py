"""Small widgets that float over a corner of the canvas (the find bar, the minimap) and follow it
when the view is resized."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

#: Space kept between an overlay and the edges of the canvas, in pixels.
OVERLAY_MARGIN = 10


class CornerPin(QObject):
    """Keeps ``widget`` (a child of ``view``) in one corner of the view's viewport."""

    def __init__(self, widget: QWidget, view: QAbstractScrollArea, corner: Qt.Corner):
        super().__init__(widget)
        self.widget, self.view, self.corner = widget, view, corner
        view.installEventFilter(self)
        self.place()

    def place(self) -> None:
        area = self.view.viewport().geometry()
        size = self.widget.size()
        right = self.corner in (Qt.Corner.TopRightCorner, Qt.Corner.BottomRightCorner)
        bottom = self.corner in (Qt.Corner.BottomLeftCorner, Qt.Corner.BottomRightCorner)
        x = area.right() - size.width() - OVERLAY_MARGIN + 1 if right else area.left() + OVERLAY_MARGIN
        y = area.bottom() - size.height() - OVERLAY_MARGIN + 1 if bottom else area.top() + OVERLAY_MARGIN
        self.widget.move(max(area.left(), x), max(area.top(), y))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.view and event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            self.place()
        return False
