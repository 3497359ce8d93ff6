"""Opening the practice windows: a solo round, a mock interview on one machine or two, the history.

- ``open_practice(main_window_or_None, scenario_id=None)``: a solo round in the editor;
- ``open_mock_interview(main_window_or_None, scenario_id=None)``: the candidate window and the
  interviewer console, linked only through ``inferboard.practice.interview_link``;
- ``open_history(main_window_or_None)``: past attempts, score plots, replays and reports;
- ``host_interview(main_window_or_None)``: a remote mock interview, the candidate's machine;
- ``join_interview(main_window_or_None)``: a remote mock interview, the interviewer's machine.

Without ``scenario_id`` the scenario library dialog asks which scenario (and offers both modes).
``library``, ``history`` and ``clock`` may be injected (tests do); by default the history and the
imported packs live in the app's data folder (``$INFERBOARD_DATA_DIR`` when set).
"""

from __future__ import annotations

from typing import Any, Callable

_OPEN: list[Any] = []  # controllers and windows opened without a parent, kept alive


def _main_window(main_window, data_folder=None):
    if main_window is not None:
        return main_window
    # loaded when first opened, not with the first window
    from desktop.shell.application import make_application
    from desktop.shell.main_window import MainWindow

    make_application()
    window = MainWindow(data_folder)
    window.show()
    _OPEN.append(window)
    return window


def _history(history, data_folder, parent):
    """``history``, else the app's; None after one message when it cannot be opened (another program
    keeps it locked past its busy timeout, a read-only folder)."""
    # loaded when first opened, not with the first window
    from PySide6.QtWidgets import QMessageBox

    from inferboard.store.local_db import DatabaseUnavailable

    from desktop.practice.common import HISTORY_PROBLEM_TITLE
    from desktop.practice.common import open_history as default_history

    if history is not None:
        return history
    try:
        return default_history(data_folder)
    except DatabaseUnavailable as error:
        QMessageBox.warning(parent, HISTORY_PROBLEM_TITLE, f"{error}\n\nNothing was started.")
        return None


def _history_told(history, data_folder, window):
    """``_history``, and a damaged history's notice (where it was moved aside) in ``window``'s
    status bar until the next message."""
    history = _history(history, data_folder, window)
    if history is not None and history.notice and window is not None:
        window.show_message(history.notice, 0)
    return history


def _pick(library, scenario_id: str | None, parent, mode: str):
    # loaded when first opened, not with the first window
    from desktop.practice.library_dialog import choose_scenario

    if scenario_id is not None:
        return library.get(scenario_id), mode
    return choose_scenario(library, parent, mode)


def open_practice(main_window=None, scenario_id: str | None = None, *, library=None, history=None,
                  clock: Callable[[], float] | None = None, check_unsaved: bool = True, data_folder=None):
    """Start a solo round in ``main_window`` (a new main window when None). Returns the
    ``SoloPractice`` controller, the ``MockInterview`` if the user chose that in the dialog, or None."""
    # loaded when first opened, not with the first window
    from desktop.practice.common import open_library
    from desktop.practice.solo import SoloPractice

    window = _main_window(main_window, data_folder)
    data_folder = data_folder if data_folder is not None else getattr(window, "data_dir", None)
    running = [c for c in window.findChildren(SoloPractice) if c.session.state == "running"]
    if running:  # one round at a time per window: show the one in progress
        running[0].dock.show()
        running[0].dock.raise_()
        return running[0]
    library = library if library is not None else open_library(data_folder)
    picked = _pick(library, scenario_id, window, "solo")
    if picked is None:
        return None
    entry, mode = picked
    if mode == "mock":
        return open_mock_interview(window, entry.id, library=library, history=history, clock=clock,
                                   data_folder=data_folder)
    history = _history_told(history, data_folder, window)
    if history is None:
        return None
    controller = SoloPractice(window, entry, history, clock, library)
    if not controller.start(check_unsaved=check_unsaved):
        return None
    _OPEN.append(controller)
    return controller


def open_mock_interview(main_window=None, scenario_id: str | None = None, *, library=None, history=None,
                        clock: Callable[[], float] | None = None, data_folder=None, start: bool = True,
                        show: bool = True):
    """Open the candidate window and the interviewer console for a scenario; returns the
    ``MockInterview`` (``.candidate``, ``.console``) or None when the dialog was cancelled."""
    # loaded when first opened, not with the first window
    from desktop.practice.common import open_library
    from desktop.practice.mock import MockInterview

    if data_folder is None and main_window is not None:
        data_folder = getattr(main_window, "data_dir", None)
    library = library if library is not None else open_library(data_folder)
    picked = _pick(library, scenario_id, main_window, "mock")
    if picked is None:
        return None
    entry, mode = picked
    if mode == "solo":
        return open_practice(main_window, entry.id, library=library, history=history, clock=clock,
                             data_folder=data_folder)
    history = _history_told(history, data_folder, main_window)
    if history is None:
        return None
    theme_mode = main_window.theme_manager.mode if main_window is not None else None
    interview = MockInterview(entry, history, clock=clock, data_folder=data_folder, theme_mode=theme_mode)
    if show:
        interview.show()
    if start:
        interview.start()
    _OPEN.append(interview)
    return interview


def open_history(main_window=None, *, history=None, data_folder=None, views=()):
    """Show the attempt history (scores over time per rubric, results, replays, reports), with a
    button for each of ``views`` (``history_extra_views.HistoryView``: the drill history, say)."""
    # loaded when first opened, not with the first window
    from desktop.practice.history_window import HistoryWindow

    if data_folder is None and main_window is not None:
        data_folder = getattr(main_window, "data_dir", None)
    history = _history(history, data_folder, main_window)
    if history is None:
        return None
    theme = main_window.theme_manager.theme if main_window is not None else None
    window = HistoryWindow(history, None, theme, views)
    window.show()
    _OPEN.append(window)
    return window


def host_interview(main_window=None, scenario_id: str | None = None, *, library=None, data_folder=None,
                   clock: Callable[[], float] | None = None, show: bool = True):
    """Practice > Host Interview…: the dialog that listens, shows the code, then the candidate window."""
    # loaded when first opened, not with the first window
    from desktop.practice.common import open_library
    from desktop.practice.remote_dialogs import HostInterviewDialog

    if data_folder is None and main_window is not None:
        data_folder = getattr(main_window, "data_dir", None)
    library = library if library is not None else open_library(data_folder)
    theme_mode = main_window.theme_manager.mode if main_window is not None else None
    dialog = HostInterviewDialog(library, None, data_folder, theme_mode, clock, scenario_id)
    if show:
        dialog.show()
    _OPEN.append(dialog)
    return dialog


def join_interview(main_window=None, *, library=None, history=None, data_folder=None,
                   clock: Callable[[], float] | None = None, show: bool = True):
    """Practice > Join Interview…: address and code, then the interviewer console (notes and score
    sheet stored in this machine's history)."""
    # loaded when first opened, not with the first window
    from desktop.practice.common import open_library
    from desktop.practice.remote_dialogs import JoinInterviewDialog

    if data_folder is None and main_window is not None:
        data_folder = getattr(main_window, "data_dir", None)
    library = library if library is not None else open_library(data_folder)
    history = _history(history, data_folder, main_window)
    if history is None:
        return None
    theme = main_window.theme_manager.theme if main_window is not None else None
    dialog = JoinInterviewDialog(library, history, None, theme, clock)
    if show:
        dialog.show()
    _OPEN.append(dialog)
    return dialog


def forget(obj) -> None:
    """Drop a controller or window kept alive by this module (tests call it on teardown)."""
    if obj in _OPEN:
        _OPEN.remove(obj)
