"""A component on the canvas: a card with icon, title, key parameters, a live badge, and ports."""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyle

from inferboard.catalog.schema import ComponentKind, PortSpec
from inferboard.model import Node

from desktop import icons
from desktop.editor.canvas import style
from desktop.editor.canvas.design_item import DesignNodeItem
from desktop.theme import ON_BADGE, Theme

NODE_TYPE = QGraphicsItem.UserType + 1
PORT_TYPE = QGraphicsItem.UserType + 2


class PortItem(QGraphicsItem):
    """One connection point. Inputs sit on the card's left edge, outputs on its right edge."""

    def __init__(self, parent: "NodeItem", spec: PortSpec, direction: str, index: int):
        super().__init__(parent)
        self.node_item = parent
        self.spec = spec
        self.name = spec.name
        self.direction = direction
        self.signal = spec.signal
        self.connected = 0
        #: Feedback while wiring: None, "ok" or "bad".
        self.feedback: str | None = None
        self.hovered = False
        x = 0.0 if direction == "in" else style.CARD_WIDTH
        self.setPos(x, style.port_y(index))
        self.setAcceptHoverEvents(True)
        self.setZValue(2)
        self.setCursor(Qt.CursorShape.CrossCursor)
        kind_word = "input" if direction == "in" else "output"
        accepts = f"<br>Connects to: {', '.join(spec.accepts)}" if spec.accepts else ""
        self.setToolTip(f"<b>{spec.name}</b> ({kind_word}, {spec.signal})<br>{spec.help}{accepts}")

    def type(self) -> int:
        """The item type that tells ports from cards and wires."""
        return PORT_TYPE

    @property
    def node_id(self) -> str:
        """The id of the node this port belongs to."""
        return self.node_item.node_id

    def boundingRect(self) -> QRectF:
        """The area of the port's dot and its feedback ring."""
        return QRectF(-9, -9, 18, 18)

    def shape(self) -> QPainterPath:
        """A circle a little larger than the dot, easy to hit."""
        path = QPainterPath()
        path.addEllipse(QPointF(0, 0), 9, 9)
        return path

    def anchor(self) -> QPointF:
        """Where wires attach, in scene coordinates."""
        return self.scenePos()

    def paint(self, painter: QPainter, option, widget=None) -> None:
        """Draw the dot in the signal's colour (filled when connected or an output), ringed while wiring."""
        theme = self.node_item.theme
        colour = theme.signal_color(self.signal)
        radius = style.PORT_RADIUS + (1.5 if self.hovered or self.feedback else 0)
        if self.feedback:
            ring = QColor(theme.ok if self.feedback == "ok" else theme.bad)
            painter.setPen(QPen(ring, 2.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(QPointF(0, 0), radius + 3, radius + 3)
        painter.setPen(QPen(colour, 1.6))
        painter.setBrush(QBrush(colour if (self.connected or self.direction == "out") else QColor(theme.card)))
        painter.drawEllipse(QPointF(0, 0), radius, radius)

    def hoverEnterEvent(self, event) -> None:
        """Enlarge the dot and show the card's port labels."""
        self.hovered = True
        self.node_item.set_show_ports(True)
        self.update()

    def hoverLeaveEvent(self, event) -> None:
        """Shrink the dot and hide the card's port labels."""
        self.hovered = False
        self.node_item.set_show_ports(False)
        self.update()


class NodeItem(DesignNodeItem):
    """A component's card: icon, title, key parameters, a live badge and its ports."""

    def __init__(self, node: Node, kind: ComponentKind, theme: Theme):
        super().__init__(node, kind, theme)
        self.badge: tuple[str, str] | None = None
        self.badge_tip = ""
        self.show_ports = False
        #: At the figures' moment: what is wrong with this component (a fault, saturation), if anything.
        self.alert: str | None = None
        #: At the figures' moment: inside a region that is down.
        self.dimmed = False
        self.width = style.CARD_WIDTH
        self.rows: list[CardRow] = []
        self.height = style.card_height(kind)
        self.setAcceptHoverEvents(True)
        self.setZValue(10)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.ports: dict[tuple[str, str], PortItem] = {}
        for index, spec in enumerate(kind.inputs):
            self.ports["in", spec.name] = PortItem(self, spec, "in", index)
        for index, spec in enumerate(kind.outputs):
            self.ports["out", spec.name] = PortItem(self, spec, "out", index)
        self.set_node(node)

    def type(self) -> int:
        """The item type that tells cards from regions, ports and wires."""
        return NODE_TYPE

    # ------------------------------------------------------------ state
    def set_node(self, node: Node) -> None:
        """Show ``node``'s current parameters, label and position (the card grows for a long value)."""
        self.node = node
        self.rows = card_rows(self.kind, node.params, self.width)
        height = style.card_height(self.kind, sum(row.two_lines for row in self.rows))
        if height != self.height:  # a value that needs a line of its own makes the card taller
            self.prepareGeometryChange()
            self.height = height
        self.setPos(node.x, node.y)
        first = self.kind.description.strip().split(". ")[0].rstrip(".")
        self.setToolTip(f"<b>{self.title()}</b> — {self.kind.title}<br><i>{node.id}</i><br>{first}."
                        + (f"<hr>{self.badge_tip}" if self.badge_tip else ""))
        self.update()

    def title(self) -> str:
        """The card's title: the node's label, or its kind's title."""
        return self.node.label or self.kind.title

    def set_badge(self, badge: tuple[str, str] | None, tip: str = "") -> None:
        """Show a live badge (text, level) with a tooltip, or none."""
        if badge != self.badge or tip != self.badge_tip:
            self.badge = badge
            self.badge_tip = tip
            self.set_node(self.node)

    def title_font(self) -> QFont:
        """The title's font, shrunk (down to SMALLEST_TITLE_PT) so that the whole title fits."""
        return fitting_font(card_fonts()["title"], self.title(), self.width - 46)

    def title_lines(self) -> tuple[QFont, list[str]]:
        """The title as drawn: on one line, shrunk no smaller than ONE_LINE_PT, or else on two lines
        (broken between words) at up to TWO_LINE_PT, so a long label is shown whole, not cut."""
        return title_layout(card_fonts()["title"], self.title(), self.width - 46)

    def set_moment(self, alert: str | None, dimmed: bool) -> None:
        """Mark the component as failing (``alert``) or dead with its region (``dimmed``)."""
        if alert != self.alert or dimmed != self.dimmed:
            self.prepareGeometryChange()
            self.alert, self.dimmed = alert, dimmed
            self.update()

    def set_show_ports(self, on: bool) -> None:
        """Show or hide the ports' labels."""
        if on != self.show_ports:
            self.show_ports = on
            self.update()

    def set_theme(self, theme: Theme) -> None:
        """Redraw the card and its ports in ``theme``'s colours."""
        super().set_theme(theme)
        for port in self.ports.values():
            port.update()

    def move_to(self, pos: QPointF, update_edges: bool = True) -> None:
        """Move visually (a gesture in flight, or a model event) and drag the wires along (a
        gesture moving many nodes updates each wire once itself)."""
        before = self.sceneBoundingRect()
        self.setPos(pos)
        if update_edges:
            for edge in self.edges:
                edge.update_path()
            scene = self.scene()
            if scene is not None and hasattr(scene, "reroute_near"):
                scene.reroute_near([before, self.sceneBoundingRect()], self.edges)

    # ------------------------------------------------------------ geometry
    def boundingRect(self) -> QRectF:
        """The card's area with its shadow, ports and any alert strip."""
        return self.rect().adjusted(-12, -6, 12, 8 + (ALERT_HEIGHT + 4 if self.alert else 0))

    def shape(self) -> QPainterPath:
        """The card's rounded rectangle."""
        path = QPainterPath()
        path.addRoundedRect(self.rect(), 8, 8)
        return path

    # ------------------------------------------------------------ painting
    def paint(self, painter: QPainter, option, widget=None) -> None:
        """Draw the card: shadow, body, header with icon and title, parameter rows, badge, alert, ports' labels."""
        theme = self.theme
        rect = self.rect()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(theme.card_shadow))
        painter.drawRoundedRect(rect.translated(0, 2.5), 8, 8)
        painter.setBrush(QColor(theme.card))
        painter.drawRoundedRect(rect, 8, 8)
        header = QPainterPath()
        header.addRoundedRect(QRectF(0, 0, self.width, style.HEADER_HEIGHT + 8), 8, 8)
        clip = QPainterPath()
        clip.addRect(QRectF(0, 0, self.width, style.HEADER_HEIGHT))
        painter.setBrush(QColor(theme.card_header))
        painter.drawPath(header.intersected(clip))
        painter.setPen(QPen(QColor(theme.card_border), 1))
        painter.drawLine(QPointF(0.5, style.HEADER_HEIGHT), QPointF(self.width - 0.5, style.HEADER_HEIGHT))
        self._paint_header(painter, theme)
        if self.show_ports:
            self._paint_port_labels(painter, theme)
        else:
            self._paint_params(painter, theme)
        lines = theme.line_scale
        if self.highlighted:
            border = QPen(QColor(theme.highlight), 3 * lines)
        elif selected:
            border = QPen(QColor(theme.selection), 2.2 * lines)
        else:
            border = QPen(QColor(theme.card_border), 1 * lines)
        if self.alert:
            border = QPen(QColor(theme.bad), 3 * lines)
        painter.setPen(border)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(rect, 8, 8)
        if self.dimmed:
            veil = QColor(theme.canvas)
            veil.setAlphaF(0.6)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(veil)
            painter.drawRoundedRect(rect, 8, 8)
        if self.alert:
            self._paint_alert(painter, theme)

    def _paint_alert(self, painter: QPainter, theme: Theme) -> None:
        font = card_fonts()["badge"]
        painter.setFont(font)
        metrics = QFontMetricsF(font)
        text = metrics.elidedText(f"⚠ {self.alert}", Qt.TextElideMode.ElideRight, self.width - 12)
        strip = QRectF(4, self.height + 3, min(self.width - 8, metrics.horizontalAdvance(text) + 12), ALERT_HEIGHT)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(theme.bad))
        painter.drawRoundedRect(strip, 6, 6)
        painter.setPen(QColor(ON_BADGE))
        painter.drawText(strip, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_header(self, painter: QPainter, theme: Theme) -> None:
        renderer = icons.renderer(self.kind.id, theme.dark)
        renderer.render(painter, QRectF(9, 9, 22, 22))
        fonts = card_fonts()
        painter.setPen(QColor(theme.text))
        title_width = self.width - 46
        font, lines = self.title_lines()
        painter.setFont(font)
        metrics = QFontMetricsF(font)
        if len(lines) == 1:
            title = metrics.elidedText(lines[0], Qt.TextElideMode.ElideRight, title_width)
            painter.drawText(QRectF(38, 4, title_width, 17), Qt.AlignmentFlag.AlignVCenter, title)
            sub_top = 21.0
        else:  # two lines: the id line moves down a little
            step = metrics.lineSpacing()
            for row, line in enumerate(lines):
                painter.drawText(QRectF(38, 1 + row * step, title_width, step), Qt.AlignmentFlag.AlignVCenter,
                                 metrics.elidedText(line, Qt.TextElideMode.ElideRight, title_width))
            sub_top = min(25.0, 1 + 2 * step)
        sub_width = self.width - 46
        if self.badge:  # the live badge shares the second line with the id, on the right
            text, level = self.badge
            painter.setFont(fonts["badge"])
            width = QFontMetricsF(fonts["badge"]).horizontalAdvance(text) + 10
            pill = QRectF(self.width - 8 - width, sub_top + 0.5, width, 14 if sub_top < 22 else 13)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(getattr(theme, level, theme.muted)))
            painter.drawRoundedRect(pill, 7, 7)
            painter.setPen(QColor(ON_BADGE))
            painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)
            sub_width = pill.left() - 4 - 38
        painter.setPen(QColor(theme.muted))
        painter.setFont(fonts["small"])
        small = QFontMetricsF(fonts["small"])
        if sub_width < small.horizontalAdvance(self.node_id[:4] + "…"):
            return  # a badge leaves no room for the id worth reading (it is in the tooltip and inspector)
        sub = small.elidedText(self.node_id, Qt.TextElideMode.ElideMiddle, sub_width)
        painter.drawText(QRectF(38, sub_top, sub_width, 15 if sub_top < 22 else 14), Qt.AlignmentFlag.AlignVCenter, sub)

    def _paint_params(self, painter: QPainter, theme: Theme) -> None:
        fonts = card_fonts()
        labels, values = QFontMetricsF(fonts["label"]), QFontMetricsF(fonts["value"])
        inner = self.width - 2 * ROW_INSET
        y = style.HEADER_HEIGHT + 8
        for row in self.rows:
            value_top = y + style.LINE_HEIGHT if row.two_lines else y
            value_width = inner if row.two_lines else min(values.horizontalAdvance(row.value) + 2, inner)
            painter.setFont(fonts["value"])
            painter.setPen(QColor(theme.text))
            painter.drawText(QRectF(self.width - ROW_INSET - value_width, value_top, value_width, style.LINE_HEIGHT),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             values.elidedText(row.value, Qt.TextElideMode.ElideRight, value_width))
            label_width = inner if row.two_lines else inner - value_width - ROW_GAP
            painter.setFont(fonts["label"])
            painter.setPen(QColor(theme.muted))
            painter.drawText(QRectF(ROW_INSET, y, label_width, style.LINE_HEIGHT), Qt.AlignmentFlag.AlignVCenter,
                             labels.elidedText(row.label, Qt.TextElideMode.ElideRight, label_width))
            y += style.LINE_HEIGHT * (2 if row.two_lines else 1)

    def _paint_port_labels(self, painter: QPainter, theme: Theme) -> None:
        painter.setFont(card_fonts()["label"])
        half = self.width / 2 - 14
        for (direction, name), port in self.ports.items():
            y = port.pos().y() - style.LINE_HEIGHT / 2
            painter.setPen(theme.signal_color(port.signal))
            if direction == "in":
                painter.drawText(QRectF(12, y, half, style.LINE_HEIGHT), Qt.AlignmentFlag.AlignVCenter, name)
            else:
                painter.drawText(QRectF(self.width - 12 - half, y, half, style.LINE_HEIGHT),
                                 Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, name)


ALERT_HEIGHT = 16
SMALLEST_TITLE_PT = 7.0
#: Space left and right of a card's parameter rows, and between a label and its value.
ROW_INSET = 14.0
ROW_GAP = 6.0


class CardRow(NamedTuple):
    """One parameter row of a card: its label, its value and whether they need two lines."""

    label: str
    value: str
    #: The value sits on a line of its own under the label (the two do not fit side by side).
    two_lines: bool


def card_rows(kind: ComponentKind, params: Mapping[str, Any], width: float = style.CARD_WIDTH) -> list[CardRow]:
    """The parameter rows a card shows: a label on the left and its value on the right, or, where
    they do not fit side by side, the value on the next line, so neither is cut."""
    fonts = card_fonts()
    labels, values = QFontMetricsF(fonts["label"]), QFontMetricsF(fonts["value"])
    inner = width - 2 * ROW_INSET
    rows = []
    for name in kind.card_params:
        spec = kind.param(name)
        label = spec.title if spec else name
        value = style.format_value(spec, params.get(name))
        fits = labels.horizontalAdvance(label) + ROW_GAP + values.horizontalAdvance(value) + 2 <= inner
        rows.append(CardRow(label, value, not fits))
    return rows


def card_size(kind: ComponentKind, params: Mapping[str, Any]) -> tuple[float, float]:
    """The width and height of the card for a component of ``kind`` with ``params``."""
    rows = card_rows(kind, params)
    return style.CARD_WIDTH, style.card_height(kind, sum(row.two_lines for row in rows))


#: A title is shrunk down to this on one line before it goes onto two.
ONE_LINE_PT = 8.0
#: The largest size a two-line title is drawn at.
TWO_LINE_PT = 7.5


def fitting_font(font: QFont, text: str, width: float, smallest: float = SMALLEST_TITLE_PT) -> QFont:
    """``font``, made smaller (down to ``smallest``) until ``text`` fits ``width``."""
    fitted = QFont(font)
    size = fitted.pointSizeF()
    while size > smallest and QFontMetricsF(fitted).horizontalAdvance(text) > width:
        size -= 0.5
        fitted.setPointSizeF(size)
    return fitted


def two_lines(text: str, metrics: QFontMetricsF, width: float) -> list[str] | None:
    """``text`` broken between words into two lines that each fit ``width`` (the first as full as
    it can be), or None."""
    words = text.split()
    for cut in range(len(words) - 1, 0, -1):
        first, second = " ".join(words[:cut]), " ".join(words[cut:])
        if metrics.horizontalAdvance(first) <= width:
            return [first, second] if metrics.horizontalAdvance(second) <= width else None
    return None


def title_layout(font: QFont, text: str, width: float) -> tuple[QFont, list[str]]:
    """One line down to ONE_LINE_PT, else two lines from TWO_LINE_PT down to SMALLEST_TITLE_PT, else
    one line at the smallest size (cut only then: one word longer than the card)."""
    one = fitting_font(font, text, width, ONE_LINE_PT)
    if QFontMetricsF(one).horizontalAdvance(text) <= width:
        return one, [text]
    two = QFont(font)
    size = min(TWO_LINE_PT, font.pointSizeF())
    while size >= SMALLEST_TITLE_PT - 1e-9:
        two.setPointSizeF(size)
        lines = two_lines(text, QFontMetricsF(two), width)
        if lines is not None:
            return two, lines
        size -= 0.5
    return fitting_font(font, text, width), [text]
_FONTS: dict = {}


def card_fonts() -> dict:
    """The fonts cards are drawn with (title, small, label, value, badge), made once."""
    if not _FONTS:
        _FONTS.update(title=style.ui_font(9.0, True), small=style.ui_font(7.5), label=style.ui_font(8.0),
                      value=style.ui_font(8.0, True), badge=style.ui_font(7.5, True))
    return _FONTS
