"""A finished drill's result: every score line with the action behind it, what observability the
design lacked and what it cost, and (in solo practice, or for the interviewer) what really
happened. Export as HTML and open the replay from here."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QPushButton, QTableWidgetItem, QVBoxLayout, QWidget

from inferboard.drills.record import save_drill_report

from desktop.closable import close_button, close_on_escape
from desktop.drills.widgets import read_only_table
from desktop.practice.common import esc
from desktop.practice.report_export import ask_report_path, slug
from desktop.practice.result_pages import score_colour
from desktop.theme import LIGHT, LIGHT_INK
from desktop.window_placement import fit_window

CRITERIA = {"symptom": "Symptom and scope", "changes_early": "Recent changes checked early",
            "mitigation_first": "Mitigated before digging deep", "time_to_mitigate": "Time to mitigate",
            "error_budget": "Error budget burned", "customer_impact": "Customer impact",
            "made_worse": "Made it worse", "root_cause": "Root cause named", "follow_up": "Follow-up"}


def action_text(result: dict[str, Any], index: int | None) -> str:
    """"#3 apply mitigation (+4.2 min)" for a score line's action; "—" when none earned it."""
    actions = result.get("actions", [])
    if index is None or index >= len(actions):
        return "—"
    action = actions[index]
    told = float(result.get("notice_min", 0.0))
    return f"#{index + 1} {action['verb'].replace('_', ' ')} ({action['t_s'] / 60 - told:+.1f} min)"


def summary_html(result: dict[str, Any]) -> str:
    """A drill result's summary: time to mitigate, customer impact, and the score."""
    told = float(result.get("notice_min", 0.0))
    ttm = result.get("time_to_mitigate_min")
    impact = result.get("customer_impact", {})
    colour = score_colour(result["percent"])
    restored = (f"<span style='color:{LIGHT.ok}'>SLO restored</span>" if result.get("restored")
                else f"<span style='color:{LIGHT.bad}'>not restored</span>")
    return (f"<span style='font-size:20pt;color:{colour}'><b>{esc(result['grade'])}</b> "
            f"{result['percent']:.0f}%</span><br>{esc(result['title'])}<br>"
            f"<span style='color:{LIGHT_INK.muted}'>told at minute {told:g} · ended at minute {result['ended_min']:g} · "
            + (f"mitigated after {ttm:g} min" if ttm is not None else "not mitigated")
            + f" · {result['budget_burned_pct']:.2f}% of the monthly error budget · "
            f"{impact.get('total', 0):,.0f} requests harmed · </span>{restored}")


class DrillResultWindow(QWidget):
    """``html`` builds the report on demand; ``open_replay`` opens the replay (both optional)."""

    def __init__(self, result: dict[str, Any], parent: QWidget | None = None, html: Callable[[], str] | None = None,
                 open_replay: Callable[[], Any] | None = None, truth: str = ""):
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window)
        self.setObjectName("drill_result")
        self.setWindowTitle(f"Drill result — {result['title']} — Inferboard")
        self.result = result
        self.html = html
        self.open_replay = open_replay
        self.summary = QLabel(summary_html(result), self)
        self.summary.setObjectName("drill_summary")
        self.summary.setWordWrap(True)
        lines = result.get("lines", [])
        self.lines = read_only_table(self, "score_lines", "Score lines", ["Criterion", "Points", "Why", "Earned by"], 2,
                                     {0: 210, 1: 70, 3: 240}, rows=len(lines))
        for row, line in enumerate(lines):
            cells = [CRITERIA.get(line["criterion"], line["criterion"].replace("_", " ")),
                     f"{line['points']:g} / {line['max_points']:g}", line["reason"],
                     action_text(result, line.get("action_index"))]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.lines.setItem(row, column, item)
        self.missing = QListWidget(self)
        self.missing.setObjectName("missing_observability")
        self.missing.setAccessibleName("Missing observability")
        self.missing.setWordWrap(True)
        for m in result.get("missing", []):
            self.missing.addItem(f"{m['what']}: {m['why']} (cost {m['cost_min']:g} min)")
        if not result.get("missing"):
            self.missing.addItem("Nothing: the design showed every view that held the cause's evidence.")
        self.missing.setMaximumHeight(100)
        self.truth = QLabel(truth, self)
        self.truth.setObjectName("drill_truth")
        self.truth.setWordWrap(True)
        self.truth.setVisible(bool(truth))
        self.export_button = QPushButton("&Export HTML…", self)
        self.export_button.setEnabled(html is not None)
        self.export_button.clicked.connect(lambda: self.export())
        self.replay_button = QPushButton("&Replay…", self)
        self.replay_button.setEnabled(open_replay is not None)
        self.replay_button.clicked.connect(lambda: self.open_replay and self.open_replay())
        buttons = QHBoxLayout()
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.replay_button)
        buttons.addStretch(1)
        buttons.addWidget(close_button(self))
        close_on_escape(self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(QLabel("<b>Score, line by line</b> (each traced to the action that earned or lost it)", self))
        layout.addWidget(self.lines, 1)
        layout.addWidget(QLabel("<b>Observability the design lacked</b>", self))
        layout.addWidget(self.missing)
        layout.addWidget(self.truth)
        layout.addLayout(buttons)
        fit_window(self, 1100, 720)

    def resizeEvent(self, event) -> None:
        """Fit the rows to their wrapped reasons at the new width."""
        super().resizeEvent(event)
        self.lines.resizeRowsToContents()  # wrapped reasons take the height the column width gives them

    def line_texts(self) -> list[str]:
        """Each scored line's cells joined with " | "."""
        return [" | ".join(self.lines.item(r, c).text() for c in range(4)) for r in range(self.lines.rowCount())]

    def export(self, path: str | Path | None = None) -> Path | None:
        """Write the HTML report to ``path`` (asked for when None); returns it, or None."""
        if self.html is None:
            return None
        path = path or ask_report_path(self, f"drill-{slug(self.result['title'])}.html")
        if not path:
            return None
        save_drill_report(path, self.html())
        return Path(path)


def truth_html(truth) -> str:
    """What really happened, for the end of a solo drill."""
    planted = "".join(f"<li>minute {c['at_min']:g}: {esc(c['text'])}</li>" for c in truth.planted_changes)
    fixes = ", ".join(esc(f"{m['action'].replace('_', ' ')} {m['target']}".strip())
                      for m in truth.mitigations if m["effect"] == "fixes")
    return (f"<b>What really happened:</b> {esc(truth.root_cause)}<br>The change behind it:<ul>{planted}</ul>"
            f"What fixes it: {fixes or '—'}")
