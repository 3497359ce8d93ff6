"""The history under crashes and contention: a SIGKILLed recorder leaves every attempt before or
after its finish, never between; a busy database is waited for, never moved aside; six processes
recording at once lose nothing."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from inferboard.practice.history import DB_NAME, History
from inferboard.store import local_db
from tests.practice.conftest import ROOT

RUBRICS = 9
RECORDER = textwrap.dedent("""
    import sys
    from types import SimpleNamespace
    from inferboard.practice.history import History

    lines = [SimpleNamespace(rubric=f"r{n}", title=f"Rubric {n}", percent=50.0 + n, weight=1.0, earned=n,
                             applicable=9.0) for n in range(9)]
    grade = SimpleNamespace(overall=61.5, grade="B", clarify=None, rubrics=lines)
    with History(sys.argv[1]) as history:
        print("open", flush=True)
        for n in range(int(sys.argv[2])):
            attempt = history.start_attempt("s", "Scenario", "solo")
            history.add_question(attempt, "latency", "How fast?", "latency", 1.0, "clarify")
            history.add_snapshot(attempt, 2.0, "high_level", '{"nodes": []}')
            history.finish_attempt(attempt, grade=grade, result={"overall": 61.5, "n": n})
            print(attempt, flush=True)
""")


def _recorder(folder, count: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, "-c", RECORDER, str(folder), str(count)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _half_finished(folder) -> list[tuple]:
    """Attempts that are neither untouched-in-progress nor wholly finished."""
    conn = sqlite3.connect(str(folder / DB_NAME))
    try:
        rows = conn.execute("select a.id, a.status, (select count(*) from rubric_scores s where s.attempt_id = a.id),"
                            " (select count(*) from results r where r.attempt_id = a.id), a.overall from attempts a")
        return [row for row in rows if row[1:] not in (("in_progress", 0, 0, None), ("submitted", RUBRICS, 1, 61.5))]
    finally:
        conn.close()


@pytest.mark.slow  # 12 recording processes killed one after another
def test_sigkill_while_recording_leaves_every_attempt_whole(tmp_path):
    rng = random.Random(29)
    with History(tmp_path):
        pass
    for _ in range(12):
        child = _recorder(tmp_path, 10_000)
        assert child.stdout.readline() == "open\n", child.stderr.read()
        child.stdout.readline()  # one attempt recorded, then kill it at a random moment
        time.sleep(rng.uniform(0, 0.05))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        child.stdout.close()
        child.stderr.close()
        assert _half_finished(tmp_path) == []
    with History(tmp_path) as history:
        assert history.notice == "" and len(history.attempts(status="submitted")) >= 12


@pytest.mark.slow  # six processes starting Python
def test_six_processes_recording_at_once_lose_nothing_and_move_nothing_aside(tmp_path):
    children = [_recorder(tmp_path, 10) for _ in range(6)]
    outputs = [child.communicate(timeout=120) for child in children]
    assert [child.returncode for child in children] == [0] * 6, [err for _, err in outputs]
    recorded = [int(line) for out, _ in outputs for line in out.split()[1:]]
    assert len(recorded) == len(set(recorded)) == 60
    assert _half_finished(tmp_path) == []
    with History(tmp_path) as history:
        assert sorted(a["id"] for a in history.attempts(status="submitted")) == sorted(recorded)
    assert [p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name] == []


def test_a_locked_history_is_never_taken_for_a_damaged_one(tmp_path, monkeypatch):
    with History(tmp_path) as history:
        kept = history.start_attempt("s", "Scenario")
    other = sqlite3.connect(str(tmp_path / DB_NAME), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    monkeypatch.setattr(local_db, "BUSY_TIMEOUT_S", 0.05)
    try:
        with pytest.raises(local_db.DatabaseBusy, match="in use by another process"):
            History(tmp_path)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert [p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name] == []
    with History(tmp_path) as history:
        assert history.notice == "" and [a["id"] for a in history.attempts()] == [kept]


def test_a_damaged_history_is_moved_aside_and_the_notice_says_where(tmp_path):
    (tmp_path / DB_NAME).write_bytes(b"not a database, just some text that is long enough" * 100)
    with History(tmp_path) as history:
        assert history.recovered_from is not None and history.recovered_from.exists()
        assert str(history.recovered_from) in history.notice


def test_a_history_that_cannot_be_written_is_one_clear_error_and_is_not_moved(tmp_path):
    with History(tmp_path) as history:
        history.start_attempt("s", "Scenario")
    path = tmp_path / DB_NAME

    def read_only():  # what a read-only folder or medium gives
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            conn.execute("create table t (x)")
        finally:
            conn.close()

    with pytest.raises(local_db.DatabaseUnavailable, match="cannot be opened"):
        local_db.open_or_recover(path, read_only, "practice history")
    assert [p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name] == []
