"""The replay of a kept drill: its recorded actions run again on the same design, drill and seed
(``inferboard.drills.record.replay_record``), shown as the dashboards over the whole drill with a
cursor on the action picked, the alerts and changes known at that moment, and the score lines
that action earned."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QListWidget, QPushButton, QSplitter, QVBoxLayout, QWidget)

from inferboard.drills.engine import DrillSession
from inferboard.drills.record import load_drill_run, replay_record, result_dict

from desktop.closable import close_button, close_on_escape
from desktop.drills.dashboards import MITIGATION_COLOUR, TOLD_COLOUR, DashboardTabs
from desktop.drills.notebook import describe
from desktop.drills.result import CRITERIA, truth_html
from desktop.practice.common import esc
from desktop.window_placement import fit_window


class DrillReplayWindow(QWidget):
    """Steps through a finished drill's actions with the dashboards as they were, the truth beside them."""

    def __init__(self, session: DrillSession, parent: QWidget | None = None, with_truth: bool = True,
                 dark: bool = False):
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window)
        self.setObjectName("drill_replay")
        self.session = session
        self.result: dict[str, Any] = result_dict(session)
        self.setWindowTitle(f"Drill replay — {session.drill.title} — Inferboard")
        self.view = session.view()
        intro = QLabel(self)
        intro.setWordWrap(True)
        intro.setAlignment(Qt.AlignmentFlag.AlignTop)
        intro.setText(f"<h3>{esc(session.drill.title)}</h3><p>{esc(self.view.notice.capitalize())} at minute "
                      f"{self.view.notice_s / 60:.1f}: {esc(self.view.page)}</p>"
                      f"<p>{self.result['percent']:.0f}% ({esc(self.result['grade'])}). Pick an action on the "
                      "right: the dashboards mark its moment.</p>"
                      + (truth_html(session.truth()) if with_truth else ""))
        self.dashboards = DashboardTabs(intro, self, dark)
        self.actions = QListWidget(self)
        self.actions.setObjectName("replay_actions")
        self.actions.setAccessibleName("Recorded actions")
        self.actions.setWordWrap(True)
        for action in session.actions:
            self.actions.addItem(describe(action, session.notice_s))
        self.actions.currentRowChanged.connect(self.show_step)
        self.moment = QLabel(self)
        self.moment.setObjectName("replay_moment")
        self.moment.setWordWrap(True)
        self.moment.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.previous_button = QPushButton("◀ &Previous", self)
        self.previous_button.setAccessibleName("Previous action")
        self.previous_button.clicked.connect(lambda: self.step(-1))
        self.next_button = QPushButton("&Next ▶", self)
        self.next_button.setAccessibleName("Next action")
        self.next_button.clicked.connect(lambda: self.step(1))
        steps = QHBoxLayout()
        steps.addWidget(self.previous_button)
        steps.addWidget(self.next_button)
        steps.addStretch(1)
        steps.addWidget(close_button(self))
        close_on_escape(self)
        side = QWidget(self)
        column = QVBoxLayout(side)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(QLabel("<b>What was done</b>", side))
        column.addWidget(self.actions, 2)
        column.addWidget(self.moment, 1)
        column.addLayout(steps)
        body = QSplitter(Qt.Orientation.Horizontal, self)
        body.addWidget(self.dashboards)
        body.addWidget(side)
        body.setSizes([1000, 500])
        layout = QVBoxLayout(self)
        layout.addWidget(body)
        fit_window(self, 1500, 900)
        self.show_step(-1)

    def markers(self) -> list:
        """The plot markers: when the user was told, and each mitigation."""
        out = [(self.session.notice_s / 60.0, "told", TOLD_COLOUR)]
        out += [(a.t_s / 60.0, "", MITIGATION_COLOUR) for a in self.session.actions if a.verb == "apply_mitigation"]
        return out

    def step(self, delta: int) -> None:
        """Move ``delta`` actions forward or back."""
        row = min(max(0, self.actions.currentRow() + delta), self.actions.count() - 1)
        self.actions.setCurrentRow(row)

    def show_step(self, row: int) -> None:
        """Show the dashboards as at action ``row`` (the whole drill when out of range)."""
        cursor = self.session.actions[row].t_s if 0 <= row < len(self.session.actions) else None
        self.dashboards.show_views(self.view.dashboards, self.markers(), None if cursor is None else cursor / 60.0)
        if cursor is None:
            self.moment.setText("")
            return
        alerts = [n for n in self.view.notifications if n.t_s <= cursor + 1e-9]
        changes = [c for c in self.view.changes if c["at_min"] * 60.0 <= cursor + 1e-9]
        earned = [line for line in self.result.get("lines", []) if line.get("action_index") == row]
        self.moment.setText(
            f"<b>At minute {cursor / 60:.1f}</b>: {len(alerts)} alert(s) delivered, {len(changes)} change(s) in the "
            "log." + "".join(f"<br>{esc(CRITERIA.get(line['criterion'], line['criterion']))}: {line['points']:g} / "
                             f"{line['max_points']:g} — {esc(line['reason'])}" for line in earned))

    def closeEvent(self, event) -> None:
        """Delete the plots before closing."""
        self.dashboards.release()
        super().closeEvent(event)


def open_replay_of(history, record_id: int, with_truth: bool = True) -> DrillReplayWindow:
    """Replay a drill kept in ``history`` and show it."""
    session = replay_record(load_drill_run(history, record_id))
    window = DrillReplayWindow(session, None, with_truth)
    window.show()
    return window
