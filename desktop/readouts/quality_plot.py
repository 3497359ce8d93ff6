"""The readouts' Quality tab: the model's accuracy per traffic segment against the accuracy target,
each drift detector's statistic against its threshold, and the business metric, over the
simulated day (the series ``inferboard.sim.quality.quality_timeline`` adds to a timeline). Three
plots stacked in one tab, sharing the time axis, the playhead and the fault bands with the other
timeline plots."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QTabWidget, QVBoxLayout, QWidget

from desktop.theme import PLOT, SERIES

#: Said when the timeline has no quality series.
NOTHING_TO_MEASURE = ("No model quality to show: declare an accuracy target, draw a drift detector, "
                      "or plan a drift (Faults: Input drift, Concept drift, Bad model version).")


def detector_limits(design) -> dict[str, tuple[str, float]]:
    """Drift detector id -> (name shown, threshold), from the design's parameters."""
    if design is None:
        return {}
    return {n.id: (n.label or n.id, float(n.params.get("threshold", 0.2)))
            for n in design.nodes.values() if n.kind == "drift_detector"}


class QualityPlots:
    """The Quality tab. ``plot_class`` is the readouts' :class:`plots.Plot` (passed in, so the two
    modules do not import each other)."""

    def __init__(self, tabs: QTabWidget, index: int, plot_class):
        self.page = QWidget(tabs)
        self.page.setObjectName("quality-tab")
        layout = QVBoxLayout(self.page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.empty = QLabel(NOTHING_TO_MEASURE, self.page)
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.empty)
        self.key = QLabel(self.page)  # the accuracy curves' names, above the plots rather than over the curves
        self.key.setObjectName("quality-key")
        self.key.setWordWrap(True)
        layout.addWidget(self.key)
        self.accuracy = plot_class("Accuracy", "Accuracy %", x_title="", parent=self.page)
        self.drift = plot_class("Drift statistic", "Drift", x_title="", parent=self.page)
        self.business = plot_class("Business metric", "Business (%)", parent=self.page)
        self.drift.getPlotItem().getAxis("left").enableAutoSIPrefix(False)  # 0.2, not 200 (x0.001)
        self.business.legend.hide()  # one curve, named by its axis
        for plot, stretch in ((self.accuracy, 4), (self.drift, 2), (self.business, 2)):
            plot.setMinimumHeight(70)
            layout.addWidget(plot, stretch)
        self.accuracy.legend.hide()
        # On a short screen (1366x768) the three plots keep their least height and scroll, rather
        # than make the tab, and so the readouts and the window, taller than the screen.
        self.scroller = QScrollArea(tabs)
        self.scroller.setObjectName("quality-scroller")
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.scroller.setWidget(self.page)
        tabs.insertTab(index, self.scroller, "Quality")
        self.segment_curves: dict[str, pg.PlotDataItem] = {}
        self.overall = self.accuracy.plot(name="overall", pen=pg.mkPen(PLOT["accuracy"], width=2.6))
        self.labelled = self.accuracy.plot(name="labelled", pen=pg.mkPen(PLOT["labelled"], width=1.6,
                                                                              style=Qt.PenStyle.DotLine))
        self.target_line = pg.InfiniteLine(angle=0, movable=False,
                                           pen=pg.mkPen(PLOT["accuracy_target"], width=1.2, style=Qt.PenStyle.DashLine))
        self.accuracy.addItem(self.target_line)
        self.detector_curves: dict[str, pg.PlotDataItem] = {}
        self.threshold_lines: list[pg.InfiniteLine] = []
        self.business_curve = self.business.plot(name="business metric", pen=pg.mkPen(PLOT["business"], width=2.2))
        self.show_nothing()

    def plots(self) -> list:
        """The accuracy, drift and business plots."""
        return [self.accuracy, self.drift, self.business]

    def show_nothing(self) -> None:
        """Hide the plots and show the line that says there is no quality to plot."""
        self.empty.show()
        self.key.hide()
        for plot in self.plots():
            plot.hide()

    def show(self, result, design, titles: dict[str, str]) -> None:
        """Draw the quality series of ``result`` (a timeline); without them, say why there are none."""
        series = result.series
        if "accuracy_pct" not in series or not len(result.times_s):
            self.show_nothing()
            return
        self.empty.hide()
        self.key.show()
        for plot in self.plots():
            plot.show()
        times_h = np.asarray(result.times_s, dtype=float) / 3600.0
        target = None if design is None else design.requirements.accuracy_target_pct
        self._show_accuracy(times_h, series, target)
        self._show_detectors(times_h, series, detector_limits(design), titles)
        business = next((k for k in series if k.endswith("_pct") and not k.startswith("accuracy")), None)
        self.business_curve.setData(times_h, np.asarray(series[business], dtype=float) if business else [])
        if business:
            metric = business.removesuffix("_pct").capitalize()
            self.business.y_title = f"{metric if len(metric) <= 6 else metric[:4] + '.'} %"  # a short plot's axis
            self.business.setToolTip(f"{metric} (%), the business metric: it follows accuracy, latency and losses")
            self.business.getPlotItem().setLabel("left", self.business.y_title)
            values = np.asarray(series[business], dtype=float)
            low, high = float(values.min()), float(values.max())
            self.business.setYRange(max(0.0, low - 0.3 * max(high - low, 0.1 * high)),
                                    max(0.1, high + 0.15 * max(high - low, 0.1 * high)), padding=0)

    def _show_accuracy(self, times_h: np.ndarray, series, target: float | None) -> None:
        segments = sorted(k.split(":", 1)[1] for k in series if k.startswith("accuracy_pct:"))
        for name in [s for s in self.segment_curves if s not in segments]:
            self.accuracy.removeItem(self.segment_curves.pop(name))
        for index, name in enumerate(segments):
            curve = self.segment_curves.get(name)
            if curve is None:
                colour = SERIES[index % len(SERIES)]
                curve = self.segment_curves[name] = self.accuracy.plot(name=name, pen=pg.mkPen(colour, width=1.6))
            curve.setData(times_h, np.asarray(series[f"accuracy_pct:{name}"], dtype=float))
        self.overall.setData(times_h, np.asarray(series["accuracy_pct"], dtype=float))
        self.labelled.setData(times_h, np.asarray(series.get("accuracy_labelled_pct", []), dtype=float)
                              if "accuracy_labelled_pct" in series else [])
        names = [("overall", PLOT["accuracy"], "solid"), ("labelled (what a dashboard shows)", PLOT["labelled"], "dotted")]
        names += [(name, SERIES[i % len(SERIES)], "solid") for i, name in enumerate(segments)]
        self.key.setText("Accuracy: " + " ".join(
            f'<span style="color:{colour}">{"┅" if style == "dotted" else "━"}</span> {name}'
            for name, colour, style in names))
        self.target_line.setVisible(target is not None)
        lows = [float(np.min(series[k])) for k in series if k.startswith("accuracy_pct")]
        low, high = min(lows + ([target] if target is not None else [])), max(
            float(np.max(series[k])) for k in series if k.startswith("accuracy_pct"))
        if target is not None:
            self.target_line.setValue(target)
        self.accuracy.set_limits([(float(target), f"target {target:g}%")] if target is not None else [])
        span = max(high - low, 1.0)
        self.accuracy.setYRange(max(0.0, low - 0.15 * span), min(100.0, high + 0.2 * span), padding=0)

    def _show_detectors(self, times_h, series, limits: dict[str, tuple[str, float]], titles) -> None:
        names = sorted(k.split(":", 1)[1] for k in series if k.startswith("drift_stat:"))
        for name in [d for d in self.detector_curves if d not in names]:
            self.drift.removeItem(self.detector_curves.pop(name))
        for line in self.threshold_lines:
            self.drift.removeItem(line)
        self.threshold_lines.clear()
        top, ticks = 0.0, []
        for index, name in enumerate(names):
            values = np.asarray(series[f"drift_stat:{name}"], dtype=float)
            curve = self.detector_curves.get(name)
            if curve is None:
                colour = SERIES[(index + 3) % len(SERIES)]
                curve = self.detector_curves[name] = self.drift.plot(name=titles.get(name, name),
                                                                     pen=pg.mkPen(colour, width=2))
            curve.setData(times_h, values)
            title, threshold = limits.get(name, (titles.get(name, name), None))
            top = max(top, float(values.max()) if values.size else 0.0, threshold or 0.0)
            if threshold is not None:
                line = pg.InfiniteLine(pos=threshold, angle=0, movable=False,
                                       pen=pg.mkPen(PLOT["threshold"], width=1.2, style=Qt.PenStyle.DashLine))
                self.drift.addItem(line)
                self.threshold_lines.append(line)
                ticks.append((threshold, f"{title} {threshold:g}"))
        self.drift.set_limits(ticks)
        self.drift.legend.setVisible(len(names) > 1)  # one detector is named by its threshold
        self.drift.setYRange(0.0, max(0.05, top * 1.15), padding=0)
        if not names:
            self.drift.getPlotItem().setTitle("no drift detector in the design", size="9pt")
        else:
            self.drift.getPlotItem().setTitle(None)
