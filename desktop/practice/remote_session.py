"""The two machines of a remote mock interview, on top of ``inferboard.remote``.

``RemoteCandidate`` (the candidate's machine) runs a ``HostPeer`` and the candidate window of the
local mode over a ``RemoteTransport``; ``RemoteInterviewer`` (the interviewer's machine) runs a
``JoinPeer`` and, once the candidate's machine said which scenario, the same interviewer console
as the local mode (``RemoteConsole`` adds a connection banner). Each peer runs on its own thread;
``PeerBridge`` turns its callbacks into Qt signals, so every message and status is handled on the
GUI thread and the network never blocks it.

The interviewer's notes and score sheet live in the interviewer's ``InterviewerLink`` and history
only; the candidate's machine stores nothing of the interview.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel

from inferboard.practice.history import History
from inferboard.practice.interview_link import (CANDIDATE, INTERVIEWER, CandidateBrief, CandidateLink, DesignChanged,
                                                InterviewEnded, InterviewerLink, LinkError)
from inferboard.practice.library import ScenarioEntry, ScenarioLibrary
from inferboard.remote.mirror import follow
from inferboard.remote.interview import CandidateGuard, RemoteTransport, resolve_session, session_info
from inferboard.remote.peer import HostPeer, JoinPeer, Status

from desktop.practice.candidate import CandidateWindow
from desktop.practice.common import esc, mmss, warn_history_problem
from desktop.practice.interviewer import InterviewerConsole
from desktop.theme import LIGHT_INK

#: The candidate's design goes out as each edit completes, at most once per this interval (the
#: local mode waits 600 ms after the last edit): an edit then shows in the interviewer's mirror well
#: within 200 ms on a LAN (bench/bench_link.py).
REMOTE_SEND_MS = 40
#: The interviewer's record keeps a snapshot of the candidate's design at most this often (each
#: one is a durable write); the mirror shows every design at once.
REMOTE_SNAPSHOT_S = 1.0
#: The interviewer's live grade runs once the candidate's edits pause this long.
REMOTE_GRADE_DEBOUNCE_MS = 500
#: The event in the interviewer's history that ties an attempt to the session it was joined to.
SESSION_EVENT = "remote_session"

STATE_TEXT = {
    "idle": "Not started",
    "listening": "Waiting for the interviewer to join",
    "handshake": "Checking the code…",
    "connected": "Connected",
    "lost": "Connection lost — waiting for it to come back",
    "reconnecting": "Connection lost — reconnecting…",
    "refused": "Not joined",
    "code_replaced": "Too many wrong codes: the code was replaced",
    "rejoin": "Waiting for the interviewer to join again with the new code",
    "ended": "Session ended",
}
STATE_COLOUR = {"connected": LIGHT_INK.good, "lost": LIGHT_INK.bad, "reconnecting": LIGHT_INK.bad,
                "refused": LIGHT_INK.bad, "code_replaced": LIGHT_INK.caution, "rejoin": LIGHT_INK.caution,
                "ended": LIGHT_INK.muted}


def status_html(status: Status, verification: str = "", other: str = "") -> str:
    """The state in words (``other`` names the other side: "the interviewer", "the candidate")."""
    colour = STATE_COLOUR.get(status.state, LIGHT_INK.info)
    words = STATE_TEXT.get(status.state, status.state)
    if status.state == "connected" and other:
        words = f"Connected to {other}"
    text = f"<b style='color:{colour}'>{esc(words)}</b>"
    if status.detail and status.state not in ("listening", "handshake", "rejoin", "code_replaced"):
        text += f" <span style='color:{LIGHT_INK.muted}'>({esc(status.detail)})</span>"
    if verification:
        text += f" · verification <b style='font-family:monospace'>{esc(verification)}</b>"
    return text


class PeerBridge(QObject):
    """A peer's callbacks (on its own thread) as queued Qt signals (on the GUI thread)."""

    message = Signal(object)
    status = Signal(object)

    def callbacks(self) -> dict[str, Callable]:
        """The peer's callbacks, turned into this bridge's signals (so they arrive on the GUI thread)."""
        return {"on_message": self.message.emit, "on_status": self.status.emit}


# ------------------------------------------------------------------------------ candidate
class RemoteCandidate(QObject):
    """The candidate's machine: listens with a join code; the candidate window is the editor."""

    status_changed = Signal(object)

    def __init__(self, entry: ScenarioEntry, address: str, port: int, data_folder=None,
                 theme_mode: str | None = None, clock: Callable[[], float] | None = None, code: str | None = None,
                 send_ms: int = REMOTE_SEND_MS, send_at_once: bool = True):
        super().__init__()
        self.entry = entry
        self.bridge = PeerBridge(self)
        self.candidate: CandidateWindow | None = None
        self.transport = RemoteTransport(CANDIDATE, CandidateGuard(entry.scenario, self._design_nodes))
        self.peer = HostPeer(session_info(entry), address, port, code=code, **self.bridge.callbacks())
        self.transport.attach(self.peer)
        self.link = CandidateLink(self.transport, CandidateBrief.of(entry.scenario))
        self.candidate = CandidateWindow(self.link, data_folder, theme_mode=theme_mode, clock=clock or time.monotonic,
                                         send_ms=send_ms, send_at_once=send_at_once)
        self.connection_label = QLabel("", self.candidate)
        self.connection_label.setObjectName("connection_status")
        self.connection_label.setAccessibleName("Connection to the interviewer")
        self.candidate.statusBar().addPermanentWidget(self.connection_label)
        self.verification = ""
        self.closed = False
        self._joins = 0
        self.bridge.message.connect(self._deliver)
        self.bridge.status.connect(self._status)
        self.link.on_message(self._on_link_message)

    def _deliver(self, data: dict[str, Any]) -> None:
        if not self.closed:
            self.transport.deliver(data)

    def _design_nodes(self) -> set[str]:
        return set(self.candidate.document.design.nodes) if self.candidate is not None else set()

    def start(self) -> None:
        """Bind and listen (raises OSError when the address or port cannot be used)."""
        self.peer.start()

    @property
    def code(self) -> str | None:
        """The join code to give the interviewer, once listening."""
        return self.peer.code

    @property
    def port(self) -> int:
        """The port listened on."""
        return self.peer.port

    def new_code(self) -> str:
        """A code for the interviewer to join this session again (their app restarted)."""
        return self.peer.new_code()

    def _status(self, status: Status) -> None:
        if self.closed:
            return
        if status.verification:
            self.verification = status.verification
        if status.state == "connected" and self.peer.joins > self._joins:
            if self._joins and self.candidate is not None:  # joined again: they have nothing of ours
                self.candidate.send_design(again=True)
            self._joins = self.peer.joins
        self.connection_label.setText(status_html(status, self.verification if status.state != "ended" else "",
                                                  "the interviewer"))
        if status.state in ("lost", "ended") and self.candidate is not None:
            self.candidate.show_message(f"Interviewer: {STATE_TEXT[status.state]}", 15000)
        if status.state == "ended" and not self.link.ended:
            self.link.ended = True
            self.candidate.on_message(InterviewEnded())
        self.status_changed.emit(status)

    def _on_link_message(self, message) -> None:
        if isinstance(message, InterviewEnded):  # the interviewer ended it: nothing more to carry
            QTimer.singleShot(200, lambda: self.end("the interview is over"))

    def end(self, reason: str = "the candidate ended the session") -> None:
        """End the session, telling the interviewer ``reason``."""
        self.peer.end(reason)

    def close(self, discard: bool = False) -> None:
        """End the session and close the candidate's window (``discard``: without asking to save)."""
        self.end()
        self.closed = True
        if self.candidate is not None:
            if discard:
                self.candidate.files.ask_unsaved = lambda: "discard"
            self.candidate.close()


# ------------------------------------------------------------------------------ interviewer
class RemoteConsole(InterviewerConsole):
    """The local mode's interviewer console with a connection banner; closing it leaves the session."""

    def __init__(self, link: InterviewerLink, remote: "RemoteInterviewer", theme=None):
        super().__init__(link, None, theme)
        self.remote = remote
        self.banner = QLabel("", self)
        self.banner.setObjectName("connection_banner")
        self.banner.setAccessibleName("Connection to the candidate")
        self.banner.setTextFormat(Qt.TextFormat.RichText)
        self.banner.setStyleSheet(f"padding: 4px 8px; background: {LIGHT_INK.banner_bg};")
        self.layout().insertWidget(0, self.banner)
        # The live grade waits until the candidate pauses: grading while designs arrive would hold
        # the interpreter from the mirror (bench/bench_link.py).
        self.evaluator.leading = False
        self.evaluator.debounce_ms = REMOTE_GRADE_DEBOUNCE_MS
        self.setWindowTitle(f"Interviewer (remote) — {self.scenario.title} — Inferboard")
        self.private.setChecked(True)  # the candidate is on another machine

    def on_message(self, message) -> None:
        """A new design redraws only what changed in the mirror (a whole redraw of 100 components
        takes about half a second); anything else as in the local mode."""
        latest = self.link.latest
        if isinstance(message, DesignChanged) and latest is not None and self.mirror.document.design.nodes \
                and follow(self.mirror.document.design, latest):
            self.mirror.set_caption(f"<b>Candidate's design</b> — live, read-only · updated "
                                    f"{mmss(self.session.elapsed())} · {len(latest.nodes)} components")
            if self.mirror.following:
                self.mirror.fit()
            return
        super().on_message(message)

    def refresh_status(self) -> None:
        """Refresh as the local console does, and send the candidate's latest snapshot on."""
        super().refresh_status()
        if self.running():
            self.link.flush_snapshot()

    def closeEvent(self, event) -> None:
        """Tell the candidate the interviewer left once the console has closed."""
        super().closeEvent(event)
        if event.isAccepted():
            self.remote.end("the interviewer left")


def restore_console(console: InterviewerConsole, record) -> None:
    """Show what the interview recorded before the app restarted: answered questions, revealed
    facts, follow-ups played, notes and the score sheet."""
    for question in record.questions:
        console.questions.mark_answered(question["question_id"])
        for fact_id in console.scenario.question(question["question_id"]).reveals:
            console.questions.mark_revealed(fact_id, float(question["t_s"]))
    for event in record.events:
        kind, detail, t_s = event["kind"], event["detail"], float(event["t_s"])
        if kind == "fact":
            console.questions.mark_revealed(detail, t_s)
        elif kind == "follow_up":
            console.follow_ups.played(detail, t_s, None)
        elif kind == "note":
            console.notes.show_note(t_s, detail)
        elif kind == "score_sheet":
            console.score_sheet.restore(json.loads(detail).get("rows", []))
    console._asked = tuple(console.session.asked)


class RemoteInterviewer(QObject):
    """The interviewer's machine: joins with the code; opens the console when the session is known."""

    status_changed = Signal(object)
    console_opened = Signal(object)

    def __init__(self, library: ScenarioLibrary, history: History | None, address: str, port: int, code: str,
                 theme=None, clock: Callable[[], float] | None = None, show: bool = True):
        super().__init__()
        self.library = library
        self.history = history
        self.theme = theme
        self.clock = clock or time.monotonic
        self.show_console = show
        self.console: RemoteConsole | None = None
        #: The attempt carried on from this machine's history, when the session was joined again.
        self.resumed_attempt: int | None = None
        self.verification = ""
        self.last_status = Status("idle")
        self.problem = ""
        self.bridge = PeerBridge(self)
        self.transport = RemoteTransport(INTERVIEWER, hold=True)
        self.transport.on_session = self._on_session
        self.peer = JoinPeer(address, port, code, **self.bridge.callbacks())
        self.transport.attach(self.peer)
        self.closed = False
        self.bridge.message.connect(self._deliver)
        self.bridge.status.connect(self._status)
        self.score_timer = QTimer(self)
        self.score_timer.setSingleShot(True)
        self.score_timer.setInterval(400)
        self.score_timer.timeout.connect(self.save_score_sheet)

    def start(self) -> None:
        """Connect to the candidate."""
        self.peer.start()

    def _deliver(self, data: dict[str, Any]) -> None:
        if not self.closed:
            self.transport.deliver(data)

    def _on_session(self, info: dict[str, Any]) -> None:
        if self.console is not None:
            return
        try:
            entry = resolve_session(self.library, info)
        except LinkError as error:
            self.problem = str(error)
            self.peer.end(f"the interviewer's machine cannot run this scenario: {error}")
            self._status(Status("refused", str(error)))
            return
        uid = str(info.get("session_uid", ""))
        record = self._interrupted(entry, uid)
        link = InterviewerLink(self.transport, entry, self.history, clock=self.clock,
                               snapshot_every_s=REMOTE_SNAPSHOT_S, resume_attempt=record.id if record else None)
        self.console = RemoteConsole(link, self, self.theme)
        self.console.banner.setText(status_html(self.last_status, self.verification, "the candidate"))
        self.console.score_sheet.table.itemChanged.connect(lambda _item: self.score_timer.start())
        if self.show_console:
            self.console.show()
            self.console.raise_()
        if record is not None:
            link.start()  # tells the candidate where the interview is
            self.console._phase_sent = link.session.phase
            restore_console(self.console, record)
        self.console.start()
        if record is None and self.history is not None and uid:
            link.session.write_history("add_event", 0.0, SESSION_EVENT, uid)
        self.resumed_attempt = record.id if record is not None else None
        self.transport.release()
        self.console_opened.emit(self.console)

    def _interrupted(self, entry: ScenarioEntry, uid: str):
        """This machine's record of the same session, still in progress (the app stopped during it)."""
        if self.history is None or not uid:
            return None
        for row in self.history.attempts(entry.id, status="in_progress"):
            record = self.history.attempt(int(row["id"]))
            if any(e["kind"] == SESSION_EVENT and e["detail"] == uid for e in record.events):
                return record
        return None

    def _status(self, status: Status) -> None:
        if self.closed:
            return
        self.last_status = status
        if status.verification:
            self.verification = status.verification
        if self.console is not None:
            self.console.banner.setText(status_html(status, self.verification if status.state != "ended" else "",
                                                    "the candidate"))
            if status.state == "ended" and self.console.running():
                self.console.end_interview(confirm=False)
                self.save_score_sheet()
        self.status_changed.emit(status)

    def save_score_sheet(self) -> bool:
        """Store the score sheet in this machine's history (replacing the one stored before)."""
        console = self.console
        attempt_id = console.session.attempt_id if console is not None else None
        if self.history is None or attempt_id is None:
            return False
        rows = console.score_sheet.rows()
        if not rows:
            return False
        written = console.session.write_history("replace_event", "score_sheet", console.session.elapsed(),
                                                json.dumps({"rows": rows, "overall": console.score_sheet.overall()}))
        warn_history_problem(console, console.session)
        return written

    def end(self, reason: str = "the interviewer left") -> None:
        """Keep the score sheet, then end the session telling the candidate ``reason``."""
        self.score_timer.stop()
        if self.console is not None and self.console.result is not None:
            self.save_score_sheet()
        self.peer.end(reason)

    def close(self, discard: bool = False) -> None:
        """End the interview if it runs (it is graded and stored), close the console, leave."""
        if self.console is not None:
            if self.console.running():
                self.console.end_interview(confirm=False)
            self.console.close()
        self.end()
        self.closed = True
