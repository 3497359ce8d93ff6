"""The cohort view's plots (pyqtgraph): one score distribution per rubric, the room's bars in
colour and, when a second session is compared, its bars outlined beside them."""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtWidgets import QGridLayout, QWidget

from inferboard.workshop.grading import GradingRun
from inferboard.workshop.reports import histogram

BINS = 10
COLUMNS = 4
FILL, OUTLINE = "#0ea5e9", "#f97316"


def rubric_series(run: GradingRun) -> list[tuple[str, str, list[float]]]:
    """(name, title, values) for the overall score and each of the scenario's rubrics."""
    out = [("overall", "Overall", [r.overall for r in run.graded if r.overall is not None])]
    for name, title, _ in run.rubrics:
        out.append((name, title, [r.rubrics[name] for r in run.graded if r.rubrics.get(name) is not None]))
    return out


class DistributionPlots(QWidget):
    """A grid of histograms, one PlotWidget each; ``plots`` maps rubric name -> its PlotItem,
    ``bars`` -> its bar heights (``compared``: the earlier session's)."""

    def __init__(self, parent: QWidget | None = None, dark: bool = False):
        super().__init__(parent)
        self.setObjectName("distributions")
        self.setAccessibleName("Score distribution per rubric")
        self.dark = dark
        self.widgets: list[QWidget] = []
        self.plots: dict[str, Any] = {}
        self.bars: dict[str, list[int]] = {}
        self.compared: dict[str, list[int]] = {}
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(4, 4, 4, 4)
        self.grid.setSpacing(6)

    def release(self) -> None:
        for widget in self.widgets:
            self.grid.removeWidget(widget)
            widget.deleteLater()
        self.widgets.clear()
        self.plots.clear()

    def show_runs(self, run: GradingRun, other: GradingRun | None = None, other_label: str = "") -> None:
        import pyqtgraph as pg

        self.release()
        self.bars.clear()
        self.compared.clear()
        others = {name: values for name, _, values in rubric_series(other)} if other is not None else {}
        ink = "#e2e8f0" if self.dark else "#0f172a"
        width = 100 / BINS
        for n, (name, title, values) in enumerate(rubric_series(run)):
            mean = f" — mean {sum(values) / len(values):.0f}%" if values else " — no scores"
            widget = pg.PlotWidget(self, background="#0f172a" if self.dark else "w")
            widget.setAccessibleName(f"Distribution of {title}")
            widget.setMinimumSize(220, 170)
            plot = widget.getPlotItem()
            plot.setTitle(f"{title}{mean}", color=ink, size="11pt")
            plot.setXRange(0, 100, padding=0.02)
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            plot.getAxis("bottom").setTicks([[(x, f"{x}") for x in (0, 25, 50, 75, 100)]])
            plot.getAxis("left").setLabel("designs")
            counts = histogram(values, BINS)
            self.bars[name] = counts
            centres = [width * (i + 0.5) for i in range(BINS)]
            shift = width * 0.22 if name in others else 0.0
            plot.addItem(pg.BarGraphItem(x=[c - shift for c in centres], height=counts,
                                         width=width * (0.42 if shift else 0.85), brush=FILL, pen=None))
            if name in others:
                compared = histogram(others[name], BINS)
                self.compared[name] = compared
                plot.addItem(pg.BarGraphItem(x=[c + shift for c in centres], height=compared, width=width * 0.42,
                                             brush=None, pen=pg.mkPen(OUTLINE, width=2)))
            top = max([*counts, *self.compared.get(name, []), 1])
            plot.setYRange(0, top * 1.1, padding=0)
            if other is not None and other_label:
                widget.setToolTip(f"Filled: this session. Outlined: {other_label}.")
            self.grid.addWidget(widget, n // COLUMNS, n % COLUMNS)
            self.widgets.append(widget)
            self.plots[name] = plot


def mean_of(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None
