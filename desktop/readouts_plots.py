"""The readouts' plots (pyqtgraph): latency percentiles against the SLO lines, throughput,
utilisation per pool, shed and error rates, cost per hour over the simulated day, and the load
test's latency histogram. Curves are created once and only ``setData`` runs on updates."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal

from desktop.theme import LIGHT, Theme

POOL_COLOURS = ("#2563eb", "#16a34a", "#ea580c", "#7c3aed", "#0891b2", "#db2777", "#65a30d", "#ca8a04",
                "#4f46e5", "#dc2626")
PERCENTILE_COLOURS = {"p50_ms": "#16a34a", "p95_ms": "#d97706", "p99_ms": "#dc2626"}


from desktop.readouts_dock import hours_label  # noqa: E402  (one definition of the clock format)


class TimelinePlots(pg.GraphicsLayoutWidget):
    #: The user dragged the time cursor (seconds).
    cursor_moved = Signal(float)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setAccessibleName("Timeline plots")
        self.theme: Theme = LIGHT
        self.ci.setContentsMargins(2, 2, 2, 2)
        self.latency = self._plot(0, 0, "Latency", "ms", keys=(("p50", PERCENTILE_COLOURS["p50_ms"]),
                                                                ("p95", PERCENTILE_COLOURS["p95_ms"]),
                                                                ("p99", PERCENTILE_COLOURS["p99_ms"])))
        self.throughput = self._plot(0, 1, "Throughput", "req/s", keys=(("offered", "#64748b"), ("served", "#2563eb")))
        self.utilisation = self._plot(0, 2, "Utilisation per pool", "%",
                                      keys=(("hover a line for its pool", "#64748b"),))
        self.slos: dict[str, float | None] = {}
        self.highlighted_pool: str | None = None
        self.shed = self._plot(1, 0, "Shed and errors", "%", keys=(("shed", "#ea580c"), ("errors", "#dc2626")))
        self.cost = self._plot(1, 1, "Cost", "$/h", keys=(("cost per hour", "#7c3aed"),))
        self.histogram = self._plot(1, 2, "Load test latency", "requests", x_unit="ms", timeline=False)
        self.timeline_plots = [self.latency, self.throughput, self.utilisation, self.shed, self.cost]
        for plot in self.timeline_plots[1:]:
            plot.setXLink(self.latency)
        self.curves = {
            "p50_ms": self.latency.plot(name="p50", pen=pg.mkPen(PERCENTILE_COLOURS["p50_ms"], width=1.6)),
            "p95_ms": self.latency.plot(name="p95", pen=pg.mkPen(PERCENTILE_COLOURS["p95_ms"], width=1.6)),
            "p99_ms": self.latency.plot(name="p99", pen=pg.mkPen(PERCENTILE_COLOURS["p99_ms"], width=1.8)),
            "offered_rps": self.throughput.plot(name="offered", pen=pg.mkPen("#64748b", width=1.4,
                                                                             style=Qt.PenStyle.DashLine)),
            "throughput_rps": self.throughput.plot(name="served", pen=pg.mkPen("#2563eb", width=1.8)),
            "shed_rate": self.shed.plot(name="shed", pen=pg.mkPen("#ea580c", width=1.6)),
            "error_rate": self.shed.plot(name="errors", pen=pg.mkPen("#dc2626", width=1.6)),
            "cost_per_hour": self.cost.plot(name="cost", pen=pg.mkPen("#7c3aed", width=1.8)),
        }
        self.pool_curves: dict[str, pg.PlotDataItem] = {}
        self.slo_lines: dict[str, pg.InfiniteLine] = {}
        for key in ("p50_ms", "p95_ms", "p99_ms"):
            line = pg.InfiniteLine(angle=0, movable=False,
                                   pen=pg.mkPen(PERCENTILE_COLOURS[key], width=1, style=Qt.PenStyle.DashLine),
                                   label=f"{key[:3]} SLO",
                                   labelOpts={"position": 0.01, "color": PERCENTILE_COLOURS[key],
                                                                      "anchors": [(0, 0), (0, 0)]})
            line.hide()
            self.latency.addItem(line)  # the SLO stays in view, so the headroom shows
            self.slo_lines[key] = line
        self.budget_line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen("#7c3aed", style=Qt.PenStyle.DashLine),
                                           label="budget", labelOpts={"position": 0.01, "color": "#7c3aed",
                                                                      "anchors": [(0, 1), (0, 1)]})
        self.budget_line.hide()
        self.cost.addItem(self.budget_line, ignoreBounds=True)
        self.cursors = []
        for plot in self.timeline_plots:
            cursor = pg.InfiniteLine(angle=90, movable=True, pen=pg.mkPen("#94a3b8", width=1))
            cursor.sigDragged.connect(self._cursor_dragged)
            cursor.hide()
            plot.addItem(cursor, ignoreBounds=True)
            self.cursors.append(cursor)
        self.fault_regions: list[tuple[pg.PlotItem, pg.LinearRegionItem]] = []
        self.events = pg.ScatterPlotItem(size=9, symbol="t", brush=pg.mkBrush("#e11d48"), pen=None,
                                         hoverable=True, tip=lambda x, y, data: str(data))
        self.throughput.addItem(self.events)
        self.bars = pg.BarGraphItem(x0=[], x1=[], height=[], brush=pg.mkBrush("#60a5fa"), pen=pg.mkPen("#2563eb"))
        self.histogram.addItem(self.bars)
        self.histogram_lines = {}
        for key in ("p50_ms", "p95_ms", "p99_ms"):
            line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(PERCENTILE_COLOURS[key], width=1.4),
                                   label=key[:3], labelOpts={"position": 0.9, "color": PERCENTILE_COLOURS[key]})
            line.hide()
            self.histogram.addItem(line, ignoreBounds=True)
            self.histogram_lines[key] = line
        self.times_h = np.zeros(0)

    def _plot(self, row: int, col: int, title: str, unit: str, x_unit: str = "h", timeline: bool = True,
              keys: tuple = (), legend: bool = False):
        key_text = " ".join(f"<span style='color:{colour}'>■ {name}</span>" for name, colour in keys)
        plot = self.addPlot(row=row, col=col, title=f"<span style='font-size:9pt'>{title}</span>"
                            + (f" <span style='font-size:8pt'>{key_text}</span>" if key_text else ""))
        plot.title_html = plot.titleLabel.text
        plot.showGrid(x=True, y=True, alpha=0.15)
        plot.setMenuEnabled(False)
        plot.getAxis("left").setLabel(units=None, text=unit)
        plot.getAxis("left").setWidth(44)
        plot.setDownsampling(mode="peak")
        plot.setClipToView(True)
        if timeline:
            if legend:
                plot.addLegend(offset=(4, 2), labelTextSize="7pt", verSpacing=-8, colCount=2,
                               brush=pg.mkBrush(255, 255, 255, 150))
            plot.setMouseEnabled(x=True, y=False)
        else:
            plot.getAxis("bottom").setLabel(text=x_unit)
        return plot

    # ------------------------------------------------------------------ theme
    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.setBackground(theme.canvas)
        for plot in self.timeline_plots + [self.histogram]:
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setPen(pg.mkPen(theme.muted))
                axis.setTextPen(pg.mkPen(theme.muted))
            plot.titleLabel.setText(plot.title_html, color=theme.text)
            if plot.legend is not None:
                colour = pg.mkColor(theme.canvas)
                colour.setAlpha(170)
                plot.legend.setBrush(pg.mkBrush(colour))
                plot.legend.setLabelTextColor(theme.text)

    # ------------------------------------------------------------------ data
    def set_slos(self, slos: dict[str, float | None], budget: float | None) -> None:
        self.slos = dict(slos)
        for key, line in self.slo_lines.items():
            value = slos.get(key)
            line.setVisible(value is not None)
            if value is not None:
                line.setValue(value)
        self.budget_line.setVisible(budget is not None)
        if budget is not None:
            self.budget_line.setValue(budget)

    def show_timeline(self, result, titles: dict[str, str]) -> None:
        times_h = np.asarray(result.times_s, dtype=float) / 3600.0
        self.times_h = times_h
        series = result.series
        for key, curve in self.curves.items():
            values = series.get(key)
            if values is None:
                curve.setData([], [])
                continue
            values = np.asarray(values, dtype=float)
            if key in ("shed_rate", "error_rate"):
                values = values * 100.0
            curve.setData(times_h, values)
        pools = sorted(k.split(":", 1)[1] for k in series if k.startswith("utilisation:"))
        for node_id in list(self.pool_curves):
            if node_id not in pools:
                self.utilisation.removeItem(self.pool_curves.pop(node_id))
        for index, node_id in enumerate(pools):
            curve = self.pool_curves.get(node_id)
            if curve is None:
                curve = self.utilisation.plot(name=titles.get(node_id, node_id),
                                              pen=pg.mkPen(POOL_COLOURS[index % len(POOL_COLOURS)], width=1.4))
                curve.curve.setToolTip(f"{titles.get(node_id, node_id)}: utilisation")
                curve.colour = POOL_COLOURS[index % len(POOL_COLOURS)]
                self.pool_curves[node_id] = curve
            curve.setData(times_h, np.asarray(series[f"utilisation:{node_id}"], dtype=float) * 100.0)
        events = list(result.events)
        if events and "throughput_rps" in series and len(times_h):
            served = np.asarray(series["throughput_rps"], dtype=float)
            xs = np.array([e.time_s / 3600.0 for e in events])
            ys = np.interp(xs, times_h, served)
            self.events.setData(x=xs, y=ys, data=[f"{hours_label(e.time_s / 3600)} {e.message}" for e in events])
        else:
            self.events.setData(x=[], y=[])
        self._fit_y(series)
        self.highlight_pool(self.highlighted_pool)
        for cursor in self.cursors:
            cursor.setVisible(len(times_h) > 0)
        if len(times_h):
            self.latency.setXRange(float(times_h[0]), float(times_h[-1]), padding=0.01)
            self._set_ticks(float(times_h[-1]))

    def _fit_y(self, series) -> None:
        """Rates, shares and money start at zero, with a sensible least span (no '-400 %')."""
        def top(keys, scale=1.0):
            values = [np.nanmax(np.asarray(series[k], dtype=float)) * scale for k in keys if k in series
                      and len(series[k])]
            values = [v for v in values if np.isfinite(v)]
            return max(values) if values else 0.0

        util_keys = [k for k in series if k.startswith("utilisation:")]
        slo_top = max([v for v in self.slos.values() if v is not None] or [0.0])
        for plot, highest, least in ((self.latency, max(top(("p50_ms", "p95_ms", "p99_ms")), slo_top), 1.0),
                                     (self.throughput, top(("offered_rps", "throughput_rps")), 1.0),
                                     (self.utilisation, top(util_keys, 100.0), 100.0),
                                     (self.shed, top(("shed_rate", "error_rate"), 100.0), 1.0),
                                     (self.cost, top(("cost_per_hour",)), 1.0)):
            plot.setYRange(0.0, max(least, highest * 1.12), padding=0)

    def highlight_pool(self, node_id: str | None) -> None:
        """Draw the selected node's utilisation line thick, the others thin."""
        self.highlighted_pool = node_id
        for pool_id, curve in self.pool_curves.items():
            wide = pool_id == node_id
            if getattr(curve, "wide", None) != wide:
                curve.wide = wide
                curve.setPen(pg.mkPen(curve.colour, width=3.2 if wide else 1.4))
                curve.setZValue(10 if wide else 0)

    def _set_ticks(self, end_h: float) -> None:
        step = 6 if end_h > 12 else 2 if end_h > 4 else 1
        major = [(h, f"{int(h) % 24:02d}:00") for h in np.arange(0, end_h + 0.01, step)]
        minor = [(h, "") for h in np.arange(0, end_h + 0.01, step / 2)]
        for plot in self.timeline_plots:
            plot.getAxis("bottom").setTicks([major, minor])

    def show_faults(self, faults) -> None:
        for plot, region in self.fault_regions:
            plot.removeItem(region)
        self.fault_regions.clear()
        for fault in faults:
            start = fault.start_s / 3600.0
            end = (fault.start_s + fault.duration_s) / 3600.0
            for plot in self.timeline_plots:
                region = pg.LinearRegionItem((start, end), movable=False, brush=pg.mkBrush(225, 29, 72, 28),
                                             pen=pg.mkPen(None))
                region.setZValue(-20)
                region.setToolTip(f"{fault.title()} on {fault.target}")
                plot.addItem(region, ignoreBounds=True)
                self.fault_regions.append((plot, region))

    def set_cursor(self, time_s: float) -> None:
        for cursor in self.cursors:
            cursor.blockSignals(True)
            cursor.setValue(time_s / 3600.0)
            cursor.blockSignals(False)

    def _cursor_dragged(self, line: pg.InfiniteLine) -> None:
        value = float(line.value())
        for cursor in self.cursors:
            if cursor is not line:
                cursor.blockSignals(True)
                cursor.setValue(value)
                cursor.blockSignals(False)
        self.cursor_moved.emit(value * 3600.0)

    def show_histogram(self, edges, counts, percentiles: dict[str, float | None]) -> None:
        edges = np.asarray(edges, dtype=float)
        counts = np.asarray(counts, dtype=float)
        if len(edges) == len(counts) + 1 and len(counts):
            self.bars.setOpts(x0=edges[:-1], x1=edges[1:], height=counts)
            self.histogram.setXRange(float(edges[0]), float(edges[-1]), padding=0.02)
        else:
            self.bars.setOpts(x0=[], x1=[], height=[])
        for key, line in self.histogram_lines.items():
            value = percentiles.get(key)
            line.setVisible(value is not None)
            if value is not None:
                line.setValue(value)
