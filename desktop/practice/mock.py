"""A mock interview: two windows, one per person, joined only by the engine's interview link.

``MockInterview`` builds the link (an in-process transport, the interviewer's end holding the
scenario, the candidate's end holding only the public brief) and hands each window its own end.
The two windows share no other object, so either could later sit on another machine."""

from __future__ import annotations

import time
from typing import Callable

import shiboken6
from PySide6.QtCore import QObject, QTimer

from inferboard.practice.history import History
from inferboard.practice.interview_link import CandidateLink, InProcessTransport, InterviewerLink
from inferboard.practice.library import ScenarioEntry

from desktop.practice.candidate import CandidateWindow
from desktop.practice.interviewer import InterviewerConsole
from desktop.shell.window_placement import place_pair


class MockInterview(QObject):
    def __init__(self, entry: ScenarioEntry, history: History | None, clock: Callable[[], float] | None = None,
                 data_folder=None, theme_mode: str | None = None, transport=None, evaluate: bool = True):
        super().__init__()
        clock = clock or time.monotonic
        self.transport = transport if transport is not None else InProcessTransport()
        interviewer_link = InterviewerLink(self.transport, entry, history, clock=clock)
        candidate_link = CandidateLink(self.transport, interviewer_link.brief())
        self.candidate = CandidateWindow(candidate_link, data_folder, theme_mode=theme_mode, clock=clock,
                                         evaluate=evaluate)
        self.console = InterviewerConsole(interviewer_link, None, self.candidate.theme_manager.theme)
        #: How many placements are still to come (``show`` places again once the frames are known).
        self.placements_pending = 0

    def show(self) -> None:
        """The candidate on the primary screen, the console on a second screen when there is one,
        else beside (or below) the candidate; never on top of it, never off the screen."""
        self.candidate.show()
        self.console.show()
        self.place()
        # Once the window manager has framed them, place again with the real frame sizes.
        self.placements_pending += 2
        QTimer.singleShot(0, self._place_later)
        QTimer.singleShot(300, self._place_later)
        self.console.raise_()

    def _place_later(self) -> None:
        self.placements_pending -= 1
        self.place()

    def place(self) -> None:
        if not (shiboken6.isValid(self.candidate) and shiboken6.isValid(self.console)):
            return
        if self.candidate.isVisible() and self.console.isVisible():
            place_pair(self.candidate, self.console)
            self.candidate.fit_docks()

    def start(self) -> None:
        self.console.start()

    def close(self, discard: bool = False) -> None:
        if discard:
            self.candidate.files.ask_unsaved = lambda: "discard"
        if self.console.running():
            self.console.end_interview(confirm=False)
        self.console.close()
        self.candidate.close()
