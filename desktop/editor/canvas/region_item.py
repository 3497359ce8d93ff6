"""A region container: a framed area that nodes are dropped into and that moves with them."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyle

from inferboard.catalog.schema import ComponentKind
from inferboard.model import Node

from desktop import icons
from desktop.editor.canvas import style
from desktop.editor.canvas.design_item import DesignNodeItem
from desktop.editor.canvas.node_item import card_fonts
from desktop.theme import Theme

REGION_TYPE = QGraphicsItem.UserType + 3
GRIP = 14.0


class RegionItem(DesignNodeItem):
    """A region on the canvas: a framed area with a title bar, a resize grip and its live figures."""

    def __init__(self, node: Node, kind: ComponentKind, theme: Theme):
        super().__init__(node, kind, theme)
        self.drop_target = False
        #: At the figures' moment: why the region is down ("DOWN · Region outage 10:00–12:00 ..."), if it is.
        self.down_label: str | None = None
        self.width, self.height = 360.0, 260.0
        self.setZValue(-10)
        self.set_node(node)

    def type(self) -> int:
        """The item type that tells regions from cards, ports and wires."""
        return REGION_TYPE

    def set_node(self, node: Node) -> None:
        """Show ``node``'s current position, size and label."""
        self.prepareGeometryChange()
        self.node = node
        self.width = node.width or 360.0
        self.height = node.height or 260.0
        self.setPos(node.x, node.y)
        self.setToolTip(f"<b>{self.title()}</b> — region<br><i>{node.id}</i><br>Drop components here to place "
                        "them in this region; drag the title bar to move the region with its contents.")
        self.update()

    def title(self) -> str:
        """The region's title: its label, or "Region" and its location."""
        location = self.node.params.get("location", "")
        return self.node.label or f"Region {location}".strip()

    def set_badge(self, badge, tip: str = "") -> None:
        """Keep a live badge for the region (regions show their figures in the title bar)."""
        self.badge = badge

    def set_down(self, label: str | None) -> None:
        """Mark the region as down at the figures' moment with ``label``, or clear the mark."""
        if label != self.down_label:
            self.down_label = label
            self.update()

    def set_drop_target(self, on: bool) -> None:
        """Show or hide the tint that says a dragged card would land in this region."""
        if on != self.drop_target:
            self.drop_target = on
            self.update()

    def resize_to(self, width: float, height: float) -> None:
        """Resize to ``width`` by ``height`` (a gesture in flight or a model event)."""
        self.prepareGeometryChange()
        self.width, self.height = width, height
        self.update()

    def header_rect(self) -> QRectF:
        """The title bar, the part that drags the region with its contents."""
        return QRectF(0, 0, self.width, style.REGION_HEADER)

    def grip_rect(self) -> QRectF:
        """The corner grip that resizes the region."""
        return QRectF(self.width - GRIP, self.height - GRIP, GRIP, GRIP)

    def boundingRect(self) -> QRectF:
        """The region's frame with room for a thick selection border."""
        return self.rect().adjusted(-3, -3, 3, 3)

    def shape(self) -> QPainterPath:
        """The whole framed area."""
        path = QPainterPath()
        path.addRect(self.rect())
        return path

    def paint(self, painter: QPainter, option, widget=None) -> None:
        """Draw the frame, the title bar, the grip, and the marks for selection, highlight, drop target and outage."""
        theme = self.theme
        rect = self.rect()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fill = QColor(theme.region_fill)
        fill.setAlphaF(0.55)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, 10, 10)
        header = QColor(theme.region_border)
        header.setAlphaF(0.35)
        path = QPainterPath()
        path.addRoundedRect(QRectF(0, 0, self.width, style.REGION_HEADER + 10), 10, 10)
        clip = QPainterPath()
        clip.addRect(self.header_rect())
        painter.setBrush(header)
        painter.drawPath(path.intersected(clip))
        icons.renderer(self.kind.id, theme.dark).render(painter, QRectF(10, 6, 18, 18))
        fonts = card_fonts()
        painter.setFont(fonts["title"])
        painter.setPen(QColor(theme.text))
        metrics = QFontMetricsF(fonts["title"])
        title = metrics.elidedText(self.title(), Qt.TextElideMode.ElideRight, self.width * 0.55)
        painter.drawText(QRectF(34, 0, self.width * 0.55, style.REGION_HEADER), Qt.AlignmentFlag.AlignVCenter, title)
        details = " · ".join(style.format_value(self.kind.param(n), self.node.params.get(n))
                             for n in ("role", "residency") if n in self.node.params)
        painter.setFont(fonts["small"])
        painter.setPen(QColor(theme.muted))
        if self.down_label:
            self._paint_down(painter, theme)
            details = self.down_label
            painter.setFont(fonts["title"])
            painter.setPen(QColor(theme.bad))
        left = 40 + metrics.horizontalAdvance(title)
        painter.drawText(QRectF(left, 0, self.width - left - 10, style.REGION_HEADER),
                         Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
                         QFontMetricsF(painter.font()).elidedText(details, Qt.TextElideMode.ElideLeft,
                                                                  max(0.0, self.width - left - 10)))
        if self.drop_target:
            tint = QColor(theme.drop_target)
            tint.setAlphaF(0.10)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(tint)
            painter.drawRoundedRect(rect, 10, 10)
            pen = QPen(QColor(theme.drop_target), 2.5, Qt.PenStyle.DashLine)
        elif self.highlighted:
            pen = QPen(QColor(theme.highlight), 3 * theme.line_scale)
        elif selected:
            pen = QPen(QColor(theme.selection), 2.2 * theme.line_scale)
        elif self.down_label:
            pen = QPen(QColor(theme.bad), 2.5 * theme.line_scale, Qt.PenStyle.DashLine)
        else:
            pen = QPen(QColor(theme.region_border), 1.4 * theme.line_scale)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(rect, 10, 10)
        painter.setPen(QPen(QColor(theme.region_border), 1.2))
        for offset in (4.0, 8.0):
            painter.drawLine(QPointF(self.width - offset, self.height - 3),
                             QPointF(self.width - 3, self.height - offset))

    def _paint_down(self, painter: QPainter, theme: Theme) -> None:
        """A region that is down: greyed and hatched under its cards."""
        veil = QColor(theme.muted)
        veil.setAlphaF(0.25)
        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(veil)
        painter.drawRoundedRect(self.rect(), 10, 10)
        hatch = QColor(theme.bad)
        hatch.setAlphaF(0.18)
        painter.setBrush(QBrush(hatch, Qt.BrushStyle.BDiagPattern))
        painter.drawRoundedRect(self.rect(), 10, 10)
        painter.restore()
