"""The drill clock starts once the windows are drawn: the time they take to open is not drill time."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from desktop.drills.clock import DrillClock
from desktop.drills.window import DrillWindow
from inferboard.drills.engine import DrillSession
from inferboard.drills.library import get_drill
from tests.desktop_drills.conftest import close_drill_window


class Wall:
    """A wall clock the test moves by hand."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_clock_waits_for_the_window_to_be_drawn(qtbot, drill_design):
    session = DrillSession(get_drill("slow-canary-version"), drill_design, seed=0, mode="solo")
    wall = Wall()
    clock = DrillClock(session, 20, wall=wall)
    window = DrillWindow(session, clock)
    clock.setParent(window)
    try:
        told = session.now_s
        window.show()
        clock.start()
        assert not clock.timer.isActive()  # not drawn yet
        wall.now += 300.0  # a slow machine takes five minutes to draw the window
        qtbot.waitUntil(clock.timer.isActive)
        clock.timer.stop()
        assert session.now_s == told
        wall.now += 2.0
        clock.step()
        assert session.now_s == pytest.approx(told + 2.0 * session.speed, abs=session.timeline.tick_s)
    finally:
        close_drill_window(window)


def test_a_clock_whose_windows_are_not_shown_starts_at_once(drill_design):
    session = DrillSession(get_drill("slow-canary-version"), drill_design, seed=0, mode="solo")
    clock = DrillClock(session, 20)
    clock.start()
    assert clock.timer.isActive()
    clock.stop()


def test_a_clock_stopped_before_the_window_is_drawn_stays_stopped(qtbot, drill_design):
    session = DrillSession(get_drill("slow-canary-version"), drill_design, seed=0, mode="solo")
    clock = DrillClock(session, 20)
    window = DrillWindow(session, clock)
    clock.setParent(window)
    try:
        window.show()
        clock.start()
        clock.stop()  # before the first paint: the pending start is called off
        qtbot.waitUntil(lambda: window in clock._painted)
        QApplication.processEvents()  # where a start still pending would run
        assert not clock.timer.isActive()
    finally:
        close_drill_window(window)
