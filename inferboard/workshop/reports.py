"""The grading report of a room: CSV (one row per submission) and a self-contained HTML page
(summary, per-rubric distributions, the findings most common across the room, and each design with
its picture). Both are written atomically; every text from a submission is escaped, and CSV cells
that a spreadsheet would run as a formula are defused.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from html import escape
from pathlib import Path
from typing import Any, Iterable, Sequence

from inferboard.practice.report import CSS, design_svg
from inferboard.store.atomic import atomic_write
from inferboard.workshop.grading import GradingRun, SubmissionResult

#: The fixed columns of the CSV; one ``rubric:<name>`` column per scenario rubric follows ``grade``.
LEAD_COLUMNS = ["file", "status", "error", "title", "overall", "grade", "design_overall"]
FIGURE_COLUMNS = ["p99_ms", "slo_p99_ms", "within_slo", "cost_per_1k", "cost_per_hour", "lost_pct",
                  "region_loss_served_pct", "region_loss_p99_ms"]
TAIL_COLUMNS = ["follow_ups_held", "follow_ups", "findings", "missing_kinds", "nodes", "edges", "sha256"]
FORMULA_LEAD = ("=", "+", "-", "@", "\t", "\r")
#: The room's table is wide (a column per rubric): it scrolls sideways rather than squeezing.
EXTRA_CSS = ("body{max-width:1400px}tr.bad td{color:#b91c1c}.wide{overflow-x:auto}.wide table{font-size:.85rem}"
             ".wide td,.wide th{white-space:nowrap}.wide tr.bad td{white-space:normal}"
             ".dist{display:flex;flex-wrap:wrap;gap:1rem}.dist>div{flex:0 0 270px}.dist h3{font-size:1rem}")


def csv_columns(run: GradingRun) -> list[str]:
    """The CSV header: submission, rubric and figure columns."""
    return [*LEAD_COLUMNS, *(f"rubric:{name}" for name, _, _ in run.rubrics), *FIGURE_COLUMNS, *TAIL_COLUMNS]


def _text(value: Any) -> str:
    """A text cell a spreadsheet shows as text (no formula from a hostile file name)."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_LEAD) else text


def _number(value: Any, digits: int = 2) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{float(value):.{digits}f}"


def csv_row(run: GradingRun, row: SubmissionResult) -> list[str]:
    """One submission's CSV cells."""
    figures = row.figures
    cells = [_text(row.name), "graded" if row.ok else "error", _text(row.error), _text(row.title),
             _number(row.overall), row.grade, _number(row.design_overall)]
    cells += [_number(row.rubrics.get(name)) for name, _, _ in run.rubrics]
    cells += [_number(figures.get("p99_ms")), _number(figures.get("slo_p99_ms")),
              _number(figures.get("within_slo")), _number(figures.get("cost_per_1k"), 6),
              _number(figures.get("cost_per_hour")), _number(figures.get("lost_pct")),
              _number(figures.get("region_loss_served_pct")), _number(figures.get("region_loss_p99_ms"))]
    cells += [f"{row.follow_ups_held}/{len(row.follow_ups)}" if row.ok and row.follow_ups else "",
              _text("; ".join(f"{f['id']}={'held' if f['held'] else 'failed'}" for f in row.follow_ups)),
              _text("; ".join(f["rule_id"] for f in row.findings)),
              _text("; ".join(f"{kind} x{count}" for kind, count in row.missing.items())),
              str(row.nodes) if row.ok else "", str(row.edges) if row.ok else "", row.sha256]
    return cells


def csv_text(run: GradingRun) -> str:
    """The whole run as CSV text."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(csv_columns(run))
    for row in run.results:
        writer.writerow(csv_row(run, row))
    return buffer.getvalue()


def write_csv(run: GradingRun, path: Path | str) -> Path:
    """Write the run as CSV to ``path`` (atomically); returns the path."""
    path = Path(path)
    atomic_write(path, csv_text(run).encode("utf-8"), keep_backup=False)
    return path


# ------------------------------------------------------------------------------ room statistics
def common_findings(results: Iterable[SubmissionResult], limit: int = 15) -> list[tuple[str, str, int, float]]:
    """(rule id, title, designs with it, points lost in all) for the findings most rooms share:
    what to teach next. Counted once per design."""
    count: Counter[str] = Counter()
    points: Counter[str] = Counter()
    titles: dict[str, str] = {}
    for row in results:
        if not row.ok:
            continue
        seen = set()
        for finding in row.findings:
            rule = finding["rule_id"]
            points[rule] += float(finding.get("points", 0) or 0)
            titles.setdefault(rule, str(finding.get("title", rule)))
            if rule not in seen:
                count[rule] += 1
                seen.add(rule)
    ranked = sorted(count, key=lambda r: (-count[r], -points[r], r))[:limit]
    return [(rule, titles[rule], count[rule], points[rule]) for rule in ranked]


def identical_groups(results: Iterable[SubmissionResult]) -> list[list[str]]:
    """Names of graded submissions whose files are byte for byte the same, in groups of two or more
    (worth a word with the room: one design handed in twice, or copied)."""
    groups: dict[str, list[str]] = {}
    for row in results:
        if row.ok and row.sha256:
            groups.setdefault(row.sha256, []).append(row.name)
    return [names for names in groups.values() if len(names) > 1]


def histogram(values: Sequence[float], bins: int = 10) -> list[int]:
    """Counts of percentages in ``bins`` equal bins over 0..100 (100 in the last bin)."""
    counts = [0] * bins
    for value in values:
        index = min(bins - 1, max(0, int(float(value) * bins // 100)))
        counts[index] += 1
    return counts


def rubric_values(run: GradingRun, rubric: str) -> list[float]:
    """The graded submissions' scores for ``rubric``."""
    return [row.rubrics[rubric] for row in run.graded if row.rubrics.get(rubric) is not None]


def _histogram_svg(values: Sequence[float], width: int = 260, height: int = 90) -> str:
    counts = histogram(values)
    top = max(counts) or 1
    bar = (width - 20) / len(counts)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height + 16}" width="{width}" '
           f'font-family="system-ui,sans-serif" font-size="10">']
    for n, count in enumerate(counts):
        h = (height - 10) * count / top
        out.append(f'<rect x="{10 + n * bar:.1f}" y="{height - h:.1f}" width="{bar - 2:.1f}" height="{h:.1f}" '
                   f'fill="#0ea5e9"><title>{n * 10}-{n * 10 + 10}%: {count}</title></rect>')
    out.append(f'<text x="10" y="{height + 12}" fill="#64748b">0%</text>'
               f'<text x="{width - 30}" y="{height + 12}" fill="#64748b">100%</text></svg>')
    return "".join(out)


# ------------------------------------------------------------------------------ HTML
def _fmt(value: Any, unit: str = "", digits: int = 0) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{float(value):.{digits}f}{unit}"


def _summary_table(run: GradingRun) -> str:
    head = "".join(f"<th title='{escape(title)}'>{escape(name.replace('_', ' ').capitalize())}</th>"
                   for name, title, _ in run.rubrics)
    rows = []
    for row in run.results:
        anchor = f"s{row.index}"
        if not row.ok:
            rows.append(f"<tr class=bad><td><a href='#{anchor}'>{escape(row.name)}</a></td>"
                        f"<td colspan={len(run.rubrics) + 6}>error: {escape(row.error)}</td></tr>")
            continue
        f = row.figures
        cells = "".join(f"<td>{_fmt(row.rubrics.get(name), '%')}</td>" for name, _, _ in run.rubrics)
        slo = "" if f.get("within_slo") is None else (" ok" if f["within_slo"] else " bad")
        rows.append(f"<tr><td><a href='#{anchor}'>{escape(row.name)}</a></td><td><b>{_fmt(row.overall)}</b></td>"
                    f"<td>{escape(row.grade)}</td>{cells}<td class='{slo.strip()}'>{_fmt(f.get('p99_ms'), ' ms')}"
                    f" / {_fmt(f.get('slo_p99_ms'), ' ms')}</td><td>{_fmt(f.get('cost_per_1k'), '', 4)}</td>"
                    f"<td>{_fmt(f.get('region_loss_served_pct'), '%')}</td>"
                    f"<td>{row.follow_ups_held}/{len(row.follow_ups)}</td></tr>")
    return (f"<div class=wide><table><tr><th>Submission</th><th>Overall</th><th>Grade</th>{head}<th>p99 / SLO</th>"
            "<th>$ per 1k</th><th>Served after region loss</th><th>Follow-ups held</th></tr>"
            + "".join(rows) + "</table></div>")


def _distributions(run: GradingRun) -> str:
    cells = []
    overall = [row.overall for row in run.graded if row.overall is not None]
    for name, title, values in [("overall", "Overall", overall),
                                *((n, t, rubric_values(run, n)) for n, t, _ in run.rubrics)]:
        mean = f"mean {sum(values) / len(values):.0f}%" if values else "no scores"
        cells.append(f"<div><h3>{escape(title)}</h3>{_histogram_svg(values)}<p class=muted>{mean}, "
                     f"{len(values)} designs</p></div>")
    return "<div class=dist>" + "".join(cells) + "</div>"


def _common(run: GradingRun) -> str:
    ranked = common_findings(run.results)
    if not ranked:
        return "<p class=ok>No design lost points.</p>"
    total = len(run.graded) or 1
    rows = "".join(f"<tr><td><code>{escape(rule)}</code></td><td>{escape(title)}</td><td>{n} "
                   f"({100 * n / total:.0f}%)</td><td>{points:g}</td></tr>" for rule, title, n, points in ranked)
    return ("<table><tr><th>Rule</th><th>Finding</th><th>Designs</th><th>Points lost in all</th></tr>"
            + rows + "</table>")


def _identical(run: GradingRun) -> str:
    groups = identical_groups(run.results)
    if not groups:
        return ""
    items = "".join(f"<li>{escape(', '.join(names))}</li>" for names in groups)
    return f"<h2>Identical files</h2><p>These submissions are byte for byte the same:</p><ul>{items}</ul>"


def _submission(run: GradingRun, row: SubmissionResult) -> str:
    anchor = f"s{row.index}"
    if not row.ok:
        return f"<h3 id='{anchor}'>{escape(row.name)}</h3><p class=bad>Not graded: {escape(row.error)}</p>"
    flagged = [n for f in row.findings for n in f.get("node_ids", [])]
    f = row.figures
    findings = "".join(f"<li><b>-{item['points']:g}</b> {escape(item['rubric'])} · <code>{escape(item['rule_id'])}"
                       f"</code> {escape(item['message'])}</li>" for item in row.findings) or "<li class=ok>none</li>"
    follow = "".join(f"<li class={'ok' if item['held'] else 'bad'}><b>{escape(item['title'])}</b>: "
                     f"{escape(item['verdict'])}</li>" for item in row.follow_ups)
    missing = ", ".join(f"{kind.replace('_', ' ')} × {count}" for kind, count in row.missing.items())
    title = f" — {escape(row.title)}" if row.title else ""
    return (f"<h3 id='{anchor}'>{escape(row.name)}{title}</h3><p><span class=grade>{escape(row.grade)}</span> "
            f"overall {_fmt(row.overall, '%')} · design alone {_fmt(row.design_overall, '%')} · "
            f"{row.nodes} components</p><p>p99 {_fmt(f.get('p99_ms'), ' ms')} against an SLO of "
            f"{_fmt(f.get('slo_p99_ms'), ' ms')} at {_fmt(f.get('rps'), ' rps')} · "
            f"${_fmt(f.get('cost_per_1k'), '', 4)} per 1k requests · {_fmt(f.get('region_loss_served_pct'), '%')} "
            f"of the peak served after losing the busiest region</p>"
            f"{design_svg(row.design, flagged, max_width=900)}"
            f"<details><summary>Findings ({len(row.findings)})</summary><ul>{findings}</ul></details>"
            + (f"<details><summary>Follow-ups ({row.follow_ups_held}/{len(row.follow_ups)} held)</summary>"
               f"<ul>{follow}</ul></details>" if row.follow_ups else "")
            + (f"<p class=missing>Missing compared with the reference: {escape(missing)}</p>" if missing else ""))


def report_html(run: GradingRun, title: str = "") -> str:
    """The run as a self-contained HTML report: the table, the distributions and the common findings."""
    heading = title or f"Grading report: {run.scenario_title}"
    state = " (cancelled before the end)" if run.cancelled else ""
    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{escape(heading)}</title>"
             f"<style>{CSS}{EXTRA_CSS}</style></head><body>",
             f"<h1>{escape(heading)}</h1>",
             f"<p class=muted>Scenario <code>{escape(run.scenario_id)}</code> · {len(run.results)} submissions, "
             f"{len(run.graded)} graded, {len(run.errors)} not graded{state} · {escape(run.started_at)}</p>",
             "<h2>The room</h2>", _summary_table(run), "<h2>Scores across the room</h2>", _distributions(run),
             "<h2>The findings most common across the room</h2>", _common(run), _identical(run),
             "<h2>Each submission</h2>", *(_submission(run, row) for row in run.results),
             "<p class=muted>Numbers are directional estimates from Inferboard's simulator, at the scenario's "
             "peak and real requirements.</p></body></html>"]
    return "\n".join(parts)


def write_html(run: GradingRun, path: Path | str, title: str = "") -> Path:
    """Write the HTML report to ``path`` (atomically); returns the path."""
    path = Path(path)
    atomic_write(path, report_html(run, title).encode("utf-8"), keep_backup=False)
    return path
