"""Drills kept and shown: a row in the practice history (table ``drills``), a self-contained HTML
report, and the replay of a kept drill (its recorded actions run again on the same design, drill
and seed give the same result)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

import numpy as np

from inferboard.catalog import default_catalog
from inferboard.drills.engine import DrillSession, RecordedAction, replay
from inferboard.drills.library import get_drill
from inferboard.drills.schema import Drill
from inferboard.practice.history import History, utc_now
from inferboard.practice.report import CSS
from inferboard.store.atomic import atomic_write
from inferboard.store.design_files import design_to_bytes, parse_design
from inferboard.store.local_db import unavailable


@dataclass
class DrillRecord:
    """A drill read back from the history."""

    row: dict[str, Any]
    design_json: str
    actions: list[RecordedAction]
    result: dict[str, Any]

    @property
    def id(self) -> int:
        """The run's id in the history database."""
        return int(self.row["id"])


def save_drill(history: History, session: DrillSession, started_at: str | None = None) -> int:
    """Keep a drill (finished or not) in the history; returns its row id. Raises DatabaseUnavailable
    (one line naming the file) when another program keeps the history locked past its busy timeout."""
    result = session.result()
    row = {"drill_id": session.drill.id, "title": session.drill.title, "mode": session.mode,
           "started_at": started_at or utc_now(), "ended_at": utc_now(), "seed": session.seed,
           "ended_s": session.finished_at if session.finished_at is not None else session.now_s,
           "percent": result.percent, "grade": result.grade,
           "design": design_to_bytes(session.source_design).decode("utf-8"),
           "actions": json.dumps([a.to_dict() for a in session.actions]),
           "result": json.dumps(result.to_dict(), default=json_default)}
    with history.lock:
        table = history.db.table("drills")
        try:
            with history.db.conn:
                table.insert(row)
        except sqlite3.OperationalError as error:
            raise unavailable(error, history.path, "practice history", "used") from None
        return int(table.last_pk)


def drill_runs(history: History, drill_id: str | None = None) -> list[dict[str, Any]]:
    """Kept drills, newest first, without their design, actions and result."""
    with history.lock:
        rows = history.db["drills"].rows_where("drill_id = ?" if drill_id else None, [drill_id] if drill_id else None,
                                               order_by="started_at desc, id desc",
                                               select="id, drill_id, title, mode, started_at, ended_at, seed, "
                                                      "ended_s, percent, grade")
        return list(rows)


def load_drill_run(history: History, run_id: int) -> DrillRecord:
    """The drill run ``run_id`` from ``history``."""
    with history.lock:
        rows = list(history.db["drills"].rows_where("id = ?", [run_id]))
    if not rows:
        raise KeyError(f"no drill {run_id} in {history.path}")
    row = rows[0]
    return DrillRecord(row, row["design"], [RecordedAction.from_dict(a) for a in json.loads(row["actions"])],
                       json.loads(row["result"]))


def replay_record(record: DrillRecord, drill: Drill | None = None, catalog=None) -> DrillSession:
    """Run a kept drill's actions again (the drill from the library unless given)."""
    design = parse_design(record.design_json.encode("utf-8"), f"<drill {record.id}>", catalog or default_catalog())
    drill = drill or get_drill(record.row["drill_id"])
    return replay(drill, design, int(record.row["seed"]), record.actions, record.row["mode"],
                  finish_at=float(record.row["ended_s"]))


def json_default(value):
    """``json.dumps`` default: numpy scalars as plain numbers."""
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    raise TypeError(f"not JSON: {type(value).__name__}")


# ---------------------------------------------------------------------- HTML
def _sparkline(values: np.ndarray, width: int = 520, height: int = 90, limit: float | None = None,
               marks: list[float] | None = None, t_min: np.ndarray | None = None) -> str:
    v = np.nan_to_num(np.asarray(values, dtype=float))
    if v.size < 2:
        return ""
    top = max(float(v.max()), limit or 0.0) * 1.1 or 1.0
    xs = np.linspace(0, width, v.size)
    ys = height - v / top * height
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys))
    out = [f'<svg viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
           f'xmlns="http://www.w3.org/2000/svg" role="img">'
           f'<rect width="{width}" height="{height}" fill="#f8fafc"/>'
           f'<polyline fill="none" stroke="#0ea5e9" stroke-width="1.5" points="{path}"/>']
    if limit:
        y = height - limit / top * height
        out.append(f'<line x1="0" x2="{width}" y1="{y:.1f}" y2="{y:.1f}" stroke="#dc2626" stroke-dasharray="4 3"/>')
    if marks and t_min is not None and t_min.size > 1:
        span = float(t_min[-1] - t_min[0]) or 1.0
        for m in marks:
            x = (m - float(t_min[0])) / span * width
            out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="0" y2="{height}" stroke="#16a34a"/>')
    out.append("</svg>")
    return "".join(out)


def drill_report_html(result: dict[str, Any], series: dict[str, np.ndarray] | None = None,
                      truth: dict[str, Any] | None = None, slo_p99_ms: float | None = None) -> str:
    """A self-contained page: score lines traced to actions, the timeline of actions, what
    observability was missing, and (given) the p99 and accuracy over the drill and the hidden truth."""
    actions = result.get("actions", [])
    notice = float(result.get("notice_min", 0.0))
    rows = []
    for line in result.get("lines", []):
        at = line.get("action_index")
        which = f"#{at + 1} {escape(actions[at]['verb'].replace('_', ' '))}" if at is not None and at < len(actions) else "—"
        css = "ok" if line["points"] >= line["max_points"] > 0 else ("bad" if line["points"] <= 0 else "")
        rows.append(f"<tr><td>{escape(line['criterion'].replace('_', ' '))}</td><td class={css or 'muted'}>"
                    f"{line['points']:g} / {line['max_points']:g}</td><td>{escape(line['reason'])}</td>"
                    f"<td class=muted>{which}</td></tr>")
    steps = []
    for i, a in enumerate(actions):
        args = "; ".join(f"{k}: {v}" for k, v in a.get("args", {}).items())
        outcome = f" <b>({escape(a['outcome'])})</b>" if a.get("outcome") else ""
        steps.append(f"<tr><td class=muted>#{i + 1}</td><td>{(a['t_s'] / 60 - notice):+.1f} min</td>"
                     f"<td>{escape(a['verb'].replace('_', ' '))}{outcome}</td><td>{escape(args)}</td></tr>")
    missing = "".join(f"<li><b>{escape(m['what'])}</b>: {escape(m['why'])} "
                      f"<span class=muted>(cost {m['cost_min']:g} min)</span></li>" for m in result.get("missing", []))
    impact = result.get("customer_impact", {})
    parts = [f"<!doctype html><html><head><meta charset=utf-8><title>Drill: {escape(result['title'])}</title>"
             f"<style>{CSS}</style></head><body><h1>Drill: {escape(result['title'])}</h1>",
             f"<p><span class=grade>{escape(result['grade'])}</span> {result['percent']:.0f}% · told at minute "
             f"{notice:g} · ended at minute {result['ended_min']:g} · "
             + ("mitigated after " + f"{result['time_to_mitigate_min']:g} min" if result.get("time_to_mitigate_min")
                is not None else "not mitigated")
             + f" · {result['budget_burned_pct']:.2f}% of the monthly error budget · "
             f"{impact.get('total', 0):,.0f} requests harmed · "
             + ("<span class=ok>SLO restored</span>" if result.get("restored") else "<span class=bad>not restored</span>")
             + "</p>",
             "<h2>Score, action by action</h2><table><tr><th>criterion</th><th>points</th><th>why</th>"
             f"<th>action</th></tr>{''.join(rows)}</table>",
             "<h2>What you did</h2><table><tr><th></th><th>when (from being told)</th><th>action</th><th></th></tr>"
             f"{''.join(steps) or '<tr><td colspan=4 class=muted>nothing</td></tr>'}</table>"]
    if missing:
        parts.append(f"<h2>Observability the design lacked</h2><ul>{missing}</ul>")
    if series is not None and "times_s" in series:
        t_min = np.asarray(series["times_s"]) / 60.0
        marks = [a["t_s"] / 60.0 for a in actions if a["verb"] == "apply_mitigation"]
        parts.append("<h2>The incident</h2><p>p99 latency (ms; dashed: SLO; green: your mitigations)</p>"
                     + _sparkline(series["p99_ms"], limit=slo_p99_ms, marks=marks, t_min=t_min)
                     + "<p>Accuracy (%)</p>" + _sparkline(series["accuracy_pct"], marks=marks, t_min=t_min))
    if truth is not None:
        planted = "".join(f"<li>minute {c['at_min']:g}: {escape(c['text'])}</li>" for c in truth["planted_changes"])
        fixes = "".join(f"<li><b>{escape(m['action'].replace('_', ' '))} {escape(m['target'])}</b> "
                        f"({escape(m['effect'].replace('_', ' '))}): {escape(m['why'])}</li>"
                        for m in truth["mitigations"])
        parts.append(f"<h2>What really happened</h2><p>{escape(truth['root_cause'])}</p>"
                     f"<p>The changes behind it:</p><ul>{planted}</ul><p>Mitigations:</p><ul>{fixes}</ul>")
    parts.append("<p class=muted>Numbers are directional estimates from Inferboard's simulator.</p></body></html>")
    return "".join(parts)


def result_dict(session: DrillSession) -> dict[str, Any]:
    """The session's result as plain JSON values (what the history keeps)."""
    return json.loads(json.dumps(session.result().to_dict(), default=json_default))


def session_report_html(session: DrillSession, with_truth: bool = True) -> str:
    """The session's report as a standalone HTML page (with the hidden truth unless ``with_truth`` is
    False)."""
    return drill_report_html(result_dict(session), session.series(),
                             asdict(session.truth()) if with_truth else None, session.design.requirements.slo_p99_ms)


def save_drill_report(path: Path | str, html: str) -> None:
    """Write a drill report atomically."""
    atomic_write(Path(path), html.encode("utf-8"), keep_backup=False)
