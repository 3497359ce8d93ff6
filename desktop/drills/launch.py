"""Opening the drill windows: a solo drill, a drill interview, the drill history.

- ``open_drill(main_window, drill_id=None)``: pick a drill (or be surprised) and work it on the
  open design in a drill window, the simulated clock running (solo: pausable);
- ``open_drill_interview(main_window, drill_id=None)``: the interviewer plants the cause; the
  candidate's drill window shows only what the design shows, the interviewer's console shows
  the hidden truth;
- ``open_drill_history(main_window)``: the drills kept in the practice history, with their
  results, replays and HTML reports.

The design is copied when the drill starts: editing it afterwards does not change the incident.
``history``, ``seed``, ``speed`` and ``tick_ms`` may be injected (tests do).
"""

from __future__ import annotations

from typing import Any

_OPEN: list[Any] = []  # windows and controllers opened here, kept alive


def _history(main_window, history, data_folder):
    """``history``, else the app's; None after one message when it cannot be opened (another
    program keeps it locked past its busy timeout, a read-only folder)."""
    # loaded when first opened, not with the first window
    from PySide6.QtWidgets import QMessageBox

    from inferboard.store.local_db import DatabaseUnavailable

    from desktop.practice.common import HISTORY_PROBLEM_TITLE, open_history

    if history is not None:
        return history
    if data_folder is None and main_window is not None:
        data_folder = getattr(main_window, "data_dir", None)
    try:
        return open_history(data_folder)
    except DatabaseUnavailable as error:
        QMessageBox.warning(main_window, HISTORY_PROBLEM_TITLE, f"{error}\n\nUntil it is free, a drill runs "
                            "without being kept in the history.")
        return None


def drill_design(main_window, design=None):
    """A private copy of the design to drill on (the main window's open design by default)."""
    # loaded when first opened, not with the first window
    from inferboard.store import design_to_bytes, parse_design

    if design is None:
        if main_window is None:
            # loaded when first opened, not with the first window
            from inferboard.paths import data_dir
            from inferboard.store import read_design

            design, _ = read_design(data_dir("assets") / "drills" / "designs" / "ranker-drill.json")
        else:
            design = main_window.document.design
    return parse_design(design_to_bytes(design), "<drill design>", design.catalog)


def _choose(design, parent, drill_id: str | None, interviewer: bool, seed: int):
    # loaded when first opened, not with the first window
    from desktop.drills.picker import choose_drill
    from inferboard.drills.library import get_drill

    if drill_id is not None:
        return get_drill(drill_id), seed, False
    return choose_drill(design, parent, interviewer)


def _refused(main_window, show: bool, title: str, error) -> None:
    """Say why the drill cannot start (over the main window; silent without one)."""
    if main_window is not None and show:
        # loaded when first opened, not with the first window
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.warning(main_window, title, str(error))


def _dark(main_window) -> bool:
    return bool(main_window is not None and getattr(main_window.theme_manager.theme, "dark", False))


def _plant(main_window, drill_id: str | None, design, seed: int, interviewer: bool, show: bool, title: str, make):
    """Copy the design, pick the drill (unless named), and ``make(drill, design, seed)``; None when
    cancelled or the drill cannot be planted (the reason is shown)."""
    # loaded when first opened, not with the first window
    from inferboard.drills.engine import DrillError

    design = drill_design(main_window, design)
    picked = _choose(design, main_window, drill_id, interviewer, seed)
    if picked is None:
        return None
    drill, seed, _surprise = picked
    try:
        return make(drill, design, seed)
    except DrillError as error:
        _refused(main_window, show, title, error)
        return None


def open_drill(main_window=None, drill_id: str | None = None, *, design=None, history=None, data_folder=None,
               seed: int = 0, speed: float | None = None, tick_ms: int | None = None, show: bool = True):
    """Start a solo drill; returns the ``DrillWindow`` (its ``clock`` is running), or None when
    cancelled or the drill cannot be planted (the reason is shown)."""
    # loaded when first opened, not with the first window
    from inferboard.drills.engine import DrillSession

    from desktop.drills.clock import TICK_MS, DrillClock
    from desktop.drills.window import DrillWindow

    def make(drill, design, seed):
        session = DrillSession(drill, design, seed=seed, mode="solo")
        if speed is not None:
            session.speed = float(speed)
        clock = DrillClock(session, tick_ms or TICK_MS)
        window = DrillWindow(session, clock, _history(main_window, history, data_folder), None, _dark(main_window),
                             design_title=design.metadata.get("title", ""))
        clock.setParent(window)
        return window

    window = _plant(main_window, drill_id, design, seed, False, show, "Incident drill", make)
    if window is None:
        return None
    if show:
        window.show()
    window.clock.start()
    _OPEN.append(window)
    return window


def open_drill_interview(main_window=None, drill_id: str | None = None, *, design=None, history=None,
                         data_folder=None, seed: int = 0, speed: float | None = None, tick_ms: int | None = None,
                         show: bool = True):
    """The interviewer plants a drill on the design; returns the ``DrillInterview``
    (``.candidate``: the drill window, ``.console``: the interviewer's) or None when cancelled."""
    # loaded when first opened, not with the first window
    from desktop.drills.interviewer import DrillInterview

    def make(drill, design, seed):
        return DrillInterview(drill, design, _history(main_window, history, data_folder), seed=seed, speed=speed,
                              tick_ms=tick_ms, dark=_dark(main_window))

    interview = _plant(main_window, drill_id, design, seed, True, show, "Drill interview", make)
    if interview is None:
        return None
    if show:
        interview.show()
    interview.start()
    _OPEN.append(interview)
    return interview


def open_drill_history(main_window=None, *, history=None, data_folder=None):
    """Show the drills kept in the history; returns the window."""
    # loaded when first opened, not with the first window
    from desktop.drills.history import DrillHistoryWindow

    history = _history(main_window, history, data_folder)
    if history is None:
        return None
    window = DrillHistoryWindow(history)
    window.show()
    _OPEN.append(window)
    return window


def forget(obj) -> None:
    """Drop a window kept alive by this module (tests call it on teardown)."""
    if obj in _OPEN:
        _OPEN.remove(obj)
