"""A practice history another program keeps locked past the busy timeout: every write says so in
one line naming the file (never a raw sqlite error), the round goes on in memory, and its end is
kept until it can be written, then written whole."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager

import pytest

from inferboard.model import Design
from inferboard.practice.history import History
from inferboard.practice.session import PracticeSession
from inferboard.store import local_db
from inferboard.store.local_db import DatabaseBusy


@contextmanager
def held_write_lock(path):
    """Another connection holding the database's write lock until the block ends."""
    other = sqlite3.connect(str(path))
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.rollback()
        other.close()


@pytest.fixture
def history(tmp_path, monkeypatch):
    monkeypatch.setattr(local_db, "BUSY_TIMEOUT_S", 0.05)  # how long a write waits: not what is tested
    with History(tmp_path) as opened:
        yield opened


def test_a_write_to_a_locked_history_is_one_busy_line_naming_the_file(history):
    with held_write_lock(history.path), pytest.raises(DatabaseBusy) as caught:
        history.start_attempt("fraud-scoring-cpu", "Fraud scoring")
    message = str(caught.value)
    assert message.startswith(f"{history.path}: the practice history is in use by another process")
    assert "\n" not in message
    assert history.attempts() == []


def test_a_round_started_and_ended_while_the_history_is_locked_is_kept_then_written_whole(history, library, clock):
    session = PracticeSession(library.get("fraud-scoring-cpu"), history, clock=clock, behaviour=False)
    with held_write_lock(history.path):
        session.start()
        assert session.attempt_id is None
        assert "in use by another process" in session.take_history_problem()
        assert session.take_history_problem() == ""  # said once
        question = next(q for q in session.scenario.questions if q.key)
        session.ask(question.id)
        clock.advance(300)
        result = session.submit(Design())
        assert result.grade is not None and session.end_unsaved
        assert not session.save_finish() and "in use" in session.take_history_problem()
    assert history.attempts() == []  # nothing half-written while it was locked
    assert session.save_finish() and not session.end_unsaved
    rows = history.attempts()
    assert [(r["status"], r["id"]) for r in rows] == [("submitted", session.attempt_id)]
    record = history.attempt(session.attempt_id)
    assert record.scores and record.result["grade"]["overall"] == pytest.approx(result.grade.overall)
    assert result.attempt_id == session.attempt_id


def test_a_write_that_fails_mid_round_leaves_the_round_running_and_the_end_written(history, library, clock):
    session = PracticeSession(library.get("fraud-scoring-cpu"), history, clock=clock, behaviour=False)
    session.start()
    with held_write_lock(history.path):
        clock.advance(60)
        session.advance_phase()
        assert session.state == "running" and "in use" in session.take_history_problem()
    session.abandon()
    assert not session.end_unsaved and session.take_history_problem() == ""
    assert history.attempts()[0]["status"] == "abandoned"
