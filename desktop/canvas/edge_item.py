"""A wire between an output port and an input port, drawn as a curve with an arrowhead."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPainterPathStroker, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QStyle

from inferboard.model import Edge

from desktop.theme import Theme

EDGE_TYPE = QGraphicsItem.UserType + 4
DASHES = {"telemetry": Qt.PenStyle.DashLine, "control": Qt.PenStyle.DashDotLine, "artifacts": Qt.PenStyle.DotLine,
          "alerts": Qt.PenStyle.DashLine, "triggers": Qt.PenStyle.DashDotDotLine}


def wire_path(start: QPointF, end: QPointF) -> QPainterPath:
    """A cubic curve leaving the output port to the right and entering the input port from the left."""
    reach = max(40.0, abs(end.x() - start.x()) * 0.5, min(160.0, abs(end.y() - start.y()) * 0.4))
    path = QPainterPath(start)
    path.cubicTo(QPointF(start.x() + reach, start.y()), QPointF(end.x() - reach, end.y()), end)
    return path


def arrow_head(tip: QPointF, angle: float, size: float = 9.0) -> QPolygonF:
    left = QPointF(tip.x() - size * math.cos(angle - 0.42), tip.y() - size * math.sin(angle - 0.42))
    right = QPointF(tip.x() - size * math.cos(angle + 0.42), tip.y() - size * math.sin(angle + 0.42))
    return QPolygonF([tip, left, right])


ARROW = arrow_head(QPointF(0, 0), 0.0)


class EdgeItem(QGraphicsItem):
    def __init__(self, edge: Edge, source_port, target_port, signal: str, theme: Theme):
        super().__init__()
        self.edge = edge
        self.edge_id = edge.id
        self.source_port = source_port
        self.target_port = target_port
        self.signal = signal
        self.theme = theme
        self.highlighted = False
        self.hovered = False
        self._path = QPainterPath()
        self._shape: QPainterPath | None = None
        self._arrow = QPolygonF()
        self._bounds = QRectF()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(-5)
        self.setToolTip(f"{edge.source}.{edge.source_port} → {edge.target}.{edge.target_port} ({signal})")
        self.update_path()

    def type(self) -> int:
        return EDGE_TYPE

    def update_path(self) -> None:
        """Follow the ports (called for every frame of a drag, so kept cheap: the hit-test shape is
        built only when asked for)."""
        start = self.source_port.anchor() + QPointF(4, 0)
        end = self.target_port.anchor() - QPointF(6, 0)
        self.prepareGeometryChange()
        self._path = wire_path(start, end)
        # The curve enters the input port horizontally, so the arrow always points right.
        self._arrow = ARROW.translated(end.x() + 3, end.y())
        self._shape = None
        self._bounds = self._path.controlPointRect().adjusted(-8, -8, 8, 8)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def set_highlighted(self, on: bool) -> None:
        if on != self.highlighted:
            self.highlighted = on
            self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        if self._shape is None:
            stroker = QPainterPathStroker()
            stroker.setWidth(10)
            self._shape = stroker.createStroke(self._path)
        return self._shape

    def hoverEnterEvent(self, event) -> None:
        self.hovered = True
        self.update()

    def hoverLeaveEvent(self, event) -> None:
        self.hovered = False
        self.update()

    def paint(self, painter: QPainter, option, widget=None) -> None:
        theme = self.theme
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        colour = theme.signal_color(self.signal)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        width = 1.8 if self.signal == "requests" else 1.4
        if selected or self.highlighted:
            halo = QColor(theme.highlight if self.highlighted else theme.selection)
            halo.setAlphaF(0.35)
            painter.setPen(QPen(halo, 7, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
            painter.drawPath(self._path)
        elif self.hovered:
            width += 1.0
        pen = QPen(colour, width, DASHES.get(self.signal, Qt.PenStyle.SolidLine), Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self._path)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        painter.drawPolygon(self._arrow)
