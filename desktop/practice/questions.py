"""The clarifying-question panel: the scenario's questions, asked with Enter, a double-click or the
Ask button. In solo practice each answer appears under its question; in a mock interview the
question goes to the interviewer and the answers arrive in their own list."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (QHBoxLayout, QHeaderView, QLineEdit, QPushButton, QTreeWidget, QTreeWidgetItem,
                               QVBoxLayout, QWidget)

from desktop.practice.common import tone, wrap_tree
from desktop.theme import DARK_INK, LIGHT_INK

QID = Qt.ItemDataRole.UserRole
ANSWER_COLOUR = LIGHT_INK.answer


class QuestionPanel(QWidget):
    """The clarifying questions by category, each answer under its question, with an Ask button (and a field for one's
    own words)."""

    #: The user asked a panel question (its id).
    ask_requested = Signal(str)
    #: The user typed a question of their own.
    free_text_asked = Signal(str)

    def __init__(self, questions: list[tuple[str, str, str]], parent: QWidget | None = None,
                 free_text: bool = False):
        super().__init__(parent)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("questions")
        self.tree.setAccessibleName("Clarifying questions")
        self.tree.setAccessibleDescription("Select a question and press Enter to ask it.")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Question", "Area"])
        wrap_tree(self.tree)
        self.tree.setRootIsDecorated(False)
        self.tree.setIndentation(14)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Fixed)
        header.resizeSection(1, 84)
        self.items: dict[str, QTreeWidgetItem] = {}
        for question_id, text, category in questions:
            item = QTreeWidgetItem([text, category])
            item.setData(0, QID, question_id)
            item.setToolTip(0, text)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.tree.addTopLevelItem(item)
            self.items[question_id] = item
        self.tree.itemActivated.connect(lambda item, _c: self._activated(item))
        self.tree.currentItemChanged.connect(lambda *_: self._update_button())
        self.ask_button = QPushButton("&Ask selected question", self)
        self.ask_button.setAccessibleName("Ask the selected question")
        self.ask_button.clicked.connect(self.ask_current)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.tree, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.ask_button)
        layout.addLayout(row)
        self.free_text = None
        if free_text:
            self.free_text = QLineEdit(self)
            self.free_text.setObjectName("free_text_question")
            self.free_text.setAccessibleName("Your own question")
            self.free_text.setPlaceholderText("Or type your own question and press Enter")
            self.free_text.setMaxLength(1000)
            self.free_text.returnPressed.connect(self._ask_free_text)
            send = QPushButton("Send", self)
            send.setAccessibleName("Send your own question")
            send.clicked.connect(self._ask_free_text)
            free_row = QHBoxLayout()
            free_row.addWidget(self.free_text, 1)
            free_row.addWidget(send)
            layout.addLayout(free_row)
        self._update_button()

    # ------------------------------------------------------------------ asking
    def _question_id(self, item: QTreeWidgetItem | None) -> str | None:
        while item is not None and item.parent() is not None:
            item = item.parent()
        return None if item is None else item.data(0, QID)

    def _activated(self, item: QTreeWidgetItem) -> None:
        question_id = self._question_id(item)
        if question_id is not None and item.parent() is None:
            self.ask_requested.emit(question_id)

    def ask_current(self) -> None:
        """Ask the selected question."""
        question_id = self._question_id(self.tree.currentItem())
        if question_id is not None:
            self.ask_requested.emit(question_id)

    def _ask_free_text(self) -> None:
        if self.free_text is None:
            return
        text = self.free_text.text().strip()
        if text:
            self.free_text.clear()
            self.free_text_asked.emit(text)

    def _update_button(self) -> None:
        question_id = self._question_id(self.tree.currentItem())
        self.ask_button.setEnabled(question_id is not None and self.isEnabled())

    def set_asking_enabled(self, enabled: bool) -> None:
        """Allow or stop asking."""
        self.tree.setEnabled(enabled)
        self.ask_button.setEnabled(enabled)
        if self.free_text is not None:
            self.free_text.setEnabled(enabled)

    # ------------------------------------------------------------------ showing
    def select(self, question_id: str) -> None:
        """Select question ``question_id``."""
        self.tree.setCurrentItem(self.items[question_id])

    def mark_asked(self, question_id: str, detail: str) -> None:
        """Tick a question as asked; ``detail`` (when, in which phase) goes in its tooltip."""
        item = self.items.get(question_id)
        if item is None:
            return
        text = item.text(0)
        if not text.startswith("✓ "):
            item.setText(0, "✓ " + text)
        item.setForeground(0, QBrush(tone(self, LIGHT_INK.muted, DARK_INK.muted)))
        item.setToolTip(0, f"{text.removeprefix('✓ ')}\n{detail}")
        item.setData(1, Qt.ItemDataRole.AccessibleTextRole, f"{item.text(1)}, asked")

    def add_answer(self, question_id: str, text: str) -> QTreeWidgetItem | None:
        """Show ``text`` under question ``question_id``; returns its row, or None for an unknown question."""
        item = self.items.get(question_id)
        if item is None:
            return None
        for n in range(item.childCount()):
            if item.child(n).text(0) == text:
                return item.child(n)
        child = QTreeWidgetItem([text, ""])
        child.setFirstColumnSpanned(True)
        child.setForeground(0, QBrush(tone(self, ANSWER_COLOUR, DARK_INK.answer)))
        child.setToolTip(0, text)
        child.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        item.addChild(child)
        child.setFirstColumnSpanned(True)
        item.setExpanded(True)
        self.tree.setRootIsDecorated(True)
        return child

    def answers(self, question_id: str) -> list[str]:
        """The answers shown under ``question_id``."""
        item = self.items[question_id]
        return [item.child(n).text(0) for n in range(item.childCount())]

    def asked_ids(self) -> list[str]:
        """The questions marked as asked."""
        return [qid for qid, item in self.items.items() if item.text(0).startswith("✓ ")]
