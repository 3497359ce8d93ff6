"""A drill ending while another program keeps the practice history locked past its busy timeout:
one message with Retry (never a traceback), the result shown, and the drill kept once the lock is
gone; a history that cannot be opened lets a drill run unrecorded, after one message."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtWidgets import QMessageBox

from inferboard.drills.record import drill_runs
from inferboard.practice.history import History
from inferboard.store import local_db
from tests.desktop_drills.conftest import FAST, TICK_MS, close_drill_window

from desktop import drills
from desktop.drills import window as drill_window
from desktop.practice.common import HISTORY_PROBLEM_TITLE


@pytest.fixture
def locked_history(tmp_path, monkeypatch):
    monkeypatch.setattr(local_db, "BUSY_TIMEOUT_S", 0.05)
    history = History(tmp_path / "busy")
    other = sqlite3.connect(str(history.path))
    yield history, other
    other.rollback()
    other.close()
    history.close()


def test_a_drill_ending_on_a_locked_history_says_so_and_retry_keeps_it(locked_history, drill_design, qtbot,
                                                                       monkeypatch):
    history, other = locked_history
    shown = []

    def answer(parent, title, text, buttons=None):
        shown.append((title, text))
        if len(shown) == 2:  # the other program has let go
            other.rollback()
        return QMessageBox.StandardButton.Retry

    monkeypatch.setattr(drill_window.QMessageBox, "warning", staticmethod(answer))
    window = drills.open_drill(None, "slow-canary-version", design=drill_design, history=history, speed=FAST,
                               tick_ms=TICK_MS)
    try:
        other.execute("BEGIN IMMEDIATE")
        window.finish_button.click()
        qtbot.waitUntil(lambda: window.result_window is not None and window.result_window.isVisible())
        assert [title for title, _ in shown] == [HISTORY_PROBLEM_TITLE] * 2
        assert str(history.path) in shown[0][1] and "Retry keeps it" in shown[0][1]
        assert [r["id"] for r in drill_runs(history)] == [window.record_id] and window.record_id is not None
    finally:
        close_drill_window(window)
        drills.forget(window)


def test_a_history_that_cannot_be_opened_lets_the_drill_run_unrecorded(drill_design, qtbot, monkeypatch):
    from desktop.practice import common
    from inferboard.store.local_db import DatabaseBusy

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append(text)))
    monkeypatch.setattr(common, "open_history", lambda folder=None: (_ for _ in ()).throw(
        DatabaseBusy("history.db: the practice history is in use by another process")))
    window = drills.open_drill(None, "slow-canary-version", design=drill_design, speed=FAST, tick_ms=TICK_MS)
    try:
        assert window.history is None and len(shown) == 1 and "without being kept" in shown[0]
        assert drills.open_drill_history(None) is None and len(shown) == 2
    finally:
        close_drill_window(window)
        drills.forget(window)
