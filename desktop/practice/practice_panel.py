"""The solo practice panel, docked in the main window: the prompt, the phase timer with its
nudges, the clarifying questions (each answer appears under its question), and Submit.

The design being built is the main window's design: the panel records a snapshot shortly after
each edit and grades that design at submit."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QMessageBox, QPushButton, QSplitter, QVBoxLayout, QWidget
from pydantic import ValidationError

from inferboard.model import ops
from inferboard.model.requirements import Requirements
from inferboard.practice.session import OVERTIME, PracticeSession, Result, SessionStateError

from desktop.editor.document import DesignDocument
from desktop.practice.brief_panel import BriefPanel
from desktop.practice.common import esc, mmss, phase_name, warn_history_problem

TICK_MS = 500
RECORD_MS = 800


def merged_requirements(current: Requirements, values: dict) -> Requirements | None:
    """``current`` with the revealed values filled in; None when they contradict what is there."""
    data = current.model_dump()
    data.update(values)
    try:
        return Requirements.model_validate(data)
    except ValidationError:
        return None


class PracticePanel(BriefPanel):
    """The solo round's panel: the brief, the phase timer with its nudges, the questions (each
    answer under its question), Submit and Give up."""

    #: The round was submitted: the engine's Result.
    submitted = Signal(object)
    #: The user gave up on the round.
    abandoned = Signal()
    #: A short line for the status bar ("High-level design · 4:12 left").
    status_text = Signal(str)
    #: A message for the status bar.
    message = Signal(str)

    def __init__(self, session: PracticeSession, document: DesignDocument, parent: QWidget | None = None,
                 tick_ms: int = TICK_MS, record_ms: int = RECORD_MS):
        super().__init__(parent)
        self.setObjectName("practice_panel")
        self.session = session
        self.document = document
        scenario = session.scenario
        self._build_brief(scenario.title, f"{esc(scenario.difficulty.title())} · {scenario.total_minutes:g} minutes · "
                          f"{esc(', '.join(scenario.tags[:4]))}", scenario.prompt,
                          [(q.id, q.text, q.category) for q in scenario.questions])
        self.next_phase_button = QPushButton("Next &phase", self)
        self.next_phase_button.setAccessibleName("Move on to the next phase")
        self.next_phase_button.setToolTip("Move on before the phase's time is up")
        self.next_phase_button.clicked.connect(self.advance_phase)
        self.questions.ask_requested.connect(self.ask)
        self.fill_button.setToolTip("Fill the requirements editor with the figures the answers gave")
        self.fill_button.clicked.connect(self.fill_requirements)
        self.submit_button = QPushButton("Su&bmit design", self)
        self.submit_button.setAccessibleName("Submit the design for grading")
        self.submit_button.setStyleSheet("font-weight: 600;")
        self.submit_button.clicked.connect(lambda: self.submit())
        self.abandon_button = QPushButton("&Give up", self)
        self.abandon_button.setAccessibleName("Give up this round")
        self.abandon_button.clicked.connect(lambda: self.abandon())
        questions_box, box = self._questions_box(
            "<b>Clarifying questions</b> — ask before you draw; the answer appears under the question.")
        box.addLayout(self._fill_row())
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.prompt)
        splitter.addWidget(questions_box)
        splitter.setSizes([120, 520])
        self.prompt.setMinimumHeight(70)
        questions_box.setMinimumHeight(260)
        splitter.setChildrenCollapsible(False)
        timer_row = QHBoxLayout()
        timer_row.addWidget(self.timer_widget, 1)
        timer_row.addWidget(self.next_phase_button, 0, Qt.AlignmentFlag.AlignTop)
        buttons = QHBoxLayout()
        buttons.addWidget(self.abandon_button)
        buttons.addStretch(1)
        buttons.addWidget(self.submit_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        layout.addLayout(timer_row)
        layout.addWidget(splitter, 1)
        layout.addLayout(buttons)
        self.tick = QTimer(self)
        self.tick.setInterval(tick_ms)
        self.tick.timeout.connect(self.refresh_status)
        self.record_timer = QTimer(self)
        self.record_timer.setSingleShot(True)
        self.record_timer.setInterval(record_ms)
        self.record_timer.timeout.connect(self.record_now)
        document.changed.connect(self._design_edited)
        document.replaced.connect(self._design_edited)

    # ------------------------------------------------------------------ running
    def start(self) -> None:
        """Start the round (if not started) and record the design as it is."""
        if self.session.state == "ready":
            self.session.start()
        self.record_now()
        self.tick.start()
        self.refresh_status()

    def running(self) -> bool:
        """Whether the round is running."""
        return self.session.state == "running"

    def refresh_status(self) -> None:
        """Update the phase timer and its nudges, and the status line."""
        warn_history_problem(self, self.session)
        if not self.running():
            return
        status = self.session.status()
        count = len(self.session.scenario.phases)
        self.timer_widget.show_status(status, count)
        self.next_phase_button.setEnabled(status.phase != OVERTIME and status.phase_index < count - 1)
        left = "overtime" if status.phase == OVERTIME else f"{mmss(status.phase_remaining_s)} left"
        self.status_text.emit(f"Practice · {status.phase_title} · {left}")

    def advance_phase(self) -> None:
        """Move on to the next phase now."""
        try:
            self.session.advance_phase()
        except SessionStateError as error:
            self.message.emit(str(error))
        self.refresh_status()

    def ask(self, question_id: str) -> None:
        """Ask panel question ``question_id``: its answers appear under it."""
        if not self.running():
            return
        try:
            asked = self.session.ask(question_id)
        except SessionStateError as error:
            self.message.emit(str(error))
            return
        self.questions.mark_asked(question_id, f"Asked at {mmss(asked.t_s)} during {phase_name(asked.phase)}")
        for fact in asked.facts:
            self.questions.add_answer(question_id, fact.text)
        self.fill_button.setEnabled(any(f.values for f in self.session.revealed_facts()))
        self.refresh_status()

    def fill_requirements(self) -> bool:
        """Copy the figures the answers gave into the requirements; False when they contradict what is typed."""
        values: dict = {}
        for fact in self.session.revealed_facts():
            values.update(fact.values)
        new = merged_requirements(self.document.design.requirements, values)
        if new is None:
            self.message.emit("The answers contradict the requirements you typed; edit them by hand.")
            return False
        if new == self.document.design.requirements:
            return False
        return self.document.execute(ops.SetRequirements(new), "Copy answers into requirements")

    # ------------------------------------------------------------------ recording
    def _design_edited(self, *_args) -> None:
        if self.running():
            self.record_timer.start()

    def record_now(self) -> None:
        """Record the design now (a snapshot for the replay and the grade)."""
        self.record_timer.stop()
        if self.running():
            self.session.record_design(self.document.design)

    # ------------------------------------------------------------------ ending
    def _stop(self) -> None:
        self.tick.stop()
        self.record_timer.stop()
        for widget in (self.questions, self.next_phase_button, self.fill_button, self.submit_button,
                       self.abandon_button):
            widget.setEnabled(False)

    def submit(self, confirm: bool = True) -> Result | None:
        """Submit the design for grading (after asking with ``confirm``); returns the result, or None."""
        if not self.running():
            return None
        if confirm and QMessageBox.question(
                self, "Submit design", "Submit this design for grading? The round ends and the timer stops.") \
                != QMessageBox.StandardButton.Yes:
            return None
        self.record_timer.stop()
        result = self.session.submit(self.document.design)
        self._stop()
        warn_history_problem(self, self.session)
        self.timer_widget.show_text("Submitted", f"Grade {result.grade.grade} · {result.grade.overall:.0f}%")
        self.status_text.emit("")
        self.submitted.emit(result)
        return result

    def abandon(self, confirm: bool = True) -> bool:
        """Give up the round (after asking with ``confirm``); False when not running or cancelled."""
        if not self.running():
            return False
        if confirm and QMessageBox.question(self, "Give up", "Give up this round? It is kept in the history as "
                                                             "abandoned.") != QMessageBox.StandardButton.Yes:
            return False
        self.session.abandon()
        self._stop()
        warn_history_problem(self, self.session)
        self.timer_widget.show_text("Abandoned")
        self.status_text.emit("")
        self.abandoned.emit()
        return True
