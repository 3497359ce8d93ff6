"""Find on Canvas (Ctrl+F): a bar over the canvas's top-right corner. Typing lists the components
whose id, label, kind or a parameter value match ("replicas=4" asks for one value) and the findings
whose rule id does; Enter or F3 goes to the next match, Shift+Enter or Shift+F3 to the previous
one, Esc closes the bar. Each match is selected, highlighted and centred in the view."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from desktop.editor.canvas.overlay import CornerPin
from desktop.editor.find_matches import Match, find_matches
from desktop.findings.dock import FINDING_ROLE

ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class FindBar(QFrame):
    """The field, the "2 of 5" count and previous / next / close buttons."""

    #: +1 for the next match, -1 for the previous one.
    step_requested = Signal(int)
    closed = Signal()

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("find_bar")
        self.setAccessibleName("Find on canvas")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.field = QLineEdit(self)
        self.field.setObjectName("find_field")
        self.field.setPlaceholderText("Find: id, label, kind, value, rule id…")
        self.field.setAccessibleName("Find on canvas")
        self.field.setToolTip("Components by id, label, kind or a parameter's value (name=value for one "
                              "parameter); findings by rule id. Enter: next, Shift+Enter: previous, Esc: close.")
        self.field.setClearButtonEnabled(True)
        self.field.setMinimumWidth(240)
        self.field.installEventFilter(self)
        self.count = QLabel("", self)
        self.count.setAccessibleName("Matches")
        self.count.setMinimumWidth(64)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.field, 1)
        layout.addWidget(self.count)
        for text, name, tip, slot in (("▲", "Previous match", "Previous match (Shift+Enter)", lambda: self.step_requested.emit(-1)),
                                      ("▼", "Next match", "Next match (Enter)", lambda: self.step_requested.emit(1)),
                                      ("✕", "Close find", "Close (Esc)", self.closed.emit)):
            button = QToolButton(self)
            button.setText(text)
            button.setAccessibleName(name)
            button.setToolTip(tip)
            button.setAutoRaise(True)
            button.clicked.connect(slot)
            layout.addWidget(button)
        self.setFocusProxy(self.field)
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Enter goes to the next match, Shift+Enter to the previous, Escape closes the bar."""
        if watched is self.field and event.type() == QEvent.Type.KeyPress:
            key_event: QKeyEvent = event  # type: ignore[assignment]
            if key_event.key() in ENTER_KEYS:
                back = key_event.modifiers() & Qt.KeyboardModifier.ShiftModifier
                self.step_requested.emit(-1 if back else 1)
                return True
            if key_event.key() == Qt.Key.Key_Escape:
                self.closed.emit()
                return True
        return False


class CanvasFinder(QObject):
    """Runs the find bar over ``window``'s canvas: keeps the matches and the current one, and shows
    each (selected, highlighted, centred; a finding is also made current in the findings panel)."""

    def __init__(self, window, report_findings: Callable[[], list] | None = None):
        super().__init__(window)
        self.window = window
        self.report_findings = report_findings or self._findings_shown
        self.bar = FindBar(window.view.viewport())
        self.pin = CornerPin(self.bar, window.view, Qt.Corner.TopRightCorner)
        self.matches: list[Match] = []
        self.index = -1
        self._stale = True
        self.bar.field.textChanged.connect(self._query_changed)
        self.bar.step_requested.connect(self.step)
        self.bar.closed.connect(self.close)
        window.document.changed.connect(self._mark_stale)
        window.document.replaced.connect(self._mark_stale)

    def _findings_shown(self) -> list:
        report = self.window.findings.report
        return list(report.findings) if report is not None else []

    def open(self) -> None:
        """Show the bar with its text selected, so typing replaces the last search."""
        self.bar.adjustSize()
        self.pin.place()
        self.bar.show()
        self.bar.raise_()
        self.bar.field.setFocus()
        self.bar.field.selectAll()

    def close(self) -> None:
        """Hide the find bar, clear the highlight and give the canvas the focus."""
        self.bar.hide()
        self.window.scene.clear_highlight()
        self.window.view.setFocus()

    def is_open(self) -> bool:
        """Whether the find bar is shown."""
        return self.bar.isVisible()

    def _mark_stale(self, *_args) -> None:
        self._stale = True

    def _query_changed(self, _text: str) -> None:
        self._stale = True
        self.index = -1
        self.refresh()
        if self.matches:
            self.step(1)

    def refresh(self) -> None:
        """Search again if the text, the design or the findings changed since the last search."""
        current = self.matches[self.index] if 0 <= self.index < len(self.matches) else None
        self.matches = find_matches(self.window.document.design, self.bar.field.text(), self.report_findings())
        self._stale = False
        self.index = self.matches.index(current) if current in self.matches else -1
        self._show_count()

    def step(self, direction: int) -> Match | None:
        """Go to the next (+1) or previous (-1) match, wrapping round; None when nothing matches."""
        if self._stale:
            self.refresh()
        if not self.matches:
            self._show_count()
            return None
        if self.index < 0:
            self.index = 0 if direction > 0 else len(self.matches) - 1
        else:
            self.index = (self.index + direction) % len(self.matches)
        match = self.matches[self.index]
        self.show_match(match)
        self._show_count()
        return match

    def _show_count(self) -> None:
        text = self.bar.field.text().strip()
        if not text:
            self.bar.count.setText("")
        elif not self.matches:
            self.bar.count.setText("no match")
        else:
            self.bar.count.setText(f"{max(self.index, 0) + 1} of {len(self.matches)}")

    def show_match(self, match: Match) -> None:
        """Select and highlight ``match`` (its finding in the findings panel when it is one) and bring it into view."""
        window = self.window
        if match.finding is not None and self._select_finding(match.finding):
            window.scene.highlight(match.node_ids, match.edge_ids, seconds=0)
        else:
            window.scene.select_ids(match.node_ids, match.edge_ids)
            window.scene.highlight(match.node_ids, match.edge_ids, seconds=0)
        if match.node_ids:
            window.view.centre_on_rect(window.scene.nodes_rect(match.node_ids))
        if match.finding is None:  # a finding's own message is in the status bar already
            window.show_message(f"Found {match.node_ids[0]}: {match.where}", 8000)

    def _select_finding(self, finding) -> bool:
        """Make ``finding`` current in the findings panel (which selects what it names)."""
        panel = self.window.findings
        for item in panel.finding_items():
            if item.data(0, FINDING_ROLE) is finding:
                panel.tree.setCurrentItem(item)
                return True
        return False
