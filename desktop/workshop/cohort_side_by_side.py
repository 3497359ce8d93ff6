"""Two designs of a cohort side by side: their pictures, their scores and simulated figures next
to each other, and the differences in their structure."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtSvgWidgets import QSvgWidget
from PySide6.QtWidgets import (QComboBox, QGridLayout, QHeaderView, QLabel, QListWidget, QSplitter, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from inferboard.practice.report import design_svg
from inferboard.workshop.compare import design_differences, figure_rows
from inferboard.workshop.grading import GradingRun, SubmissionResult


def _cell(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4f}" if abs(value) < 1 and value != 0 else f"{value:.1f}"
    return str(value)


def difference_lines(a: SubmissionResult, b: SubmissionResult) -> list[str]:
    """How two submissions' designs differ, one line per difference."""
    diff = design_differences(a.design, b.design)
    if diff.same:
        return ["The two designs have the same structure and parameters."]
    lines = [f"{kind.replace('_', ' ')}: {na} in A, {nb} in B" for kind, (na, nb) in diff.kinds.items()]
    lines += [f"Only in A: {node} ({kind.replace('_', ' ')})" for node, kind in diff.only_a]
    lines += [f"Only in B: {node} ({kind.replace('_', ' ')})" for node, kind in diff.only_b]
    lines += [f"{node}.{name}: {_cell(va)} in A, {_cell(vb)} in B" for node, name, va, vb in diff.params]
    lines += [f"Wire only in A: {wire}" for wire in diff.wires_only_a]
    lines += [f"Wire only in B: {wire}" for wire in diff.wires_only_b]
    return lines


class SideBySide(QWidget):
    """Two submissions of a cohort side by side: their figures, their scores and how their designs differ."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.run: GradingRun | None = None
        self.pick_a, self.pick_b = QComboBox(self), QComboBox(self)
        self.pick_a.setObjectName("design_a")
        self.pick_b.setObjectName("design_b")
        self.pick_a.setAccessibleName("Design A")
        self.pick_b.setAccessibleName("Design B")
        self.pick_a.currentIndexChanged.connect(lambda _i: self.refresh())
        self.pick_b.currentIndexChanged.connect(lambda _i: self.refresh())
        self.picture_a, self.picture_b = QSvgWidget(self), QSvgWidget(self)
        for picture, name in ((self.picture_a, "Picture of design A"), (self.picture_b, "Picture of design B")):
            picture.setAccessibleName(name)
            picture.renderer().setAspectRatioMode(Qt.AspectRatioMode.KeepAspectRatio)
            picture.setMinimumHeight(260)
        self.figures = QTableWidget(0, 3, self)
        self.figures.setObjectName("side_by_side_figures")
        self.figures.setAccessibleName("Scores and simulated figures of A and B")
        self.figures.setHorizontalHeaderLabels(["", "A", "B"])
        self.figures.verticalHeader().hide()
        self.figures.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.differences = QListWidget(self)
        self.differences.setObjectName("structure_differences")
        self.differences.setAccessibleName("Differences in structure")
        grid = QGridLayout()
        grid.addWidget(QLabel("Design &A", self), 0, 0)
        grid.addWidget(QLabel("Design &B", self), 0, 1)
        grid.itemAtPosition(0, 0).widget().setBuddy(self.pick_a)
        grid.itemAtPosition(0, 1).widget().setBuddy(self.pick_b)
        grid.addWidget(self.pick_a, 1, 0)
        grid.addWidget(self.pick_b, 1, 1)
        grid.addWidget(self.picture_a, 2, 0)
        grid.addWidget(self.picture_b, 2, 1)
        grid.setRowStretch(2, 1)
        pictures = QWidget(self)
        pictures.setLayout(grid)
        lower = QSplitter(Qt.Orientation.Horizontal, self)
        lower.addWidget(self.figures)
        holder = QWidget(self)
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(QLabel("Differences in structure (A against B):", holder))
        column.addWidget(self.differences)
        lower.addWidget(holder)
        lower.setSizes([420, 580])
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(pictures)
        split.addWidget(lower)
        split.setSizes([620, 320])
        layout = QVBoxLayout(self)
        layout.addWidget(split)

    def set_run(self, run: GradingRun) -> None:
        """Offer the submissions of ``run`` in both pickers."""
        self.run = run
        for pick in (self.pick_a, self.pick_b):
            pick.blockSignals(True)
            pick.clear()
            for row in run.graded:
                pick.addItem(f"{row.name} ({row.overall:.0f})", row.index)
            pick.blockSignals(False)
        if self.pick_b.count() > 1:
            self.pick_b.setCurrentIndex(1)
        self.refresh()

    def show_pair(self, index_a: int, index_b: int) -> None:
        """Show submissions ``index_a`` and ``index_b``."""
        for pick, index in ((self.pick_a, index_a), (self.pick_b, index_b)):
            found = pick.findData(index)
            if found >= 0:
                pick.blockSignals(True)
                pick.setCurrentIndex(found)
                pick.blockSignals(False)
        self.refresh()

    def chosen(self) -> tuple[SubmissionResult | None, SubmissionResult | None]:
        """The two submissions picked (None for a side with none)."""
        if self.run is None:
            return None, None
        rows = {row.index: row for row in self.run.results}
        return rows.get(self.pick_a.currentData()), rows.get(self.pick_b.currentData())

    def refresh(self) -> None:
        """Show the figures and differences of the two submissions picked."""
        a, b = self.chosen()
        self.figures.setRowCount(0)
        self.differences.clear()
        for picture, row in ((self.picture_a, a), (self.picture_b, b)):
            svg = design_svg(row.design if row is not None else "{}", [n for f in (row.findings if row else [])
                                                                       for n in f.get("node_ids", [])])
            picture.load(QByteArray(svg.encode("utf-8")))
            picture.renderer().setAspectRatioMode(Qt.AspectRatioMode.KeepAspectRatio)
        if a is None or b is None:
            return
        rows = figure_rows(a, b, {name: title for name, title, _ in self.run.rubrics} if self.run else None)
        self.figures.setRowCount(len(rows))
        for n, (label, va, vb) in enumerate(rows):
            for column, text in enumerate((label, _cell(va), _cell(vb))):
                self.figures.setItem(n, column, QTableWidgetItem(text))
        self.differences.addItems(difference_lines(a, b))
