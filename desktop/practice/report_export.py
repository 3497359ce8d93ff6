"""Writing reports: the engine builds the self-contained HTML; the desktop adds a PNG of the
design drawn by its own canvas and, for a mock interview, the interviewer's score sheet."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from inferboard.practice.report import report_for_record, save_report

from desktop.practice.common import design_png, esc, pct


def record_report_html(record: Any) -> str:
    """The report of an attempt read back from the history, with its final design as a PNG and,
    when the interviewer's machine stored one (a remote mock interview), the score sheet."""
    design = (record.result or {}).get("design")
    html = report_for_record(record, design_png(design) if design else None)
    sheet = next((e for e in reversed(record.events) if e["kind"] == "score_sheet"), None)
    if sheet is not None:
        try:
            data = json.loads(sheet["detail"])
            html = add_section(html, score_sheet_html(data["rows"], data.get("overall")))
        except (ValueError, KeyError, TypeError):
            pass  # a damaged score sheet leaves the rest of the report
    return html


def score_sheet_html(rows: Iterable[Mapping[str, Any]], overall: float | None) -> str:
    """The interviewer's score sheet: rubric, automatic suggestion, the score given, a comment."""
    body = "".join(
        f"<tr><td>{esc(r['title'])}</td><td class=muted>{pct(r.get('suggested'))}</td>"
        f"<td><b>{pct(r.get('given'))}</b></td><td>{esc(r.get('comment', ''))}</td></tr>" for r in rows)
    total = f"<p>Interviewer's overall score: <b>{pct(overall)}</b> (weighted as the rubrics are).</p>"
    return ("<h2>Interviewer's score sheet</h2><table><tr><th>Rubric</th><th>Automatic suggestion</th>"
            f"<th>Score given</th><th>Comment</th></tr>{body}</table>{total}")


def add_section(html: str, section: str) -> str:
    """Insert ``section`` before the report's closing note (or before ``</body>``)."""
    marker = "<p class=muted>Numbers are directional"
    at = html.rfind(marker)
    if at < 0:
        at = html.rfind("</body>")
    if at < 0:
        return html + section
    return html[:at] + section + "\n" + html[at:]


def ask_report_path(parent: QWidget | None, suggested: str) -> str | None:
    """Ask where to save an HTML report (``suggested`` in the home folder by default); None when cancelled."""
    path, _ = QFileDialog.getSaveFileName(parent, "Export report", str(Path.home() / suggested), "HTML (*.html)")
    if path and not path.lower().endswith((".html", ".htm")):
        path += ".html"
    return path or None


def write_report(path: str | Path, html: str, parent: QWidget | None = None) -> Path | None:
    """Write ``html`` to ``path``; on failure say why in a message box and return None."""
    try:
        save_report(Path(path), html)
    except Exception as error:  # noqa: BLE001 - shown to the user, never fatal
        if parent is not None:
            QMessageBox.warning(parent, "Export failed", f"The report could not be written:\n{error}")
        return None
    return Path(path)


def slug(text: str) -> str:
    """``text`` as a file-name part: lower case, letters and digits, dashes between."""
    keep = "".join(c.lower() if c.isalnum() else "-" for c in text)
    return "-".join(part for part in keep.split("-") if part)[:60] or "report"
