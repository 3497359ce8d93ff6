"""The readouts' plots (pyqtgraph), one per tab so each gets the panel's whole width: latency
percentiles against their SLOs, throughput, utilisation per pool, shed and error rates, cost per
hour and model quality (:mod:`quality_plot`) over the simulated day, and the load test's latency
histogram with its intervals.

Every plot has titled axes and a legend; limits (SLOs, budget) are named on the right-hand axis,
beside the plot, not on top of the curves. pyqtgraph's interaction defaults are tuned for a
classroom: no auto-range button, no context menu, and the mouse wheel zooms only with Ctrl held
(otherwise it scrolls the panel as anywhere else). Curves are created once; updates only
``setData``."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics
from PySide6.QtWidgets import QApplication, QGraphicsItem, QSizePolicy, QTabWidget, QWidget

from inferboard import humanize

from desktop.readouts.quality_plot import QualityPlots
from desktop.theme import LIGHT, PERCENTILES, PLOT, SERIES, Theme

POOL_COLOURS = SERIES[:10]
PERCENTILE_COLOURS = PERCENTILES
TIME_AXIS = "Simulated time of day"
#: Legend entries side by side above a plot before a second row starts.
LEGEND_COLUMNS = 4
#: A legend entry's sample line and the gaps around it.
LEGEND_SAMPLE_PX = 44
#: The least width a shortened legend entry gets (a sample and about a dozen characters).
LEGEND_LEAST_ENTRY_PX = 130
#: The value axis and the limits' axis beside the plot area, which the legend row leaves free.
LEGEND_AXES_PX = 70
#: A plot area at least this tall may give its legend a second row above it.
LEGEND_TWO_ROWS_FROM_PX = 160
#: The time axis under the plot area, with its title.
LEGEND_TIME_AXIS_PX = 40
#: Room between two time labels on a plot's axis.
TICK_GAP_PX = 16


class TidyAxis(pg.AxisItem):
    """Tick labels with no more decimals than the tick spacing needs, at most two (a flat series
    reads "97.5", not "97.5000000000002"), and thousands grouped."""

    def tickStrings(self, values, scale, spacing):
        """Tick labels with thousands separators and no more decimals than the spacing needs."""
        step = abs(spacing * scale) or 1.0
        decimals = int(min(2, max(0, np.ceil(-np.log10(step)))))
        return [f"{value * scale:,.{decimals}f}" for value in values]


class ClassroomViewBox(pg.ViewBox):
    """Wheel zoom only with Ctrl held; otherwise the wheel is left to the widgets around."""

    def wheelEvent(self, ev, axis=None):
        """Zoom only with Ctrl held, so the wheel scrolls the page as usual."""
        if ev.modifiers() & Qt.KeyboardModifier.ControlModifier:
            super().wheelEvent(ev, axis)
        else:
            ev.ignore()


class LegendRow(pg.LegendItem):
    """A legend laid out in the plot item's top row, never floating over the data: as many entries
    across as the width takes, in one row above a short plot and two above a tall one; long names
    are shortened to fit, and entries beyond that room are summed up as "+N more" (the plot's
    tooltip names every line)."""

    def __init__(self, item: pg.PlotItem):
        super().__init__(labelTextSize="9pt", colCount=LEGEND_COLUMNS, frame=False, horSpacing=12)
        self.plot_item = item
        self.size_px = (0.0, 0.0)
        self.shown = 0  #: entries shown whole; the one after them (if any) says how many more there are
        # The plot's width decides the columns, never the legend the plot's width.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(1)

    def fit(self, width_px: float, height_px: float) -> None:
        """Lay the entries out above a plot area ``width_px`` wide and ``height_px`` tall."""
        self.size_px = (width_px, height_px)
        count = len(self.items)
        if not count:
            return
        for _sample, label in self.items:
            label.full_text = getattr(label, "full_text", label.text)
        widest = max(QFontMetrics(label.item.font()).horizontalAdvance(label.full_text)
                     for _s, label in self.items) + LEGEND_SAMPLE_PX
        across = max(1, int(width_px // min(widest, LEGEND_LEAST_ENTRY_PX)))
        room_for = across * (1 if height_px < LEGEND_TWO_ROWS_FROM_PX else 2)
        self.shown = count if count <= room_for else max(0, room_for - 1)
        columns = min(count, across, max(1, room_for)) if self.shown < count else \
            min(count, max(across, int(width_px // widest)))
        self._name_entries(int(width_px / columns) - LEGEND_SAMPLE_PX)
        self.columnCount = columns
        self._relay()

    def _name_entries(self, room: int) -> None:
        for index, (sample, label) in enumerate(self.items):
            metrics, text = QFontMetrics(label.item.font()), label.full_text
            if index == self.shown and self.shown < len(self.items):
                text = f"+{len(self.items) - self.shown} more"
            elif metrics.horizontalAdvance(text) > room and text.endswith(")") and " (" in text:
                text = text[text.rindex(" (") + 2:-1]  # "Label (node-id)": the id tells it apart
            text = metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, room)
            if text != label.text:
                label.setText(text)
            sample.setVisible(index < self.shown)
            label.setVisible(index <= self.shown)

    def _relay(self) -> None:
        """Lay the entries out again from scratch (the ones shown may have changed)."""
        for index in range(self.layout.count() - 1, -1, -1):
            self.layout.removeAt(index)
        self.rowCount = 0
        for sample, label in self.items:
            self._addItemToLayout(sample, label)
        self.updateSize()

    def _removeItemFromLayout(self, *items) -> None:
        """Take an entry out of the grid if it is in it (one summed up in "+N more" is not)."""
        for item in items:
            if any(self.layout.itemAt(i) is item for i in range(self.layout.count())):
                self.layout.removeItem(item)
            item.close()
            if item.scene() is not None:  # PySide leaves a closed item in its scene
                item.scene().removeItem(item)

    def removeItem(self, item) -> None:
        """Remove an entry, then lay the legend out again for the size last given."""
        super().removeItem(item)
        if self.size_px[0]:
            self.fit(*self.size_px)

    def _addItemToLayout(self, sample, label) -> None:
        """Only the entries shown (and the "+N more") take a place in the grid."""
        if label.isVisible():
            super()._addItemToLayout(sample, label)

    def addItem(self, item, name) -> None:
        """Add an entry, then lay the legend out again for the size last given."""
        super().addItem(item, name)
        if self.size_px[0]:
            self.fit(*self.size_px)

    def updateSize(self) -> None:
        """Size to the entries, and give the plot item's top row that height (none when empty)."""
        super().updateSize()
        content = self.layout.preferredSize()
        self.plot_item.layout.setRowFixedHeight(0, content.height() if self.items and self.isVisible() else 0)
        self.setMaximumSize(content)  # no stretching: the entries stay together, on the left

    def itemChange(self, change, value):
        """A hidden legend (a plot of one named curve) keeps no row above the plot."""
        result = super().itemChange(change, value)
        if change == QGraphicsItem.GraphicsItemChange.ItemVisibleHasChanged:
            self.updateSize()
        return result


class Plot(pg.PlotWidget):
    """One readout plot: a titled time axis, a tidy value axis, the theme's colours, no auto-range button or menu."""

    def __init__(self, name: str, y_title: str, x_title: str = TIME_AXIS, parent: QWidget | None = None):
        super().__init__(parent, viewBox=ClassroomViewBox(), axisItems={"left": TidyAxis("left")})
        self.setObjectName(f"plot:{name}")
        self.setAccessibleName(f"{name} plot")
        item = self.getPlotItem()
        item.hideButtons()  # the stray "A" auto-range button
        item.setMenuEnabled(False)
        item.showGrid(x=True, y=True, alpha=0.15)
        item.setDownsampling(mode="peak")
        item.setClipToView(True)
        self.y_title, self.x_title = y_title, x_title
        item.setLabel("left", y_title)
        self._label_bottom(x_title)
        item.showAxis("right")
        right = item.getAxis("right")
        right.setTicks([[]])
        right.setStyle(showValues=True)
        right.setWidth(10)
        self.legend = self._legend_above(item)
        item.setMouseEnabled(x=True, y=False)
        self.limit_ticks: list[tuple[float, str]] = []

    def _label_bottom(self, title: str, **style) -> None:
        """The time axis's title; none (and no room kept for one) when ``title`` is empty, as on the
        upper plots of a stack sharing one time axis."""
        item = self.getPlotItem()
        if title:
            item.setLabel("bottom", title, **style)
        else:
            item.getAxis("bottom").showLabel(False)

    @staticmethod
    def _legend_above(item: pg.PlotItem) -> "LegendRow":
        """The legend in a row of its own above the plot area (the plot item's title row), in columns
        across: on a narrow plot it never covers a line or a limit. Named curves join it as usual."""
        legend = LegendRow(item)
        item.legend = legend
        item.layout.removeItem(item.titleLabel)
        item.layout.addItem(legend, 0, 1, alignment=Qt.AlignmentFlag.AlignLeft)
        legend.updateSize()
        return legend

    def fit_legend(self) -> None:
        """Lay the legend out for the plot's current size; the tooltip names every line."""
        self.legend.fit(max(LEGEND_LEAST_ENTRY_PX, self.width() - LEGEND_AXES_PX), self.height() - LEGEND_TIME_AXIS_PX)
        self.setToolTip("Lines: " + ", ".join(getattr(label, "full_text", label.text) for _s, label in self.legend.items)
                        if self.legend.items else "")

    def resizeEvent(self, event) -> None:
        """Fit the legend row to the new width."""
        if "legend" in self.__dict__:  # pyqtgraph resizes the widget before its legend exists
            self.fit_legend()
        super().resizeEvent(event)

    def set_limits(self, limits: list[tuple[float, str]]) -> None:
        """Name limit lines on the right-hand axis, beside the plot."""
        self.limit_ticks = list(limits)
        axis = self.getPlotItem().getAxis("right")
        axis.setTicks([self.limit_ticks, []])
        width = max([axis.fontMetrics().horizontalAdvance(text) if hasattr(axis, "fontMetrics") else 8 * len(text)
                     for _v, text in self.limit_ticks] or [0])
        axis.setWidth(max(10, width + 14) if self.limit_ticks else 10)

    def set_scale(self, scale: float) -> None:
        """Tick labels, axis titles and the legend in larger type."""
        item = self.getPlotItem()
        font = QFont(QApplication.font())  # not the panel's, which may be scaled already
        size = (font.pointSizeF() if font.pointSizeF() > 0 else 9.0) * scale
        font.setPointSizeF(size)
        for name in ("left", "bottom", "right"):
            axis = item.getAxis(name)
            axis.setStyle(tickFont=font)
            axis.label.setFont(font)
        item.getAxis("left").setWidth(int(52 * scale))
        self.legend.opts["labelTextSize"] = f"{size:.0f}pt"
        for _sample, label in self.legend.items:
            label.setText(label.text, size=f"{size:.0f}pt")
        self.set_limits(self.limit_ticks)

    def set_theme(self, theme: Theme) -> None:
        """Colour the background, the axes and the title for ``theme``."""
        self.setBackground(theme.canvas)
        item = self.getPlotItem()
        for name in ("left", "bottom", "right"):
            axis = item.getAxis(name)
            axis.setPen(pg.mkPen(theme.muted))
            axis.setTextPen(pg.mkPen(theme.text))
        item.setLabel("left", self.y_title, color=theme.text)
        self._label_bottom(self.x_title, color=theme.text)
        colour = pg.mkColor(theme.canvas)
        colour.setAlpha(200)
        self.legend.setBrush(pg.mkBrush(colour))
        self.legend.setPen(pg.mkPen(theme.muted))
        self.legend.setLabelTextColor(theme.text)
        for _sample, label in self.legend.items:
            label.setText(label.text, color=theme.text)  # setLabelTextColor alone repaints nothing


class TimelinePlots(QObject):
    """The plots, each added as a tab of ``tabs`` (before the tabs already there)."""

    #: The user dragged the time cursor (seconds).
    cursor_moved = Signal(float)

    def __init__(self, tabs: QTabWidget):
        super().__init__(tabs)
        self.tabs = tabs
        self._added = 0
        self.theme: Theme = LIGHT
        self.latency = self._add("Latency", "Latency (ms)")
        self.throughput = self._add("Throughput", "Requests per second")
        self.utilisation = self._add("Utilisation", "Utilisation (%)")
        self.shed = self._add("Shed and errors", "Lost requests (%)")
        self.cost = self._add("Cost", "Cost ($ per hour)")
        self.quality = QualityPlots(tabs, self._added, Plot)
        self._added += 1
        self.histogram = self._add("Load test", "Requests", x_title="Latency of one request (ms)")
        self.timeline_plots = [self.latency, self.throughput, self.utilisation, self.shed, self.cost,
                               *self.quality.plots()]
        for plot in self.timeline_plots[1:]:
            plot.setXLink(self.latency)
        self.curves = {
            "p50_ms": self.latency.plot(name="p50", pen=pg.mkPen(PERCENTILE_COLOURS["p50_ms"], width=2)),
            "p95_ms": self.latency.plot(name="p95", pen=pg.mkPen(PERCENTILE_COLOURS["p95_ms"], width=2)),
            "p99_ms": self.latency.plot(name="p99", pen=pg.mkPen(PERCENTILE_COLOURS["p99_ms"], width=2.4)),
            "offered_rps": self.throughput.plot(name="offered", pen=pg.mkPen(PLOT["offered"], width=1.8,
                                                                             style=Qt.PenStyle.DashLine)),
            "throughput_rps": self.throughput.plot(name="served", pen=pg.mkPen(PLOT["served"], width=2.2)),
            "shed_rate": self.shed.plot(name="shed", pen=pg.mkPen(PLOT["shed"], width=2)),
            "error_rate": self.shed.plot(name="errors", pen=pg.mkPen(PLOT["errors"], width=2)),
            "cost_per_hour": self.cost.plot(name="cost per hour", pen=pg.mkPen(PLOT["cost"], width=2.2)),
        }
        self.pool_curves: dict[str, pg.PlotDataItem] = {}
        self.slos: dict[str, float | None] = {}
        self.budget: float | None = None
        self.highlighted_pool: str | None = None
        self.slo_lines: dict[str, pg.InfiniteLine] = {}
        for key in ("p50_ms", "p95_ms", "p99_ms"):
            line = pg.InfiniteLine(angle=0, movable=False,
                                   pen=pg.mkPen(PERCENTILE_COLOURS[key], width=1.2, style=Qt.PenStyle.DashLine))
            line.hide()
            self.latency.addItem(line)  # the SLO stays in view, so the headroom shows
            self.slo_lines[key] = line
        self.budget_line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen(PLOT["cost"], style=Qt.PenStyle.DashLine))
        self.budget_line.hide()
        self.cost.addItem(self.budget_line)
        self.cursors = []
        for plot in self.timeline_plots:
            cursor = pg.InfiniteLine(angle=90, movable=True, pen=pg.mkPen(PLOT["cursor"], width=1.5))
            cursor.sigDragged.connect(self._cursor_dragged)
            cursor.hide()
            plot.addItem(cursor, ignoreBounds=True)
            self.cursors.append(cursor)
        self.fault_regions: list[tuple[pg.PlotWidget, pg.LinearRegionItem]] = []
        self.events = pg.ScatterPlotItem(size=10, symbol="t", brush=pg.mkBrush(PLOT["event"]), pen=None,
                                         hoverable=True, tip=lambda x, y, data: str(data), name="events")
        self.throughput.addItem(self.events)
        self.bars = pg.BarGraphItem(x0=[], x1=[], height=[], brush=pg.mkBrush(PLOT["bar_fill"]), pen=pg.mkPen(PLOT["bar_edge"]),
                                    name="requests")
        self.histogram.addItem(self.bars)
        self.histogram_lines: dict[str, pg.InfiniteLine] = {}
        self.histogram_bands: dict[str, pg.LinearRegionItem] = {}
        for key in ("p50_ms", "p95_ms", "p99_ms"):
            colour = pg.mkColor(PERCENTILE_COLOURS[key])
            band_colour = pg.mkColor(colour)
            band_colour.setAlpha(45)
            band = pg.LinearRegionItem((0, 0), movable=False, brush=pg.mkBrush(band_colour), pen=pg.mkPen(None))
            band.hide()
            self.histogram.addItem(band, ignoreBounds=True)
            self.histogram_bands[key] = band
            line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(colour, width=2))
            line.hide()
            self.histogram.addItem(line, ignoreBounds=True)
            self.histogram_lines[key] = line
            self.histogram.legend.addItem(pg.PlotDataItem(pen=pg.mkPen(colour, width=2)), key[:3])
        self.times_h = np.zeros(0)

    def _add(self, title: str, y_title: str, x_title: str = TIME_AXIS) -> Plot:
        plot = Plot(title, y_title, x_title, self.tabs)
        self.tabs.insertTab(self._added, plot, title)
        self._added += 1
        return plot

    def plots(self) -> list[Plot]:
        """Every plot: the timeline's and the load test's histogram."""
        return self.timeline_plots + [self.histogram]

    def set_scale(self, scale: float) -> None:
        """Larger type on every plot (1.0 is the normal size)."""
        for plot in self.plots():
            plot.set_scale(scale)

    # ------------------------------------------------------------------ theme
    def set_theme(self, theme: Theme) -> None:
        """Redraw every plot in ``theme``'s colours."""
        self.theme = theme
        for plot in self.plots():
            plot.set_theme(theme)

    # ------------------------------------------------------------------ data
    def set_slos(self, slos: dict[str, float | None], budget: float | None) -> None:
        """Draw the latency SLOs and the hourly budget as limit lines."""
        self.slos = dict(slos)
        self.budget = budget
        limits = []
        for key, line in self.slo_lines.items():
            value = slos.get(key)
            line.setVisible(value is not None)
            if value is not None:
                line.setValue(value)
                limits.append((float(value), f"{key[:3]} SLO {humanize.duration_ms(value)}"))
        self.latency.set_limits(limits)
        self.budget_line.setVisible(budget is not None)
        if budget is not None:
            self.budget_line.setValue(budget)
        self.cost.set_limits([(float(budget), f"budget {humanize.money_per_hour(budget)}")] if budget is not None
                             else [])

    def show_timeline(self, result, titles: dict[str, str], design=None) -> None:
        """Plot a simulated day's series, one curve per pool named by ``titles``; ``design`` gives the
        Quality tab its accuracy target and detector thresholds."""
        times_h = np.asarray(result.times_s, dtype=float) / 3600.0
        self.quality.show(result, design, titles)
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
            if node_id not in pools or self.pool_curves[node_id].opts.get("name") != titles.get(node_id, node_id):
                curve = self.pool_curves.pop(node_id)
                self.utilisation.removeItem(curve)
        for index, node_id in enumerate(pools):
            curve = self.pool_curves.get(node_id)
            colour = POOL_COLOURS[index % len(POOL_COLOURS)]
            if curve is None:
                curve = self.utilisation.plot(name=titles.get(node_id, node_id), pen=pg.mkPen(colour, width=2))
                curve.colour = colour
                self.pool_curves[node_id] = curve
            curve.setData(times_h, np.asarray(series[f"utilisation:{node_id}"], dtype=float) * 100.0)
        self.utilisation.fit_legend()
        events = list(result.events)
        if events and "throughput_rps" in series and len(times_h):
            served = np.asarray(series["throughput_rps"], dtype=float)
            xs = np.array([e.time_s / 3600.0 for e in events])
            ys = np.interp(xs, times_h, served)
            self.events.setData(x=xs, y=ys, data=[f"{humanize.clock(e.time_s)} {humanize.in_text(e.message)}" for e in events])
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
                                     (self.cost, max(top(("cost_per_hour",)), self.budget or 0.0), 1.0)):
            plot.setYRange(0.0, max(least, highest * 1.12), padding=0)

    def highlight_pool(self, node_id: str | None) -> None:
        """Draw the selected node's utilisation line thick, the others thin."""
        self.highlighted_pool = node_id
        for pool_id, curve in self.pool_curves.items():
            wide = pool_id == node_id
            if getattr(curve, "wide", None) != wide:
                curve.wide = wide
                curve.setPen(pg.mkPen(curve.colour, width=4 if wide else 2))
                curve.setZValue(10 if wide else 0)

    def _set_ticks(self, end_h: float) -> None:
        self.end_h = end_h
        for plot in self.timeline_plots:
            if not getattr(plot, "ticks_follow_width", False):  # a narrower plot gets fewer time labels
                plot.getPlotItem().vb.sigResized.connect(lambda _vb, p=plot: self._fit_ticks(p))
                plot.ticks_follow_width = True
            self._fit_ticks(plot)

    def _fit_ticks(self, plot) -> None:
        """Time labels every 1, 2, 3, 6, 12 or 24 hours: as many as fit side by side with a gap."""
        end_h = getattr(self, "end_h", None)
        if not end_h:
            return
        axis = plot.getPlotItem().getAxis("bottom")
        font = axis.style.get("tickFont") or plot.font()
        label = QFontMetrics(font).horizontalAdvance(humanize.clock(end_h * 3600)) + TICK_GAP_PX
        fits = max(2, int(plot.getPlotItem().vb.width() // label))
        step = next((s for s in (1, 2, 3, 6, 12) if int(end_h // s) + 1 <= fits), 24)
        major = [(h, humanize.clock(h * 3600)) for h in np.arange(0, end_h + 0.01, step)]
        minor = [(h, "") for h in np.arange(0, end_h + 0.01, step / 2)]
        axis.setTicks([major, minor])

    def show_faults(self, faults) -> None:
        """Shade each fault's time span on the timeline plots."""
        for plot, region in self.fault_regions:
            plot.removeItem(region)
        self.fault_regions.clear()
        for fault in faults:
            start = fault.start_s / 3600.0
            end = (fault.start_s + fault.duration_s) / 3600.0
            for plot in self.timeline_plots:
                region = pg.LinearRegionItem((start, end), movable=False, brush=pg.mkBrush(QColor(PLOT["fault_span"])),
                                             pen=pg.mkPen(None))
                region.setZValue(-20)
                region.setToolTip(f"{fault.title()} on {fault.target}")
                plot.addItem(region, ignoreBounds=True)
                self.fault_regions.append((plot, region))

    def set_cursor(self, time_s: float) -> None:
        """Put every plot's cursor at ``time_s`` without announcing it."""
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

    def show_histogram(self, edges, counts, percentiles: dict[str, float | None],
                       intervals: dict[str, tuple] | None = None, title: str = "") -> None:
        """Bars of the load test's latencies, each percentile a line and its 95% interval a band."""
        edges = np.asarray(edges, dtype=float)
        counts = np.asarray(counts, dtype=float)
        if len(edges) == len(counts) + 1 and len(counts):
            self.bars.setOpts(x0=edges[:-1], x1=edges[1:], height=counts)
            self.histogram.setXRange(float(edges[0]), float(edges[-1]), padding=0.02)
        else:
            self.bars.setOpts(x0=[], x1=[], height=[])
        intervals = intervals or {}
        for key, line in self.histogram_lines.items():
            value = percentiles.get(key)
            line.setVisible(value is not None)
            if value is not None:
                line.setValue(value)
            low, high = (tuple(intervals.get(key[:3]) or ()) + (None, None))[:2]
            band = self.histogram_bands[key]
            band.setVisible(low is not None and high is not None)
            if low is not None and high is not None:
                band.setRegion((float(low), float(high)))
        self.histogram.getPlotItem().setTitle(title or None)
