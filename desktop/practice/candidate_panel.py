"""The candidate's interview panel: the prompt, the phase the interviewer has set with its
countdown, the clarifying questions (they go to the interviewer), the interviewer's answers and
follow-ups. It is built from the public ``CandidateBrief`` and the messages received, nothing else."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QSplitter, QVBoxLayout, QWidget

from inferboard.practice.interview_link import CandidateBrief, FollowUpPlayed, PhaseChanged
from inferboard.practice.session import RevealedFact

from desktop.practice.brief_panel import BriefPanel
from desktop.practice.common import esc, mmss, tone
from desktop.theme import DARK_INK, LIGHT_INK

TICK_MS = 500


class CandidatePanel(BriefPanel):
    """The candidate's side of a mock interview: the brief, the phase the interviewer set, the
    questions sent and the answers and follow-ups received."""

    ask_requested = Signal(str)
    free_text_asked = Signal(str)
    fill_requested = Signal()

    def __init__(self, brief: CandidateBrief, clock: Callable[[], float], parent: QWidget | None = None,
                 tick_ms: int = TICK_MS):
        super().__init__(parent)
        self.setObjectName("candidate_panel")
        self.brief = brief
        self.clock = clock
        self.phase: PhaseChanged | None = None
        self._phase_started = 0.0
        self._t0: float | None = None
        self._build_brief(brief.title, f"Mock interview · {esc(brief.difficulty.title())} · "
                          f"{sum(p[2] for p in brief.phases):g} minutes", brief.prompt,
                          [tuple(q) for q in brief.questions], free_text=True)
        self.timer_widget.show_text("Waiting for the interviewer", "The round starts when the interviewer starts it.")
        self.questions.ask_requested.connect(self.ask_requested)
        self.questions.free_text_asked.connect(self.free_text_asked)
        self.questions.set_asking_enabled(False)
        self.answers = QListWidget(self)
        self.answers.setObjectName("answers")
        self.answers.setAccessibleName("Answers and follow-ups from the interviewer")
        self.answers.setWordWrap(True)
        self.answers.setAlternatingRowColors(True)
        self.fill_button.clicked.connect(self.fill_requested)
        self.ended_label = QLabel("The interview has ended. The interviewer has your design and will share the "
                                  "feedback.", self)
        self.ended_label.setWordWrap(True)
        self.ended_label.setStyleSheet(f"background: {LIGHT_INK.success_bg}; color: {LIGHT_INK.success_fg}; padding: 6px; border-radius: 4px;")
        self.ended_label.hide()
        questions_box, _column = self._questions_box(
            "<b>Clarifying questions</b> — they go to the interviewer, who answers.")
        answers_box = QWidget(self)
        acol = QVBoxLayout(answers_box)
        acol.setContentsMargins(0, 0, 0, 0)
        acol.addWidget(QLabel("<b>From the interviewer</b>", answers_box))
        acol.addWidget(self.answers, 1)
        acol.addLayout(self._fill_row())
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.prompt)
        splitter.addWidget(questions_box)
        splitter.addWidget(answers_box)
        splitter.setSizes([150, 380, 220])
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        layout.addWidget(self.timer_widget)
        layout.addWidget(self.ended_label)
        layout.addWidget(splitter, 1)
        self.tick = QTimer(self)
        self.tick.setInterval(tick_ms)
        self.tick.timeout.connect(self.refresh_timer)

    # ------------------------------------------------------------------ time
    def elapsed(self) -> float:
        """Seconds since the interview started, on the interviewer's clock as far as the candidate knows it."""
        return 0.0 if self._t0 is None else max(0.0, self.clock() - self._t0)

    def show_phase(self, message: PhaseChanged) -> None:
        """Show the phase the interviewer set, with its goal and countdown, and allow asking."""
        now = self.clock()
        if self._t0 is None:
            self._t0 = now - message.t_s
        self.phase = message
        self._phase_started = min(now, self._t0 + message.t_s)
        self.questions.set_asking_enabled(True)
        self.tick.start()
        self.refresh_timer()

    def refresh_timer(self) -> None:
        """Count the phase down."""
        message = self.phase
        if message is None:
            return
        names = [p[0] for p in self.brief.phases]
        index = names.index(message.phase) if message.phase in names else 0
        length = 60.0 * message.minutes
        in_phase = max(0.0, self.clock() - self._phase_started)
        remaining_later = sum(60.0 * p[2] for p in self.brief.phases[index + 1:])
        self.timer_widget.show_phase(message.title, index, len(names), in_phase, length,
                                     max(0.0, length - in_phase) + remaining_later, message.goal)

    # ------------------------------------------------------------------ messages
    def question_sent(self, question_id: str | None, text: str) -> None:
        """Mark a question as sent (a panel question's row, or the candidate's own words in the answers)."""
        when = mmss(self.elapsed())
        if question_id is not None:
            self.questions.mark_asked(question_id, f"Asked at {when}; the interviewer answers below.")
        else:
            item = QListWidgetItem(f"You asked ({when}): {text}")
            item.setForeground(QBrush(tone(self, LIGHT_INK.muted, DARK_INK.muted)))
            self.answers.addItem(item)
            self.answers.scrollToBottom()

    def add_fact(self, fact: RevealedFact) -> None:
        """List an answer from the interviewer."""
        item = QListWidgetItem(f"{mmss(self.elapsed())} · {fact.text}")
        item.setForeground(QBrush(tone(self, LIGHT_INK.answer, DARK_INK.answer)))
        item.setToolTip(fact.text)
        self.answers.addItem(item)
        self.answers.scrollToBottom()
        if fact.values:
            self.fill_button.setEnabled(True)

    def add_follow_up(self, follow_up: FollowUpPlayed, hint: str = "") -> None:
        """List the follow-up with the time it came, its prompt and ``hint`` (how to see it in the figures)."""
        prompt = f"{follow_up.prompt} {hint}".strip()
        item = QListWidgetItem(f"{mmss(self.elapsed())} · Follow-up: {follow_up.title}\n{prompt}")
        item.setForeground(QBrush(tone(self, LIGHT_INK.follow_up, DARK_INK.follow_up)))
        item.setToolTip(prompt)
        self.answers.addItem(item)
        self.answers.scrollToBottom()

    def ended(self) -> None:
        """Stop the clock and asking: the interview is over."""
        self.tick.stop()
        self.questions.set_asking_enabled(False)
        self.fill_button.setEnabled(False)
        self.ended_label.show()
        self.timer_widget.show_text("Interview over", f"Lasted {mmss(self.elapsed())}")
