"""Self-contained HTML reports: an attempt's result, a mock interview's feedback, and the score
history chart. Everything is inline (CSS, SVG diagrams, an optional PNG as a data URI); nothing
is fetched. Every piece of text from a design, a scenario or a note is HTML-escaped.

Diagrams are drawn from node positions: regions as boxes, components as cards with their label
and id, wires as lines styled by signal. The desktop may pass a PNG of its canvas instead.
"""

from __future__ import annotations

import base64
from html import escape
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from inferboard.practice.replay import Replay
from inferboard.practice.scenario import PHASE_TITLES
from inferboard.safe_read import FileRefused, parse_json
from inferboard.store.atomic import atomic_write
from inferboard.store.design_files import design_to_dict

CARD_W, CARD_H = 176.0, 56.0
SIGNAL_STYLE = {"requests": ('#334155', ''), "telemetry": ('#94a3b8', '4 3'), "control": ('#2563eb', '6 3'),
                "artifacts": ('#16a34a', '2 3'), "alerts": ('#dc2626', '4 2'), "triggers": ('#9333ea', '4 2')}
CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1100px;color:#1e293b;
line-height:1.45;padding:0 1rem}h1{margin-bottom:.2rem}h2{border-bottom:1px solid #e2e8f0;padding-bottom:.3rem;
margin-top:2rem}.muted{color:#64748b}table{border-collapse:collapse;width:100%}td,th{padding:.35rem .5rem;
border-bottom:1px solid #e2e8f0;text-align:left;vertical-align:top}.bar{background:#e2e8f0;height:.6rem;width:10rem;
border-radius:.3rem}.bar span{display:block;height:100%;border-radius:.3rem;background:#0ea5e9}.grade{font-size:2rem;
font-weight:700}.side{display:flex;gap:1rem;flex-wrap:wrap}.side>div{flex:1 1 480px;min-width:0}
svg.diagram{width:100%;height:auto;border:1px solid #e2e8f0;border-radius:.4rem;background:#fff}
details pre{white-space:pre-wrap;background:#f8fafc;padding:.6rem;border-radius:.3rem}.missing{color:#b91c1c}
.ok{color:#15803d}.bad{color:#b91c1c}code{background:#f1f5f9;padding:0 .2rem;border-radius:.2rem}
"""


def _design_dict(design: Any) -> dict[str, Any]:
    if isinstance(design, dict):
        return design
    if isinstance(design, (bytes, str)):
        try:
            raw = parse_json(design if isinstance(design, bytes) else design.encode("utf-8", "replace"), "design")
        except FileRefused:
            return {}
        return raw if isinstance(raw, dict) else {}

    return design_to_dict(design)


def _num(value: Any, default: float = 0.0) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def _anchors(source: tuple[float, ...], target: tuple[float, ...]) -> tuple[tuple[float, float], ...]:
    """Where a wire leaves and enters two cards: facing sides, or top and bottom when stacked."""
    sx, sy, sw, sh = source
    tx, ty, tw, th = target
    if tx >= sx + sw:
        return (sx + sw, sy + sh / 2), (tx, ty + th / 2)
    if tx + tw <= sx:
        return (sx, sy + sh / 2), (tx + tw, ty + th / 2)
    if ty >= sy:
        return (sx + sw / 2, sy + sh), (tx + tw / 2, ty)
    return (sx + sw / 2, sy), (tx + tw / 2, ty + th)


def design_svg(design: Any, highlight: Iterable[str] = (), max_width: int = 1000) -> str:
    """An inline SVG of a design (a Design, its file bytes or its dict); ``highlight`` ids in red."""
    data = _design_dict(design)
    nodes = [n for n in data.get("nodes", []) if isinstance(n, dict)][:2000]
    if not nodes:
        return '<svg class="diagram" viewBox="0 0 300 60" xmlns="http://www.w3.org/2000/svg">' \
               '<text x="12" y="34" fill="#64748b" font-size="14">(empty design)</text></svg>'
    boxes = {}
    for n in nodes:
        x, y = _num(n.get("x")), _num(n.get("y"))
        w = _num(n.get("width"), CARD_W) if n.get("kind") == "region" else CARD_W
        h = _num(n.get("height"), CARD_H) if n.get("kind") == "region" else CARD_H
        boxes[str(n.get("id"))] = (x, y, w, h)
    left = min(b[0] for b in boxes.values()) - 20
    top = min(b[1] for b in boxes.values()) - 20
    width = max(b[0] + b[2] for b in boxes.values()) - left + 20
    height = max(b[1] + b[3] for b in boxes.values()) - top + 20
    marked = set(highlight)
    out = [f'<svg class="diagram" xmlns="http://www.w3.org/2000/svg" viewBox="{left:.0f} {top:.0f} {width:.0f} '
           f'{height:.0f}" style="max-width:{max_width}px" font-family="system-ui,sans-serif">'
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#334155"/></marker></defs>']
    for n in nodes:
        if n.get("kind") != "region":
            continue
        x, y, w, h = boxes[str(n.get("id"))]
        params = n.get("params") if isinstance(n.get("params"), dict) else {}
        name = str(n.get("label") or n.get("id"))
        where = str(params.get("location", ""))
        caption = " · ".join(part for part in (name, where if where != name else "",
                                                f"residency {params.get('residency', 'none')}",
                                                "passive" if params.get("role") == "passive" else "") if part)
        out.append(f'<rect x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="{h:.0f}" rx="10" fill="#f8fafc" '
                   f'stroke="#cbd5e1" stroke-dasharray="6 4"/><text x="{x + 10:.0f}" y="{y + 20:.0f}" '
                   f'font-size="13" fill="#475569">{escape(caption)}</text>')
    for e in data.get("edges", [])[:8000]:
        if not isinstance(e, dict) or str(e.get("source")) not in boxes or str(e.get("target")) not in boxes:
            continue
        (x1, y1), (x2, y2) = _anchors(boxes[str(e.get("source"))], boxes[str(e.get("target"))])
        port = str(e.get("source_port", "requests"))
        request = port in ("requests", "stable", "canary")
        colour, dash = SIGNAL_STYLE["requests"] if request else SIGNAL_STYLE.get(port, ("#94a3b8", "3 3"))
        out.append(f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" stroke="{colour}" '
                   f'stroke-width="1.5"' + (f' stroke-dasharray="{dash}"' if dash else '')
                   + (' marker-end="url(#arrow)"' if request else '') + '/>')
    for n in nodes:
        if n.get("kind") == "region":
            continue
        node_id = str(n.get("id"))
        x, y, w, h = boxes[node_id]
        stroke = "#dc2626" if node_id in marked else "#64748b"
        title = str(n.get("label") or str(n.get("kind", "")).replace("_", " "))
        out.append(f'<rect x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="{h:.0f}" rx="6" fill="#ffffff" '
                   f'stroke="{stroke}" stroke-width="{2 if node_id in marked else 1}"/>'
                   f'<text x="{x + 8:.0f}" y="{y + 22:.0f}" font-size="13" fill="#0f172a">{escape(title[:28])}</text>'
                   f'<text x="{x + 8:.0f}" y="{y + 42:.0f}" font-size="11" fill="#64748b">{escape(node_id[:30])}'
                   f'</text>')
    out.append("</svg>")
    return "".join(out)


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{value:.0f}%"


def _bar(value: Any) -> str:
    width = 0 if value is None else max(0.0, min(100.0, float(value)))
    return f'<div class="bar"><span style="width:{width:.0f}%"></span></div>'


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def _scores(grade: Mapping[str, Any]) -> str:
    rows = "".join(f"<tr><td>{escape(str(r['title']))}</td><td>{_pct(r['percent'])}</td><td>{_bar(r['percent'])}</td>"
                   f"<td class=muted>weight {r['weight']:g}</td></tr>" for r in grade.get("rubrics", []))
    return f"<table><tr><th>Rubric</th><th>Score</th><th></th><th></th></tr>{rows}</table>"


def _lost(grade: Mapping[str, Any]) -> str:
    items = grade.get("lost", [])
    if not items:
        return "<p class=ok>No points lost.</p>"
    out = []
    for item in items:
        where = f" <span class=muted>({escape(', '.join(item['node_ids'][:6]))})</span>" if item.get("node_ids") else ""
        out.append(f"<li><b>-{item['points']:g}</b> {escape(item['rubric'])} · <code>{escape(item['source'])}</code> "
                   f"{escape(item['title'])}: {escape(item['message'])}{where}"
                   + (f"<details><summary>Why it matters and how to fix it</summary><pre>"
                      f"{escape(item['explanation'])}</pre></details>" if item.get("explanation") else "") + "</li>")
    return "<ul>" + "".join(out) + "</ul>"


def _questions(result: Mapping[str, Any]) -> str:
    clarify = result.get("grade", {}).get("clarify")
    if not clarify:
        return "<p class=muted>Not scored (no session).</p>"
    rows = []
    for q in clarify["questions"]:
        when = "never asked" if q["asked_phase"] is None else PHASE_TITLES.get(q["asked_phase"], q["asked_phase"])
        css = "ok" if q["credit"] >= 1 else "bad"
        rows.append(f"<tr><td>{escape(q['text'])}</td><td>{escape(q['category'])}</td><td>{escape(when)}</td>"
                    f"<td class={css}>{q['credit'] * q['points']:g} / {q['points']:g}</td></tr>")
    asked = len(result.get("asked", []))
    return (f"<p>Clarifying score {_pct(clarify['percent'])}; {asked} question(s) asked in all.</p><table><tr>"
            "<th>Key question</th><th>Area</th><th>Asked</th><th>Points</th></tr>" + "".join(rows) + "</table>")


def _what_ifs(result: Mapping[str, Any]) -> str:
    rows = []
    for w in result.get("what_ifs", []):
        def cell(readout: Mapping[str, Any]) -> str:
            parts = []
            if readout.get("p99_ms") is not None:
                parts.append(f"p99 {readout['p99_ms']:.0f} ms")
            lost = (readout.get("shed_rate") or 0) + (readout.get("error_rate") or 0)
            parts.append(f"lost {100 * lost:.1f}%")
            if readout.get("cost_per_hour") is not None:
                parts.append(f"${readout['cost_per_hour']:.2f}/h")
            return escape(", ".join(parts))
        rows.append(f"<tr><td><b>{escape(w['title'])}</b><br><span class=muted>{escape(w['prompt'])}</span></td>"
                    f"<td>{cell(w['before'])}</td><td>{cell(w['after'])}</td><td>{escape(w['verdict'])}</td></tr>")
    if not rows:
        return "<p class=muted>This scenario has no follow-ups.</p>"
    return ("<table><tr><th>Follow-up</th><th>Before</th><th>After</th><th>Verdict</th></tr>" + "".join(rows)
            + "</table>")


def _diff(grade: Mapping[str, Any]) -> str:
    diff = grade.get("diff") or {}
    missing = diff.get("missing", {})
    if not missing:
        return "<p class=ok>Your design has every kind of component the reference uses.</p>"
    notes = diff.get("notes", {})
    items = "".join(f"<li class=missing>{escape(kind.replace('_', ' '))} × {count}"
                    + (f" <span class=muted>— {escape(notes[kind])}</span>" if kind in notes else "") + "</li>"
                    for kind, count in missing.items())
    return f"<p>Missing compared with the reference:</p><ul>{items}</ul>"


def attempt_report_html(result: Mapping[str, Any], phase_designs: Mapping[str, Any] | None = None,
                        notes: Sequence[tuple[float, str]] = (), diagram_png: bytes | None = None,
                        mode: str = "solo") -> str:
    """The report of one attempt from ``Result.to_dict()`` (or the copy the history keeps)."""
    grade = result.get("grade", {})
    title = "Mock interview feedback" if mode == "mock" else "Practice report"
    flagged = [n for item in grade.get("lost", []) for n in item.get("node_ids", [])]
    yours = (f'<img alt="Your design" style="width:100%" src="data:image/png;base64,'
             f'{base64.b64encode(diagram_png).decode("ascii")}">' if diagram_png else
             design_svg(result.get("design", "{}"), flagged))
    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{escape(title)}: "
             f"{escape(str(result.get('scenario_title', '')))}</title><style>{CSS}</style></head><body>",
             f"<h1>{escape(title)}: {escape(str(result.get('scenario_title', '')))}</h1>",
             f"<p class=muted>Started {escape(str(result.get('started_at', '')))} · "
             f"{_minutes(float(result.get('duration_s', 0)))} minutes</p>",
             f"<p><span class=grade>{escape(str(grade.get('grade', '')))}</span> overall "
             f"{_pct(grade.get('overall'))}</p>",
             f"<details><summary>The prompt</summary><p>{escape(str(result.get('prompt', '')))}</p></details>",
             "<h2>Scores</h2>", _scores(grade), "<h2>Where points were lost</h2>", _lost(grade),
             "<h2>Clarifying questions</h2>", _questions(result),
             "<h2>Your design and the reference</h2>", _diff(grade),
             f"<div class=side><div><h3>Yours</h3>{yours}</div><div><h3>Reference</h3>"
             f"{design_svg(result.get('reference', '{}'))}<p>{escape(str(result.get('reference_notes', '')))}</p>"
             "</div></div>", "<h2>Follow-ups replayed on your design</h2>", _what_ifs(result)]
    if phase_designs:
        parts.append("<h2>Your design at the end of each phase</h2>")
        for phase, design in phase_designs.items():
            parts.append(f"<h3>{escape(PHASE_TITLES.get(phase, phase))}</h3>{design_svg(design)}")
    if notes:
        parts.append("<h2>Interviewer notes</h2><ul>" + "".join(
            f"<li><span class=muted>{_minutes(t)}</span> {escape(text)}</li>" for t, text in notes) + "</ul>")
    parts.append("<p class=muted>Numbers are directional estimates from Inferboard's simulator.</p></body></html>")
    return "\n".join(parts)


def save_report(path: Any, html: str) -> None:
    """Write a report atomically (the previous file, if any, is replaced whole)."""
    atomic_write(Path(path), html.encode("utf-8"), keep_backup=False)


def report_for_record(record: Any, diagram_png: bytes | None = None) -> str:
    """The report of an attempt read back from the history (``History.attempt``)."""
    if record.result is None:
        raise ValueError(f"attempt {record.id} has no stored result (it was not submitted)")
    replay = Replay.from_rows(record.snapshots)
    ends = record.result.get("phase_ends", {})
    frames = {phase: frame.design_bytes for phase, frame in replay.at_phase_ends(ends).items()}
    notes = [(float(e["t_s"]), e["detail"]) for e in record.events if e["kind"] == "note"]
    return attempt_report_html(record.result, frames, notes, diagram_png, record.attempt.get("mode", "solo"))


def score_chart_svg(series: Mapping[str, Sequence[tuple[str, float, int]]], width: int = 640,
                    height: int = 240) -> str:
    """Scores over attempts, one polyline per rubric (from ``History.score_series``)."""
    palette = ["#0ea5e9", "#f97316", "#22c55e", "#a855f7", "#ef4444", "#14b8a6", "#eab308", "#6366f1", "#64748b"]
    attempts = sorted({a for points in series.values() for _, _, a in points})
    if not attempts:
        return f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}"></svg>'
    x_of = {a: 40 + (width - 60) * (i / max(1, len(attempts) - 1)) for i, a in enumerate(attempts)}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height + 20 * len(series)}" '
           'font-family="system-ui,sans-serif" font-size="11">']
    for pct in (0, 50, 100):
        y = height - 20 - (height - 40) * pct / 100
        out.append(f'<line x1="40" x2="{width - 20}" y1="{y:.0f}" y2="{y:.0f}" stroke="#e2e8f0"/>'
                   f'<text x="8" y="{y + 4:.0f}" fill="#64748b">{pct}</text>')
    for n, (rubric, points) in enumerate(series.items()):
        colour = palette[n % len(palette)]
        coords = " ".join(f"{x_of[a]:.0f},{height - 20 - (height - 40) * max(0, min(100, p)) / 100:.0f}"
                          for _, p, a in points)
        out.append(f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="40" y="{height + 14 + 20 * n}" fill="{colour}">{escape(rubric)}</text>')
    out.append("</svg>")
    return "".join(out)
