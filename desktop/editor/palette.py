"""The component palette: kinds grouped by category, with icons, search, and tooltips from the
catalog. Drag a kind onto the canvas, or double-click / press Enter to add it at the view centre."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout,
                               QWidget)

from inferboard.catalog import Catalog

from desktop import icons
from desktop.editor.canvas.view import KIND_MIME
from desktop.wrapping import wrap_rows

CATEGORY_TITLES = {
    "traffic": "Traffic", "routing": "Routing", "queueing": "Queueing", "compute": "Compute",
    "caching": "Caching", "scaling": "Scaling", "resilience": "Resilience", "model_lifecycle": "Model lifecycle",
    "observability": "Observability", "placement": "Placement",
}
KIND_ROLE = Qt.ItemDataRole.UserRole + 1


class KindTree(QTreeWidget):
    """The palette's tree, whose rows can be dragged onto the canvas as component kinds."""

    def mimeTypes(self) -> list[str]:
        """The drag carries a component kind."""
        return [KIND_MIME]

    def mimeData(self, items) -> QMimeData:
        """The kind of the first dragged row, as drag data."""
        mime = QMimeData()
        kinds = [item.data(0, KIND_ROLE) for item in items if item.data(0, KIND_ROLE)]
        if kinds:
            mime.setData(KIND_MIME, kinds[0].encode("utf-8"))
            mime.setText(kinds[0])
        return mime


class Palette(QWidget):
    """The component palette: the catalog's kinds by category, filtered by a search field, to drag or add."""

    #: Add this kind at the centre of the view (double-click or Enter).
    kind_activated = Signal(str)

    def __init__(self, catalog: Catalog, parent: QWidget | None = None):
        super().__init__(parent)
        self.catalog = catalog
        self.dark = False
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search components…")
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName("Search components")
        self.tree = KindTree(self)
        self.tree.setObjectName("palette")
        self.tree.setAccessibleName("Component palette")
        self.tree.setAccessibleDescription("Press Enter to add the selected component to the canvas.")
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(True)
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.tree.setIconSize(icons.standard_size())
        wrap_rows(self.tree)  # long titles wrap onto a second line rather than being cut
        self.tree.setIndentation(14)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.search)
        layout.addWidget(self.tree)
        self.search.textChanged.connect(self.apply_filter)
        self.search.returnPressed.connect(self._activate_first_visible)
        self.tree.itemActivated.connect(self._activated)
        self.setFocusProxy(self.search)
        self.populate()

    def populate(self) -> None:
        """Fill the tree with the catalog's kinds, grouped by category."""
        self.tree.clear()
        groups = self.catalog.by_category()
        order = [c for c in CATEGORY_TITLES if c in groups] + sorted(c for c in groups if c not in CATEGORY_TITLES)
        for category in order:
            top = QTreeWidgetItem([CATEGORY_TITLES.get(category, category.title())])
            top.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            self.tree.addTopLevelItem(top)
            for kind in sorted(groups[category], key=lambda k: k.title):
                item = QTreeWidgetItem([kind.title])
                item.setData(0, KIND_ROLE, kind.id)
                item.setIcon(0, icons.icon(kind.id, self.dark))
                item.setToolTip(0, f"<b>{kind.title}</b><p>{kind.description}</p><p><i>When to use:</i> "
                                   f"{kind.when_to_use}</p>")
                item.setStatusTip(0, kind.description)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled)
                top.addChild(item)
            top.setExpanded(True)
        self.apply_filter(self.search.text())

    def set_dark(self, dark: bool) -> None:
        """Redraw the kinds' icons for a dark or a light theme."""
        if dark != self.dark:
            self.dark = dark
            self.populate()

    def kind_items(self) -> list[QTreeWidgetItem]:
        """Every kind's row, under all categories."""
        out = []
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            out.extend(top.child(j) for j in range(top.childCount()))
        return out

    def item_for(self, kind_id: str) -> QTreeWidgetItem | None:
        """The row of ``kind_id``, or None."""
        for item in self.kind_items():
            if item.data(0, KIND_ROLE) == kind_id:
                return item
        return None

    def apply_filter(self, text: str) -> None:
        """Show only the kinds matching every word of ``text``, and the categories holding one."""
        words = text.lower().split()
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            any_visible = False
            for j in range(top.childCount()):
                item = top.child(j)
                kind = self.catalog.kinds[item.data(0, KIND_ROLE)]
                haystack = " ".join((kind.id, kind.title, kind.category, kind.description)).lower()
                visible = all(word in haystack for word in words)
                item.setHidden(not visible)
                any_visible |= visible
            top.setHidden(not any_visible)

    def _activate_first_visible(self) -> None:
        """Enter in the search box adds the best match: a title match before a description match."""
        text = self.search.text().lower().strip()
        visible = [item for item in self.kind_items() if not item.isHidden()]
        by_title = [item for item in visible if text in item.text(0).lower() or text in item.data(0, KIND_ROLE)]
        chosen = (by_title or visible)[:1]
        if chosen:
            self.kind_activated.emit(chosen[0].data(0, KIND_ROLE))

    def _activated(self, item: QTreeWidgetItem, _column: int) -> None:
        kind = item.data(0, KIND_ROLE)
        if kind:
            self.kind_activated.emit(kind)
