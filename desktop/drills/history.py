"""The drills kept in the practice history (table ``drills``): when, which drill, solo or
interview, the score; for each its result, its replay and its HTML report."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTableWidgetItem, QVBoxLayout, QWidget

from inferboard.drills.record import (drill_runs, load_drill_run, replay_record, save_drill_report,
                                      session_report_html)
from inferboard.practice.history import History

from desktop.closable import close_button, close_on_escape
from desktop.drills.replay import DrillReplayWindow
from desktop.drills.result import DrillResultWindow
from desktop.drills.widgets import read_only_table
from desktop.practice.common import pct
from desktop.practice.report_export import ask_report_path, slug
from desktop.practice.result_pages import score_colour
from desktop.window_placement import fit_window

ID_ROLE = Qt.ItemDataRole.UserRole


class DrillHistoryWindow(QWidget):
    """The drills kept in the practice history: when, which, the result, with results, replays and reports."""

    def __init__(self, history: History, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window)
        self.setObjectName("drill_history")
        self.setWindowTitle("Drill history — Inferboard")
        self.history = history
        self.windows: list[QWidget] = []
        self.table = read_only_table(self, "drill_runs", "Drills done",
                                     ["Started", "Drill", "Mode", "Ended at", "Score", "Grade"], 1,
                                     {0: 150, 2: 80, 3: 90, 4: 64, 5: 50}, select_rows=True)
        self.table.setAlternatingRowColors(True)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.table.itemActivated.connect(lambda _item: self.open_result())
        self.empty = QLabel("No drill yet: Practice > Incident Drill… plants one in the open design.", self)
        self.empty.setObjectName("drill_history_empty")
        self.open_button = QPushButton("&Open result", self)
        self.open_button.clicked.connect(lambda: self.open_result())
        self.replay_button = QPushButton("&Replay…", self)
        self.replay_button.clicked.connect(lambda: self.open_replay())
        self.export_button = QPushButton("&Export HTML…", self)
        self.export_button.clicked.connect(lambda: self.export_report())
        buttons = QHBoxLayout()
        for button in (self.open_button, self.replay_button, self.export_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(close_button(self))
        close_on_escape(self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.empty)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        fit_window(self, 900, 520)
        self.refresh()

    def refresh(self) -> None:
        """List the drill runs again, newest first."""
        rows = drill_runs(self.history)
        self.table.setRowCount(len(rows))
        for n, row in enumerate(rows):
            cells = [str(row.get("started_at") or "").replace("T", " ")[:16], row.get("title") or row["drill_id"],
                     row.get("mode") or "", f"minute {float(row.get('ended_s') or 0) / 60:.0f}",
                     pct(row.get("percent")), row.get("grade") or ""]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(ID_ROLE, int(row["id"]))
                if column in (4, 5) and row.get("percent") is not None:
                    item.setForeground(QBrush(QColor(score_colour(row["percent"]))))
                self.table.setItem(n, column, item)
        self.empty.setVisible(not rows)
        if rows:
            self.table.selectRow(0)
        self._update_buttons()

    def titles(self) -> list[str]:
        """The drills' titles as listed."""
        return [self.table.item(r, 1).text() for r in range(self.table.rowCount())]

    def selected_id(self) -> int | None:
        """The selected run's id, or None."""
        items = self.table.selectedItems()
        return None if not items else int(items[0].data(ID_ROLE))

    def _update_buttons(self) -> None:
        chosen = self.selected_id() is not None
        for button in (self.open_button, self.replay_button, self.export_button):
            button.setEnabled(chosen)

    def _remember(self, window: QWidget) -> QWidget:
        self.windows.append(window)
        window.show()
        return window

    def open_result(self, run_id: int | None = None):
        """Open the result of run ``run_id`` (the selected one when None); returns the window."""
        run_id = run_id if run_id is not None else self.selected_id()
        if run_id is None:
            return None
        record = load_drill_run(self.history, run_id)
        return self._remember(DrillResultWindow(record.result, None, html=lambda: self.report_html(run_id),
                                                open_replay=lambda: self.open_replay(run_id)))

    def open_replay(self, run_id: int | None = None):
        """Open the replay of run ``run_id`` (the selected one when None); returns the window."""
        run_id = run_id if run_id is not None else self.selected_id()
        if run_id is None:
            return None
        return self._remember(DrillReplayWindow(replay_record(load_drill_run(self.history, run_id))))

    def report_html(self, run_id: int) -> str:
        """The HTML report of run ``run_id``."""
        return session_report_html(replay_record(load_drill_run(self.history, run_id)))

    def export_report(self, path: str | Path | None = None, run_id: int | None = None) -> Path | None:
        """Write the report of run ``run_id`` (the selected one) to ``path`` (asked for when None)."""
        run_id = run_id if run_id is not None else self.selected_id()
        if run_id is None:
            return None
        row = load_drill_run(self.history, run_id).row
        path = path or ask_report_path(self, f"drill-{slug(row.get('title') or row['drill_id'])}.html")
        if not path:
            return None
        save_drill_report(path, self.report_html(run_id))
        return Path(path)

    def closeEvent(self, event) -> None:
        """Close the result and replay windows opened from here too."""
        for window in self.windows:
            window.close()
        super().closeEvent(event)
