"""The outline: every component and link as a keyboard-navigable list that mirrors the graph and
the canvas selection, so a design can be read (by a screen reader too) and edited without a mouse."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QAbstractItemView, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from inferboard.model import events as ev

from desktop import icons
from desktop.editor.document import DesignDocument

NODE_ROLE = Qt.ItemDataRole.UserRole + 1
EDGE_ROLE = Qt.ItemDataRole.UserRole + 2


class Outline(QWidget):
    """The outline: every component and link as a list, kept in step with the canvas's selection."""

    #: Selected in the outline: (node ids, edge ids)
    selection_changed = Signal(list, list)
    node_activated = Signal(str)

    def __init__(self, document: DesignDocument, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.dark = False
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("outline")
        self.tree.setAccessibleName("Design outline")
        self.tree.setAccessibleDescription("Components and links of the design. Selecting here selects on "
                                           "the canvas; Enter opens the component in the inspector.")
        self.tree.setHeaderLabels(["Item", "Kind"])
        self.tree.setColumnWidth(0, 190)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree)
        self.setFocusProxy(self.tree)
        self.components = QTreeWidgetItem(["Components"])
        self.links = QTreeWidgetItem(["Links"])
        self.tree.addTopLevelItems([self.components, self.links])
        self._syncing = False
        self._rebuild_timer = QTimer(self)
        self._rebuild_timer.setSingleShot(True)
        self._rebuild_timer.setInterval(0)
        self._rebuild_timer.timeout.connect(self.rebuild)
        self.tree.itemSelectionChanged.connect(self._selection_from_tree)
        self.tree.itemActivated.connect(self._activated)
        document.changed.connect(self.on_event)
        document.replaced.connect(self.rebuild)
        self.rebuild()

    def on_event(self, event) -> None:
        """Rebuild the lists (after a short wait) when a model event changes what they show."""
        if isinstance(event, (ev.NodeAdded, ev.NodeRemoved, ev.EdgeAdded, ev.EdgeRemoved, ev.LabelChanged,
                              ev.RegionChanged)):
            self._rebuild_timer.start()

    def flush(self) -> None:
        """Rebuild now if a rebuild is pending (tests and keyboard users need it current)."""
        if self._rebuild_timer.isActive():
            self._rebuild_timer.stop()
            self.rebuild()

    def rebuild(self) -> None:
        """Fill the component and link lists from the design, keeping the selection."""
        design = self.document.design
        selected = self.selected_ids()
        self._syncing = True
        self.tree.setUpdatesEnabled(False)
        try:
            for top in (self.components, self.links):
                top.takeChildren()
            for node in design.nodes.values():
                kind = design.catalog.kind(node.kind)
                name = node.label or kind.title
                where = f" in {node.region}" if node.region else ""
                item = QTreeWidgetItem([f"{name} ({node.id}){where}", kind.title])
                item.setData(0, NODE_ROLE, node.id)
                item.setIcon(0, icons.icon(kind.id, self.dark))
                item.setToolTip(0, kind.description)
                self.components.addChild(item)
                item.setSelected(node.id in selected[0])
            for edge in design.edges.values():
                signal = design.signal_of(edge)
                item = QTreeWidgetItem([f"{edge.source}.{edge.source_port} → {edge.target}.{edge.target_port}",
                                        signal])
                item.setData(0, EDGE_ROLE, edge.id)
                self.links.addChild(item)
                item.setSelected(edge.id in selected[1])
            self.components.setText(0, f"Components ({len(design.nodes)})")
            self.links.setText(0, f"Links ({len(design.edges)})")
            self.components.setExpanded(True)
            self.links.setExpanded(True)
        finally:
            self.tree.setUpdatesEnabled(True)
            self._syncing = False

    def set_dark(self, dark: bool) -> None:
        """Rebuild the lists with icons for a dark or a light theme."""
        if dark != self.dark:
            self.dark = dark
            self.rebuild()

    def selected_ids(self) -> tuple[set[str], set[str]]:
        """The (node ids, edge ids) selected in the outline."""
        nodes, edges = set(), set()
        for item in self.tree.selectedItems():
            if item.data(0, NODE_ROLE):
                nodes.add(item.data(0, NODE_ROLE))
            elif item.data(0, EDGE_ROLE):
                edges.add(item.data(0, EDGE_ROLE))
        return nodes, edges

    def select_ids(self, node_ids, edge_ids) -> None:
        """Mirror the canvas selection (without echoing it back)."""
        self.flush()
        node_ids, edge_ids = set(node_ids), set(edge_ids)
        self._syncing = True
        try:
            current = None
            for top, role, wanted in ((self.components, NODE_ROLE, node_ids), (self.links, EDGE_ROLE, edge_ids)):
                for i in range(top.childCount()):
                    item = top.child(i)
                    on = item.data(0, role) in wanted
                    item.setSelected(on)
                    if on and current is None:
                        current = item
            if current is not None:
                self.tree.scrollToItem(current)
        finally:
            self._syncing = False

    def item_for(self, node_id: str | None = None, edge_id: str | None = None) -> QTreeWidgetItem | None:
        """The row of ``node_id`` or ``edge_id``, or None."""
        self.flush()
        top, role, key = (self.components, NODE_ROLE, node_id) if node_id else (self.links, EDGE_ROLE, edge_id)
        for i in range(top.childCount()):
            if top.child(i).data(0, role) == key:
                return top.child(i)
        return None

    def _selection_from_tree(self) -> None:
        if self._syncing:
            return
        nodes, edges = self.selected_ids()
        design = self.document.design
        self.selection_changed.emit([n for n in design.nodes if n in nodes], [e for e in design.edges if e in edges])

    def _activated(self, item: QTreeWidgetItem, _column: int) -> None:
        node_id = item.data(0, NODE_ROLE)
        if node_id:
            self.node_activated.emit(node_id)
