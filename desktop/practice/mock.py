"""A mock interview: two windows, one per person, joined only by the engine's interview link.

``MockInterview`` builds the link (an in-process transport, the interviewer's end holding the
scenario, the candidate's end holding only the public brief) and hands each window its own end.
The two windows share no other object, so either could later sit on another machine."""

from __future__ import annotations

import time
from typing import Callable

from PySide6.QtCore import QObject

from inferboard.practice.history import History
from inferboard.practice.interview_link import CandidateLink, InProcessTransport, InterviewerLink
from inferboard.practice.library import ScenarioEntry

from desktop.practice.candidate import CandidateWindow
from desktop.practice.interviewer import InterviewerConsole
from desktop.window_placement import WindowPair


class MockInterview(QObject):
    """A mock interview on one machine: the candidate's window and the interviewer's console, linked in memory."""

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
        self.pair = WindowPair(self.candidate, self.console, "candidate's window", "interviewer's console", self)
        self.pair.after_place = self.candidate.fit_docks
        # Handing the screen to the candidate folds away what only the interviewer may see.
        self.pair.switched.connect(lambda front: front is self.candidate and self.console.private.setChecked(False))

    @property
    def placements_pending(self) -> int:
        """How many placements are still to come (``show`` places again once the frames are known)."""
        return self.pair.placements_pending

    def show(self) -> None:
        """The candidate on the primary screen, the console on a second screen when there is one,
        else beside (or below) the candidate; never on top of it, never off the screen; on a screen
        too small for both, they take turns."""
        self.pair.show()
        if self.pair.toggled:  # the windows take turns: the candidate never sees the console
            self.console.private.setChecked(True)
        self.console.raise_()

    def place(self) -> None:
        """Put the two windows side by side (or one over the other on a small screen)."""
        self.pair.place()

    def start(self) -> None:
        """Start the interview."""
        self.console.start()

    def close(self, discard: bool = False) -> None:
        """Close both windows (``discard``: without asking about the candidate's unsaved design)."""
        if discard:
            self.candidate.files.ask_unsaved = lambda: "discard"
        if self.console.running():
            self.console.end_interview(confirm=False)
        self.console.close()
        self.candidate.close()
