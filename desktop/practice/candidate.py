"""The candidate's window in a mock interview: the full editor (canvas, palette, inspector,
readouts) with an interview panel, and no findings.

It talks to the interviewer only through a ``CandidateLink``: it sends the design (shortly after
each edit, or with ``send_at_once`` as each edit completes) and questions, and receives revealed facts, follow-ups, phase changes and the end. It
never holds the scenario, so it cannot show a hidden fact or a rubric finding; the findings dock
is removed and the rule report is not computed here at all.
"""

from __future__ import annotations

import time
from typing import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QLabel, QVBoxLayout, QWidget

from inferboard.model import Design, ops
from inferboard.practice.basis import candidate_basis, stated_traffic
from inferboard.practice.interview_link import CandidateLink, FollowUpPlayed, InterviewEnded, LinkError, PhaseChanged
from inferboard.practice.session import RevealedFact

from desktop.practice.candidate_panel import CandidatePanel
from desktop.practice.common import esc
from desktop.practice.practice_panel import merged_requirements
from desktop.shell.main_window import MainWindow, readouts_height
from desktop.shell.projector_view import follow_projector_view
from desktop.theme import LIGHT_INK

SEND_MS = 600
#: Narrower than this (beside the console on a desk screen) the palette leaves its own column.
NARROW_CANDIDATE = 1200
FIGURES_MS = 500


class NoFindings:
    """Stands in for the findings panel the candidate must not see; the presenter's calls land here."""

    report = None

    def show_report(self, *_args, **_kwargs) -> None:
        """Show nothing: the candidate does not see the findings in an interview."""
        pass

    def show_unavailable(self, *_args) -> None:
        """Show nothing (see show_report)."""
        pass

    def set_theme(self, *_args) -> None:
        """Nothing to restyle."""
        pass


class CandidateWindow(MainWindow):
    """The candidate's window in a mock interview: the editor, the interview panel, and the link to the interviewer."""

    def __init__(self, link: CandidateLink, data_folder=None, theme_mode: str | None = None,
                 clock: Callable[[], float] | None = None, evaluate: bool = True, send_ms: int = SEND_MS,
                 send_at_once: bool = False):
        super().__init__(data_folder, theme_mode=theme_mode, evaluate=evaluate, restore_layout=False)
        self.setObjectName("candidate_window")
        # The interview column keeps the whole height beside canvas and readouts: stacked under the
        # readouts it would make the window taller than a 1600x1000 screen.
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.link = link
        self.clock = clock or time.monotonic
        self._remove_findings()
        brief = link.brief
        self.document.set_design(Design(metadata={"title": f"Mock interview: {brief.title}", "notes": ""}))
        self.interview = CandidatePanel(brief, self.clock, self)
        self.interview.ask_requested.connect(self.ask)
        self.interview.free_text_asked.connect(lambda text: self.ask(None, text))
        self.interview.fill_requested.connect(self.fill_requirements)
        dock = QDockWidget("Interview", self)
        dock.setObjectName("interview_dock")
        dock.setAccessibleName("Interview panel")
        dock.setWidget(self.interview)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.interview_dock = dock
        placeholder = self.docks.get("findings")
        if placeholder is not None and self.dockWidgetArea(placeholder) != Qt.DockWidgetArea.NoDockWidgetArea:
            self.tabifyDockWidget(placeholder, dock)  # takes the findings' place below the inspector
        else:
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        if placeholder is not None:
            placeholder.hide()
        follow_projector_view(self, dock)
        # The outline shares the palette's place (a tab): the readouts below them keep their height
        # when the tiles go two across beside the console, and the window still fits a 1366x768 screen.
        if "outline" in self.docks and "palette" in self.docks:
            self.tabifyDockWidget(self.docks["palette"], self.docks["outline"])
            self.docks["palette"].raise_()
        self.fit_docks()
        self.scene.selectionChanged.connect(self._inspector_to_front)
        self._wrap_readouts()
        self.send_timer = QTimer(self)
        self.send_timer.setSingleShot(True)
        self.send_timer.setInterval(send_ms)
        self.send_timer.timeout.connect(self.send_design)
        #: Sending as each edit completes (a remote interview) or ``send_ms`` after the last edit.
        self.send_at_once = send_at_once
        self.send_ms = send_ms
        self._sent_revision = -1
        self._sent_at = float("-inf")
        if send_at_once:
            # An edit is complete when the undo stack has taken it (a compound edit counts once);
            # sending right there, in the edit's own call, means nothing queued on this thread (the
            # readouts drawing the last evaluation, say) can hold the design back.
            self.document.undo_stack.indexChanged.connect(lambda _i: self.edit_completed())
            self.document.replaced.connect(self.edit_completed)
            self.document.changed.connect(lambda _e: self.send_timer.isActive() or self.send_timer.start(send_ms))
        else:
            self.document.changed.connect(lambda _e: self.send_timer.start())
            self.document.replaced.connect(self.send_timer.start)
        #: The tiles' reading goes to the interviewer at most every ``FIGURES_MS`` (a playing timeline
        #: moves it every tick); the last one always goes.
        self.figures_timer = QTimer(self)
        self.figures_timer.setSingleShot(True)
        self.figures_timer.setInterval(FIGURES_MS)
        self.figures_timer.timeout.connect(self.send_figures)
        self.readouts.reading_changed.connect(lambda _r: self.figures_timer.isActive() or self.figures_timer.start())
        link.on_message(self.on_message)
        for message in ([link.phase] if link.phase is not None else []) + list(link.facts):
            self.on_message(message)
        self.update_title()

    # ------------------------------------------------------------------ building
    def _remove_findings(self) -> None:
        """Delete the findings panel; an empty, hidden dock keeps its place for the editor's layout code."""
        dock = self.docks.get("findings")
        if dock is not None:
            panel = dock.widget()
            dock.setWidget(QWidget(dock))
            if panel is not None:
                panel.setParent(None)
                panel.deleteLater()
            dock.toggleViewAction().setEnabled(False)
            dock.toggleViewAction().setVisible(False)
        self.findings = NoFindings()
        action = self.actions_by_id.get("view.panel.findings")
        if action is not None:
            action.setEnabled(False)
            action.setVisible(False)
        # Once the lead adds the Practice menu: no practice round inside an interview window.
        for action_id in ("practice.start", "practice.mock", "practice.history", "practice.host", "practice.join"):
            practice_action = self.actions_by_id.get(action_id)
            if practice_action is not None:
                practice_action.setEnabled(False)
        # No rule report at all: only the simulator's figures for the readouts.
        self.evaluator.steps = tuple((name, step) for name, step in self.evaluator.steps if name != "report")
        self.evaluator.structural_on_gui = False

    def fit_docks(self) -> None:
        """Share the window between the inspector and the interview column (tall), and the interview
        column and the readouts (wide): after the window is placed or resized to a new screen."""
        self.place_palette(self.width() < NARROW_CANDIDATE)
        height = max(600, self.height())
        self.resizeDocks([self.docks["inspector"], self.interview_dock], [round(0.34 * height), round(0.66 * height)],
                         Qt.Orientation.Vertical)
        self.resizeDocks([self.docks["readouts"]], [readouts_height(self.height())], Qt.Orientation.Vertical)
        # The interview column: 440 px where the window is wide, down to its minimum beside the console.
        readouts = self.docks["readouts"].minimumSizeHint().width()
        column = max(self.interview_dock.minimumSizeHint().width(), min(440, round(0.3 * self.width()),
                                                                          self.width() - readouts - 12))
        self.resizeDocks([self.interview_dock], [column], Qt.Orientation.Horizontal)

    def place_palette(self, narrow: bool) -> None:
        """Beside the console the canvas needs the palette's column: the palette joins the inspector's
        tabs and the outline the interview's; on a wide window both keep their column on the left."""
        palette, outline = self.docks["palette"], self.docks["outline"]
        beside = self.dockWidgetArea(palette) == Qt.DockWidgetArea.RightDockWidgetArea
        # Among the inspector's tabs the palette asks no more height than they do (it scrolls).
        palette.widget().setMinimumHeight(self.inspector.minimumSizeHint().height() if narrow else 0)
        if narrow and not beside:
            self.tabifyDockWidget(self.docks["history"], palette)
            self.tabifyDockWidget(self.interview_dock, outline)
            palette.raise_()
            self.interview_dock.raise_()
        elif not narrow and beside:
            self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, palette)
            self.tabifyDockWidget(palette, outline)
            palette.raise_()

    def _inspector_to_front(self) -> None:
        """Beside the console the palette shares the inspector's tabs: a selection brings the inspector
        to the front, as it would be on its own."""
        palette = self.docks["palette"]
        if self.scene.selected_node_ids() and self.dockWidgetArea(palette) == Qt.DockWidgetArea.RightDockWidgetArea:
            self.docks["inspector"].raise_()

    def showEvent(self, event) -> None:
        """On first showing, start sending the design and the figures to the interviewer."""
        first = not self._shown_once
        super().showEvent(event)
        if first:
            self.fit_docks()
            QTimer.singleShot(0, self.fit_docks)

    def _wrap_readouts(self) -> None:
        dock = self.docks["readouts"]
        holder = QWidget(self)
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.follow_up_banner = QLabel("", holder)
        self.follow_up_banner.setObjectName("follow_up_banner")
        self.follow_up_banner.setAccessibleName("Follow-up from the interviewer")
        self.follow_up_banner.setWordWrap(True)
        self.follow_up_banner.setStyleSheet(f"background: {LIGHT_INK.follow_up_bg}; color: {LIGHT_INK.follow_up_fg}; padding: 6px 8px;")
        self.follow_up_banner.hide()
        self.basis_label = QLabel(candidate_basis(self.document.design.requirements), holder)
        self.basis_label.setObjectName("numbers_basis")
        self.basis_label.setAccessibleName("The basis of your figures")
        self.basis_label.setWordWrap(True)
        self.basis_label.setContentsMargins(8, 2, 8, 2)
        self.document.changed.connect(lambda _e: self.show_basis())
        self.document.replaced.connect(self.show_basis)
        column.addWidget(self.basis_label)
        column.addWidget(self.follow_up_banner)
        column.addWidget(self.readouts, 1)
        dock.setWidget(holder)
        self.fold_for_height()

    def show_basis(self) -> None:
        """Say what the figures run at: the traffic stated in the requirements, or a placeholder."""
        requirements = self.document.design.requirements
        self.basis_label.setText(candidate_basis(requirements))
        colour = LIGHT_INK.caution if stated_traffic(requirements) is None else LIGHT_INK.muted
        self.basis_label.setStyleSheet(f"color: {colour};")
        self.fold_for_height()

    def fold_for_height(self) -> None:
        """On a short window (compact readouts) the canvas keeps its height: the basis sentence moves
        into the readouts' title bar and the follow-up shows in the interview column's list alone;
        on a taller one both sit over the readouts."""
        short = self.readouts.compact
        self.follow_up_banner.setVisible(bool(self.follow_up_banner.text()) and not short)
        self.basis_label.setVisible(not short)
        self.docks["readouts"].setWindowTitle(f"Readouts · {self.basis_label.text()}" if short else "Readouts")

    def resizeEvent(self, event) -> None:
        """The readouts go compact on a short window (see ``MainWindow``): fold the parts above them."""
        super().resizeEvent(event)
        if hasattr(self, "follow_up_banner"):  # not before the readouts are wrapped
            self.fold_for_height()

    def save_layout(self) -> None:
        """The interview layout is not the editor's: never store it over the user's layout."""

    def update_title(self, *_args) -> None:
        """Title the window after the role and the scenario rather than the file."""
        super().update_title()
        if getattr(self, "link", None) is not None:
            self.setWindowTitle(f"Candidate — {self.link.brief.title} — Inferboard")

    # ------------------------------------------------------------------ to the interviewer
    def edit_completed(self) -> None:
        """Send the design now, unless one went out less than ``send_ms`` ago: then once that
        interval is over (edits in quick succession, like typing a value, go out as one)."""
        wait_ms = self.send_ms - 1000 * (time.monotonic() - self._sent_at)
        if wait_ms <= 0:
            self.send_design()
        elif not self.send_timer.isActive() or self.send_timer.remainingTime() > wait_ms:
            self.send_timer.start(max(1, round(wait_ms)))

    def send_design(self, again: bool = False) -> bool:
        """Send the design now (``again``: even if this very design went out already)."""
        self.send_timer.stop()
        if self.link.ended or self.link.phase is None:
            return False
        if self.send_at_once:
            if self._sent_revision == self.document.revision and not again:
                return False  # this design went out already
            self._sent_revision = self.document.revision
            self._sent_at = time.monotonic()
        try:
            self.link.design_changed(self.document.design)
        except LinkError as error:
            self.show_message(f"The interviewer did not receive the design: {error}")
            return False
        return True

    def send_figures(self) -> bool:
        """Tell the interviewer what the tiles show now and on what basis (the playhead's moment, or a
        steady state), so the console can show the very same numbers."""
        reading = self.readouts.reading
        if reading is None or self.link.ended or self.link.phase is None:
            return False
        try:
            self.link.figures_shown(reading.mode, reading.status_line(), dict(reading.values))
        except LinkError:
            return False  # the next reading goes out
        return True

    def ask(self, question_id: str | None, text: str = "") -> bool:
        """Send a question (a panel question's id, or ``text`` in the candidate's words); False once the interview has
        ended."""
        if self.link.ended:
            return False
        try:
            self.link.ask(question_id, text)
        except LinkError as error:
            self.show_message(f"The question was not sent: {error}")
            return False
        self.interview.question_sent(question_id, text)
        return True

    # ------------------------------------------------------------------ from the interviewer
    def on_message(self, message) -> None:
        """Show what the interviewer sent: a phase, a fact, a follow-up or the end."""
        if isinstance(message, PhaseChanged):
            self.interview.show_phase(message)
            self.figures_timer.start()  # the interview runs: the console may show the tiles' figures
        elif isinstance(message, RevealedFact):
            self.interview.add_fact(message)
        elif isinstance(message, FollowUpPlayed):
            self.apply_follow_up(message)
        elif isinstance(message, InterviewEnded):
            self.send_timer.stop()
            self.interview.ended()
            self.show_message("The interview has ended.", 15000)

    def apply_follow_up(self, message: FollowUpPlayed) -> None:
        """Show the follow-up (banner over the readouts, and in the interview column's list), apply its
        faults and new requirements to the candidate's design."""
        for kind, target, magnitude in message.faults:
            self.readouts.fault_plan.add_fault(kind, target, magnitude=magnitude)
        if message.note:
            hint = message.note
        elif message.requirement_changes or message.faults:
            hint = ""
        else:
            hint = "To see it in the figures, use “Inject fault” in the readouts on the part of your design it hits."
        self.interview.add_follow_up(message, hint)
        self.follow_up_banner.setText(f"<b>Follow-up from the interviewer: {esc(message.title)}</b><br>"
                                      f"{esc(message.prompt)}" + (f" <i>{esc(hint)}</i>" if hint else ""))
        self.follow_up_banner.setTextFormat(Qt.TextFormat.RichText)
        self.fold_for_height()
        self.interview_dock.raise_()
        self.docks["readouts"].show()
        if message.requirement_changes:
            new = merged_requirements(self.document.design.requirements, dict(message.requirement_changes))
            if new is None:
                self.show_message("The follow-up's new requirements conflict with yours; update them by hand.")
            elif new != self.document.design.requirements:
                self.document.execute(ops.SetRequirements(new), f"Follow-up: {message.title}")
        self.show_message(f"Follow-up: {message.title}", 15000)

    def fill_requirements(self) -> bool:
        """Copy the figures the answers gave into the requirements; False when they contradict what is typed."""
        values: dict = {}
        for fact in self.link.facts:
            values.update(fact.values)
        new = merged_requirements(self.document.design.requirements, values)
        if new is None:
            self.show_message("The answers contradict the requirements you typed; edit them by hand.")
            return False
        if new == self.document.design.requirements:
            return False
        return self.document.execute(ops.SetRequirements(new), "Copy answers into requirements")

    def closeEvent(self, event) -> None:
        """Stop sending before the window closes."""
        self.send_timer.stop()
        self.figures_timer.stop()
        super().closeEvent(event)
