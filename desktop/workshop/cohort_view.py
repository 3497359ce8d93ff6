"""Workshop › Cohorts…: a graded room from the cohort database. A sortable table of submissions,
a score distribution per rubric, the findings most common across the room (what to teach next),
any two designs side by side, and the room compared with an earlier session; CSV and HTML
exports of the grading report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFileDialog, QHBoxLayout, QHeaderView, QLabel,
                               QMessageBox, QPushButton, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout,
                               QWidget)

from inferboard.workshop import reports
from inferboard.workshop.cohorts import CohortStore, compare_runs
from inferboard.workshop.grading import GradingRun, SubmissionResult

from desktop.closable import close_button, close_on_escape
from desktop.practice.result_pages import score_colour
from desktop.theme import LIGHT_INK
from desktop.window_placement import fit_window
from desktop.workshop.cohort_plots import DistributionPlots
from desktop.workshop.cohort_side_by_side import SideBySide

ID_ROLE = Qt.ItemDataRole.UserRole
SORT_ROLE = Qt.ItemDataRole.UserRole + 1


def short_title(rubric: str) -> str:
    """A rubric's column header: its name, short enough for a table of a dozen rubrics."""
    return rubric.replace("_", " ").capitalize()


class SortItem(QTableWidgetItem):
    """A cell that sorts by its number (missing numbers after every number, either way)."""

    def __lt__(self, other: QTableWidgetItem) -> bool:  # noqa: D105
        mine, theirs = self.data(SORT_ROLE), other.data(SORT_ROLE)
        if isinstance(mine, (int, float)) and isinstance(theirs, (int, float)):
            return mine < theirs
        if isinstance(mine, str) and isinstance(theirs, str):
            return mine.lower() < theirs.lower()
        return super().__lt__(other)


def _item(text: str, sort: Any, row_index: int) -> SortItem:
    item = SortItem(text)
    item.setData(SORT_ROLE, sort if sort is not None else float("-inf"))
    item.setData(ID_ROLE, row_index)
    return item


def _num(value: Any, digits: int = 0, unit: str = "") -> str:
    return "n/a" if value is None else f"{float(value):.{digits}f}{unit}"


class CohortWindow(QWidget):
    """Workshop › Cohorts: a graded cohort's table, common findings, distributions, comparisons and exports."""

    def __init__(self, store: CohortStore, parent: QWidget | None = None, cohort_id: int | None = None,
                 library=None, theme=None):
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window)
        self.setObjectName("cohort_view")
        self.setWindowTitle("Cohorts — Inferboard")
        self.store, self.library, self.theme = store, library, theme
        self.run: GradingRun | None = None
        self.other: GradingRun | None = None
        self.notice = QLabel(store.notice, self)
        self.notice.setWordWrap(True)
        self.notice.setVisible(bool(store.notice))
        self.notice.setStyleSheet(f"color: {LIGHT_INK.caution};")
        self.cohort = QComboBox(self)
        self.cohort.setObjectName("cohort_choice")
        self.cohort.setAccessibleName("Cohort shown")
        self.cohort.currentIndexChanged.connect(lambda _i: self.show_cohort(self.cohort.currentData()))
        self.compare = QComboBox(self)
        self.compare.setObjectName("compare_choice")
        self.compare.setAccessibleName("Earlier session to compare with")
        self.compare.currentIndexChanged.connect(lambda _i: self.show_comparison(self.compare.currentData()))
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, 0, self)
        self.table.setObjectName("submissions")
        self.table.setAccessibleName("Submissions")
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setAlternatingRowColors(True)
        self.table.doubleClicked.connect(lambda _i: self.compare_selected())
        self.plots = DistributionPlots(self, dark=bool(getattr(theme, "dark", False)))
        self.findings = QTableWidget(0, 5, self)
        self.findings.setObjectName("common_findings")
        self.findings.setAccessibleName("The findings most common across the room")
        self.findings.verticalHeader().hide()
        self.findings.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.side = SideBySide(self)
        self.sessions = QTableWidget(0, 4, self)
        self.sessions.setObjectName("session_comparison")
        self.sessions.setAccessibleName("This session against the earlier one")
        self.sessions.verticalHeader().hide()
        self.sessions.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("cohort_tabs")
        self.tabs.addTab(self.table, "&Submissions")
        self.tabs.addTab(self.plots, "&Distributions")
        self.tabs.addTab(self.findings, "Common &findings")
        self.tabs.addTab(self.side, "Side &by side")
        self.tabs.addTab(self.sessions, "Against an &earlier session")
        pair = QPushButton("Compare Selected &Two", self)
        pair.setToolTip("Show the two selected submissions side by side (or double-click one row)")
        pair.clicked.connect(self.compare_selected)
        csv_button = QPushButton("Export &CSV…", self)
        csv_button.clicked.connect(lambda: self.export("csv"))
        html_button = QPushButton("Export &HTML…", self)
        html_button.clicked.connect(lambda: self.export("html"))
        top = QHBoxLayout()
        top.addWidget(QLabel("C&ohort", self))
        top.itemAt(0).widget().setBuddy(self.cohort)
        top.addWidget(self.cohort, 2)
        top.addWidget(QLabel("Compare &with", self))
        top.itemAt(2).widget().setBuddy(self.compare)
        top.addWidget(self.compare, 2)
        buttons = QHBoxLayout()
        buttons.addWidget(pair)
        buttons.addStretch(1)
        buttons.addWidget(csv_button)
        buttons.addWidget(html_button)
        buttons.addWidget(close_button(self))
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.tabs, 1)
        layout.addLayout(buttons)
        close_on_escape(self)
        fit_window(self, 1500, 950)
        self.reload(cohort_id)

    # ------------------------------------------------------------------ cohorts
    def reload(self, cohort_id: int | None = None) -> None:
        """List the stored cohorts again and show ``cohort_id`` (the newest when None)."""
        rows = self.store.cohorts()
        self.cohort.blockSignals(True)
        self.cohort.clear()
        for row in rows:
            self.cohort.addItem(f"{row['name']} — {row['graded']}/{row['submissions']} graded", int(row["id"]))
        self.cohort.blockSignals(False)
        if not rows:
            self.summary.setText("No cohorts yet: Workshop › Grade Submissions… grades a room and keeps it here.")
            return
        index = self.cohort.findData(cohort_id) if cohort_id is not None else 0
        self.cohort.setCurrentIndex(max(0, index))
        self.show_cohort(self.cohort.currentData())

    def show_cohort(self, cohort_id: int | None) -> None:
        """Load and show the cohort ``cohort_id``."""
        if cohort_id is None:
            return
        self.run = self.store.load(int(cohort_id))
        info = self.store.cohort(int(cohort_id))
        run = self.run
        mean = info.get("mean_overall")
        self.summary.setText(f"<b>{info['name']}</b> · scenario <i>{run.scenario_title}</i> · {len(run.results)} "
                             f"submissions, {len(run.graded)} graded, {len(run.errors)} not graded"
                             + (f" · mean overall {mean:.0f}%" if mean is not None else "")
                             + (" · grading was cancelled before the end" if run.cancelled else ""))
        self.compare.blockSignals(True)
        self.compare.clear()
        self.compare.addItem("(no earlier session)", None)
        for row in self.store.cohorts(run.scenario_id):
            if int(row["id"]) != int(cohort_id):
                self.compare.addItem(f"{row['name']} ({row['created_at'][:10]})", int(row["id"]))
        self.compare.blockSignals(False)
        self.other = None
        self.fill_table()
        self.side.set_run(run)
        self.show_comparison(None)

    def show_comparison(self, other_id: int | None) -> None:
        """Compare the cohort shown with ``other_id`` (an earlier session), or stop comparing."""
        self.other = self.store.load(int(other_id)) if other_id is not None else None
        assert self.run is not None
        label = self.compare.currentText() if self.other is not None else ""
        self.plots.show_runs(self.run, self.other, label)
        self.fill_findings()
        self.fill_sessions()

    # ------------------------------------------------------------------ tables
    def columns(self) -> list[str]:
        """The submissions table's column titles (one per rubric among them)."""
        assert self.run is not None
        return ["Submission", "Overall", "Grade", *(short_title(name) for name, _, _ in self.run.rubrics), "p99 ms",
                "SLO ms", "$ per 1k", "After region loss", "Follow-ups", "Findings", "Problem"]

    def fill_table(self) -> None:
        """One row per submission, sortable by every column."""
        run = self.run
        assert run is not None
        headers = self.columns()
        self.table.setSortingEnabled(False)
        self.table.clear()
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        tips = {3 + n: title for n, (_, title, _) in enumerate(run.rubrics)}
        tips.update({len(headers) - 4: "Share of the peak still served after the busiest region is lost",
                     len(headers) - 3: "Follow-ups the design absorbs, of the scenario's follow-ups",
                     len(headers) - 2: "Findings that cost points"})
        for column, tip in tips.items():
            self.table.horizontalHeaderItem(column).setToolTip(tip)
        self.table.setRowCount(len(run.results))
        for n, row in enumerate(run.results):
            for column, item in enumerate(self.row_items(row)):
                self.table.setItem(n, column, item)
        self.table.setSortingEnabled(True)
        self.table.sortItems(1, Qt.SortOrder.DescendingOrder)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(headers) - 1, QHeaderView.ResizeMode.Stretch)

    def row_items(self, row: SubmissionResult) -> list[SortItem]:
        """The table cells of submission ``row`` (a failed submission shows its problem)."""
        assert self.run is not None
        i = row.index
        if not row.ok:
            blank = [_item("", None, i) for _ in range(len(self.columns()) - 4)]
            error = _item(row.error, row.error, i)
            error.setToolTip(row.error)
            error.setForeground(QBrush(QColor(LIGHT_INK.bad)))
            grade = _item("error", "", i)
            grade.setForeground(QBrush(QColor(LIGHT_INK.bad)))
            return [_item(row.name, row.name, i), _item("—", None, i), grade, *blank, error]
        f = row.figures
        overall = _item(f"{row.overall:.1f}", row.overall, i)
        overall.setForeground(QBrush(QColor(score_colour(row.overall))))
        items = [_item(row.name, row.name, i), overall, _item(row.grade, row.grade, i)]
        for name, _, _ in self.run.rubrics:
            value = row.rubrics.get(name)
            cell = _item(_num(value, 0, "%"), value, i)
            cell.setForeground(QBrush(QColor(score_colour(value))))
            items.append(cell)
        p99 = _item(_num(f.get("p99_ms")), f.get("p99_ms"), i)
        if f.get("within_slo") is not None:
            p99.setForeground(QBrush(QColor(LIGHT_INK.good if f["within_slo"] else LIGHT_INK.bad)))
            p99.setToolTip(f"p99 {_num(f.get('p99_ms'))} ms against an SLO of {_num(f.get('slo_p99_ms'))} ms; "
                           f"{_num(f.get('lost_pct'), 1)}% of the peak lost"
                           + ("" if f["within_slo"] else " (red: over the SLO, or 1% or more lost)"))
        served = f.get("region_loss_served_pct")
        items += [p99, _item(_num(f.get("slo_p99_ms")), f.get("slo_p99_ms"), i),
                  _item(_num(f.get("cost_per_1k"), 4), f.get("cost_per_1k"), i),
                  _item(_num(served, 0, "%"), served, i),
                  _item(f"{row.follow_ups_held}/{len(row.follow_ups)}", row.follow_ups_held, i),
                  _item(str(len(row.findings)), len(row.findings), i), _item("", "", i)]
        return items

    def fill_findings(self) -> None:
        """The findings most submissions share, with how many have each."""
        run = self.run
        assert run is not None
        ranked = reports.common_findings(run.results, limit=25)
        other_share: dict[str, float] = {}
        if self.other is not None:
            total = len(self.other.graded) or 1
            other_share = {rule: n / total for rule, _, n, _ in reports.common_findings(self.other.results, 10_000)}
        headers = ["Rule", "Finding", "Designs", "Share of the room", "Points lost in all"]
        if self.other is not None:
            headers.append("Share in the earlier session")
        self.findings.setColumnCount(len(headers))
        self.findings.setHorizontalHeaderLabels(headers)
        self.findings.setRowCount(len(ranked))
        total = len(run.graded) or 1
        for n, (rule, title, count, points) in enumerate(ranked):
            cells = [rule, title, str(count), f"{100 * count / total:.0f}%", f"{points:g}"]
            if self.other is not None:
                cells.append(f"{100 * other_share.get(rule, 0.0):.0f}%")
            for column, text in enumerate(cells):
                self.findings.setItem(n, column, QTableWidgetItem(text))
        self.findings.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.findings.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)

    def fill_sessions(self) -> None:
        """Each figure's mean in the earlier session and this one, with the change."""
        self.sessions.setRowCount(0)
        self.sessions.setHorizontalHeaderLabels(["", "Earlier session", "This session", "Change"])
        if self.other is None or self.run is None:
            return
        comparison = compare_runs(self.other, self.run)
        rows: list[list[str]] = [["Designs graded", str(comparison.first_graded), str(comparison.second_graded), ""]]
        for change in comparison.rubrics:
            delta = change.delta
            rows.append([f"Mean {change.title}", _num(change.first, 0, "%"), _num(change.second, 0, "%"),
                         "" if delta is None else f"{delta:+.0f} points"])
        for rule, title, first, second in comparison.findings:
            rows.append([f"{rule}: {title}", f"{100 * first:.0f}% of designs", f"{100 * second:.0f}% of designs",
                         f"{100 * (second - first):+.0f} points"])
        self.sessions.setRowCount(len(rows))
        for n, cells in enumerate(rows):
            for column, text in enumerate(cells):
                self.sessions.setItem(n, column, QTableWidgetItem(text))
        self.sessions.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.sessions.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)

    # ------------------------------------------------------------------ actions
    def selected_indices(self) -> list[int]:
        """The submission indices of the selected rows."""
        rows = sorted({index.row() for index in self.table.selectedIndexes()})
        return [int(self.table.item(r, 0).data(ID_ROLE)) for r in rows]

    def compare_selected(self) -> bool:
        """Show the first two selected submissions side by side; False with none selected."""
        chosen = self.selected_indices()
        if not chosen or self.run is None:
            return False
        graded = [r.index for r in self.run.graded]
        first = chosen[0]
        second = chosen[1] if len(chosen) > 1 else next((i for i in graded if i != first), first)
        self.side.show_pair(first, second)
        self.tabs.setCurrentWidget(self.side)
        return True

    def export(self, kind: str, path: str | None = None) -> Path | None:
        """Export the cohort as ``kind`` ("csv" or "html") to ``path`` (asked for when None); returns it."""
        if self.run is None:
            return None
        if path is None:
            suffix = {"csv": "CSV files (*.csv)", "html": "Web pages (*.html)"}[kind]
            path, _ = QFileDialog.getSaveFileName(self, f"Export the grading report as {kind.upper()}",
                                                  str(Path.home() / f"grading-report.{kind}"), suffix)
            if not path:
                return None
        try:
            if kind == "csv":
                return reports.write_csv(self.run, path)
            return reports.write_html(self.run, path)
        except Exception as error:  # noqa: BLE001 - shown to the user; the previous file is intact
            QMessageBox.warning(self, "Export failed", str(error))
            return None


_OPEN: list[Any] = []


def open_cohorts(main_window=None, *, store: CohortStore | None = None, data_folder=None,
                 cohort_id: int | None = None):
    """Workshop › Cohorts…"""
    if data_folder is None and main_window is not None:
        data_folder = getattr(main_window, "data_dir", None)
    store = store if store is not None else CohortStore(data_folder)
    theme = main_window.theme_manager.theme if main_window is not None else None
    window = CohortWindow(store, None, cohort_id, theme=theme)
    window.show()
    _OPEN.append(window)
    return window
