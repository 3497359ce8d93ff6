"""A wire between an output port and an input port, routed orthogonally around the cards (see
routing.py) with rounded corners and an arrowhead."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPainterPathStroker, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QStyle

from inferboard.model import Edge

from desktop.editor.canvas import routing
from desktop.editor.canvas.node_item import NODE_TYPE
from desktop.theme import Theme

EDGE_TYPE = QGraphicsItem.UserType + 4
DASHES = {"telemetry": Qt.PenStyle.DashLine, "control": Qt.PenStyle.DashDotLine, "artifacts": Qt.PenStyle.DotLine,
          "alerts": Qt.PenStyle.DashLine, "triggers": Qt.PenStyle.DashDotDotLine}


CORNER = 8.0


def wire_path(start: QPointF, end: QPointF, points: list[tuple[float, float]] | None = None) -> QPainterPath:
    """The wire through ``points`` (its corners, start and end included) with rounded corners;
    without points, the plain forward route with one vertical run half-way."""
    if points is None:
        points = routing.route((start.x(), start.y()), (end.x(), end.y()), (start.x() - 1, start.y(), 0, 0),
                               (end.x() + 1, end.y(), 0, 0))
    path = QPainterPath(QPointF(*points[0]))
    for index in range(1, len(points) - 1):
        (ax, ay), (bx, by), (cx, cy) = points[index - 1], points[index], points[index + 1]
        r = min(CORNER, math.hypot(bx - ax, by - ay) / 2, math.hypot(cx - bx, cy - by) / 2)
        before = QPointF(bx - r * _sign(bx - ax), by - r * _sign(by - ay))
        after = QPointF(bx + r * _sign(cx - bx), by + r * _sign(cy - by))
        path.lineTo(before)
        path.quadTo(QPointF(bx, by), after)
    path.lineTo(QPointF(*points[-1]))
    return path


def _sign(value: float) -> float:
    return (value > 0) - (value < 0)


def card_rect(item: QGraphicsItem) -> tuple[float, float, float, float]:
    """A card's area in scene coordinates as (x, y, w, h)."""
    rect = item.mapRectToScene(item.rect())
    return rect.x(), rect.y(), rect.width(), rect.height()


def arrow_head(tip: QPointF, angle: float, size: float = 9.0) -> QPolygonF:
    """The triangle of an arrow whose tip is at ``tip``, pointing along ``angle`` (radians)."""
    left = QPointF(tip.x() - size * math.cos(angle - 0.42), tip.y() - size * math.sin(angle - 0.42))
    right = QPointF(tip.x() - size * math.cos(angle + 0.42), tip.y() - size * math.sin(angle + 0.42))
    return QPolygonF([tip, left, right])


ARROW = arrow_head(QPointF(0, 0), 0.0)


class EdgeItem(QGraphicsItem):
    """A wire between two ports, routed around the cards, coloured by its signal."""

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
        """The item type that tells wires from cards and ports."""
        return EDGE_TYPE

    def update_path(self, avoid: bool = True) -> None:
        """Follow the ports (called for every frame of a drag, so kept cheap: the hit-test shape is
        built only when asked for). Without ``avoid``, the route ignores the other cards: a large
        selection in flight routes its wires that way and avoids the cards once it is dropped."""
        if not self.pos().isNull():
            self.setPos(0, 0)  # the path is worked out in scene coordinates again (see ``follow``)
        start = self.source_port.anchor() + QPointF(4, 0)
        end = self.target_port.anchor() - QPointF(6, 0)
        self.prepareGeometryChange()
        self.points = routing.route((start.x(), start.y()), (end.x(), end.y()),
                                    card_rect(self.source_port.node_item), card_rect(self.target_port.node_item),
                                    self.obstacles(start, end) if avoid else ())
        self._path = wire_path(start, end, self.points)
        # The wire enters the input port horizontally, so the arrow always points right.
        self._arrow = ARROW.translated(end.x() + 3, end.y())
        self._shape = None
        self._bounds = self._path.controlPointRect().adjusted(-8, -8, 8, 8)

    def follow(self, offset: QPointF) -> None:
        """Shift the wire as it was by ``offset``, unrouted: a wire between two cards dragged
        together keeps its shape while they move, and is routed again when they are dropped."""
        self.setPos(offset)

    def path_in_scene(self) -> QPainterPath:
        """The wire's route in scene coordinates."""
        return self.mapToScene(self._path)

    def obstacles(self, start: QPointF, end: QPointF) -> list[tuple[float, float, float, float]]:
        """The other cards near the wire (regions are not obstacles: wires run inside them)."""
        scene = self.scene()
        if scene is None:
            return []
        ends = (self.source_port.node_item, self.target_port.node_item)
        area = QRectF(start, end).normalized().adjusted(-400, -400, 400, 400)
        return [card_rect(item) for item in scene.items(area) if item.type() == NODE_TYPE and item not in ends]

    def itemChange(self, change, value):
        """Route the wire again once it joins a scene (the cards it must avoid are known then)."""
        if change == QGraphicsItem.GraphicsItemChange.ItemSceneHasChanged and value is not None:
            self.update_path()  # now the other cards can be seen
        return super().itemChange(change, value)

    def set_theme(self, theme: Theme) -> None:
        """Redraw in ``theme``'s colours."""
        self.theme = theme
        self.update()

    def set_highlighted(self, on: bool) -> None:
        """Draw or stop drawing the highlight halo."""
        if on != self.highlighted:
            self.highlighted = on
            self.update()

    def boundingRect(self) -> QRectF:
        """The area the wire, its arrow and its halo are drawn in."""
        return self._bounds

    def shape(self) -> QPainterPath:
        """A band 10 px wide along the wire, so a thin line is easy to click."""
        if self._shape is None:
            stroker = QPainterPathStroker()
            stroker.setWidth(10)
            self._shape = stroker.createStroke(self._path)
        return self._shape

    def hoverEnterEvent(self, event) -> None:
        """Thicken the wire under the pointer."""
        self.hovered = True
        self.update()

    def hoverLeaveEvent(self, event) -> None:
        """Draw the wire at its usual width again."""
        self.hovered = False
        self.update()

    def paint(self, painter: QPainter, option, widget=None) -> None:
        """Draw the wire, its arrow, and a halo when selected, hovered or highlighted."""
        theme = self.theme
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        colour = theme.signal_color(self.signal)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        width = (1.8 if self.signal == "requests" else 1.4) * theme.line_scale
        if selected or self.highlighted:
            halo = QColor(theme.highlight if self.highlighted else theme.selection)
            halo.setAlphaF(0.35)
            painter.setPen(QPen(halo, 7 * theme.line_scale, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
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
