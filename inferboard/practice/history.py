"""The attempt history: a local SQLite database (through sqlite-utils) written as things happen.

Tables: ``attempts`` (one row per practice or mock round), ``questions`` (each asking, when and in
which phase), ``snapshots`` (the design as JSON, each edit and each phase's end), ``rubric_scores``
(per rubric, written at submit), ``events`` (phase changes, follow-ups, notes), ``results`` (the
whole graded result as JSON, for reports) and ``drills`` (one row per incident drill: its design,
recorded actions and result; see ``inferboard.drills.record``).

Every call commits at once, so a crash mid-attempt loses nothing already written; the attempt
stays ``in_progress``. Finishing an attempt (its scores, credits, result and status) is one
transaction: a crash leaves it in progress with none of them, or finished with all of them. Several
processes may record at once (WAL, and writes wait for each other up to a busy timeout). Only a
database whose integrity check fails is moved aside to ``history.db.corrupt-<timestamp>``; a fresh
one is created, and ``notice`` tells the user where the old one went.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import sqlite_utils

from inferboard.paths import user_data_dir
from inferboard.store.local_db import open_database, open_or_recover, unavailable, write_transaction

DB_NAME = "history.db"
SCHEMA_VERSION = 1

TABLES: dict[str, dict[str, Any]] = {
    "attempts": {"id": int, "scenario_id": str, "scenario_title": str, "mode": str, "started_at": str,
                 "ended_at": str, "status": str, "overall": float, "grade": str, "clarify_pct": float},
    "questions": {"id": int, "attempt_id": int, "question_id": str, "text": str, "category": str,
                  "asked_at": str, "t_s": float, "phase": str, "credit": float},
    "snapshots": {"id": int, "attempt_id": int, "t_s": float, "phase": str, "label": str, "design": str},
    "rubric_scores": {"id": int, "attempt_id": int, "rubric": str, "title": str, "percent": float,
                      "weight": float, "earned": float, "applicable": float},
    "events": {"id": int, "attempt_id": int, "t_s": float, "kind": str, "detail": str},
    "results": {"attempt_id": int, "result": str},
    # incident drills (inferboard.drills.record): the design, the recorded actions and the result
    "drills": {"id": int, "drill_id": str, "title": str, "mode": str, "started_at": str, "ended_at": str,
               "seed": int, "ended_s": float, "percent": float, "grade": str, "design": str, "actions": str,
               "result": str},
}


def _locked(method):
    """Serialise calls: the GUI thread and a grading worker may share one History. SQLite's refusals
    (another process kept the file locked past the busy timeout, a read-only folder) become one
    DatabaseUnavailable line naming the file."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self.lock:
            try:
                return method(self, *args, **kwargs)
            except sqlite3.OperationalError as error:
                raise unavailable(error, self.path, "practice history", "used") from None
    return wrapper


def utc_now() -> str:
    """The current UTC time in ISO form, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class AttemptRecord:
    """An attempt read back: the attempt row and everything recorded for it, in order."""

    attempt: dict[str, Any]
    questions: list[dict[str, Any]] = field(default_factory=list)
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    scores: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None

    @property
    def id(self) -> int:
        """The attempt's id."""
        return int(self.attempt["id"])


class History:
    """The history database in ``folder`` (default: :func:`inferboard.paths.user_data_dir`)."""

    def __init__(self, folder: Path | str | None = None):
        self.folder = user_data_dir(folder)
        self.path = self.folder / DB_NAME
        #: Where a corrupt database was moved, if it was; and the message for the user.
        self.recovered_from: Path | None = None
        self.notice: str = ""
        self.lock = threading.RLock()
        self.db = self._open()

    # ------------------------------------------------------------------ opening
    def _open(self) -> sqlite_utils.Database:
        db, self.recovered_from, self.notice = open_or_recover(self.path, self._connect, "practice history")
        return db

    def _connect(self) -> sqlite_utils.Database:
        return open_database(self.path, TABLES, SCHEMA_VERSION, ("questions", "snapshots", "rubric_scores", "events"),
                             "attempt_id", {"results": "attempt_id"})

    @_locked
    def close(self) -> None:
        """Close the database."""
        self.db.conn.close()

    def __enter__(self) -> "History":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ writing
    @_locked
    def _insert(self, name: str, row: dict[str, Any]) -> int:
        table = self.db.table(name)
        table.insert(row)
        return int(table.last_pk)

    def start_attempt(self, scenario_id: str, scenario_title: str, mode: str = "solo",
                      started_at: str | None = None) -> int:
        """Record a new attempt in progress; returns its id."""
        return self._insert("attempts", {"scenario_id": scenario_id, "scenario_title": scenario_title, "mode": mode,
                                         "started_at": started_at or utc_now(), "status": "in_progress"})

    def add_question(self, attempt_id: int, question_id: str, text: str, category: str, t_s: float, phase: str,
                     asked_at: str | None = None, credit: float | None = None) -> int:
        """Record a question asked in attempt ``attempt_id``; returns the row id."""
        return self._insert("questions", {"attempt_id": attempt_id, "question_id": question_id, "text": text,
                                          "category": category, "asked_at": asked_at or utc_now(), "t_s": t_s,
                                          "phase": phase, "credit": credit})

    def add_snapshot(self, attempt_id: int, t_s: float, phase: str, design_json: str | bytes,
                     label: str = "edit") -> int:
        """Record the design (file JSON) at ``t_s`` in attempt ``attempt_id``; returns the row id."""
        if isinstance(design_json, bytes):
            design_json = design_json.decode("utf-8")
        return self._insert("snapshots", {"attempt_id": attempt_id, "t_s": t_s, "phase": phase, "label": label,
                                          "design": design_json})

    def add_event(self, attempt_id: int, t_s: float, kind: str, detail: str = "") -> int:
        """Record an event (a phase, a fact, a follow-up, a note) at ``t_s``; returns the row id."""
        return self._insert("events", {"attempt_id": attempt_id, "t_s": t_s, "kind": kind, "detail": detail})

    @_locked
    def replace_event(self, attempt_id: int, kind: str, t_s: float, detail: str = "") -> int:
        """Keep one event of ``kind`` for the attempt (the interviewer's score sheet, saved as it is edited)."""
        with write_transaction(self.db.conn):
            self.db["events"].delete_where("attempt_id = ? and kind = ?", [attempt_id, kind])
            return self.add_event(attempt_id, t_s, kind, detail)

    @_locked
    def finish_attempt(self, attempt_id: int, status: str = "submitted", ended_at: str | None = None,
                       grade: Any | None = None, result: dict[str, Any] | None = None) -> None:
        """Close an attempt; with a ``grading.Grade``, store its scores and question credits. All of
        it is one transaction: a crash leaves the attempt as it was or finished, never between."""
        update: dict[str, Any] = {"ended_at": ended_at or utc_now(), "status": status}
        with write_transaction(self.db.conn):
            if grade is not None:
                update.update(overall=round(grade.overall, 3), grade=grade.grade,
                              clarify_pct=None if grade.clarify is None else round(grade.clarify.percent, 3))
                self.db["rubric_scores"].delete_where("attempt_id = ?", [attempt_id])
                self.db["rubric_scores"].insert_all(
                    {"attempt_id": attempt_id, "rubric": line.rubric, "title": line.title, "percent": line.percent,
                     "weight": line.weight, "earned": line.earned, "applicable": line.applicable}
                    for line in grade.rubrics)
                if grade.clarify is not None:
                    credits = {q.question_id: q.credit for q in grade.clarify.questions}
                    for row in self.db["questions"].rows_where("attempt_id = ?", [attempt_id]):
                        if row["question_id"] in credits:
                            self.db["questions"].update(row["id"], {"credit": credits[row["question_id"]]})
            if result is not None:
                self.db["results"].insert({"attempt_id": attempt_id, "result": json.dumps(result)}, replace=True)
            self.db["attempts"].update(attempt_id, update)

    @_locked
    def delete_attempt(self, attempt_id: int) -> None:
        """Remove an attempt and everything recorded for it, in one transaction."""
        with write_transaction(self.db.conn):
            for table in ("questions", "snapshots", "rubric_scores", "events", "results"):
                self.db[table].delete_where("attempt_id = ?", [attempt_id])
            self.db["attempts"].delete_where("id = ?", [attempt_id])

    # ------------------------------------------------------------------ reading
    @_locked
    def attempts(self, scenario_id: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        """Attempt rows, newest first."""
        where, args = [], []
        if scenario_id is not None:
            where.append("scenario_id = ?")
            args.append(scenario_id)
        if status is not None:
            where.append("status = ?")
            args.append(status)
        return list(self.db["attempts"].rows_where(" and ".join(where) or None, args or None,
                                                   order_by="started_at desc, id desc"))

    @_locked
    def attempt(self, attempt_id: int) -> AttemptRecord:
        """Attempt ``attempt_id`` with everything recorded for it; raises KeyError when there is none."""
        rows = list(self.db["attempts"].rows_where("id = ?", [attempt_id]))
        if not rows:
            raise KeyError(f"no attempt {attempt_id} in {self.path}")

        def of(table: str, order: str) -> list[dict[str, Any]]:
            return list(self.db[table].rows_where("attempt_id = ?", [attempt_id], order_by=order))

        results = of("results", "attempt_id")
        return AttemptRecord(rows[0], of("questions", "t_s, id"), of("snapshots", "t_s, id"),
                             of("rubric_scores", "id"), of("events", "t_s, id"),
                             json.loads(results[0]["result"]) if results else None)

    @_locked
    def score_series(self, scenario_id: str | None = None) -> dict[str, list[tuple[str, float, int]]]:
        """rubric -> [(ended_at, percent, attempt id)] over submitted attempts, oldest first; the
        key ``overall`` holds the overall score."""
        sql = ("select a.id, a.ended_at, a.overall, s.rubric, s.percent from attempts a "
               "left join rubric_scores s on s.attempt_id = a.id where a.status = 'submitted'")
        args: list[Any] = []
        if scenario_id is not None:
            sql += " and a.scenario_id = ?"
            args.append(scenario_id)
        sql += " order by a.ended_at, a.id, s.id"
        series: dict[str, list[tuple[str, float, int]]] = {}
        seen: set[int] = set()
        for attempt_id, ended_at, overall, rubric, percent in self.db.execute(sql, args).fetchall():
            if attempt_id not in seen and overall is not None:
                series.setdefault("overall", []).append((ended_at, overall, attempt_id))
                seen.add(attempt_id)
            if rubric is not None and percent is not None:
                series.setdefault(rubric, []).append((ended_at, percent, attempt_id))
        return series
