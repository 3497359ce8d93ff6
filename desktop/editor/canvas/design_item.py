"""What a component card and a region have in common on the canvas: the model node they mirror,
its kind, the theme, the wires attached, a highlight, and being selected and moved as one item."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtWidgets import QGraphicsItem

from inferboard.catalog.schema import ComponentKind
from inferboard.model import Node

from desktop.theme import Theme


class DesignNodeItem(QGraphicsItem):
    """The base of the items that mirror one model node (a card, a region); its position and size
    follow model events or a gesture in flight. Subclasses set ``width``/``height`` and paint."""

    def __init__(self, node: Node, kind: ComponentKind, theme: Theme):
        super().__init__()
        self.node_id = node.id
        self.kind = kind
        self.theme = theme
        self.node = node
        #: The wires drawn to or from this node.
        self.edges: set = set()
        #: (direction, port name) to port item; a region has none.
        self.ports: dict = {}
        self.highlighted = False
        self.badge = None
        self.width = self.height = 0.0
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)

    def set_highlighted(self, on: bool) -> None:
        """Draw or stop drawing the highlight ring (a finding or a search pointed at this node)."""
        if on != self.highlighted:
            self.highlighted = on
            self.update()

    def set_theme(self, theme: Theme) -> None:
        """Redraw in ``theme``'s colours."""
        self.theme = theme
        self.update()

    def set_show_ports(self, on: bool) -> None:
        """Show or hide the ports' labels while wiring (nothing to show on an item without ports)."""

    def port(self, direction: str, name: str):
        """The port item for ``direction`` ("in"/"out") and ``name``, or None."""
        return self.ports.get((direction, name))

    def move_to(self, pos: QPointF, update_edges: bool = True) -> None:
        """Move to ``pos`` in the scene (a gesture in flight, or a model event)."""
        self.setPos(pos)

    def rect(self) -> QRectF:
        """The item's own area, from its top-left corner."""
        return QRectF(0, 0, self.width, self.height)
