"""Tree rows that wrap long text onto more lines instead of cutting it (Qt's tree views measure a
row for one line whatever ``wordWrap`` says, so the height is worked out here for the column), and
labels of a fixed number of lines that end a longer text with "…" instead of half a line."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import QLabel, QStyledItemDelegate, QTreeView


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


class LinesLabel(QLabel):
    """A wrapped label of a fixed number of lines that ends a text too long for them with "…" at a
    word, rather than showing half of a last line; its ``full_text`` is the whole text."""

    def __init__(self, text: str = "", parent=None):
        super().__init__("", parent)
        self.setWordWrap(True)
        self.full_text = ""
        self.setText(text)

    def setText(self, text: str) -> None:
        """Show as much of ``text`` as its lines hold."""
        self.full_text = text
        super().setText(self.fitted(text))

    def text(self) -> str:
        """The whole text, not the part shown."""
        return self.full_text

    def fitted(self, text: str) -> str:
        """``text``, or its longest start (cut at a word, with "…") that fits the label's height."""
        width = self.contentsRect().width()
        if width <= 0 or not text:
            return text
        metrics = self.fontMetrics()
        room = self.contentsRect().height() + 1

        def fits(candidate: str) -> bool:
            flags = int(Qt.TextFlag.TextWordWrap)
            return metrics.boundingRect(QRect(0, 0, width, 100_000), flags, candidate).height() <= room

        if fits(text):
            return text
        words = text.split(" ")
        low, high = 0, len(words)
        while low < high:  # the most words that fit with the ellipsis
            middle = (low + high + 1) // 2
            if fits(" ".join(words[:middle]) + "…"):
                low = middle
            else:
                high = middle - 1
        return " ".join(words[:low]) + "…" if low else metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)

    def resizeEvent(self, event) -> None:
        """Fit the text to the new width again."""
        super().resizeEvent(event)
        super().setText(self.fitted(self.full_text))
