"""The canvas view: wheel zoom at the cursor, panning (middle button or Space+drag), rubber-band
selection, zoom to fit, drops from the palette, and arrow-key nudges."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QKeyEvent, QPainter, QWheelEvent
from PySide6.QtWidgets import QFrame, QGraphicsView

from desktop.editor.canvas import style
from desktop.editor.canvas.scene import DesignScene

KIND_MIME = "application/x-inferboard-kind"
MIN_ZOOM, MAX_ZOOM = 0.1, 4.0
#: The least zoom a design opens at: card text (7.5-9 pt) stays at 8 px or more on screen.
LEGIBLE_ZOOM = 0.8
NUDGE_KEYS = {Qt.Key.Key_Left: (-1, 0), Qt.Key.Key_Right: (1, 0), Qt.Key.Key_Up: (0, -1), Qt.Key.Key_Down: (0, 1)}


class CanvasView(QGraphicsView):
    """The canvas's view: zoom, pan (middle button or Space), fit, arrow-key nudges, drops from the palette."""

    zoom_changed = Signal(float)
    #: A component kind was dropped from the palette at a scene position.
    kind_dropped = Signal(str, QPointF)
    #: Arrow keys: (dx, dy, auto-repeat)
    nudge_requested = Signal(float, float, bool)

    def __init__(self, scene: DesignScene, parent=None):
        super().__init__(scene, parent)
        self.setObjectName("canvas")
        self.setAccessibleName("Design canvas")
        self.setAccessibleDescription("The design diagram. Arrow keys move the selection; use the outline "
                                      "view for a list of every component and link.")
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing
                            | QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.ContainsItemShape)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontSavePainterState)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._pan_origin: QPointF | None = None
        self._space_held = False
        scene.layout_changed.connect(self.update_scene_rect)
        self._was_empty = None
        scene.document.changed.connect(self._refresh_empty_hint)
        scene.document.replaced.connect(self._refresh_empty_hint)
        self.update_scene_rect()

    def design_scene(self) -> DesignScene:
        """The scene this view shows."""
        return self.scene()  # type: ignore[return-value]

    # ------------------------------------------------------------------ zoom
    def zoom(self) -> float:
        """The current zoom factor (1 is 100%)."""
        return self.transform().m11()

    def set_zoom(self, factor: float, anchor: QPointF | None = None) -> None:
        """Zoom to ``factor`` keeping the scene point under ``anchor`` (viewport pixels; the
        centre by default) where it is, so a wheel zooms towards the cursor."""
        factor = max(MIN_ZOOM, min(MAX_ZOOM, factor))
        anchor_point = (anchor if anchor is not None else QPointF(self.viewport().rect().center())).toPoint()
        fixed = self.mapToScene(anchor_point)
        old = self.transformationAnchor()
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        scale = factor / self.zoom()
        self.scale(scale, scale)
        self.setTransformationAnchor(old)
        drift = self.mapFromScene(fixed) - anchor_point
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() + drift.x())
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() + drift.y())
        self.zoom_changed.emit(self.zoom())

    def zoom_in(self) -> None:
        """Zoom in by a quarter."""
        self.set_zoom(self.zoom() * 1.25)

    def zoom_out(self) -> None:
        """Zoom out by a quarter."""
        self.set_zoom(self.zoom() / 1.25)

    def reset_zoom(self) -> None:
        """Back to 100%."""
        self.set_zoom(1.0)

    def set_text_scale(self, scale: float) -> None:
        """Show the canvas ``scale`` times larger than the zoom asked for elsewhere would (Projector
        View): the current zoom grows by that much, and so do the least legible zoom a design opens
        at and the most a fit zooms in."""
        old = getattr(self, "text_scale", 1.0)
        self.text_scale = scale
        if abs(scale - old) > 1e-9:
            self.set_zoom(self.zoom() * scale / old)

    def fit_rect(self, rect: QRectF, max_zoom: float = 1.5) -> None:
        """Zoom and scroll so that ``rect`` fills the view, no closer than ``max_zoom``."""
        if rect.isNull() or rect.isEmpty():
            return
        max_zoom *= getattr(self, "text_scale", 1.0)
        self.update_scene_rect()
        margin = 40.0
        view = self.viewport().rect()
        sx = (view.width() - margin) / max(rect.width(), 1.0)
        sy = (view.height() - margin) / max(rect.height(), 1.0)
        factor = max(MIN_ZOOM, min(max_zoom, sx, sy))
        self.resetTransform()
        self.scale(factor, factor)
        self.centerOn(rect.center())
        self.zoom_changed.emit(self.zoom())

    def fit_all(self) -> None:
        """Fit the whole design in the view."""
        self.fit_rect(self.design_scene().nodes_rect())

    def fit_for_reading(self) -> bool:
        """How a design opens: fitted when that keeps the cards legible; otherwise at the least
        legible zoom, showing the design from its top-left corner (where the traffic enters).
        True if everything is in view."""
        rect = self.design_scene().nodes_rect()
        if rect.isNull() or rect.isEmpty():
            return True
        self.fit_rect(rect)
        legible = LEGIBLE_ZOOM * getattr(self, "text_scale", 1.0)
        if self.zoom() >= legible - 1e-9:
            return True
        self.resetTransform()
        self.scale(legible, legible)
        view = self.viewport().rect()
        margin = 30.0 / legible
        self.centerOn(QPointF(rect.left() - margin + view.width() / (2 * legible),
                              rect.top() - margin + view.height() / (2 * legible)))
        self.zoom_changed.emit(self.zoom())
        return False

    def fit_selection(self) -> None:
        """Fit the selected nodes in the view (nothing happens with none selected)."""
        ids = self.design_scene().selected_node_ids()
        if ids:
            self.fit_rect(self.design_scene().nodes_rect(ids))

    def centre_on_rect(self, rect: QRectF) -> None:
        """Centre ``rect`` in the view; zoom out (never in) if it does not fit at the current zoom."""
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        if rect.width() < visible.width() and rect.height() < visible.height():
            self.centerOn(rect.center())
        else:
            self.fit_rect(rect, max_zoom=self.zoom())

    def update_scene_rect(self) -> None:
        """Grow the scrollable area to keep a wide margin around the design."""
        scene = self.design_scene()
        rect = scene.nodes_rect().adjusted(-3000, -3000, 3000, 3000)
        rect = rect.united(QRectF(-3000, -3000, 6000, 6000))
        if not scene.sceneRect().contains(rect):
            scene.setSceneRect(scene.sceneRect().united(rect))

    def visible_centre(self) -> QPointF:
        """The centre of the visible part, in scene coordinates."""
        return self.mapToScene(self.viewport().rect().center())

    EMPTY_HINT = ("An empty canvas\n\nDrag a component here from the Palette, or press Ctrl+Shift+A to search "
                  "for one and Enter to add it.\nFile > New from Template (Ctrl+Shift+N) starts from an example; "
                  "Help > Getting Started explains the rest.")

    def _refresh_empty_hint(self, *_args) -> None:
        empty = self.showing_empty_hint()
        if empty != self._was_empty:
            self._was_empty = empty
            self.viewport().update()

    def showing_empty_hint(self) -> bool:
        """An editable, empty canvas says how to start (a read-only mirror or replay does not)."""
        return self.isInteractive() and not self.design_scene().design.nodes

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        """Draw the hint shown over an empty canvas."""
        super().drawForeground(painter, rect)
        if not self.showing_empty_hint():
            return
        painter.save()
        painter.resetTransform()
        area = QRectF(self.viewport().rect()).adjusted(40, 40, -40, -40)
        colour = self.palette().placeholderText().color()
        painter.setPen(colour)
        font = painter.font()
        font.setPointSizeF(max(11.0, font.pointSizeF() * 1.25))
        painter.setFont(font)
        painter.drawText(area, int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap), self.EMPTY_HINT)
        painter.restore()

    def wheelEvent(self, event: QWheelEvent) -> None:
        """Zoom about the pointer with the wheel (Shift+wheel scrolls)."""
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            super().wheelEvent(event)
            return
        delta = event.angleDelta().y() or event.angleDelta().x()
        if not delta:
            return
        self.set_zoom(self.zoom() * (1.0015 ** delta), anchor=event.position())
        event.accept()

    # ------------------------------------------------------------------ panning
    def _start_pan(self, pos: QPointF) -> None:
        self._pan_origin = pos
        self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)

    def mousePressEvent(self, event) -> None:
        """Start panning with the middle button or Space+left button; otherwise the scene takes it."""
        if event.button() == Qt.MouseButton.MiddleButton or (
                self._space_held and event.button() == Qt.MouseButton.LeftButton):
            self._start_pan(event.position())
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        """Scroll while panning."""
        if self._pan_origin is not None:
            delta = event.position() - self._pan_origin
            self._pan_origin = event.position()
            self.horizontalScrollBar().setValue(round(self.horizontalScrollBar().value() - delta.x()))
            self.verticalScrollBar().setValue(round(self.verticalScrollBar().value() - delta.y()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        """Stop panning."""
        if self._pan_origin is not None:
            self._pan_origin = None
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor if self._space_held else Qt.CursorShape.ArrowCursor)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    # ------------------------------------------------------------------ keys
    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Space starts the pan mode; arrow keys nudge the selection; the rest goes to the scene."""
        key = event.key()
        if key == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space_held = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            event.accept()
            return
        if key == Qt.Key.Key_Escape:
            if not self.design_scene().interactions.cancel():
                self.design_scene().clearSelection()
            event.accept()
            return
        if key in NUDGE_KEYS and self.design_scene().selected_node_ids():
            step = style.GRID * (5 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 1)
            if event.modifiers() & Qt.KeyboardModifier.AltModifier:
                step = 1.0
            dx, dy = NUDGE_KEYS[key]
            self.nudge_requested.emit(dx * step, dy * step, event.isAutoRepeat())
            event.accept()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        """Releasing Space ends the pan mode."""
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space_held = False
            if self._pan_origin is None:
                self.viewport().unsetCursor()
            event.accept()
            return
        super().keyReleaseEvent(event)

    def focusOutEvent(self, event) -> None:
        """Forget a held Space when the canvas loses the focus."""
        self._space_held = False
        super().focusOutEvent(event)

    # ------------------------------------------------------------------ palette drops
    def dragEnterEvent(self, event) -> None:
        """Accept a component kind dragged from the palette."""
        if event.mimeData().hasFormat(KIND_MIME):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        """Keep accepting a component kind while it is dragged over the canvas."""
        if event.mimeData().hasFormat(KIND_MIME):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
        """Add the dropped component kind where it was dropped."""
        data = event.mimeData()
        if not data.hasFormat(KIND_MIME):
            event.ignore()
            return
        kind = bytes(data.data(KIND_MIME)).decode("utf-8")
        event.acceptProposedAction()
        self.kind_dropped.emit(kind, self.mapToScene(event.position().toPoint()))

