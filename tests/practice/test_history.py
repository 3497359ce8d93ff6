"""The attempt history: written as it happens, read back whole, and recovered when corrupt."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone

import pytest

from inferboard.practice.history import DB_NAME, History
from inferboard.practice.session import PracticeSession
from tests.fakes import FakeClock
from tests.practice.conftest import ROOT


def run_attempt(entry, history, clock, submit=True):
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    session = PracticeSession(entry, history, clock=clock, behaviour=False,
                              wall=lambda: (start + timedelta(seconds=clock.t)).isoformat(timespec="seconds"))
    session.start()
    clock.advance(30)
    session.ask("latency")
    design = entry.reference_design()
    clock.advance(400)
    session.record_design(design)
    clock.advance(100)
    session.ask("volume")
    session.add_note("drew the scorer first")
    if submit:
        clock.advance(60)
        return session, session.submit(design)
    return session, None


def test_an_attempt_is_recorded_and_read_back(library, tmp_path, clock):
    entry = library.get("fraud-scoring-cpu")
    with History(tmp_path) as history:
        session, result = run_attempt(entry, history, clock)
        record = history.attempt(result.attempt_id)
        assert record.attempt["scenario_id"] == "fraud-scoring-cpu" and record.attempt["status"] == "submitted"
        assert record.attempt["mode"] == "solo" and record.attempt["grade"] == result.grade.grade
        assert record.attempt["overall"] == pytest.approx(result.grade.overall, abs=1e-3)
        assert [(q["question_id"], q["phase"], q["t_s"]) for q in record.questions] == \
            [("latency", "clarify", 30.0), ("volume", "high_level", 530.0)]
        assert [q["credit"] for q in record.questions] == [1.0, 0.5]
        assert [s["label"] for s in record.snapshots] == ["edit"], "the final design equals the last edit"
        assert {s["rubric"] for s in record.scores} == {line.rubric for line in result.grade.rubrics}
        assert [e["kind"] for e in record.events] == ["phase", "note"]
        assert record.result["grade"]["overall"] == pytest.approx(result.grade.overall, abs=0.01)
        assert history.attempts()[0]["id"] == result.attempt_id
        assert history.attempts(scenario_id="bursty-speech") == []


def test_scores_over_time_per_rubric(library, tmp_path):
    entry = library.get("fraud-scoring-cpu")
    with History(tmp_path) as history:
        ids = [run_attempt(entry, history, FakeClock(1000 * n))[1].attempt_id for n in range(1, 4)]
        run_attempt(entry, history, FakeClock(9000), submit=False)  # in progress: not plotted
        series = history.score_series()
        assert [a for _, _, a in series["overall"]] == ids
        assert [a for _, _, a in series["clarifying"]] == ids
        assert set(series) >= {"overall", "clarifying", "latency", "drift"}
        assert history.score_series("global-llm-chat") == {}
        history.delete_attempt(ids[0])
        assert len(history.score_series()["overall"]) == 2


def test_everything_is_written_as_it_happens(library, tmp_path, clock):
    entry = library.get("fraud-scoring-cpu")
    with History(tmp_path) as history:
        session, _ = run_attempt(entry, history, clock, submit=False)
        other = sqlite3.connect(tmp_path / DB_NAME)  # another reader sees the committed rows
        assert other.execute("select status from attempts").fetchall() == [("in_progress",)]
        assert other.execute("select count(*) from questions").fetchone() == (2,)
        assert other.execute("select count(*) from snapshots").fetchone() == (1,)
        other.close()


def test_a_crash_mid_attempt_loses_nothing_already_done(tmp_path):
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        from inferboard.practice.library import ScenarioLibrary
        from inferboard.practice.history import History
        from inferboard.practice.session import PracticeSession
        entry = ScenarioLibrary(user_packs=None, check_rubrics=False).load().get("bursty-speech")
        session = PracticeSession(entry, History({str(tmp_path)!r}), behaviour=False)
        session.start()
        session.ask("model")
        session.ask("cold-start")
        session.record_design(entry.reference_design())
        os.kill(os.getpid(), 9)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0, done.stderr
    with History(tmp_path) as history:
        assert history.notice == ""
        (attempt,) = history.attempts()
        assert attempt["status"] == "in_progress" and attempt["scenario_id"] == "bursty-speech"
        record = history.attempt(attempt["id"])
        assert [q["question_id"] for q in record.questions] == ["model", "cold-start"]
        assert len(record.snapshots) == 1 and record.snapshots[0]["design"].startswith("{")


@pytest.mark.parametrize("damage", ["garbage", "torn"])
def test_a_corrupt_database_is_moved_aside_and_replaced(library, tmp_path, clock, damage):
    entry = library.get("fraud-scoring-cpu")
    with History(tmp_path) as history:
        for n in range(3):
            run_attempt(entry, history, FakeClock(1000 * (n + 1)))
    path = tmp_path / DB_NAME
    for side in ("-wal", "-shm"):
        (tmp_path / (DB_NAME + side)).unlink(missing_ok=True)
    data = bytearray(path.read_bytes())
    if damage == "garbage":
        data[:100] = b"this is not a database at all " * 3 + b"." * 10
    else:
        for offset in range(4096 + 100, len(data), 997):  # scribble over every page after the first
            data[offset:offset + 40] = b"\xff" * 40
    path.write_bytes(bytes(data))
    history = History(tmp_path)
    try:
        assert history.recovered_from is not None and history.recovered_from.name.startswith(f"{DB_NAME}.corrupt-")
        assert history.recovered_from.read_bytes() == bytes(data), "the damaged file is kept for rescue"
        assert "could not be read" in history.notice and history.recovered_from.name in history.notice
        assert history.attempts() == []
        session, result = run_attempt(entry, history, FakeClock(50))
        assert history.attempt(result.attempt_id).attempt["status"] == "submitted"
    finally:
        history.close()
    with History(tmp_path) as again:
        assert again.notice == "" and len(again.attempts()) == 1


def test_a_missing_attempt_is_a_clear_error(tmp_path):
    with History(tmp_path) as history:
        with pytest.raises(KeyError, match="no attempt 42"):
            history.attempt(42)


def test_a_worker_thread_may_write_to_the_same_history(library, tmp_path, clock):
    import threading

    entry = library.get("fraud-scoring-cpu")
    with History(tmp_path) as history:
        session = PracticeSession(entry, history, clock=clock, behaviour=False)
        session.start()
        errors = []

        def grade_on_a_worker():
            try:
                session.submit(entry.reference_design())
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(error)

        worker = threading.Thread(target=grade_on_a_worker)
        worker.start()
        worker.join(60)
        assert errors == [] and history.attempts()[0]["status"] == "submitted"
