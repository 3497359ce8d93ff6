"""Cohorts: a room's graded submissions kept in a local SQLite database (through sqlite-utils,
like the practice history), so a later session can reopen them or compare with an earlier one.

Tables: ``cohorts`` (one per graded room: scenario, when, its rubrics), ``submissions`` (a row per
submission with its headline figures, its design and the rest of its result as JSON),
``rubric_scores`` and ``findings`` (one row each, for queries across rooms). A cohort is written in
one transaction; a database SQLite cannot read is moved aside to ``cohorts.db.corrupt-<time>`` and
a fresh one started (``notice`` says so).
"""

from __future__ import annotations

import json
import statistics
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import sqlite_utils

from inferboard.paths import user_data_dir
from inferboard.store.local_db import open_database, open_or_recover, write_transaction
from inferboard.workshop.grading import GradingRun, SubmissionResult
from inferboard.workshop.reports import common_findings

DB_NAME = "cohorts.db"
SCHEMA_VERSION = 1
TABLES: dict[str, dict[str, Any]] = {
    "cohorts": {"id": int, "name": str, "scenario_id": str, "scenario_title": str, "created_at": str,
                "started_at": str, "duration_s": float, "jobs": int, "cancelled": int, "rubrics": str,
                "skipped": str, "submissions": int, "graded": int, "mean_overall": float},
    "submissions": {"id": int, "cohort_id": int, "idx": int, "name": str, "ok": int, "error": str, "title": str,
                    "sha256": str, "overall": float, "grade": str, "design_overall": float, "nodes": int,
                    "edges": int, "p99_ms": float, "slo_p99_ms": float, "cost_per_1k": float,
                    "region_loss_served_pct": float, "follow_ups_held": int, "follow_ups_total": int,
                    "design": str, "result": str},
    "rubric_scores": {"id": int, "submission_id": int, "cohort_id": int, "rubric": str, "percent": float},
    "findings": {"id": int, "submission_id": int, "cohort_id": int, "rule_id": str, "rubric": str, "title": str,
                 "points": float, "message": str},
}
#: Parts of a SubmissionResult kept in the ``result`` JSON column rather than their own columns.
RESULT_PARTS = ("rubrics", "findings", "figures", "follow_ups", "missing")


def utc_now() -> str:
    """The current UTC time in ISO form, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class CohortStore:
    """The cohort database in ``folder`` (default: :func:`inferboard.paths.user_data_dir`)."""

    def __init__(self, folder: Path | str | None = None):
        self.folder = user_data_dir(folder)
        self.path = self.folder / DB_NAME
        self.lock = threading.RLock()
        self.db, self.recovered_from, self.notice = open_or_recover(self.path, self._connect, "cohort database")

    def _connect(self) -> sqlite_utils.Database:
        return open_database(self.path, TABLES, SCHEMA_VERSION, ("submissions", "rubric_scores", "findings"),
                             "cohort_id")

    def close(self) -> None:
        """Close the database."""
        with self.lock:
            self.db.conn.close()

    def __enter__(self) -> "CohortStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ writing
    def save(self, run: GradingRun, name: str = "") -> int:
        """Store a graded room as a new cohort; return its id."""
        graded = [r.overall for r in run.graded if r.overall is not None]
        with self.lock, write_transaction(self.db.conn):
            cohorts = self.db.table("cohorts")
            cohorts.insert({"name": name or f"{run.scenario_title} {run.started_at[:16].replace('T', ' ')}",
                            "scenario_id": run.scenario_id, "scenario_title": run.scenario_title,
                            "created_at": utc_now(), "started_at": run.started_at, "duration_s": run.duration_s,
                            "jobs": run.jobs, "cancelled": int(run.cancelled),
                            "rubrics": json.dumps([list(r) for r in run.rubrics]), "skipped": json.dumps(run.skipped),
                            "submissions": len(run.results), "graded": len(graded),
                            "mean_overall": statistics.fmean(graded) if graded else None})
            cohort_id = int(cohorts.last_pk)
            for row in run.results:
                self._insert_submission(cohort_id, row)
        return cohort_id

    def _insert_submission(self, cohort_id: int, row: SubmissionResult) -> None:
        f = row.figures
        table = self.db.table("submissions")
        table.insert({"cohort_id": cohort_id, "idx": row.index, "name": row.name, "ok": int(row.ok), "error": row.error,
                      "title": row.title, "sha256": row.sha256, "overall": row.overall, "grade": row.grade,
                      "design_overall": row.design_overall, "nodes": row.nodes, "edges": row.edges,
                      "p99_ms": f.get("p99_ms"), "slo_p99_ms": f.get("slo_p99_ms"), "cost_per_1k": f.get("cost_per_1k"),
                      "region_loss_served_pct": f.get("region_loss_served_pct"),
                      "follow_ups_held": row.follow_ups_held, "follow_ups_total": len(row.follow_ups),
                      "design": row.design, "result": json.dumps({k: getattr(row, k) for k in RESULT_PARTS})})
        submission_id = int(table.last_pk)
        self.db["rubric_scores"].insert_all({"submission_id": submission_id, "cohort_id": cohort_id, "rubric": rubric,
                                             "percent": percent} for rubric, percent in row.rubrics.items())
        self.db["findings"].insert_all({"submission_id": submission_id, "cohort_id": cohort_id,
                                        "rule_id": item["rule_id"], "rubric": item.get("rubric", ""),
                                        "title": item.get("title", ""), "points": item.get("points", 0),
                                        "message": item.get("message", "")} for item in row.findings)

    def rename(self, cohort_id: int, name: str) -> None:
        """Rename cohort ``cohort_id``."""
        with self.lock, write_transaction(self.db.conn):
            self.db["cohorts"].update(cohort_id, {"name": name})

    def delete(self, cohort_id: int) -> None:
        """Delete cohort ``cohort_id`` with its submissions, scores and findings."""
        with self.lock, write_transaction(self.db.conn):
            for table in ("submissions", "rubric_scores", "findings"):
                self.db[table].delete_where("cohort_id = ?", [cohort_id])
            self.db["cohorts"].delete_where("id = ?", [cohort_id])

    # ------------------------------------------------------------------ reading
    def cohorts(self, scenario_id: str | None = None) -> list[dict[str, Any]]:
        """Cohort rows, newest first."""
        with self.lock:
            where, args = ("scenario_id = ?", [scenario_id]) if scenario_id else (None, None)
            return list(self.db["cohorts"].rows_where(where, args, order_by="created_at desc, id desc"))

    def cohort(self, cohort_id: int) -> dict[str, Any]:
        """The cohort row ``cohort_id``; raises KeyError when there is none."""
        with self.lock:
            rows = list(self.db["cohorts"].rows_where("id = ?", [cohort_id]))
        if not rows:
            raise KeyError(f"no cohort {cohort_id} in {self.path}")
        return rows[0]

    def load(self, cohort_id: int) -> GradingRun:
        """The cohort as the GradingRun it was saved from."""
        info = self.cohort(cohort_id)
        with self.lock:
            rows = list(self.db["submissions"].rows_where("cohort_id = ?", [cohort_id], order_by="idx, id"))
        results = []
        for row in rows:
            parts = json.loads(row["result"] or "{}")
            results.append(SubmissionResult(
                index=row["idx"], name=row["name"], error=row["error"] or "", title=row["title"] or "",
                sha256=row["sha256"] or "", overall=row["overall"], grade=row["grade"] or "",
                design_overall=row["design_overall"], nodes=row["nodes"] or 0, edges=row["edges"] or 0,
                design=row["design"] or "", **{k: parts.get(k, {} if k in ("rubrics", "figures", "missing") else [])
                                               for k in RESULT_PARTS}))
        rubrics = [tuple(r) for r in json.loads(info["rubrics"] or "[]")]
        return GradingRun(info["scenario_id"], info["scenario_title"], rubrics, results, info["started_at"] or "",
                          info["duration_s"] or 0.0, info["jobs"] or 1, bool(info["cancelled"]),
                          json.loads(info["skipped"] or "[]"))


# ------------------------------------------------------------------------------ comparing rooms
@dataclass
class RubricChange:
    """One rubric's mean score in two sessions."""

    rubric: str
    title: str
    first: float | None
    second: float | None

    @property
    def delta(self) -> float | None:
        """The second session's mean minus the first's, or None when either is missing."""
        return None if self.first is None or self.second is None else self.second - self.first


@dataclass
class CohortComparison:
    """A second room against the first: mean score per rubric, and the share of designs with each
    of the findings common in either room."""

    first_graded: int
    second_graded: int
    rubrics: list[RubricChange]
    #: (rule id, title, share of the first room, share of the second), most common first
    findings: list[tuple[str, str, float, float]] = field(default_factory=list)


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def compare_runs(first: GradingRun, second: GradingRun, limit: int = 15) -> CohortComparison:
    """How a second session of a cohort compares with a first: per rubric, and the findings that came and went."""
    titles = {name: title for name, title, _ in [*first.rubrics, *second.rubrics]}
    names = ["overall", *dict.fromkeys(n for n, _, _ in [*first.rubrics, *second.rubrics])]
    titles["overall"] = "Overall"

    def values(run: GradingRun, name: str) -> list[float]:
        if name == "overall":
            return [r.overall for r in run.graded if r.overall is not None]
        return [r.rubrics[name] for r in run.graded if r.rubrics.get(name) is not None]

    changes = [RubricChange(n, titles[n], _mean(values(first, n)), _mean(values(second, n))) for n in names]

    def shares(run: GradingRun) -> tuple[dict[str, float], dict[str, str]]:
        total = len(run.graded) or 1
        ranked = common_findings(run.graded, limit=10_000)
        return {rule: n / total for rule, _, n, _ in ranked}, {rule: title for rule, title, _, _ in ranked}

    share_a, titles_a = shares(first)
    share_b, titles_b = shares(second)
    rules = sorted(set(share_a) | set(share_b), key=lambda r: (-max(share_a.get(r, 0), share_b.get(r, 0)), r))
    findings = [(rule, titles_b.get(rule) or titles_a.get(rule, rule), share_a.get(rule, 0.0), share_b.get(rule, 0.0))
                for rule in rules[:limit]]
    return CohortComparison(len(first.graded), len(second.graded), changes, findings)
