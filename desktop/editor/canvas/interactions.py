"""Mouse gestures on the canvas: moving nodes, wiring ports, resizing regions. A gesture shows
its effect live on the items, then, at release, runs exactly one undo command (or nothing if it
was cancelled or refused)."""

from __future__ import annotations

from typing import Iterable, Protocol

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QApplication, QGraphicsItem, QGraphicsPathItem

from inferboard.model import ConnectionRefused, Edge, ops

from desktop.editor.canvas import style
from desktop.editor.canvas.edge_item import wire_path
from desktop.editor.canvas.node_item import NodeItem, PortItem, card_fonts
from desktop.editor.canvas.region_item import RegionItem
from desktop.editor.canvas.snapping import snap_rect
from desktop.theme import LIGHT

#: Up to this many cards dragged together, the other wires they come near are routed again on every
#: frame; a larger selection routes them once, when it is dropped (so the drag stays smooth).
REROUTE_WHILE_DRAGGING = 8


class GestureScene(Protocol):
    """What a gesture needs of the scene it runs on (``scene.DesignScene``, which owns the
    gestures): its items, document and theme, selection, snapping and guides."""

    document: object
    theme: object
    nodes: dict
    snap_to_grid: bool
    snap_lines: bool
    message: object

    @property
    def design(self):
        """The design on the canvas."""

    def addItem(self, item) -> None:
        """Add an item to the scene."""

    def removeItem(self, item) -> None:
        """Take an item off the scene."""

    def views(self) -> list:
        """The views showing the scene."""

    def clearSelection(self) -> None:
        """Deselect everything."""

    def selected_node_ids(self) -> list[str]:
        """The selected nodes' ids, in the design's order."""

    def select_ids(self, node_ids: Iterable[str] = (), edge_ids: Iterable[str] = (), add: bool = False) -> None:
        """Select these nodes and wires (added to the selection with ``add``)."""

    def top_item_at(self, pos: QPointF):
        """The topmost card, region, port or wire at ``pos``."""

    def region_at(self, pos: QPointF, exclude: Iterable[str] = ()) -> RegionItem | None:
        """The region under ``pos``, leaving out those in ``exclude``."""

    def set_guides(self, lines: list) -> None:
        """Show these snapping guide lines."""

    def reroute_near(self, rects, skip=()) -> int:
        """Route again the wires crossing these rectangles (except ``skip``); returns how many."""

#: Added to the z value of items while they are dragged.
DRAG_RAISE = 100.0
FREE_MOVE_MODIFIERS = (Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.ControlModifier
                       | Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.MetaModifier)


class HintItem(QGraphicsItem):
    """A small label next to the cursor (why a connection is refused), readable at any zoom."""

    def __init__(self):
        super().__init__()
        self.text = ""
        self.good = False
        self.theme = None
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setZValue(2000)
        self.hide()

    def show_text(self, text: str, good: bool, pos: QPointF, theme) -> None:
        """Show ``text`` at ``pos`` as good news or as a refusal; empty text hides the hint."""
        self.prepareGeometryChange()
        self.text, self.good, self.theme = text, good, theme
        self.setPos(pos)
        self.setVisible(bool(text))
        self.update()

    def boundingRect(self) -> QRectF:
        """The area of the hint's wrapped text and its frame."""
        if not self.text:
            return QRectF()
        metrics = QFontMetricsF(card_fonts()["label"])
        rect = metrics.boundingRect(QRectF(0, 0, 320, 400), Qt.TextFlag.TextWordWrap, self.text)
        return QRectF(14, 14, rect.width() + 16, rect.height() + 10)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        """Draw the hint's box, framed green or red, and its text."""
        rect = self.boundingRect()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        colour = QColor(self.theme.ok if self.good else self.theme.bad) if self.theme else QColor(LIGHT.bad)
        painter.setPen(QPen(colour, 1.2))
        painter.setBrush(QColor(self.theme.card) if self.theme else QColor(LIGHT.card))
        painter.drawRoundedRect(rect, 5, 5)
        painter.setPen(QColor(self.theme.text) if self.theme else QColor(LIGHT.text))
        painter.setFont(card_fonts()["label"])
        painter.drawText(rect.adjusted(8, 5, -8, -5), Qt.TextFlag.TextWordWrap, self.text)


class MoveGesture:
    """Dragging cards and regions: snapping, dropping into a region, one undo step at the end."""

    def __init__(self, owner: "Interactions", primary, press_pos: QPointF, press_screen: QPointF):
        self.owner = owner
        scene = owner.scene
        self.primary = primary
        self.press_pos = press_pos
        self.press_screen = press_screen
        self.started = False
        ids = scene.selected_node_ids() if primary.isSelected() else [primary.node_id]
        design = scene.design
        moving = list(ids)
        for node_id in ids:
            if isinstance(scene.nodes.get(node_id), RegionItem):
                moving.extend(m.id for m in design.members(node_id) if m.id not in moving)
        self.items = [scene.nodes[i] for i in moving if i in scene.nodes]
        self.ids = {item.node_id for item in self.items}
        self.start = {item.node_id: QPointF(item.pos()) for item in self.items}
        self.edges = {edge for item in self.items for edge in item.edges}
        # A large selection in flight drags the wires inside it rigidly and routes the wires leaving
        # it without looking at the other cards; every wire is routed properly once it is dropped.
        self.large = len(self.items) > REROUTE_WHILE_DRAGGING
        self.inner = {edge for edge in self.edges if edge.source_port.node_item.node_id in self.ids
                      and edge.target_port.node_item.node_id in self.ids} if self.large else set()
        self.others = [item.mapRectToScene(item.rect()) for item in scene.nodes.values()
                       if item.node_id not in self.ids and isinstance(item, NodeItem)]
        self.drop_target: RegionItem | None = None
        self.raised = False

    def move(self, pos: QPointF, screen: QPointF, modifiers) -> None:
        """Follow the pointer once it has moved past the drag distance, snapping unless a modifier frees it."""
        if not self.started:
            if (screen - self.press_screen).manhattanLength() < QApplication.startDragDistance():
                return
            self.started = True
            self._raise(True)
        scene = self.owner.scene
        delta = pos - self.press_pos
        start = self.start[self.primary.node_id]
        target = start + delta
        free = bool(modifiers & FREE_MOVE_MODIFIERS)
        guides = []
        if not free:
            x, y = target.x(), target.y()
            snapped_x = snapped_y = False
            if scene.snap_lines and not isinstance(self.primary, RegionItem):
                rect = self.primary.rect().translated(target)
                result = snap_rect(rect, self.others, 8.0 / self.owner.view_scale())
                x, y = x + result.dx, y + result.dy
                snapped_x, snapped_y, guides = result.snapped_x, result.snapped_y, result.guides
            if scene.snap_to_grid:
                x = x if snapped_x else style.snap(x)
                y = y if snapped_y else style.snap(y)
            target = QPointF(x, y)
        scene.set_guides(guides)
        delta = target - start
        cards = self._cards() if len(self.items) <= REROUTE_WHILE_DRAGGING else []
        before = [item.sceneBoundingRect() for item in cards]
        for item in self.items:
            item.move_to(self.start[item.node_id] + delta, update_edges=False)
        for edge in self.edges:
            if edge in self.inner:
                edge.follow(delta)
            else:
                edge.update_path(avoid=not self.large)
        # Other wires the cards leave or come near are routed again too (for a large selection,
        # once it is dropped: see ``finish``).
        if cards:
            scene.reroute_near(before + [item.sceneBoundingRect() for item in cards], self.edges)
        self._update_drop_target()

    def _cards(self) -> list:
        return [item for item in self.items if not isinstance(item, RegionItem)]

    def _reroute_from_start(self) -> None:
        """Route again the other wires near where the cards started and where they are now."""
        cards = self._cards()
        starts = [item.sceneBoundingRect().translated(self.start[item.node_id] - item.pos()) for item in cards]
        self.owner.scene.reroute_near(starts + [item.sceneBoundingRect() for item in cards], self.edges)

    def _update_drop_target(self) -> None:
        target = None
        if isinstance(self.primary, NodeItem):
            target = self.owner.scene.region_at(self.primary.sceneBoundingRect().center(), exclude=self.ids)
            current = self.owner.scene.design.node(self.primary.node_id).region
            if target is not None and target.node_id == current:
                target = None
        if target is not self.drop_target:
            if self.drop_target is not None:
                self.drop_target.set_drop_target(False)
            self.drop_target = target
            if target is not None:
                target.set_drop_target(True)

    def finish(self) -> None:
        """Commit the move as one undo step (moving into or out of a region too)."""
        scene = self.owner.scene
        self._clear_feedback()
        if not self.started:
            return
        if self.large:
            for edge in self.edges:
                edge.update_path()
        design = scene.design
        positions = {}
        for item in self.items:
            pos = item.pos()
            if pos != self.start[item.node_id]:
                positions[item.node_id] = (round(pos.x(), 2), round(pos.y(), 2))
        if not positions:
            return
        if len(self.items) > REROUTE_WHILE_DRAGGING:
            self._reroute_from_start()
        region_ops = []
        for item in self.items:
            if not isinstance(item, NodeItem):
                continue
            node = design.node(item.node_id)
            if node.region is not None and node.region in self.ids:
                continue
            region = scene.region_at(item.mapToScene(item.rect().center()), exclude=self.ids)
            new = region.node_id if region is not None else None
            if new != node.region:
                region_ops.append(ops.SetRegion(node.id, new))
        count = len(positions)
        title = f"Move {next(iter(positions))}" if count == 1 else f"Move {count} components"
        op: ops.Op = ops.MoveNodes(positions)
        if region_ops:
            target = region_ops[0].region
            title += f" into {target}" if target else " out of its region"
            op = ops.Compound((op, *region_ops), title)
        if not scene.document.execute(op, title):
            self.cancel()

    def cancel(self) -> None:
        """Put everything back where the gesture started."""
        self._clear_feedback()
        self.started = False
        before = [item.sceneBoundingRect() for item in self._cards()]
        for item in self.items:
            item.move_to(self.start[item.node_id], update_edges=False)
        for edge in self.edges:
            edge.update_path()
        self.owner.scene.reroute_near(before + [item.sceneBoundingRect() for item in self._cards()], self.edges)

    def _raise(self, on: bool) -> None:
        """Dragged cards pass over the others (regions stay behind the cards)."""
        if on == self.raised:
            return
        self.raised = on
        for item in self.items:
            if isinstance(item, NodeItem):
                item.setZValue(item.zValue() + (DRAG_RAISE if on else -DRAG_RAISE))

    def _clear_feedback(self) -> None:
        self._raise(False)
        self.owner.scene.set_guides([])
        if self.drop_target is not None:
            self.drop_target.set_drop_target(False)
            self.drop_target = None


class WireGesture:
    """Drag from a port to a port of the other direction; shows a preview and why a wire is refused."""

    def __init__(self, owner: "Interactions", port: PortItem):
        self.owner = owner
        self.port = port
        self.candidate: PortItem | None = None
        self.reason = ""
        self.preview = QGraphicsPathItem()
        pen = QPen(owner.scene.theme.signal_color(port.signal), 2, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.preview.setPen(pen)
        self.preview.setZValue(900)
        owner.scene.addItem(self.preview)
        self._shown_node: NodeItem | None = None

    def endpoints(self, other: PortItem) -> tuple[str, str, str, str]:
        """(source node, source port, target node, target port) for a wire from this port to ``other``."""
        if self.port.direction == "out":
            return self.port.node_id, self.port.name, other.node_id, other.name
        return other.node_id, other.name, self.port.node_id, self.port.name

    def check(self, other: PortItem) -> str:
        """Why the model refuses a wire to ``other``, or "" when it accepts one."""
        try:
            self.owner.scene.design.check_connect(*self.endpoints(other))
        except ConnectionRefused as error:
            return error.reason
        return ""

    def _best_port(self, node: NodeItem) -> tuple[PortItem | None, str]:
        """On a node body: the first free matching port, else the most telling refusal."""
        wanted = "in" if self.port.direction == "out" else "out"
        ports = [p for (d, _), p in node.ports.items() if d == wanted]
        if not ports:
            kind = node.kind.title
            return None, f"{kind} has no {'inputs' if wanted == 'in' else 'outputs'}"
        ports.sort(key=lambda p: p.signal != self.port.signal)
        first_reason = ""
        for port in ports:
            reason = self.check(port)
            if not reason:
                return port, ""
            first_reason = first_reason or reason
        return ports[0], first_reason

    def move(self, pos: QPointF) -> None:
        """Stretch the rubber wire to ``pos`` and mark the port under it as a fit or not."""
        scene = self.owner.scene
        item = scene.top_item_at(pos)
        candidate, reason = None, ""
        if isinstance(item, PortItem) and item.node_item is not self.port.node_item:
            if item.direction != self.port.direction:
                candidate, reason = item, self.check(item)
            else:
                candidate, reason = self._best_port(item.node_item)
        elif isinstance(item, NodeItem) and item is not self.port.node_item:
            candidate, reason = self._best_port(item)
        elif isinstance(item, (PortItem, NodeItem)):
            reason = "a component cannot be wired to itself"
        self._set_candidate(candidate, reason)
        end = candidate.anchor() if candidate is not None and not reason else pos
        start, finish = (self.port.anchor(), end) if self.port.direction == "out" else (end, self.port.anchor())
        self.preview.setPath(wire_path(start, finish))
        if reason:
            self.owner.hint.show_text(reason, False, pos, scene.theme)
        elif candidate is not None:
            self.owner.hint.show_text(f"{candidate.node_id} · {candidate.name}", True, pos, scene.theme)
        else:
            self.owner.hint.show_text("", False, pos, scene.theme)

    def _set_candidate(self, candidate: PortItem | None, reason: str) -> None:
        if self.candidate is not None and self.candidate is not candidate:
            self.candidate.feedback = None
            self.candidate.update()
        self.candidate, self.reason = candidate, reason
        if candidate is not None:
            candidate.feedback = "bad" if reason else "ok"
            candidate.update()
        node = candidate.node_item if candidate is not None else None
        if node is not self._shown_node:
            if self._shown_node is not None:
                self._shown_node.set_show_ports(False)
            self._shown_node = node
            if node is not None:
                node.set_show_ports(True)

    def finish(self, pos: QPointF) -> None:
        """Connect to the port under ``pos`` as one undo step, or say why not."""
        self.move(pos)
        candidate, reason = self.candidate, self.reason
        self._cleanup()
        scene = self.owner.scene
        if candidate is None and not reason:
            self.owner.hint.hide()
            return
        if reason:
            scene.message.emit(f"Cannot connect: {reason}")
            self.owner.hint.show_text(reason, False, pos, scene.theme)
            self.owner.hide_hint_later()
            return
        self.owner.hint.hide()
        source, source_port, target, target_port = self.endpoints(candidate)
        edge = Edge(scene.design.new_edge_id(), source, source_port, target, target_port)
        scene.document.execute(ops.AddEdge(edge), f"Connect {source} → {target}")

    def cancel(self) -> None:
        """Drop the rubber wire and any port marks."""
        self._cleanup()
        self.owner.hint.hide()

    def _cleanup(self) -> None:
        self._set_candidate(None, "")
        self.owner.scene.removeItem(self.preview)


class ResizeGesture:
    """Dragging a region's corner grip to resize it, snapped to the grid."""

    def __init__(self, owner: "Interactions", region: RegionItem, press_pos: QPointF):
        self.owner = owner
        self.region = region
        self.press_pos = press_pos
        self.start = (region.width, region.height)

    def move(self, pos: QPointF, modifiers) -> None:
        """Resize the region to follow the pointer (no smaller than a region's minimum)."""
        delta = pos - self.press_pos
        width = max(style.REGION_MIN[0], self.start[0] + delta.x())
        height = max(style.REGION_MIN[1], self.start[1] + delta.y())
        if self.owner.scene.snap_to_grid and not modifiers & FREE_MOVE_MODIFIERS:
            width, height = style.snap(width), style.snap(height)
        self.region.resize_to(width, height)

    def finish(self) -> None:
        """Commit the new size as one undo step, or restore the old one if refused."""
        size = (self.region.width, self.region.height)
        if size == self.start:
            return
        op = ops.ResizeNode(self.region.node_id, *size)
        if not self.owner.scene.document.execute(op, f"Resize {self.region.node_id}"):
            self.cancel()

    def cancel(self) -> None:
        """Restore the region's size from before the gesture."""
        self.region.resize_to(*self.start)


class Interactions:
    """Routes the scene's mouse events to the gesture in progress."""

    def __init__(self, scene: GestureScene):
        self.scene = scene
        self.gesture = None
        self.hint = HintItem()
        scene.addItem(self.hint)
        self._hint_timer = QTimer(scene)
        self._hint_timer.setSingleShot(True)
        self._hint_timer.timeout.connect(self.hint.hide)
        #: A click on an already-selected node narrows the selection to it only if no drag followed.
        self._narrow_to = None

    def view_scale(self) -> float:
        """The first view's zoom (1 when the scene is not shown)."""
        views = self.scene.views()
        return views[0].transform().m11() if views else 1.0

    def hide_hint_later(self, ms: int = 2500) -> None:
        """Hide the hint after ``ms`` milliseconds."""
        self._hint_timer.start(ms)

    def press(self, event) -> str:
        """Returns "accept" (handled), "ignore" (empty area: let the view rubber-band) or "default"."""
        if event.button() != Qt.MouseButton.LeftButton:
            return "default"
        self.cancel()
        self._hint_timer.stop()
        self.hint.hide()
        pos = event.scenePos()
        item = self.scene.top_item_at(pos)
        additive = bool(event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier))
        if isinstance(item, PortItem):
            self._hint_timer.stop()
            self.gesture = WireGesture(self, item)
            self.gesture.move(pos)
            return "accept"
        if isinstance(item, RegionItem):
            local = item.mapFromScene(pos)
            if item.grip_rect().contains(local):
                self.scene.select_ids([item.node_id])
                self.gesture = ResizeGesture(self, item, pos)
                return "accept"
            if not item.header_rect().contains(local):
                if not additive:
                    self.scene.clearSelection()
                return "ignore"
        if isinstance(item, (NodeItem, RegionItem)):
            if additive:
                item.setSelected(not item.isSelected())
                return "accept"
            if not item.isSelected():
                self.scene.select_ids([item.node_id])
                self._narrow_to = None
            else:
                self._narrow_to = item
            self.gesture = MoveGesture(self, item, pos, event.screenPos())
            return "accept"
        if item is not None:  # an edge
            if additive:
                item.setSelected(not item.isSelected())
            else:
                self.scene.select_ids([], [item.edge_id])
            return "accept"
        if not additive:
            self.scene.clearSelection()
        return "ignore"

    def move(self, event) -> bool:
        """Pass a mouse move to the gesture in progress; False when there is none."""
        gesture = self.gesture
        if gesture is None:
            return False
        if isinstance(gesture, MoveGesture):
            gesture.move(event.scenePos(), event.screenPos(), event.modifiers())
        elif isinstance(gesture, ResizeGesture):
            gesture.move(event.scenePos(), event.modifiers())
        else:
            gesture.move(event.scenePos())
        return True

    def release(self, event) -> bool:
        """End the gesture in progress at the mouse release; False when there was none."""
        gesture, self.gesture = self.gesture, None
        if gesture is None:
            return False
        if isinstance(gesture, WireGesture):
            gesture.finish(event.scenePos())
        else:
            if isinstance(gesture, MoveGesture) and not gesture.started and self._narrow_to is not None:
                self.scene.select_ids([self._narrow_to.node_id])
            gesture.finish()
        self._narrow_to = None
        return True

    def cancel(self) -> bool:
        """Cancel the gesture in progress (Escape); False when there was none."""
        gesture, self.gesture = self.gesture, None
        if gesture is not None:
            gesture.cancel()
            return True
        return False

    def busy(self) -> bool:
        """Whether a gesture is in progress."""
        return self.gesture is not None
