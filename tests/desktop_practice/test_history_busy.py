"""The app with a practice history another program keeps locked past the busy timeout: one clear
message (never a traceback), the round goes on, and at its end the result is kept in the window
until Retry writes it; a history that cannot even be opened starts nothing, with one message."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtWidgets import QMessageBox

from inferboard.practice.history import History
from inferboard.store import local_db

from desktop.practice import common


class Lock:
    """Another connection holding the history's write lock while ``held``."""

    def __init__(self, path):
        self.conn = sqlite3.connect(str(path))
        self.held = False

    def take(self):
        self.conn.execute("BEGIN IMMEDIATE")
        self.held = True

    def release(self):
        if self.held:
            self.conn.rollback()
            self.held = False


@pytest.fixture
def busy_history(tmp_path, monkeypatch):
    monkeypatch.setattr(local_db, "BUSY_TIMEOUT_S", 0.05)
    history = History(tmp_path / "busy")
    lock = Lock(history.path)
    yield history, lock
    lock.release()
    lock.conn.close()
    history.close()


def test_a_round_on_a_locked_history_says_so_once_and_retry_writes_its_result(make_window, library, clock, qtbot,
                                                                              busy_history, monkeypatch):
    from desktop import practice

    history, lock = busy_history
    shown = []

    def answer(parent, title, text, buttons=None):
        shown.append((title, text))
        if buttons is None:
            return QMessageBox.StandardButton.Ok
        if len(shown) == 3:  # the second Retry: the other program has let go
            lock.release()
        return QMessageBox.StandardButton.Retry

    monkeypatch.setattr(common.QMessageBox, "warning", staticmethod(answer))
    lock.take()
    controller = practice.open_practice(make_window(), "fraud-scoring-cpu", library=library, history=history,
                                        clock=clock, check_unsaved=False)
    panel = controller.panel
    try:
        qtbot.waitUntil(lambda: len(shown) == 1)
        assert shown[0][0] == common.HISTORY_PROBLEM_TITLE
        assert str(history.path) in shown[0][1] and "The round goes on" in shown[0][1]
        clock.advance(30)
        panel.ask(controller.entry.scenario.questions[0].id)
        panel.refresh_status()
        assert len(shown) == 1  # said once during the round
        clock.advance(600)
        result = panel.submit(confirm=False)
        assert result is not None and [title for title, _ in shown] == [common.HISTORY_PROBLEM_TITLE] * 3
        assert "Retry writes it now" in shown[1][1]
        assert not controller.session.end_unsaved
        rows = history.attempts()
        assert [r["status"] for r in rows] == ["submitted"] and rows[0]["id"] == controller.session.attempt_id
    finally:
        lock.release()
        for other in [controller.result_window, *controller.other_windows]:
            if other is not None:
                other.close()
                other.deleteLater()
        practice.forget(controller)


def test_a_history_locked_at_opening_starts_nothing_and_says_why(make_window, library, tmp_path, monkeypatch):
    from desktop import practice
    from inferboard.store.local_db import DatabaseBusy

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append(text)))

    def locked(_folder=None):
        raise DatabaseBusy(f"{tmp_path}/history.db: the practice history is in use by another process")

    monkeypatch.setattr(common, "open_history", locked)
    assert practice.open_practice(make_window(), "fraud-scoring-cpu", library=library, check_unsaved=False) is None
    assert practice.open_history(make_window()) is None
    assert len(shown) == 2 and all("in use by another process" in text and "Nothing was started" in text
                                   for text in shown)
