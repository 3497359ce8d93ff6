"""Tree rows that wrap long text onto more lines instead of cutting it (Qt's tree views measure a
row for one line whatever ``wordWrap`` says, so the height is worked out here for the column)."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import QStyledItemDelegate, QTreeView


class WrappingDelegate(QStyledItemDelegate):
    """Draws tree cells with their text wrapped to the column width, rows growing to fit."""

    def __init__(self, view: QTreeView):
        super().__init__(view)
        self.view = view

    def sizeHint(self, option, index) -> QSize:
        """The cell's height with its text wrapped to the column's width at its depth in the tree."""
        hint = super().sizeHint(option, index)
        text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        if not text:
            return hint
        depth, parent = 0, index.parent()
        while parent.isValid():
            depth, parent = depth + 1, parent.parent()
        width = self.view.header().sectionSize(index.column())
        if index.column() == 0:
            width -= self.view.indentation() * (depth + (1 if self.view.rootIsDecorated() else 0))
        if index.data(Qt.ItemDataRole.DecorationRole) is not None:
            width -= self.view.iconSize().width() + 6
        width -= 10
        needed = option.fontMetrics.boundingRect(QRect(0, 0, max(40, width), 10_000),
                                                 int(Qt.TextFlag.TextWordWrap), text)
        hint.setHeight(max(hint.height(), needed.height() + 6))
        return hint


def wrap_rows(view: QTreeView) -> None:
    """Let ``view``'s rows wrap, and measure them again when a column changes width."""
    view.setUniformRowHeights(False)
    view.setWordWrap(True)
    view.setTextElideMode(Qt.TextElideMode.ElideNone)
    view.setItemDelegate(WrappingDelegate(view))
    view.header().sectionResized.connect(lambda *_: view.doItemsLayout())
