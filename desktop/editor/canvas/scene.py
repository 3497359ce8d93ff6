"""The scene mirrors the design: it listens to the document's events and adds, moves, updates and
removes items. It never edits the model; gestures (``interactions``) do, through undo commands."""

from __future__ import annotations

import math
from typing import Iterable

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QGraphicsScene

from inferboard.model import Design
from inferboard.model import events as ev

from desktop.editor.canvas import style
from desktop.editor.canvas.edge_item import EdgeItem
from desktop.editor.canvas.interactions import Interactions
from desktop.editor.canvas.node_item import NodeItem, PortItem
from desktop.editor.canvas.region_item import RegionItem
from desktop.editor.canvas.routing import CLEAR
from desktop.editor.document import DesignDocument
from desktop.theme import LIGHT, Theme


class DesignScene(QGraphicsScene):
    """The canvas's scene: one item per node and wire, kept in step with the design through model events."""

    #: A message for the status bar (a refused connection, say).
    message = Signal(str)
    #: A node was double-clicked or activated: open it in the inspector.
    node_activated = Signal(str)
    #: A context menu was asked for at a screen position.
    context_menu_requested = Signal(object)
    #: The items changed so much that the view should refit its scene rect.
    layout_changed = Signal()

    def __init__(self, document: DesignDocument, theme: Theme = LIGHT, parent=None):
        super().__init__(parent)
        self.document = document
        self.theme = theme
        self.nodes: dict[str, NodeItem | RegionItem] = {}
        self.edges: dict[str, EdgeItem] = {}
        self.snap_to_grid = True
        self.snap_lines = True
        #: While exporting: no grid.
        self.export_mode = False
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.guides = QGraphicsPathItem()
        self.guides.setZValue(1000)
        self.addItem(self.guides)
        self._highlighted: list = []
        #: The figures' moment shown on the cards (see ``show_moment``) and its failover wires.
        self.moment = None
        self.failover_overlays: list[QGraphicsPathItem] = []
        self._highlight_timer = QTimer(self)
        self._highlight_timer.setSingleShot(True)
        self._highlight_timer.timeout.connect(self.clear_highlight)
        self.interactions = Interactions(self)
        document.changed.connect(self.on_event)
        document.replaced.connect(self.rebuild)
        self.set_theme(theme)
        self.rebuild()

    @property
    def design(self) -> Design:
        """The design on the canvas."""
        return self.document.design

    # ------------------------------------------------------------------ mirroring
    def rebuild(self) -> None:
        """Throw away every item and build them again from the design (a new design was loaded)."""
        self.interactions.cancel()
        for item in list(self.nodes.values()) + list(self.edges.values()):
            self.removeItem(item)
        self.nodes.clear()
        self.edges.clear()
        for overlay in self.failover_overlays:
            self.removeItem(overlay)
        self.failover_overlays = []
        for node in self.design.nodes.values():
            self._add_node(node)
        for edge in self.design.edges.values():
            self._add_edge(edge)
        self.layout_changed.emit()

    def on_event(self, event) -> None:
        """Follow one model event: add, remove, move, resize or restyle the items it concerns."""
        if isinstance(event, ev.NodeAdded):
            self._add_node(event.node)
            self.layout_changed.emit()
        elif isinstance(event, ev.NodeRemoved):
            item = self.nodes.pop(event.node.id, None)
            if item is not None:
                self._forget(item)
                self.removeItem(item)
        elif isinstance(event, ev.EdgeAdded):
            self._add_edge(event.edge)
        elif isinstance(event, ev.EdgeRemoved):
            item = self.edges.pop(event.edge.id, None)
            if item is not None:
                self._detach_edge(item)
                self._forget(item)
                self.removeItem(item)
        elif isinstance(event, ev.NodesMoved):
            for node_id, (_old, (x, y)) in event.moves.items():
                item = self.nodes.get(node_id)
                if item is not None and (item.pos().x(), item.pos().y()) != (x, y):
                    item.move_to(QPointF(x, y))
            self.layout_changed.emit()
        elif isinstance(event, (ev.ParamsChanged, ev.LabelChanged, ev.NodeResized, ev.RegionChanged)):
            item = self.nodes.get(event.node_id)
            if item is not None:
                item.set_node(self.design.node(event.node_id))

    def reroute_near(self, rects, skip=()) -> int:
        """Route again the wires (other than ``skip``) that pass near ``rects``: where a moved card
        was, so a wire that went round it can go straight, and where it is now, so a wire it lands
        on goes round it. Returns how many were routed."""
        near = [QRectF(r).adjusted(-CLEAR, -CLEAR, CLEAR, CLEAR) for r in rects]
        count = 0
        for edge in self.edges.values():
            if edge in skip:
                continue
            bounds = edge.sceneBoundingRect()
            if any(bounds.intersects(r) for r in near):
                edge.update_path()
                count += 1
        return count

    def _add_node(self, node) -> None:
        kind = self.design.catalog.kind(node.kind)
        item = RegionItem(node, kind, self.theme) if kind.container else NodeItem(node, kind, self.theme)
        self.nodes[node.id] = item
        self.addItem(item)

    def _add_edge(self, edge) -> None:
        source = self.nodes.get(edge.source)
        target = self.nodes.get(edge.target)
        if source is None or target is None:
            return
        out_port = source.port("out", edge.source_port)
        in_port = target.port("in", edge.target_port)
        if out_port is None or in_port is None:
            return
        item = EdgeItem(edge, out_port, in_port, out_port.signal, self.theme)
        self.edges[edge.id] = item
        source.edges.add(item)
        target.edges.add(item)
        for port in (out_port, in_port):
            port.connected += 1
            port.update()
        self.addItem(item)

    def _detach_edge(self, item: EdgeItem) -> None:
        for port in (item.source_port, item.target_port):
            port.connected = max(0, port.connected - 1)
            port.node_item.edges.discard(item)
            port.update()

    def _forget(self, item) -> None:
        if item in self._highlighted:
            self._highlighted.remove(item)

    # ------------------------------------------------------------------ queries
    def node_item(self, node_id: str) -> NodeItem | RegionItem | None:
        """The card or region of ``node_id``, or None."""
        return self.nodes.get(node_id)

    def selected_node_ids(self) -> list[str]:
        """Selected nodes in design order (stable, so commands are reproducible)."""
        chosen = {item.node_id for item in self.selectedItems() if isinstance(item, (NodeItem, RegionItem))}
        return [node_id for node_id in self.design.nodes if node_id in chosen]

    def selected_edge_ids(self) -> list[str]:
        """The selected wires' ids, in the design's order."""
        chosen = {item.edge_id for item in self.selectedItems() if isinstance(item, EdgeItem)}
        return [edge_id for edge_id in self.design.edges if edge_id in chosen]

    def select_ids(self, node_ids: Iterable[str] = (), edge_ids: Iterable[str] = (), add: bool = False) -> None:
        """Select these nodes and wires (added to the selection with ``add``), announcing it once."""
        node_ids, edge_ids = set(node_ids), set(edge_ids)
        self.blockSignals(True)
        try:
            if not add:
                self.clearSelection()
            for node_id in node_ids:
                if node_id in self.nodes:
                    self.nodes[node_id].setSelected(True)
            for edge_id in edge_ids:
                if edge_id in self.edges:
                    self.edges[edge_id].setSelected(True)
        finally:
            self.blockSignals(False)
        self.selectionChanged.emit()

    def port_at(self, pos: QPointF) -> PortItem | None:
        """The port under ``pos``, or None."""
        for item in self.items(pos):
            if isinstance(item, PortItem):
                return item
        return None

    def top_item_at(self, pos: QPointF):
        """The topmost node, region, edge or port under ``pos`` (ignoring helpers like guides)."""
        for item in self.items(pos, Qt.ItemSelectionMode.IntersectsItemShape, Qt.SortOrder.DescendingOrder):
            if isinstance(item, (PortItem, NodeItem, RegionItem, EdgeItem)):
                return item
        return None

    def region_at(self, pos: QPointF, exclude: Iterable[str] = ()) -> RegionItem | None:
        """The topmost region under ``pos``, leaving out those in ``exclude``."""
        exclude = set(exclude)
        for item in self.items(pos, Qt.ItemSelectionMode.IntersectsItemShape, Qt.SortOrder.DescendingOrder):
            if isinstance(item, RegionItem) and item.node_id not in exclude:
                return item
        return None

    def nodes_rect(self, node_ids: Iterable[str] | None = None) -> QRectF:
        """The area covered by these nodes (every node when None)."""
        items = self.nodes.values() if node_ids is None else [self.nodes[i] for i in node_ids if i in self.nodes]
        rect = QRectF()
        for item in items:
            rect = rect.united(item.sceneBoundingRect())
        return rect

    # ------------------------------------------------------------------ feedback
    def set_guides(self, lines: list[QLineF]) -> None:
        """Show these snapping guide lines (none: hide them)."""
        path = QPainterPath()
        for line in lines:
            path.moveTo(line.p1())
            path.lineTo(line.p2())
        self.guides.setPath(path)

    def set_badges(self, badges: dict[str, tuple[tuple[str, str] | None, str]]) -> None:
        """node id -> ((text, level), tooltip); nodes not named lose their badge."""
        for node_id, item in self.nodes.items():
            badge, tip = badges.get(node_id, (None, ""))
            item.set_badge(badge, tip)

    def show_moment(self, moment) -> None:
        """The figures' moment (a desktop.readouts.moment.Moment): badges, regions down, failing components,
        and the wires traffic takes after a failover."""
        self.set_badges(moment.badges)
        self.moment = moment
        for node_id, item in self.nodes.items():
            if isinstance(item, RegionItem):
                item.set_down(moment.down_regions.get(node_id))
            else:
                item.set_moment(moment.failing.get(node_id), node_id in moment.dimmed)
        for overlay in self.failover_overlays:
            self.removeItem(overlay)
        self.failover_overlays = []
        colour = QColor(self.theme.ok)
        colour.setAlphaF(0.45)
        for edge_id in sorted(moment.failover_edges):
            edge = self.edges.get(edge_id)
            if edge is None:
                continue
            overlay = QGraphicsPathItem(edge.shape())
            overlay.setPen(QPen(Qt.PenStyle.NoPen))
            overlay.setBrush(colour)
            overlay.setZValue(-6)
            overlay.setToolTip("Traffic takes this path after the failover")
            self.addItem(overlay)
            self.failover_overlays.append(overlay)

    def highlight(self, node_ids: Iterable[str], edge_ids: Iterable[str] = (), seconds: float = 2.5) -> None:
        """Highlight these nodes and wires for ``seconds`` (a finding or a search pointed at them)."""
        self.clear_highlight()
        for node_id in node_ids:
            if node_id in self.nodes:
                self._highlighted.append(self.nodes[node_id])
        for edge_id in edge_ids:
            if edge_id in self.edges:
                self._highlighted.append(self.edges[edge_id])
        for item in self._highlighted:
            item.set_highlighted(True)
        if seconds:
            self._highlight_timer.start(int(seconds * 1000))

    def clear_highlight(self) -> None:
        """Remove every highlight."""
        for item in self._highlighted:
            item.set_highlighted(False)
        self._highlighted.clear()

    def set_theme(self, theme: Theme) -> None:
        """Redraw the background, the guides and every item in ``theme``."""
        self.theme = theme
        self.setBackgroundBrush(QColor(theme.canvas))
        pen = QPen(QColor(theme.snap_line), 1, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.guides.setPen(pen)
        for item in list(self.nodes.values()) + list(self.edges.values()):
            item.set_theme(theme)
        self.update()

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        """Fill the canvas colour and draw the grid (none in an export)."""
        painter.fillRect(rect, QColor(self.theme.canvas))
        if self.export_mode:
            return
        scale = painter.worldTransform().m11() or 1.0
        step = style.GRID * 2
        while step * scale < 12:
            step *= 5
        major = step * 5
        for spacing, colour in ((step, self.theme.grid_minor), (major, self.theme.grid_major)):
            pen = QPen(QColor(colour), 0)
            painter.setPen(pen)
            left = math.floor(rect.left() / spacing) * spacing
            top = math.floor(rect.top() / spacing) * spacing
            lines = []
            x = left
            while x <= rect.right():
                lines.append(QLineF(x, rect.top(), x, rect.bottom()))
                x += spacing
            y = top
            while y <= rect.bottom():
                lines.append(QLineF(rect.left(), y, rect.right(), y))
                y += spacing
            painter.drawLines(lines)

    # ------------------------------------------------------------------ input
    def mousePressEvent(self, event) -> None:
        """Start a gesture (move, wire, resize, rubber band) or let the item take the press."""
        outcome = self.interactions.press(event)
        if outcome == "accept":
            event.accept()
        elif outcome == "ignore":
            event.ignore()
        else:
            super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        """Pass the move to the gesture in progress."""
        if self.interactions.move(event):
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        """End the gesture in progress."""
        if self.interactions.release(event):
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        """Open a double-clicked card or region in the inspector."""
        item = self.top_item_at(event.scenePos())
        if isinstance(item, (NodeItem, RegionItem)):
            self.node_activated.emit(item.node_id)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event) -> None:
        """Select what was right-clicked, then show the canvas's context menu."""
        item = self.top_item_at(event.scenePos())
        if isinstance(item, PortItem):
            item = item.node_item
        if isinstance(item, (NodeItem, RegionItem, QGraphicsItem)) and item is not None and not item.isSelected():
            self.select_ids([item.node_id] if hasattr(item, "node_id") else [],
                            [item.edge_id] if hasattr(item, "edge_id") else [])
        self.context_menu_requested.emit(event.screenPos())
        event.accept()
