"""The cohort view's plots (pyqtgraph): one score distribution per rubric, the room's bars in
colour and, when a second session is compared, its bars outlined beside them."""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

from inferboard.workshop.grading import GradingRun
from inferboard.workshop.reports import histogram

from desktop.theme import PLOT, PLOT_BACKGROUND, PLOT_INK

BINS = 10
COLUMNS = 4
FILL, OUTLINE = PLOT["distribution_fill"], PLOT["distribution_mark"]


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
        self.legend = QLabel(self)
        self.legend.setObjectName("distribution_legend")
        self.grid = QGridLayout()
        self.grid.setSpacing(6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.legend)
        layout.addLayout(self.grid, 1)

    def release(self) -> None:
        """Remove and delete the plots shown."""
        for widget in self.widgets:
            self.grid.removeWidget(widget)
            widget.deleteLater()
        self.widgets.clear()
        self.plots.clear()

    def show_runs(self, run: GradingRun, other: GradingRun | None = None, other_label: str = "") -> None:
        """One histogram per rubric of ``run``'s scores, with ``other``'s beside them when given."""
        # pyqtgraph is slow to import: loaded when a plot is first built
        import pyqtgraph as pg

        self.release()
        self.legend.setText(f"Designs per 10-point band of each score. <span style='color:{FILL}'>■</span> this "
                            "session" + (f", <span style='color:{OUTLINE}'>□</span> {other_label}" if other is not None
                                         else "") + "; the mean is this session's.")
        self.bars.clear()
        self.compared.clear()
        others = {name: values for name, _, values in rubric_series(other)} if other is not None else {}
        ink = PLOT_INK[self.dark]
        width = 100 / BINS
        for n, (name, title, values) in enumerate(rubric_series(run)):
            mean = f" — mean {sum(values) / len(values):.0f}%" if values else " — no scores"
            widget = pg.PlotWidget(self, background=PLOT_BACKGROUND[self.dark])
            widget.setAccessibleName(f"Distribution of {title}")
            widget.setMinimumSize(220, 170)
            plot = widget.getPlotItem()
            plot.setTitle(f"{title}{mean}", color=ink, size="11pt")
            plot.setXRange(-3, 103, padding=0)
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            plot.getAxis("bottom").setTicks([[(x, f"{x}") for x in (0, 25, 50, 75, 100)]])
            plot.getAxis("left").setLabel("designs")
            counts = histogram(values, BINS)
            self.bars[name] = counts
            centres = [width * (i + 0.5) for i in range(BINS)]
            shift = width * 0.22 if name in others else 0.0
            shown = [i for i in range(BINS) if counts[i]]  # empty bins draw nothing (not a line at 0)
            plot.addItem(pg.BarGraphItem(x=[centres[i] - shift for i in shown], height=[counts[i] for i in shown],
                                         width=width * (0.42 if shift else 0.85), brush=FILL, pen=None))
            if name in others:
                compared = histogram(others[name], BINS)
                self.compared[name] = compared
                shown = [i for i in range(BINS) if compared[i]]
                plot.addItem(pg.BarGraphItem(x=[centres[i] + shift for i in shown],
                                             height=[compared[i] for i in shown], width=width * 0.42, brush=None,
                                             pen=pg.mkPen(OUTLINE, width=2)))
            top = max([*counts, *self.compared.get(name, []), 1])
            plot.setYRange(0, top * 1.1, padding=0)

            self.grid.addWidget(widget, n // COLUMNS, n % COLUMNS)
            self.widgets.append(widget)
            self.plots[name] = plot


def mean_of(values: Sequence[float]) -> float | None:
    """The mean of ``values``, or None when there are none."""
    return sum(values) / len(values) if values else None
