"""The drill's simulated clock in the GUI: a QTimer that runs ``session.tick`` with the wall time
that passed, so simulated time goes on while the user thinks. One clock per drill; the drill
window and the interviewer's console both listen to ``ticked``."""

from __future__ import annotations

import time
from typing import Callable

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

from inferboard.drills.engine import DrillSession

TICK_MS = 500
SPEEDS = (30.0, 60.0, 120.0, 300.0)  #: simulated seconds per wall second offered in solo practice


def speed_text(speed: float) -> str:
    """"×60 (1 s = 1 simulated min)"."""
    per_second = speed / 60.0
    amount = f"{per_second:g} simulated min" if per_second >= 1 else f"{speed:g} simulated s"
    return f"×{speed:g} (1 s = {amount})"


class DrillClock(QObject):
    """Runs ``session`` while not paused. ``ticked(now_s)`` after each step; ``ended`` once when
    the drill is over (finished, or the clock reached the drill's horizon)."""

    ticked = Signal(float)
    ended = Signal()

    def __init__(self, session: DrillSession, tick_ms: int = TICK_MS, wall: Callable[[], float] | None = None,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.wall = wall or time.monotonic
        self.timer = QTimer(self)
        self.timer.setInterval(tick_ms)
        self.timer.timeout.connect(self.step)
        self._last = self.wall()
        self._ended = False
        self._painted: set[QWidget] = set()
        self._watched: list[QWidget] = []
        self._waiting = False

    # ------------------------------------------------------------------ running
    def watch(self, window: QWidget) -> None:
        """A window the user needs to see the drill: ``start`` waits until it has been drawn."""
        self._watched.append(window)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        """Start the clock once every watched window has painted once (the drill starts when it is seen)."""
        if event.type() == QEvent.Type.Paint and watched in self._watched and watched not in self._painted:
            self._painted.add(watched)
            if self._waiting and not self._unpainted():
                QTimer.singleShot(0, self._go)
        return False

    def _unpainted(self) -> list[QWidget]:
        return [w for w in self._watched if w.isVisible() and w not in self._painted]

    def start(self) -> None:
        """Run the clock once every watched window that is shown has been drawn, so the time a slow
        machine takes to open the windows is not simulated time."""
        if self._unpainted():
            self._waiting = True
            return
        self._go()

    def _go(self) -> None:
        self._waiting = False
        self._last = self.wall()
        if not self.session.finished and not self._ended:
            self.timer.start()

    def stop(self) -> None:
        """Stop ticking, and cancel a start still waiting for the windows to be drawn."""
        self._waiting = False
        self.timer.stop()

    @property
    def running(self) -> bool:
        """Whether simulated time is passing (ticking and not paused)."""
        return self.timer.isActive() and not self.session.paused

    def step(self) -> None:
        """Advance the session by the wall time since the last step (times its speed) and announce the tick."""
        now = self.wall()
        elapsed, self._last = now - self._last, now
        self.session.tick(elapsed)
        self.ticked.emit(self.session.now_s)
        if self.session.finished:
            self.end()

    def end(self) -> None:
        """Stop for good (the drill finished); emits ``ended`` once."""
        self.timer.stop()
        if not self._ended:
            self._ended = True
            self.ended.emit()

    # ------------------------------------------------------------------ the user's controls
    @property
    def pausable(self) -> bool:
        """Whether the drill may be paused (solo, not an interview)."""
        return self.session.pausable

    def pause(self) -> bool:
        """Stop the clock (solo only; refused in an interview): returns whether it is stopped."""
        return self.session.pause()

    def resume(self) -> None:
        """Resume the session, counting wall time from now."""
        self._last = self.wall()
        self.session.resume()

    def set_speed(self, speed: float) -> None:
        """Set how many simulated seconds pass per wall second."""
        self.session.speed = float(speed)

    def skip(self, minutes: float) -> None:
        """Jump ahead (solo practice: waiting for a mitigation to show)."""
        if self.session.pausable and not self.session.finished:
            self.session.advance_to(self.session.now_s + minutes * 60.0)
            self._last = self.wall()
            self.ticked.emit(self.session.now_s)
            if self.session.finished:
                self.end()
