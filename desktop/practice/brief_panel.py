"""What the solo practice panel and the candidate's interview panel share: the scenario's title
line, its prompt, the phase timer, the clarifying questions under a heading, and the button that
copies the answers into the requirements."""

from __future__ import annotations

from typing import Sequence

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from desktop.practice.common import esc, paragraphs
from desktop.practice.questions import QuestionPanel
from desktop.practice.timer_widget import PhaseTimer
from desktop.theme import LIGHT_INK


class BriefPanel(QWidget):
    """The base of the panels a candidate works a scenario from. ``_build_brief`` makes ``title``,
    ``prompt``, ``timer_widget``, ``questions`` and ``fill_button``; each panel lays them out."""

    def _build_brief(self, title: str, subtitle: str, prompt: str, questions: Sequence[tuple[str, str, str]],
                     free_text: bool = False) -> None:
        """Make the shared widgets for a scenario called ``title`` (``subtitle`` under it, in muted
        type), its ``prompt`` and its (id, text, category) ``questions``."""
        self.title = QLabel(f"<b style='font-size:12pt'>{esc(title)}</b><br>"
                            f"<span style='color:{LIGHT_INK.muted}'>{subtitle}</span>", self)
        self.title.setWordWrap(True)
        self.title.setAccessibleName("Scenario")
        self.prompt = QTextBrowser(self)
        self.prompt.setObjectName("prompt")
        self.prompt.setAccessibleName("Interview prompt")
        self.prompt.setPlainText(paragraphs(prompt))
        self.timer_widget = PhaseTimer(self)
        self.questions = QuestionPanel(list(questions), self, free_text=free_text)
        self.fill_button = QPushButton("Copy answers into re&quirements", self)
        self.fill_button.setAccessibleName("Copy the answers into the requirements")
        self.fill_button.setEnabled(False)

    def _questions_box(self, heading: str) -> tuple[QWidget, QVBoxLayout]:
        """The questions under ``heading`` in a box of their own; returns the box and its column."""
        box = QWidget(self)
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        label = QLabel(heading, box)
        label.setWordWrap(True)
        column.addWidget(label)
        column.addWidget(self.questions, 1)
        return box, column

    def _fill_row(self) -> QHBoxLayout:
        """The copy-answers button on a row of its own, at the left."""
        row = QHBoxLayout()
        row.addWidget(self.fill_button)
        row.addStretch(1)
        return row
