"""A splitter that lays its panels side by side when they fit at their minimum widths and one
above the other when they do not, so a window built on it can be as narrow as its widest panel
(the interviewer's console beside the candidate's window on one screen)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QSplitter, QWidget


class ResponsiveSplitter(QSplitter):
    """A splitter that lays its panels side by side when wide enough and stacks them when narrow."""

    def __init__(self, parent: QWidget | None = None, wide_sizes: list[int] | None = None,
                 tall_sizes: list[int] | None = None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.wide_sizes = wide_sizes
        self.tall_sizes = tall_sizes
        self.setChildrenCollapsible(False)

    def panels(self) -> list[QWidget]:
        """The panels currently shown, in order."""
        return [self.widget(i) for i in range(self.count()) if not self.widget(i).isHidden()]

    def side_by_side_width(self) -> int:
        """The narrowest the panels can be side by side (handles included)."""
        panels = self.panels()
        return sum(p.minimumSizeHint().expandedTo(p.minimumSize()).width() for p in panels) + \
            self.handleWidth() * max(0, len(panels) - 1)

    def minimumSizeHint(self) -> QSize:
        """As narrow as the widest panel (then the panels are stacked); as tall as the layout now is."""
        panels = self.panels()
        mins = [p.minimumSizeHint().expandedTo(p.minimumSize()) for p in panels]
        if not mins:
            return super().minimumSizeHint()
        handles = self.handleWidth() * max(0, len(panels) - 1)
        width = max(m.width() for m in mins)
        if self.orientation() == Qt.Orientation.Vertical:
            return QSize(width, sum(m.height() for m in mins) + handles)
        return QSize(width, max(m.height() for m in mins))

    def resizeEvent(self, event) -> None:
        """Switch between side by side and stacked when the width crosses the threshold."""
        wanted = (Qt.Orientation.Horizontal if event.size().width() >= self.side_by_side_width()
                  else Qt.Orientation.Vertical)
        if wanted != self.orientation():
            self.setOrientation(wanted)
            sizes = self.wide_sizes if wanted == Qt.Orientation.Horizontal else self.tall_sizes
            if sizes:
                self.setSizes(sizes)
            self.updateGeometry()
        super().resizeEvent(event)
