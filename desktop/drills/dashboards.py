"""A drill's dashboards as pyqtgraph plots: one ``PlotWidget`` per panel of a
``views.Dashboard`` (never a ``GraphicsLayoutWidget``: see ``desktop.workshop.cohort_plots``),
an "Unavailable: reason" panel for a view the design lacks, and the tabs that hold them.

Plots are rebuilt only when a dashboard's panels change; a clock tick replaces the lines' data.
Markers: a red line where the on-call engineer was told, a green one per mitigation applied."""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGridLayout, QLabel, QScrollArea, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from inferboard.drills.views import DASHBOARDS, Dashboard, Unavailable

from desktop.drills.widgets import plot_widget
from desktop.theme import DARK_INK, DRILL_PLOT, LIGHT_INK, PLOT_INK, SERIES_SOFT

LINE_COLOURS = list(SERIES_SOFT[:9])
LIMIT_COLOUR, TOLD_COLOUR, MITIGATION_COLOUR, CURSOR_COLOUR = (DRILL_PLOT["limit"], DRILL_PLOT["told"],
                                                              DRILL_PLOT["mitigation"], DRILL_PLOT["cursor"])
COLUMNS = 2
PLOT_HEIGHT = 230
TAB_TITLES = {"system": "System", "breakdown": "By component", "model": "Model", "segments": "By segment",
              "business": "Business"}

#: (minute, label, colour) of a vertical marker
Marker = tuple[float, str, str]


def is_limit(label: str) -> bool:
    """Whether a plot line is a limit (an SLO or a target) rather than a measured series."""
    return "SLO" in label or "target" in label


def unit(label: str) -> str:
    """"ms" for "queue wait (ms)"; '' for a label without a unit."""
    return label[label.rindex("(") + 1:-1] if label.endswith(")") and "(" in label else ""


def plotted(lines: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The lines drawn (those in the first line's unit: one axis per plot) and the others, whose
    latest value the title gives instead."""
    labels = list(lines)
    first = unit(labels[0]) if labels else ""
    drawn = [label for label in labels if unit(label) == first]
    return drawn, [label for label in labels if label not in drawn]


def y_range(low: float, top: float) -> tuple[float, float] | None:
    """From zero for counts, times and flat lines (a flat line is not noise); None (the plot
    scales itself) for values far from zero that move, such as an accuracy falling from 97 to 90."""
    if low < 0.0:
        return None
    if top <= 0.0:
        return 0.0, 1.0
    if low > 0.5 * top and top - low > 0.05 * top:
        return None
    return 0.0, top * 1.15


def latest_value(values) -> float:
    """The last known (not NaN) value of ``values``, or NaN."""
    known = np.asarray(values, dtype=float)
    known = known[~np.isnan(known)]
    return float(known[-1]) if known.size else math.nan


class DashboardPlots(QWidget):
    """The panels of one dashboard in a two-column grid. ``plots`` maps panel title -> PlotItem,
    ``curves`` (panel, line) -> PlotDataItem (tests read their data)."""

    def __init__(self, name: str, parent: QWidget | None = None, dark: bool = False):
        super().__init__(parent)
        self.name = name
        self.setObjectName(f"dashboard_{name}")
        self.setAccessibleName(DASHBOARDS.get(name, name))
        self.dark = dark
        self.widgets: list[QWidget] = []
        self.plots: dict[str, Any] = {}
        self.curves: dict[tuple[str, str], Any] = {}
        self.markers: list[Any] = []
        self.shape: tuple = ()
        self.colours: dict[str, str] = {}  #: line label -> colour, the same in every panel
        self.titles: dict[str, str] = {}  #: panel -> its heading (title, legend, values not drawn)
        self.headings: dict[str, QLabel] = {}
        self.notes = QLabel(self)
        self.notes.setObjectName(f"dashboard_notes_{name}")
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet(f"color: {LIGHT_INK.muted};")
        self.grid = QGridLayout()
        self.grid.setSpacing(6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.notes)
        layout.addLayout(self.grid)
        layout.addStretch(1)

    def release(self) -> None:
        """Remove and delete the plots shown."""
        for widget in self.widgets:
            self.grid.removeWidget(widget)
            widget.deleteLater()
        self.widgets.clear()
        self.plots.clear()
        self.curves.clear()
        self.markers.clear()
        self.titles.clear()
        self.headings.clear()
        self.shape = ()

    def _build(self, dashboard: Dashboard) -> None:
        # pyqtgraph is slow to import: loaded when a plot is first built
        import pyqtgraph as pg

        self.release()
        for n, (title, lines) in enumerate(dashboard.panels.items()):
            frame = QWidget(self)
            heading = QLabel(frame)
            heading.setObjectName("panel_heading")
            heading.setWordWrap(True)
            heading.setTextFormat(Qt.TextFormat.RichText)
            widget, plot = plot_widget(frame, "", f"{title} ({DASHBOARDS.get(self.name, self.name)})", self.dark,
                                       PLOT_HEIGHT - 40)
            plot.showGrid(x=False, y=True, alpha=0.2)
            column = QVBoxLayout(frame)
            column.setContentsMargins(0, 0, 0, 0)
            column.setSpacing(0)
            column.addWidget(heading)
            column.addWidget(widget, 1)
            drawn, _ = plotted(lines)
            for label in drawn:
                if is_limit(label):
                    pen = pg.mkPen(LIMIT_COLOUR, width=1.5, style=Qt.PenStyle.DashLine)
                else:
                    colour = self.colours.setdefault(label, LINE_COLOURS[len(self.colours) % len(LINE_COLOURS)])
                    pen = pg.mkPen(colour, width=2)
                self.curves[(title, label)] = plot.plot([], [], pen=pen, connect="finite")
            self.grid.addWidget(frame, n // COLUMNS, n % COLUMNS)
            self.widgets.append(frame)
            self.plots[title] = plot
            self.headings[title] = heading
        self.shape = tuple((title, tuple(lines)) for title, lines in dashboard.panels.items())

    def key(self, label: str) -> str:
        """The legend entry of a line: its colour (dashed for a limit) and its label."""
        text = label.replace("-", "\u2011").replace(" ", "&nbsp;")  # an entry never breaks across lines
        if is_limit(label):
            return f"<span style='color:{LIMIT_COLOUR}'>┅</span>&nbsp;{text}"
        return f"<span style='color:{self.colours.get(label, LIGHT_INK.muted)}'>■</span>&nbsp;{text}"

    def show_dashboard(self, dashboard: Dashboard, markers: list[Marker] = (), cursor_min: float | None = None) -> None:
        """Draw ``dashboard``'s panels (rebuilt only when their layout changed), with markers and a cursor."""
        shape = tuple((title, tuple(lines)) for title, lines in dashboard.panels.items())
        if shape != self.shape:
            self._build(dashboard)
        self.notes.setText(" · ".join(dashboard.notes))
        self.notes.setVisible(bool(dashboard.notes))
        x = np.asarray(dashboard.times_min, dtype=float)
        ink = PLOT_INK[bool(self.dark)]
        for title, lines in dashboard.panels.items():
            drawn, others = plotted(lines)
            top, low = -math.inf, math.inf
            for label in drawn:
                y = np.asarray(lines[label], dtype=float)
                self.curves[(title, label)].setData(x, y, connect="finite")
                if np.isfinite(y).any():
                    top, low = max(top, float(np.nanmax(y))), min(low, float(np.nanmin(y)))
            plot = self.plots[title]
            span = y_range(low, top) if math.isfinite(top) else (0.0, 1.0)
            if span is None:
                plot.enableAutoRange(axis="y")
            else:
                plot.setYRange(*span, padding=0)
            now = ", ".join(f"{label} {latest_value(lines[label]):.3g}" for label in others)
            text = (f"<b style='color:{ink}'>{title}</b>&nbsp;&nbsp; "
                    + " &nbsp;".join(self.key(label) for label in drawn)
                    + (f"<br><span style='color:{LIGHT_INK.muted}'>now: {now}</span>" if now else ""))
            if self.titles.get(title) != text:
                self.headings[title].setText(text)
                self.titles[title] = text
        self._mark(markers, cursor_min, float(x[-1]) if x.size else 0.0)

    def _mark(self, markers: list[Marker], cursor_min: float | None, end_min: float) -> None:
        # pyqtgraph is slow to import: loaded when a plot is first built
        import pyqtgraph as pg

        for plot, line in self.markers:
            plot.removeItem(line)
        self.markers.clear()
        wanted = list(markers) + ([(cursor_min, "", CURSOR_COLOUR)] if cursor_min is not None else [])
        for n, plot in enumerate(self.plots.values()):
            for k, (at, label, colour) in enumerate(wanted):
                style = Qt.PenStyle.DashLine if colour == TOLD_COLOUR else Qt.PenStyle.SolidLine
                # Labels on the first plot only, one under another, beside the line on the side
                # with room (the left of a line near the right edge).
                side = (1, 0.5) if at > 0.6 * max(end_min, 1.0) else (0, 0.5)
                options = {"position": 0.95 - 0.12 * (k % 4), "color": colour, "movable": False,
                           "anchors": [side, side]}
                line = pg.InfiniteLine(pos=at, angle=90, pen=pg.mkPen(colour, width=1.5, style=style),
                                       label=(label or None) if n == 0 else None, labelOpts=options)
                plot.addItem(line, ignoreBounds=True)
                self.markers.append((plot, line))
            plot.setXRange(0, max(end_min, 1.0), padding=0.02)

    def latest(self, panel: str, line: str) -> float:
        """The last known value of a line (NaN when none), as the dashboard shows it."""
        _, y = self.curves[(panel, line)].getData()
        return math.nan if y is None else latest_value(y)


class UnavailablePanel(QLabel):
    """What a view the design lacks shows instead of plots."""

    def __init__(self, name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(f"unavailable_{name}")
        self.setAccessibleName(f"{DASHBOARDS.get(name, name)} unavailable")
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setMargin(24)

    def show_reason(self, reason: str) -> None:
        """Say why this design cannot show the view, and that its absence costs."""
        self.setText(f"<p style='font-size:13pt'><b>Unavailable:</b> {reason}.</p>"
                     f"<p style='color:{LIGHT_INK.muted}'>This design cannot show this view, so the incident has to be "
                     "worked without it. The result says what its absence cost.</p>")


class DashboardPage(QStackedWidget):
    """One tab: the plots, or the unavailable panel, whichever the view says."""

    def __init__(self, name: str, parent: QWidget | None = None, dark: bool = False):
        super().__init__(parent)
        self.name = name
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.plots = DashboardPlots(name, self.scroll, dark)
        self.scroll.setWidget(self.plots)
        self.unavailable = UnavailablePanel(name, self)
        self.addWidget(self.scroll)
        self.addWidget(self.unavailable)

    @property
    def available(self) -> bool:
        """Whether the page shows plots (not the "unavailable" notice)."""
        return self.currentWidget() is self.scroll

    def show_view(self, shown: Dashboard | Unavailable, markers: list[Marker] = (),
                  cursor_min: float | None = None) -> None:
        """Show a dashboard's plots, or why it is unavailable."""
        if isinstance(shown, Unavailable):
            self.unavailable.show_reason(shown.reason)
            self.setCurrentWidget(self.unavailable)
            return
        self.setCurrentWidget(self.scroll)
        self.plots.show_dashboard(shown, markers, cursor_min)


class DashboardTabs(QTabWidget):
    """A start tab (``intro``), then one tab per dashboard. Switching to a dashboard calls
    ``on_open(name)`` (the drill records the look and calls ``show_views`` with that dashboard
    in the views); only the tab in front is redrawn. A name missing from the views is available
    but not computed."""

    def __init__(self, intro: QWidget, parent: QWidget | None = None, dark: bool = False,
                 on_open: Callable[[str], None] | None = None):
        super().__init__(parent)
        self.setObjectName("dashboards")
        self.setAccessibleName("Dashboards")
        self.on_open = on_open
        self.pages: dict[str, DashboardPage] = {}
        self.addTab(intro, "Page")
        for name in DASHBOARDS:
            page = DashboardPage(name, self, dark)
            self.pages[name] = page
            self.addTab(page, TAB_TITLES[name])
            self.setTabToolTip(self.count() - 1, DASHBOARDS[name])
        self.views: dict[str, Dashboard | Unavailable] = {}
        self.markers: list[Marker] = []
        self.cursor_min: float | None = None
        self.currentChanged.connect(self._changed)

    def current_name(self) -> str | None:
        """The name of the dashboard in front, or None on the page tab."""
        page = self.currentWidget()
        return page.name if isinstance(page, DashboardPage) else None

    def open(self, name: str) -> DashboardPage:
        """Bring dashboard ``name`` to the front; returns its page."""
        self.setCurrentWidget(self.pages[name])
        return self.pages[name]

    def _changed(self, _index: int) -> None:
        name = self.current_name()
        if name is None:
            return
        if self.on_open is not None:
            self.on_open(name)  # the drill records the look and shows the views again
        else:
            self.redraw()

    def show_views(self, views: dict[str, Dashboard | Unavailable], markers: list[Marker] = (),
                   cursor_min: float | None = None) -> None:
        """Keep the latest views and draw the one in front."""
        self.views, self.markers, self.cursor_min = views, list(markers), cursor_min
        for name, page in self.pages.items():
            shown = views.get(name)
            index = self.indexOf(page)
            missing = isinstance(shown, Unavailable)
            self.setTabText(index, TAB_TITLES[name] + (" (none)" if missing else ""))
            self.setTabToolTip(index, f"Unavailable: {shown.reason}" if missing else DASHBOARDS[name])
            self.tabBar().setTabTextColor(index, QColor(DARK_INK.muted if missing else self.palette().text().color()))
        self.redraw()

    def redraw(self) -> None:
        """Draw the dashboard in front from the latest views."""
        name = self.current_name()
        if name is not None and name in self.views:
            self.pages[name].show_view(self.views[name], self.markers, self.cursor_min)

    def release(self) -> None:
        """Delete every page's plots (the window is closing)."""
        for page in self.pages.values():
            page.plots.release()
