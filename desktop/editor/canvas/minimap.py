"""The minimap (View > Minimap, Ctrl+M): the whole design in the canvas's bottom-right corner, with
the part the view shows outlined. Drawn from the model, not from a second scene: a box per card or
region and a straight line per wire, into a picture kept until the design changes, so that a frame
of a large design costs one picture copy and a rectangle. Click or drag in it to move the view."""

from __future__ import annotations

from PySide6.QtCore import QLineF, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QGraphicsView, QWidget

from inferboard.model import Design

from desktop.editor.canvas import placement
from desktop.theme import LIGHT, Theme

MINIMAP_SIZE = QSize(220, 150)
#: Scene units of empty space round the design inside the minimap.
PAD = 120.0


class Minimap(QWidget):
    """The minimap in a corner of the canvas: the whole design small, the visible part framed; click or drag to pan."""

    def __init__(self, view: QGraphicsView, design_of, parent: QWidget | None = None):
        super().__init__(parent or view.viewport())
        self.setObjectName("minimap")
        self.setAccessibleName("Minimap")
        self.setToolTip("The whole design; the outlined part is in view. Click or drag to move there.")
        self.setFixedSize(MINIMAP_SIZE)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.view = view
        self.design_of = design_of
        self.theme = LIGHT
        self._picture: QPixmap | None = None
        #: Scene rectangle the picture shows, and minimap pixels per scene unit.
        self.world = QRectF()
        self.scale = 1.0
        self._offset = QPointF()
        self._grab: QPointF | None = None
        #: node id -> ((kind, params), its card's size): a card's size follows from those only, and
        #: working it out is most of a redraw of a large design.
        self._sizes: dict[str, tuple[object, tuple[float, float]]] = {}
        self.view.horizontalScrollBar().valueChanged.connect(self.update)
        self.view.verticalScrollBar().valueChanged.connect(self.update)
        self.hide()

    # ------------------------------------------------------------------ state
    def invalidate(self, *_args) -> None:
        """The design changed: draw it again at the next paint (only if shown)."""
        self._picture = None
        if self.isVisible():
            self.update()

    def set_theme(self, theme: Theme) -> None:
        """Redraw in ``theme``'s colours."""
        self.theme = theme
        self.invalidate()

    def to_map(self, point: QPointF) -> QPointF:
        """A scene point in the minimap's coordinates."""
        return QPointF((point.x() - self.world.left()) * self.scale + self._offset.x(),
                       (point.y() - self.world.top()) * self.scale + self._offset.y())

    def to_scene(self, point: QPointF) -> QPointF:
        """A minimap point in scene coordinates."""
        return QPointF((point.x() - self._offset.x()) / self.scale + self.world.left(),
                       (point.y() - self._offset.y()) / self.scale + self.world.top())

    def visible_scene_rect(self) -> QRectF:
        """The part of the scene the canvas shows now."""
        return self.view.mapToScene(self.view.viewport().rect()).boundingRect()

    # ------------------------------------------------------------------ drawing
    def _fit(self, design: Design) -> list[tuple[bool, QRectF]]:
        """The design's boxes (container?, rect) and the scale and offset that fit them in."""
        boxes = []
        for node in design.nodes.values():
            container = design.catalog.kind(node.kind).container
            known = self._sizes.get(node.id)
            if container or known is None or known[0] != (node.kind, node.params):
                x, y, w, h = placement.node_rect(design, node)
                known = ((node.kind, node.params), (w, h))
                self._sizes[node.id] = known
            boxes.append((container, QRectF(node.x, node.y, *known[1])))
        world = QRectF()
        for _container, rect in boxes:
            world = world.united(rect)
        self.world = world.adjusted(-PAD, -PAD, PAD, PAD) if boxes else QRectF(-500, -400, 1000, 800)
        self.scale = min(self.width() / self.world.width(), self.height() / self.world.height())
        self._offset = QPointF((self.width() - self.world.width() * self.scale) / 2,
                               (self.height() - self.world.height() * self.scale) / 2)
        return boxes

    def _draw_design(self) -> QPixmap:
        design = self.design_of()
        boxes = self._fit(design)
        ratio = self.devicePixelRatioF()
        picture = QPixmap(self.size() * ratio)
        picture.setDevicePixelRatio(ratio)
        picture.fill(QColor(self.theme.canvas))
        painter = QPainter(picture)
        centres = {}
        for (container, rect), node_id in zip(boxes, design.nodes):
            shown = QRectF(self.to_map(rect.topLeft()), self.to_map(rect.bottomRight()))
            centres[node_id] = shown.center()
            painter.setPen(QPen(QColor(self.theme.region_border if container else self.theme.card_border), 0))
            painter.setBrush(QColor(self.theme.region_fill if container else self.theme.card_header))
            painter.drawRect(shown)
        wire = QColor(self.theme.muted)
        wire.setAlphaF(0.55)
        painter.setPen(QPen(wire, 0))
        painter.drawLines([QLineF(centres[e.source], centres[e.target]) for e in design.edges.values()
                           if e.source in centres and e.target in centres])
        painter.end()
        return picture

    def design_picture(self) -> QPixmap:
        """The design's boxes and lines without the view's outline (drawn again after a change)."""
        if self._picture is None:
            self._picture = self._draw_design()
        return self._picture

    def paintEvent(self, _event: QPaintEvent) -> None:
        """Draw the cached picture of the design and the frame of the visible part."""
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self.design_picture())
        visible = self.visible_scene_rect()
        frame = QRectF(self.to_map(visible.topLeft()), self.to_map(visible.bottomRight()))
        selection = QColor(self.theme.selection)
        painter.setPen(QPen(selection, 2))
        selection.setAlphaF(0.2)
        painter.setBrush(selection)
        painter.drawRect(frame.intersected(QRectF(self.rect()).adjusted(1, 1, -1, -1)))
        painter.setPen(QPen(QColor(self.theme.card_border), 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5))
        painter.end()

    def resizeEvent(self, event) -> None:
        """Redraw the design's picture at the new size."""
        super().resizeEvent(event)
        self.invalidate()

    def showEvent(self, event) -> None:
        """Draw the design afresh when shown (it was not kept up to date while hidden)."""
        super().showEvent(event)
        self._picture = None

    # ------------------------------------------------------------------ moving the view
    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Centre the canvas on the clicked point, or start dragging the visible frame."""
        if event.button() != Qt.MouseButton.LeftButton:
            return super().mousePressEvent(event)
        self.design_picture()
        at = self.to_scene(event.position())
        visible = self.visible_scene_rect()
        # Grabbing the outline keeps the point held under the cursor; elsewhere the view jumps there.
        self._grab = at - visible.center() if visible.contains(at) else QPointF(0, 0)
        self.view.centerOn(at - self._grab)
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        """Pan the canvas as the frame is dragged."""
        if self._grab is None:
            return super().mouseMoveEvent(event)
        self.view.centerOn(self.to_scene(event.position()) - self._grab)
        event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """Stop dragging the frame."""
        self._grab = None
        event.accept()
