"""The attempt history: every practice round and mock interview from the local SQLite history,
the scores over attempts per rubric (pyqtgraph), and for each attempt its result, its replay and
its HTML report."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QListWidget,
                               QListWidgetItem, QMessageBox, QPushButton, QSplitter, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from inferboard.practice.history import History
from inferboard.practice.replay import Replay
from inferboard.store.local_db import DatabaseUnavailable

from desktop.closable import close_button, close_on_escape
from desktop.practice.common import pct
from desktop.practice.history_extra_views import HistoryView
from desktop.practice.replay_view import ReplayWindow
from desktop.practice.report_export import ask_report_path, record_report_html, slug, write_report
from desktop.practice.result_pages import score_colour
from desktop.practice.result_window import ResultWindow
from desktop.theme import LIGHT_INK, PLOT_BACKGROUND, PLOT_INK, SERIES_SOFT
from desktop.window_placement import fit_window


PALETTE = SERIES_SOFT
ID_ROLE = Qt.ItemDataRole.UserRole


def rubric_title(name: str) -> str:
    """A rubric's title for the score plot ("overall" is "Overall")."""
    return {"overall": "Overall", "clarifying": "Clarifying questions"}.get(name, name.replace("_", " ").capitalize())


class HistoryWindow(QWidget):
    """The attempt history: every round, the scores over attempts per rubric, and each attempt's result, replay and
    report."""

    def __init__(self, history: History, parent: QWidget | None = None, theme=None,
                 views: Sequence[HistoryView] = ()):
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window)
        self.setObjectName("practice_history")
        self.setWindowTitle("Practice history — Inferboard")
        self.history = history
        self.theme = theme
        self.windows: list[QWidget] = []
        self.curves: dict[str, Any] = {}
        self.notice = QLabel(history.notice, self)
        self.notice.setWordWrap(True)
        self.notice.setVisible(bool(history.notice))
        self.notice.setStyleSheet(f"color: {LIGHT_INK.caution};")
        self.scenario = QComboBox(self)
        self.scenario.setAccessibleName("Scenario shown")
        self.scenario.currentIndexChanged.connect(lambda _i: self.refresh(keep_filter=True))
        self.table = QTableWidget(0, 6, self)
        self.table.setObjectName("attempts")
        self.table.setAccessibleName("Attempts")
        self.table.setHorizontalHeaderLabels(["Started", "Scenario", "Mode", "Status", "Overall", "Grade"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for column, width in ((0, 150), (2, 60), (3, 90), (4, 64), (5, 50)):
            self.table.setColumnWidth(column, width)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.table.itemActivated.connect(lambda _item: self.open_result())
        self.rubrics = QListWidget(self)
        self.rubrics.setAccessibleName("Rubrics plotted")
        self.rubrics.setMaximumWidth(220)
        self.rubrics.itemChanged.connect(self._toggle_curve)
        self.plot = self._make_plot()
        self.open_button = QPushButton("&Open result", self)
        self.open_button.clicked.connect(lambda: self.open_result())
        self.replay_button = QPushButton("&Replay…", self)
        self.replay_button.clicked.connect(lambda: self.open_replay())
        self.export_button = QPushButton("&Export report…", self)
        self.export_button.clicked.connect(lambda: self.export_report())
        self.delete_button = QPushButton("&Delete", self)
        self.delete_button.clicked.connect(lambda: self.delete_selected())
        self.views = {view.name: view for view in views}
        self.view_buttons: dict[str, QPushButton] = {}
        for view in views:
            button = self.view_buttons[view.name] = QPushButton(view.title, self)
            button.setToolTip(view.tip)
            button.clicked.connect(lambda _checked=False, name=view.name: self.open_view(name))
        top = QHBoxLayout()
        top.addWidget(QLabel("Scenario:", self))
        top.addWidget(self.scenario, 1)
        buttons = QHBoxLayout()
        for button in (self.open_button, self.replay_button, self.export_button, self.delete_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        for button in self.view_buttons.values():
            buttons.addWidget(button)
        self.close_button = close_button(self)
        buttons.addWidget(self.close_button)
        close_on_escape(self)
        left = QWidget(self)
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(top)
        column.addWidget(self.table, 1)
        column.addLayout(buttons)
        right = QWidget(self)
        plot_row = QHBoxLayout(right)
        plot_row.setContentsMargins(0, 0, 0, 0)
        plot_row.addWidget(self.plot, 1)
        plot_row.addWidget(self.rubrics)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setSizes([380, 460])
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(splitter, 1)
        fit_window(self, 1200, 860)
        self.refresh()

    def _make_plot(self):
        # pyqtgraph is slow to import: loaded when a plot is first built
        import pyqtgraph as pg

        dark = bool(getattr(self.theme, "dark", False))
        plot = pg.PlotWidget(background=PLOT_BACKGROUND[bool(dark)])
        plot.setAccessibleName("Scores over attempts")
        plot.setObjectName("score_plot")
        plot.setYRange(0, 100, padding=0.02)
        plot.setLabel("left", "Score", units="%")
        plot.setLabel("bottom", "Attempt (oldest to newest)")
        plot.showGrid(x=False, y=True, alpha=0.25)
        plot.setMouseEnabled(x=False, y=False)
        return plot  # the rubric list beside the plot is its legend (coloured, with check boxes)

    # ------------------------------------------------------------------ filling
    def scenario_id(self) -> str | None:
        """The scenario the history is filtered to, or None for all."""
        return self.scenario.currentData()

    def refresh(self, keep_filter: bool = False) -> None:
        """List the attempts again (keeping the scenario filter with ``keep_filter``) and replot."""
        if not keep_filter:
            current = self.scenario_id()
            self.scenario.blockSignals(True)
            self.scenario.clear()
            self.scenario.addItem("All scenarios", None)
            seen: dict[str, str] = {}
            for row in self.history.attempts():
                seen.setdefault(row["scenario_id"], row["scenario_title"] or row["scenario_id"])
            for scenario_id, title in sorted(seen.items(), key=lambda kv: kv[1]):
                self.scenario.addItem(title, scenario_id)
            index = self.scenario.findData(current)
            self.scenario.setCurrentIndex(max(0, index))
            self.scenario.blockSignals(False)
        rows = self.history.attempts(self.scenario_id())
        self.table.setRowCount(len(rows))
        for n, row in enumerate(rows):
            overall = row.get("overall")
            cells = [str(row.get("started_at") or "").replace("T", " ")[:16], row.get("scenario_title") or "",
                     row.get("mode") or "", str(row.get("status") or "").replace("_", " "),
                     pct(overall), row.get("grade") or ""]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(ID_ROLE, int(row["id"]))
                if column in (4, 5) and overall is not None:
                    item.setForeground(QBrush(QColor(score_colour(overall))))
                self.table.setItem(n, column, item)
        if rows:
            self.table.selectRow(0)
        self.plot_scores()
        self._update_buttons()

    def plot_scores(self) -> None:
        """Plot each rubric's score over the attempts shown."""
        # pyqtgraph is slow to import: loaded when a plot is first built
        import pyqtgraph as pg

        series = self.history.score_series(self.scenario_id())
        hidden = {self.rubrics.item(n).data(ID_ROLE) for n in range(self.rubrics.count())
                  if self.rubrics.item(n).checkState() != Qt.CheckState.Checked}
        self.plot.clear()
        self.curves.clear()
        titles = self.rubric_titles()
        order = [a for _, _, a in series.get("overall", [])]
        x_of = {attempt: n + 1 for n, attempt in enumerate(order)}
        ends = {a: t for t, _, a in series.get("overall", [])}
        self.rubrics.blockSignals(True)
        self.rubrics.clear()
        names = ["overall"] + sorted(k for k in series if k != "overall")
        for n, name in enumerate(names):
            points = [(x_of[a], p) for _, p, a in series.get(name, []) if a in x_of]
            ink = PLOT_INK[bool(getattr(self.theme, "dark", False))]
            colour = ink if name == "overall" else PALETTE[n % len(PALETTE)]
            item = QListWidgetItem(titles.get(name) or rubric_title(name))
            item.setData(ID_ROLE, name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked if name in hidden else Qt.CheckState.Checked)
            item.setForeground(QBrush(QColor(colour)))
            self.rubrics.addItem(item)
            if not points:
                continue
            width = 3 if name == "overall" else 2
            curve = self.plot.plot([x for x, _ in points], [y for _, y in points],
                                   pen=pg.mkPen(colour, width=width), symbol="o", symbolSize=7,
                                   symbolBrush=colour, symbolPen=None)
            curve.setVisible(name not in hidden)
            self.curves[name] = curve
        self.rubrics.blockSignals(False)
        axis = self.plot.getAxis("bottom")
        axis.setTicks([[(x_of[a], f"{x_of[a]}\n{str(ends.get(a) or '')[5:10]}") for a in order]])
        self.plot.setXRange(0.5, max(1, len(order)) + 0.5, padding=0)

    def rubric_titles(self) -> dict[str, str]:
        """Rubric titles as the history stored them at submit."""
        try:
            rows = self.history.db.execute("select distinct rubric, title from rubric_scores").fetchall()
        except Exception:  # noqa: BLE001 - titles are a nicety; the names will do
            return {}
        return {rubric: title for rubric, title in rows if title}

    def _toggle_curve(self, item: QListWidgetItem) -> None:
        curve = self.curves.get(item.data(ID_ROLE))
        if curve is not None:
            curve.setVisible(item.checkState() == Qt.CheckState.Checked)

    # ------------------------------------------------------------------ actions
    def selected_attempt_id(self) -> int | None:
        """The selected attempt's id, or None."""
        items = self.table.selectedItems()
        return None if not items else int(items[0].data(ID_ROLE))

    def select_attempt(self, attempt_id: int) -> None:
        """Select attempt ``attempt_id``."""
        for row in range(self.table.rowCount()):
            if int(self.table.item(row, 0).data(ID_ROLE)) == attempt_id:
                self.table.selectRow(row)
                return

    def _update_buttons(self) -> None:
        attempt_id = self.selected_attempt_id()
        record = None if attempt_id is None else self.history.attempt(attempt_id)
        has_result = record is not None and record.result is not None
        self.open_button.setEnabled(has_result)
        self.export_button.setEnabled(has_result)
        self.replay_button.setEnabled(record is not None and bool(record.snapshots))
        self.delete_button.setEnabled(record is not None)

    def _remember(self, window: QWidget) -> QWidget:
        self.windows.append(window)
        window.show()
        return window

    def open_result(self, attempt_id: int | None = None):
        """Open the result of attempt ``attempt_id`` (the selected one when None); returns the window."""
        attempt_id, record = self._chosen(attempt_id)
        if record is None or record.result is None:
            return None
        return self._remember(ResultWindow(record.result, None, html=lambda: record_report_html(record),
                                           open_replay=lambda: self.open_replay(attempt_id), theme=self.theme,
                                           mode=record.attempt.get("mode", "solo")))

    def _chosen(self, attempt_id: int | None):
        """The attempt asked for (else the selected one) and its record; (None, None) for neither."""
        attempt_id = attempt_id if attempt_id is not None else self.selected_attempt_id()
        return (attempt_id, self.history.attempt(attempt_id)) if attempt_id is not None else (None, None)

    def open_view(self, name: str):
        """Open the extra view called ``name`` on this history; returns its window."""
        return self._remember(self.views[name].open(self.history))

    def open_replay(self, attempt_id: int | None = None):
        """Open the replay of attempt ``attempt_id`` (the selected one when None); returns the window."""
        attempt_id, record = self._chosen(attempt_id)
        if record is None:
            return None
        title = record.attempt.get("scenario_title") or record.attempt.get("scenario_id", "")
        replay = Replay.from_rows(record.snapshots, record.questions, record.events)
        return self._remember(ReplayWindow(replay, title, None, self.theme))

    def export_report(self, path: str | Path | None = None, attempt_id: int | None = None) -> Path | None:
        """Write attempt ``attempt_id``'s HTML report to ``path`` (asked for when None); returns it."""
        attempt_id, record = self._chosen(attempt_id)
        if record is None or record.result is None:
            return None
        path = path or ask_report_path(self, f"{slug(record.attempt.get('scenario_title') or 'attempt')}.html")
        return write_report(path, record_report_html(record), self) if path else None

    def delete_selected(self, confirm: bool = True) -> bool:
        """Delete the selected attempt (after asking with ``confirm``); False when none or cancelled."""
        attempt_id = self.selected_attempt_id()
        if attempt_id is None:
            return False
        if confirm and QMessageBox.question(self, "Delete attempt",
                                            "Delete this attempt and everything recorded for it?") \
                != QMessageBox.StandardButton.Yes:
            return False
        try:
            self.history.delete_attempt(attempt_id)
        except DatabaseUnavailable as error:  # another program keeps the history locked, say
            QMessageBox.warning(self, "Delete attempt", f"{error}\n\nNothing was deleted.")
            return False
        self.refresh()
        return True
