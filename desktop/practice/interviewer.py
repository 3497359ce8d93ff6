"""The interviewer's console: a live read-only mirror of the candidate's design, the candidate's
questions with the hidden facts to answer them, the live rubric checklist, follow-up buttons,
timestamped notes, the score sheet, and at the end the feedback report and the replay.

Everything goes through the ``InterviewerLink``; the candidate's design arrives as file bytes and
is parsed into this console's own copy."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (QApplication, QHBoxLayout, QLabel, QMessageBox, QPushButton, QTabWidget,
                               QTextBrowser, QVBoxLayout, QWidget)

from inferboard.practice.basis import Basis, interview_basis
from inferboard.practice.grading import grade_design
from inferboard.practice.interview_link import (CANDIDATE, DesignChanged, FiguresShown, InterviewerLink, MockResult,
                                                PhaseChanged, QuestionAsked, encode)
from inferboard.practice.session import OVERTIME, RevealedFact, SessionStateError

from desktop.practice.common import ReadOnlyCanvas, design_png, esc, mmss, paragraphs, warn_history_problem
from desktop.practice.inject_plan import attach_injects
from desktop.practice.interviewer_panels import FollowUpsPanel, NotesPanel, QuestionsPanel, RubricChecklist, ScoreSheet
from desktop.practice.replay_view import ReplayWindow
from desktop.practice.report_export import add_section, ask_report_path, score_sheet_html, slug, write_report
from desktop.practice.result_pages import readout_text
from desktop.practice.result_window import ResultWindow
from desktop.practice.timer_widget import PhaseTimer
from desktop.responsive import ResponsiveSplitter
from desktop.shell.evaluation import Evaluator
from desktop.theme import LIGHT, LIGHT_INK
from desktop.window_placement import fit_window

TICK_MS = 500


#: Why the tiles' line may differ from the steady-state line, by the basis the tiles use.
TILES_BASIS_NOTE = {
    "playhead": "a moment of the simulated day (autoscaling, traffic pattern and faults then), so it can differ "
                "from the steady state below",
    "peak": "the same basis as the steady state at their stated traffic below",
    "steady": "steady state at their stated mean rate; the line below is at the peak rate",
}


def figures_html(figures: FiguresShown | None) -> str:
    """The candidate's tiles as they see them, with the reason they may differ from the steady state."""
    if figures is None:
        return "<b>Their tiles show</b>: nothing yet (their window sends its figures once it has worked them out)"
    note = TILES_BASIS_NOTE.get(figures.mode, "")
    return (f"<b>Their tiles show</b> {esc(figures.line)}"
            + (f" <span style='color:{LIGHT_INK.muted}'>({esc(note)})</span>" if note else ""))


def basis_html(basis: Basis, private: bool = True, figures: FiguresShown | None = None) -> str:
    """The candidate's tiles as they see them, then the steady state at the peak rate of their stated
    traffic beside the design at the true traffic, labelled (``private``: the true traffic may be
    shown; else it is said to be folded away)."""
    if basis.at_stated is None:
        theirs = "no traffic stated yet (their window says its figures use a placeholder)"
    else:
        theirs = f"{esc(basis.stated)}: {esc(readout_text(basis.at_stated.to_dict()))}"
    truth = (f"{esc(basis.true_traffic)}: {esc(readout_text(basis.at_true.to_dict()))}" if private
             else "folded away with the hidden facts")
    return (f"{figures_html(figures)}<br><b>Steady state at the peak rate</b> · <b>at the candidate's stated "
            f"traffic</b>: {theirs} · <b style='color:{LIGHT_INK.bad}'>at the scenario's true traffic</b>, only you "
            f"know it: {truth}")


class InterviewerConsole(QWidget):
    """The interviewer's console: the candidate's design mirrored, their questions, the hidden facts, follow-ups, notes
    and score sheet."""

    def __init__(self, link: InterviewerLink, parent: QWidget | None = None, theme=None, tick_ms: int = TICK_MS,
                 grade_debounce_ms: int = 300):
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window)
        self.setObjectName("interviewer_console")
        self.link = link
        self.scenario = link.scenario
        self.result: MockResult | None = None
        self.windows: list[QWidget] = []
        self._typed = 0
        self._asked: tuple = ()
        self._phase_sent = ""
        self.setWindowTitle(f"Interviewer — {self.scenario.title} — Inferboard")
        self.setAccessibleName("Interviewer console")
        # ---- top bar
        self.title = QLabel(f"<b style='font-size:12pt'>{esc(self.scenario.title)}</b><br>"
                            f"<span style='color:{LIGHT_INK.muted}'>Interviewer console · {esc(self.scenario.difficulty)}"
                            f" · {self.scenario.total_minutes:g} minutes</span>", self)
        self.timer_widget = PhaseTimer(self)
        self.timer_widget.show_text("Not started")
        self.start_button = QPushButton("&Start interview", self)
        self.start_button.clicked.connect(self.start)
        self.next_phase_button = QPushButton("Next &phase", self)
        self.next_phase_button.clicked.connect(self.advance_phase)
        self.end_button = QPushButton("&End interview", self)
        self.end_button.clicked.connect(lambda: self.end_interview())
        self.report_button = QPushButton("&Feedback report…", self)
        self.report_button.clicked.connect(lambda: self.export_feedback())
        self.replay_button = QPushButton("&Replay…", self)
        self.replay_button.clicked.connect(lambda: self.open_replay())
        self.result_button = QPushButton("Automatic res&ult…", self)
        self.result_button.clicked.connect(lambda: self.open_result())
        # ---- panels
        self.questions = QuestionsPanel(self.scenario, self)
        self.questions.answer_requested.connect(self.answer)
        self.questions.reveal_requested.connect(self.reveal)
        self.questions.typed_answer.connect(self.send_typed_answer)
        self.mirror = ReadOnlyCanvas("Candidate's design (live mirror)", self, theme or LIGHT,
                                     "<b>Candidate's design</b> — live, read-only")
        self.checklist = RubricChecklist(self)
        self.follow_ups = FollowUpsPanel(self.scenario, self)
        self.follow_ups.play_requested.connect(self.play_follow_up)
        self.notes = NotesPanel(self)
        self.notes.note_added.connect(self.add_note)
        self.score_sheet = ScoreSheet(self)
        self.script = QTextBrowser(self)
        self.script.setAccessibleName("Interviewer script")
        script = esc(paragraphs(self.scenario.interviewer_script) or "—").replace("\n\n", "</p><p>")
        notes = esc(paragraphs(self.scenario.reference.notes)).replace("\n\n", "</p><p>")
        self.script.setHtml(f"<h4>How to run the round</h4><p>{script}</p><h4>Reference design</h4><p>{notes}</p>")
        self.tabs = QTabWidget(self)
        self.tabs.setAccessibleName("Interviewer tools")
        for widget, title in ((self.checklist, "Ru&bric"), (self.follow_ups, "F&ollow-ups"),
                              (self.notes, "&Notes"), (self.score_sheet, "S&core sheet"), (self.script, "Scrip&t")):
            self.tabs.addTab(widget, title)
        self.private = QPushButton("Show what only you see", self)
        self.private.setObjectName("show_private")
        self.private.setCheckable(True)
        self.private.setToolTip("The hidden facts, the follow-ups, the script and the true traffic: folded away "
                                "while the candidate can see this screen")
        self.private.toggled.connect(self.show_private)
        self._layout()
        # ---- live grading on a worker (the editor's evaluator, with one step: grade)
        self.evaluator = Evaluator(self.mirror.document, self, debounce_ms=grade_debounce_ms)
        self.evaluator.steps = (("grade", self._grade_step), ("basis", self._basis_step))
        self.evaluator.evaluated.connect(self._graded)
        self.evaluator.evaluated.connect(self._show_basis)
        self.tick = QTimer(self)
        self.tick.setInterval(tick_ms)
        self.tick.timeout.connect(self.refresh_status)
        link.on_message(self.on_message)
        self._update_buttons()
        self.private.setChecked(len(QGuiApplication.screens()) > 1)
        self.show_private(self.private.isChecked())
        self.injects = attach_injects(self)

    def _layout(self) -> None:
        """Title and timer above the buttons; the three panels side by side on a wide screen and one
        above the other when the console shares a screen with the candidate's window."""
        self.title.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addWidget(self.timer_widget, 1)
        buttons = self.top_bar = QHBoxLayout()
        for button in (self.start_button, self.next_phase_button, self.end_button, self.private):
            buttons.addWidget(button)
        buttons.addStretch(1)
        for button in (self.report_button, self.replay_button, self.result_button):
            buttons.addWidget(button)
        splitter = ResponsiveSplitter(self, wide_sizes=[360, 770, 470], tall_sizes=[250, 330, 320])
        splitter.addWidget(self.questions)
        splitter.addWidget(self.mirror)
        splitter.addWidget(self.tabs)
        splitter.setSizes([360, 770, 470])
        splitter.setStretchFactor(1, 1)
        self.splitter = splitter
        self.basis = QLabel("<b>Numbers</b>: none yet; they come with the candidate's first design.", self)
        self.basis.setObjectName("numbers_basis")
        self.basis.setAccessibleName("The basis of the numbers")
        self.basis.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addLayout(buttons)
        layout.addWidget(self.basis)
        layout.addWidget(splitter, 1)
        fit_window(self, 1600, 1000)

    # ------------------------------------------------------------------ state
    @property
    def session(self):
        """The practice session the interview is scored in."""
        return self.link.session

    def running(self) -> bool:
        """Whether the interview is running."""
        return self.session.state == "running"

    def _update_buttons(self) -> None:
        state = self.session.state
        # Only the buttons for now, so the row stays narrow enough for the console beside the candidate.
        self.start_button.setVisible(state == "ready")
        for button in (self.next_phase_button, self.end_button):
            button.setEnabled(state == "running")
            button.setVisible(self.result is None)
        for button in (self.report_button, self.replay_button, self.result_button):
            button.setEnabled(self.result is not None)
            button.setVisible(self.result is not None)
        for button in self.follow_ups.buttons.values():
            button.setEnabled(state == "running")

    def start(self) -> None:
        """Start the interview and tell the candidate the first phase."""
        if self.session.state == "ready":
            self.link.start()
            self._phase_sent = self.scenario.phases[0].name
        self.tick.start()
        self.refresh_status()
        self._update_buttons()

    def refresh_status(self) -> None:
        """Update the clock, send the next phase when its time comes, and play due injects."""
        warn_history_problem(self, self.session)
        if not self.running():
            return
        status = self.session.status()
        count = len(self.scenario.phases)
        self.timer_widget.show_status(status, count)
        self.next_phase_button.setEnabled(status.phase != OVERTIME and status.phase_index < count - 1)
        if status.phase not in (OVERTIME, self._phase_sent):
            self._send_scheduled_phase(status.phase_index)

    def _send_scheduled_phase(self, index: int) -> None:
        """The schedule moved on by itself: tell the candidate, as the link does for a manual move."""
        phase = self.scenario.phases[index]
        start = self.session.schedule()[index].start_s
        self.link.transport.send(CANDIDATE, encode(PhaseChanged(phase.name, phase.title, phase.goal, phase.minutes,
                                                                start)))
        self._phase_sent = phase.name

    def advance_phase(self) -> None:
        """Move on to the next phase now and tell the candidate."""
        try:
            self._phase_sent = self.link.advance_phase()
        except SessionStateError as error:
            QMessageBox.information(self, "Next phase", str(error))
        self.refresh_status()

    # ------------------------------------------------------------------ from the candidate
    def on_message(self, message) -> None:
        """Take in what the candidate sent: the design, a question or their figures."""
        if isinstance(message, DesignChanged):
            if self.link.latest is not None:
                self.mirror.set_design(self.link.latest)
                self.mirror.set_caption(f"<b>Candidate's design</b> — live, read-only · updated "
                                        f"{mmss(self.session.elapsed())} · {len(self.link.latest.nodes)} components")
        elif isinstance(message, FiguresShown):
            self._show_basis()
        elif isinstance(message, QuestionAsked):
            self.questions.add_question(self.session.elapsed(), message.question_id, message.text)
            self.raise_attention()

    def raise_attention(self) -> None:
        """Flash the window in the task bar: the candidate asked something."""
        QApplication.alert(self, 3000)

    # ------------------------------------------------------------------ to the candidate
    def answer(self, question_id: str) -> None:
        """Answer a panel question: reveal its facts to the candidate."""
        if not self.running():
            return
        facts = self.link.answer(question_id)
        self.questions.mark_answered(question_id)
        for fact in facts:
            self.questions.mark_revealed(fact.fact_id, fact.t_s)
        self._questions_changed()

    def reveal(self, fact_id: str) -> None:
        """Reveal one fact to the candidate (an answer to a question in their own words)."""
        if not self.running():
            return
        fact = self.link.reveal(fact_id)
        self.questions.mark_revealed(fact.fact_id, fact.t_s)

    def send_typed_answer(self, text: str) -> None:
        """A free answer of the interviewer's own: sent as a revealed fact of its own, kept as a note."""
        if not self.running():
            return
        self._typed += 1
        t_s = self.session.elapsed()
        self.link.transport.send(CANDIDATE, encode(RevealedFact(f"typed-{self._typed}", "answer", text[:600],
                                                                {}, t_s)))
        self.add_note(f"Answered: {text[:600]}")

    def play_follow_up(self, follow_up_id: str) -> None:
        """Play a follow-up to the candidate and show its what-if on their design."""
        if not self.running():
            return
        what_if = self.link.play_follow_up(follow_up_id)
        self.follow_ups.played(follow_up_id, self.session.elapsed(), what_if)
        if self.mirror.document.design.nodes or self.link.latest is not None:
            self.evaluator.set_settings()  # the numbers under the follow-up's conditions

    def add_note(self, text: str) -> None:
        """Keep a timed note on the interview."""
        if not self.running():
            return
        note = self.link.add_note(text)
        self.notes.show_note(note.t_s, note.text)

    # ------------------------------------------------------------------ live grade
    def _questions_changed(self) -> None:
        self._asked = tuple(self.session.asked)
        if self.mirror.document.design.nodes or self.link.latest is not None:
            self.evaluator.set_settings()

    def _grade_step(self, design, _settings):
        reference = self.link.entry.reference_design()
        return grade_design(self.scenario, design, reference, list(self._asked), behaviour=True)

    def _basis_step(self, design, _settings):
        played = [self.scenario.follow_up(i) for i in list(self.session.follow_ups_played)]
        return interview_basis(self.scenario, design, played)

    def _show_basis(self) -> None:
        basis = self.evaluator.latest.get("basis")
        if basis is not None:
            self.basis.setText(basis_html(basis, self.private.isChecked(), self.link.figures))
        elif self.link.figures is not None:
            self.basis.setText(figures_html(self.link.figures))

    def show_private(self, shown: bool) -> None:
        """Show or fold away what only the interviewer may see (the hidden facts, the follow-ups to
        come, the script and the true traffic's numbers): folded while the candidate shares the screen."""
        self.questions.set_private_shown(shown)
        for widget in (self.follow_ups, self.script):
            self.tabs.setTabVisible(self.tabs.indexOf(widget), shown)
        self.private.setText("Hide what only you see" if shown else "Show what only you see")
        self._show_basis()

    def _graded(self) -> None:
        grade = self.evaluator.latest.get("grade")
        if grade is not None:
            self.checklist.show_grade(grade)
            self.score_sheet.show_suggestions(grade)

    # ------------------------------------------------------------------ ending
    def end_interview(self, confirm: bool = True) -> MockResult | None:
        """End the interview (after asking with ``confirm``), grade the design and keep the result; returns it."""
        if not self.running():
            return self.result
        if confirm and QMessageBox.question(self, "End interview", "End the interview now? The candidate's latest "
                                                                   "design is graded.") \
                != QMessageBox.StandardButton.Yes:
            return None
        self.result = self.link.end()
        self.tick.stop()
        warn_history_problem(self, self.session)
        self.timer_widget.show_text("Interview over", f"Lasted {mmss(self.result.result.duration_s)} · automatic "
                                                      f"grade {self.result.result.grade.grade}")
        self._asked = tuple(self.session.asked)
        self.checklist.show_grade(self.result.result.grade)
        self.score_sheet.show_suggestions(self.result.result.grade)
        self.tabs.setCurrentWidget(self.score_sheet)
        self._update_buttons()
        return self.result

    def feedback_html(self) -> str:
        """The feedback report: the result, the design's picture and the score sheet."""
        png = design_png(self.link.latest) if self.link.latest is not None else None
        html = self.link.feedback_html(png)
        return add_section(html, score_sheet_html(self.score_sheet.rows(), self.score_sheet.overall()))

    def export_feedback(self, path: str | Path | None = None) -> Path | None:
        """Write the feedback report to ``path`` (asked for when None); returns it."""
        if self.result is None:
            return None
        path = path or ask_report_path(self, f"feedback-{slug(self.scenario.title)}.html")
        return write_report(path, self.feedback_html(), self) if path else None

    def open_replay(self):
        """Open the interview's replay; returns the window."""
        window = ReplayWindow(self.session.replay, self.scenario.title, None, self.mirror.scene.theme)
        self.windows.append(window)
        window.show()
        return window

    def open_result(self):
        """Open the result screen of the ended interview; returns it, or None before the end."""
        if self.result is None:
            return None
        window = ResultWindow(self.result.result.to_dict(), None, html=self.feedback_html,
                              open_replay=self.open_replay, theme=self.mirror.scene.theme, mode="mock")
        self.windows.append(window)
        window.show()
        return window

    def closeEvent(self, event) -> None:
        """Ask before closing a running interview; end it if the interviewer agrees."""
        if self.running() and QMessageBox.question(
                self, "Close", "The interview is still running. End it and close?") != QMessageBox.StandardButton.Yes:
            event.ignore()
            return
        if self.running():
            self.end_interview(confirm=False)
        self.tick.stop()
        self.evaluator.shutdown()
        super().closeEvent(event)
