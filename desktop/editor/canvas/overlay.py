"""Small widgets that float over a corner of the canvas (the find bar, the minimap). Each is a
child of the view's viewport, not of the view: a widget over the viewport would stop the view
scrolling by copying what it has drawn (it would repaint all of it each frame of a pan). Scrolling
moves the viewport's children along, so the pin puts them back after each scroll and resize."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

#: Space kept between an overlay and the edges of the canvas, in pixels.
OVERLAY_MARGIN = 10


class CornerPin(QObject):
    """Keeps ``widget`` (a child of ``view``'s viewport) in one corner of the viewport."""

    def __init__(self, widget: QWidget, view: QAbstractScrollArea, corner: Qt.Corner):
        super().__init__(widget)
        self.widget, self.view, self.corner = widget, view, corner
        view.viewport().installEventFilter(self)
        view.horizontalScrollBar().valueChanged.connect(self.place)
        view.verticalScrollBar().valueChanged.connect(self.place)
        self.place()

    def place(self, *_args) -> None:
        """Put the widget in its corner of the view's viewport."""
        area = self.view.viewport().rect()
        size = self.widget.size()
        right = self.corner in (Qt.Corner.TopRightCorner, Qt.Corner.BottomRightCorner)
        bottom = self.corner in (Qt.Corner.BottomLeftCorner, Qt.Corner.BottomRightCorner)
        x = area.right() - size.width() - OVERLAY_MARGIN + 1 if right else OVERLAY_MARGIN
        y = area.bottom() - size.height() - OVERLAY_MARGIN + 1 if bottom else OVERLAY_MARGIN
        if (self.widget.x(), self.widget.y()) != (max(0, x), max(0, y)):
            self.widget.move(max(0, x), max(0, y))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Keep the widget in its corner when the viewport is resized."""
        if watched is self.view.viewport() and event.type() == QEvent.Type.Resize:
            self.place()
        return False
