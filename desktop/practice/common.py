"""Shared pieces of the practice windows: where the history and imported packs live, times as
m:ss, a read-only canvas (the interviewer's mirror, the reference design, the replay) and a design
rendered to PNG off screen for reports."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QMessageBox, QPushButton, QStyledItemDelegate, QStyleOptionViewItem,
                               QToolButton, QTreeView, QVBoxLayout, QWidget)

from inferboard.model import Design
from inferboard.practice.history import History
from inferboard.practice.library import ScenarioLibrary, user_packs_dir
from inferboard.store import design_to_bytes, parse_design

from desktop.editor.canvas.scene import DesignScene
from desktop.editor.canvas.view import CanvasView
from desktop.editor.document import DesignDocument
from desktop.editor.export import png_bytes
from desktop.theme import LIGHT, Theme

PHASE_NAMES = {"clarify": "Clarify requirements", "high_level": "High-level design", "deep_dive": "Deep dive",
               "tradeoffs": "Trade-offs and failure scenario", "overtime": "Overtime"}


# ------------------------------------------------------------------------------ storage
def open_history(folder: str | Path | None = None) -> History:
    """The attempt history in the app's data folder ($INFERBOARD_DATA_DIR in tests)."""
    return History(folder)


#: The title of the message shown when the practice history cannot be written.
HISTORY_PROBLEM_TITLE = "Practice history not written"


def warn_history_problem(parent: QWidget, session) -> None:
    """Show, once, why the practice history could not be written (another program kept it locked past
    its busy timeout, say): during a round, that the round goes on; after its end, that the result is
    kept in this window, with Retry to write it again."""
    problem = session.take_history_problem()
    if not problem or getattr(parent, "_history_warning_open", False):
        return
    if not session.end_unsaved and getattr(parent, "_history_warned", False):
        return  # during a round, said once
    parent._history_warned = True
    parent._history_warning_open = True
    try:
        while session.end_unsaved:
            answer = QMessageBox.warning(parent, HISTORY_PROBLEM_TITLE, f"{problem}\n\nThe round's result is kept in "
                                         "this window until it is written: Retry writes it now.",
                                         QMessageBox.StandardButton.Retry | QMessageBox.StandardButton.Close)
            if answer != QMessageBox.StandardButton.Retry or session.save_finish():
                return
            problem = session.take_history_problem()
        QMessageBox.warning(parent, HISTORY_PROBLEM_TITLE, f"{problem}\n\nThe round goes on in this window; its "
                            "result is written to the history when it ends.")
    finally:
        parent._history_warning_open = False


def open_library(folder: str | Path | None = None) -> ScenarioLibrary:
    """The shipped scenarios plus the packs imported into the app's data folder."""
    return ScenarioLibrary(user_packs=user_packs_dir(folder)).load()


# ------------------------------------------------------------------------------ text
def mmss(seconds: float) -> str:
    """Seconds as "m:ss"."""
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"


def phase_name(name: str | None) -> str:
    """A phase's name in words ("high_level" is "High-level design")."""
    if not name:
        return ""
    return PHASE_NAMES.get(name, name.replace("_", " ").capitalize())


def pct(value: float | None) -> str:
    """A percentage to the unit, or "n/a"."""
    return "n/a" if value is None else f"{value:.0f}%"


def esc(text: Any) -> str:
    """``text`` escaped for HTML."""
    return html.escape(str(text))


def paragraphs(text: str) -> str:
    """YAML prose as paragraphs: single line breaks joined, blank lines kept."""
    blocks = [" ".join(line.strip() for line in block.splitlines() if line.strip())
              for block in text.strip().split("\n\n")]
    return "\n\n".join(b for b in blocks if b)


def tone(widget: QWidget, light: str, dark: str) -> QColor:
    """``light`` on a light palette, ``dark`` on a dark one (text colours that keep their contrast)."""
    return QColor(dark if widget.palette().color(QPalette.ColorRole.Base).lightness() < 128 else light)


class WrappingButton(QPushButton):
    """A push button whose text wraps onto more lines instead of being cut (a follow-up's title in
    a console beside the candidate's window)."""

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.label = QLabel(text, self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 5, 10, 5)
        layout.addWidget(self.label)

    def text(self) -> str:
        """The button's text."""
        return self.label.text()

    def setText(self, text: str) -> None:
        """Set the button's text, wrapped over as many lines as it needs."""
        self.label.setText(text)
        self.updateGeometry()

    def sizeHint(self) -> QSize:
        """Tall enough for the wrapped text."""
        return self.layout().sizeHint().expandedTo(super().sizeHint())

    def minimumSizeHint(self) -> QSize:
        """The wrapped text's least size."""
        return self.layout().minimumSize()


def wrapped_label(text: str = "", parent: QWidget | None = None, name: str = "", rich: bool = False) -> QLabel:
    """A word-wrapped label, rich or plain text, named ``name`` for accessibility."""
    label = QLabel(text, parent)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if name:
        label.setAccessibleName(name)
    return label


class WrapDelegate(QStyledItemDelegate):
    """Rows as tall as their wrapped text at the column's current width (a tree's own word wrap
    measures text at an unbounded width and elides it)."""

    def sizeHint(self, option, index: QModelIndex) -> QSize:
        """The row's height with its text wrapped to the column width."""
        view: QTreeView = self.parent()
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        depth, parent = 0, index.parent()
        while parent.isValid():
            depth, parent = depth + 1, parent.parent()
        if index.column() == 0 and view.isFirstColumnSpanned(index.row(), index.parent()):
            width = view.viewport().width()
        else:
            width = view.columnWidth(index.column())
        if index.column() == 0:
            width -= view.indentation() * (depth + (1 if view.rootIsDecorated() else 0))
        width -= 14 + (opt.decorationSize.width() + 4 if not opt.icon.isNull() else 0)
        rect = opt.fontMetrics.boundingRect(QRect(0, 0, max(40, width), 100_000),
                                            int(Qt.TextFlag.TextWordWrap), opt.text)
        return QSize(max(40, width), max(rect.height() + 6, opt.fontMetrics.height() + 6))


def wrap_tree(view: QTreeView) -> QTreeView:
    """Give a tree wrapped, fully readable rows that follow the column widths."""
    view.setWordWrap(True)
    view.setUniformRowHeights(False)
    view.setTextElideMode(Qt.TextElideMode.ElideNone)
    view.setItemDelegate(WrapDelegate(view))
    timer = QTimer(view)
    timer.setSingleShot(True)
    timer.setInterval(0)
    timer.timeout.connect(view.doItemsLayout)
    view.header().sectionResized.connect(lambda *_: timer.start())
    view._relayout_timer = timer  # keep it with the view
    return view


# ------------------------------------------------------------------------------ designs
def fresh_design(design: Design | bytes | str | None) -> Design:
    """A private copy of a design (from a Design, its file bytes or its JSON text)."""
    if design is None:
        return Design()
    if isinstance(design, Design):
        design = design_to_bytes(design)
    if isinstance(design, str):
        design = design.encode("utf-8")
    return parse_design(design, "<practice design>")


class ReadOnlyScene(DesignScene):
    """A scene that shows a design and takes no edits: every mouse gesture is ignored."""

    def mousePressEvent(self, event) -> None:
        """Ignore: a read-only canvas takes no gestures."""
        event.ignore()

    def mouseMoveEvent(self, event) -> None:
        """Ignore (see mousePressEvent)."""
        event.ignore()

    def mouseReleaseEvent(self, event) -> None:
        """Ignore (see mousePressEvent)."""
        event.ignore()

    def mouseDoubleClickEvent(self, event) -> None:
        """Ignore (see mousePressEvent)."""
        event.ignore()

    def contextMenuEvent(self, event) -> None:
        """Ignore: no context menu on a read-only canvas."""
        event.ignore()


class ReadOnlyCanvas(QWidget):
    """A design shown read-only. It keeps the whole design in view (also as it grows) until the
    user zooms or pans (wheel, middle button); the Fit button goes back to following."""

    def __init__(self, name: str, parent: QWidget | None = None, theme: Theme = LIGHT, caption: str = ""):
        super().__init__(parent)
        self.document = DesignDocument(parent=self)
        self.scene = ReadOnlyScene(self.document, theme, self)
        self.view = CanvasView(self.scene, self)
        self.view.setObjectName(name.lower().replace(" ", "_"))
        self.view.setAccessibleName(name)
        self.view.setAccessibleDescription("A read-only view of a design; the wheel zooms, the middle button pans.")
        self.view.setInteractive(False)
        self.view.setAcceptDrops(False)
        self.view.viewport().installEventFilter(self)
        self.caption = QLabel(caption, self)
        self.caption.setWordWrap(True)
        self.fit_button = QToolButton(self)
        self.fit_button.setText("Fit")
        self.fit_button.setAccessibleName(f"Fit the whole design in view ({name})")
        self.fit_button.setToolTip("Show the whole design and follow it as it changes")
        self.fit_button.clicked.connect(self.fit)
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.caption, 1)
        head.addWidget(self.fit_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(head)
        layout.addWidget(self.view, 1)
        #: Keep the whole design in view until the user zooms or pans.
        self.following = True

    @property
    def design(self) -> Design:
        """The design shown."""
        return self.document.design

    def node_ids(self) -> list[str]:
        """The ids of the nodes shown."""
        return list(self.document.design.nodes)

    def set_design(self, design: Design | bytes | str | None, fit: bool | None = None) -> None:
        """Show a copy of ``design``; ``fit`` None fits while following."""
        self.document.set_design(fresh_design(design))
        if fit or (fit is None and self.following):
            self.fit()

    def set_caption(self, text: str) -> None:
        """Show ``text`` above the canvas."""
        self.caption.setText(text)

    def set_theme(self, theme: Theme) -> None:
        """Redraw in ``theme``'s colours."""
        self.scene.set_theme(theme)

    def highlight(self, node_ids, seconds: float = 0) -> None:
        """Highlight ``node_ids`` (for ``seconds``; 0 keeps them highlighted)."""
        self.scene.highlight(node_ids, (), seconds)

    def content_rect(self):
        """The area covered by the nodes and their wires."""
        rect = self.scene.nodes_rect()
        for item in self.scene.edges.values():
            rect = rect.united(item.sceneBoundingRect())
        return rect

    def fit(self) -> None:
        """Fit the whole design and keep fitting it until the user zooms or pans."""
        self.following = True
        rect = self.content_rect()
        if rect.isEmpty():
            self.view.fit_all()
        else:
            self.view.fit_rect(rect)

    def eventFilter(self, watched, event) -> bool:
        """Stop following the design's size once the user zooms or pans by hand."""
        if event.type() == event.Type.Wheel or (event.type() == event.Type.MouseButtonPress
                                                and event.button() == Qt.MouseButton.MiddleButton):
            self.following = False
        return super().eventFilter(watched, event)

    def showEvent(self, event) -> None:
        """Fit the design when shown, unless the user took over the view."""
        super().showEvent(event)
        if self.following:
            self.fit()

    def resizeEvent(self, event) -> None:
        """Fit the design at the new size, unless the user took over the view."""
        super().resizeEvent(event)
        if self.following:
            self.fit()


def design_png(design: Design | bytes | str | None, scale: float = 1.0, theme: Theme = LIGHT) -> bytes:
    """A PNG of a design drawn by the editor's own canvas items, rendered off screen."""
    document = DesignDocument(fresh_design(design))
    scene = DesignScene(document, theme)
    try:
        return png_bytes(scene, scale)
    finally:
        scene.clear()
        scene.deleteLater()
        document.deleteLater()
