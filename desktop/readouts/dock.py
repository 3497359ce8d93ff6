"""The readouts dock: the headline tiles (at the playhead or at steady state, always saying which),
the plots in tabs beside them with the selected figure's working, the simulated day with play,
pause and scrub, a traffic-pattern selector, fault injection, and the load test.

Every figure shown comes from one :class:`desktop.readouts.readings.Reading`, so the tiles, the line under
them, the plots' cursor and the canvas badges cannot disagree."""

from __future__ import annotations

import html
import typing
from typing import Any, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QSplitter, QTabWidget, QVBoxLayout, QWidget

from inferboard import humanize
from inferboard.model.requirements import TrafficPattern
from inferboard.sim.explain.trust import steady_trust, timeline_trust

from desktop.readouts.fault_controls import FaultControls
from desktop.readouts.load_controls import LoadTestControls, rate_words, steady_at_rate
from desktop.readouts.playback import Playback
from desktop.readouts.readings import PEAK, PLAYHEAD, STEADY, Reading, steady_reading, timeline_reading
from desktop.readouts.tiles import COLUMNS, TILES, TileBoard
from desktop.readouts.working_view import WorkingView
from desktop.theme import LIGHT, Theme
from desktop.wrapping import LinesLabel

#: The plots' tabs are never squeezed narrower than this (at scale 1): the tiles go two across first.
PLOTS_MIN_WIDTH = 280


def patterns() -> tuple[str, ...]:
    """The traffic patterns a timeline can run from the requirements (``replay`` needs a recorded CSV,
    so it is not offered here)."""
    return typing.get_args(TrafficPattern)


def fixed_lines(label: QLabel, lines: int) -> None:
    """A wrapped label ``lines`` high whatever it says (the whole text is in its tooltip), so that
    a long message never makes the dock taller and the canvas smaller."""
    label.setWordWrap(True)
    label.setFixedHeight(label.fontMetrics().lineSpacing() * lines + 4)
    label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)


def _cut_not_widen(*labels: QLabel) -> None:
    """Long texts must not widen the dock (and with it the window): they wrap or are cut."""
    for label in labels:
        label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)


class ReadoutsPanel(QWidget):
    """The readouts dock's widget: the tiles and plots of the figures shown, with the playhead
    (``playback``), the planned faults (``fault_plan``) and the load test (``load_test``) beside them."""

    pattern_changed = Signal(object)
    #: The figures now shown changed (a Reading): the canvas shows the same moment.
    reading_changed = Signal(object)

    def __init__(self, design_provider: Callable[[], Any], parent: QWidget | None = None):
        super().__init__(parent)
        self.design_provider = design_provider
        self.theme: Theme = LIGHT
        self.steady = None
        #: The steady state at the requirements' peak rate (None until worked out, or with no peak).
        self.steady_peak = None
        self.timeline = None
        self.load_summary = None
        self.mode = PLAYHEAD
        self.scale = 1.0
        self.compact = False
        self.reading: Reading | None = None
        self.playback = Playback(self)
        self.playback.moved.connect(self._show_playhead)
        self.playback.started.connect(lambda: self.mode == PLAYHEAD or self.set_mode(PLAYHEAD))
        self.fault_plan = FaultControls(self, design_provider, lambda: (self.timeline, self.playback.index()))
        self.fault_plan.faults_changed.connect(self._show_faults)
        self.load_test = LoadTestControls(self)
        self._build_pattern()
        self._build_figures()
        self._build_tabs()
        self._lay_out()
        self._fit_tiles_column()

    # ------------------------------------------------------------------ building
    def _build_pattern(self) -> None:
        """The traffic-pattern selector: the requirements' own, or one the timeline is run with."""
        self.pattern = QComboBox(self)
        self.pattern.setAccessibleName("Traffic pattern")
        self.pattern.addItem("Requirements' pattern", None)
        for name in patterns():
            self.pattern.addItem(name.title(), name)
        self.pattern.activated.connect(lambda _i: self.pattern_changed.emit(self.pattern.currentData()))
        self.at_label = LinesLabel("", self)
        self.at_label.setAccessibleName("Figures shown")
        self.at_label.setWordWrap(True)
        _cut_not_widen(self.at_label)

    def _build_figures(self) -> None:
        """The tiles, the simulator's notes and the load test's line."""
        self.board = TileBoard(self)
        self.board.basis_chosen.connect(self.set_mode)
        self.board.tile_activated.connect(self.show_working)
        self.tiles = self.board.tiles
        self.status = QLabel("", self)
        self.status.setAccessibleName("Simulation notes")
        _cut_not_widen(self.status)
        self.status.hide()
        self.estimate_label = QLabel("<i>≈ Estimate: exact figures in a moment</i>", self)
        self.estimate_label.setAccessibleName("The figures are an estimate")
        self.estimate_label.setToolTip("A batching table this design needs is being built (about a second); until it "
                                       "is, the figures come from the nearest table at hand.")
        self.estimate_label.hide()

    def _build_tabs(self) -> None:
        """The plots' tabs (a placeholder until the plots are built) and the selected figure's working."""
        #: The pyqtgraph plots are built just after the window first shows (pyqtgraph is slow to load).
        self.plots = None
        self.tabs = QTabWidget(self)
        self.tabs.setAccessibleName("Readout tabs")
        self.tabs.setDocumentMode(True)
        self.plots_placeholder = QLabel("Plots appear here once the design has been simulated.", self)
        self.plots_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.plots_placeholder.setWordWrap(True)
        self.tabs.addTab(self.plots_placeholder, "Plots")
        self.working = WorkingView(self)
        self.tabs.addTab(self.working, "Working")

    def _lay_out(self) -> None:
        """Controls above, tiles beside the tabs, the playhead and load-test row and two lines below."""
        faults = self.fault_plan
        controls = QHBoxLayout()
        controls.setSpacing(6)
        controls.addWidget(self.board.head)
        controls.addSpacing(6)
        for widget in (self.pattern, faults.fault_button, faults.clear_faults_button):
            controls.addWidget(widget)
        controls.addWidget(faults.fault_label, 1)
        controls.addWidget(self.estimate_label)
        controls.addWidget(self.status, 2)
        timeline_row = QHBoxLayout()
        timeline_row.setSpacing(6)
        timeline_row.addWidget(self.playback.play_button)
        timeline_row.addWidget(self.playback.scrub, 1)
        timeline_row.addWidget(self.playback.time_label)
        timeline_row.addSpacing(12)
        for widget in self.load_test.widgets():
            timeline_row.addWidget(widget)
        left = QWidget(self)
        self.tiles_column = left
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.board, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(left)
        splitter.addWidget(self.tabs)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setCollapsible(0, False)
        splitter.setCollapsible(1, False)
        self.splitter = splitter
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(controls)
        layout.addWidget(splitter, 1)
        layout.addLayout(timeline_row)
        for label in (self.at_label, self.load_test.load_label):  # always there, so the dock never grows
            fixed_lines(label, 2)
            layout.addWidget(label)

    def ensure_plots(self):
        """Build the plots (once) and show anything that arrived before them."""
        if self.plots is None:
            # pyqtgraph is slow to import: loaded when a plot is first built
            from desktop.readouts.plots import TimelinePlots

            self.plots_placeholder.hide()
            self.plots = TimelinePlots(self.tabs)
            self.plots.cursor_moved.connect(self.playback.seek_time)
            self.plots.set_theme(self.theme)
            self.plots.set_scale(self.scale)
            self.tabs.removeTab(self.tabs.indexOf(self.plots_placeholder))
            self.plots_placeholder.deleteLater()
            self.tabs.setCurrentIndex(0)
            if self.steady is not None:
                self.show_steady(self.steady)
            if self.timeline is not None:
                self.show_timeline(self.timeline)
            if self.load_summary is not None:
                self.show_load_result(self.load_summary)
        return self.plots

    # ------------------------------------------------------------------ theme and size
    def set_theme(self, theme: Theme) -> None:
        """Redraw the tiles and plots in ``theme``'s colours."""
        self.theme = theme
        if self.plots is not None:
            self.plots.set_theme(theme)
        self.refresh_tiles()

    def _fit_tiles_column(self) -> None:
        """The tiles take the room their numbers need four across (and a little more); the plots the
        rest. Narrower, the tiles go two across and the plots keep at least ``PLOTS_MIN_WIDTH``."""
        self.tiles_column.setMaximumWidth(round(self.board.width_for(COLUMNS) * 1.15) + 8)
        self.tabs.setMinimumWidth(round(PLOTS_MIN_WIDTH * self.scale))

    def resizeEvent(self, event) -> None:
        """Share the width between the tiles and the plots: as many tiles across (four, three, else
        two: the fewer rows, the less height) as leave the plots their minimum width beside them."""
        super().resizeEvent(event)
        total = self.splitter.width() - self.splitter.handleWidth()
        plots_min = self.tabs.minimumWidth()
        tiles = self.board.width_for(self.board.columns_for(total - plots_min - 2)) + 2
        tiles = max(self.tiles_column.minimumSizeHint().width(), min(tiles, total - plots_min))
        self.splitter.setSizes([tiles, max(plots_min, total - tiles)])

    def set_compact(self, compact: bool) -> None:
        """On a short screen the sentences under the tiles take one line each (two for the basis),
        so the canvas keeps its height; their whole text is in their tooltips."""
        self.compact = compact
        self.board.set_compact(compact)
        for label in (self.at_label, self.load_test.load_label):
            fixed_lines(label, 1 if compact else 2)

    def set_scale(self, scale: float) -> None:
        """Larger type for a projector (1.0 is the normal size)."""
        self.scale = scale
        self.board.set_scale(scale)
        self.set_compact(self.compact)  # the sentences' fixed heights follow their (maybe larger) font
        self._fit_tiles_column()
        self.working.set_scale(scale)
        if self.plots is not None:
            self.plots.set_scale(scale)

    # ------------------------------------------------------------------ the figures shown
    def requirements(self):
        """The design's requirements, or None without a design."""
        design = self.design_provider()
        return design.requirements if design is not None else None

    def pattern_name(self) -> str | None:
        """The traffic pattern the timeline runs: the one chosen here, else the requirements'."""
        chosen = self.pattern.currentData()
        if chosen:
            return str(chosen)
        req = self.requirements()
        return req.traffic_pattern if req is not None else None

    def set_mode(self, mode: str) -> None:
        """PLAYHEAD (the timeline's moment under the cursor), STEADY (the analytic steady state at
        the mean rate) or PEAK (the same at the peak rate)."""
        self.mode = mode if mode in (PLAYHEAD, PEAK) else STEADY
        self.board.set_mode(self.mode)
        self.refresh_tiles()

    def current_reading(self) -> Reading | None:
        """The figures for the chosen basis: the playhead's tick, the peak or the mean (None before any result)."""
        timeline = self.timeline
        if self.mode == PLAYHEAD and timeline is not None and len(timeline.times_s):
            return timeline_reading(timeline, self.playback.index(), self.pattern_name())
        if self.mode == PEAK and self.steady_peak is not None:
            return steady_reading(self.steady_peak, at_peak=True)
        if self.steady is not None:
            return steady_reading(self.steady)
        return None

    def refresh_tiles(self) -> None:
        """Show the current reading on the tiles, their tooltips and the basis line, and announce it."""
        self.reading = reading = self.current_reading()
        self.board.show_reading(reading, self.requirements(), self.theme)
        trust = self.trust_of(reading)
        for key, tile in self.tiles.items():
            words = self.working.plain_summary(key, reading, self.steady, self.design_provider())
            tile.explanation = words
            label = trust[key].text() if key in trust else ""
            tile.trust = label
            tile.setAccessibleDescription(label)
            how = f"<br><b>How far to trust it:</b> {html.escape(label)}" if label else ""
            tile.setToolTip(f"<b>{html.escape(tile.title)}</b><br>{html.escape(words)}{how}<br><i>Click for the "
                            "working.</i>" if words else tile.title + how)
        self.at_label.setText(reading.status_line() if reading is not None else "")
        self.at_label.setToolTip(reading.basis if reading is not None else "")
        if self.working.key is not None:
            self.show_working(self.working.key, raise_tab=False)
        self.reading_changed.emit(reading)

    def trust_of(self, reading: Reading | None) -> dict:
        """How each headline figure of ``reading`` was obtained (see ``inferboard.sim.explain.trust``)."""
        if reading is None:
            return {}
        if reading.mode == PLAYHEAD:
            return timeline_trust()
        result = self.steady_peak if reading.mode == PEAK else self.steady
        return steady_trust(result) if result is not None else {}

    def show_steady(self, result) -> None:
        """Show a new steady-state result (and any note about an assumed load) and the SLO lines."""
        self.steady = result
        if result.load_note:  # no traffic figures declared: the figures are at an assumed load
            self.status.setText(f"<i>{html.escape(result.load_note)}</i>")
            self.status.show()
        else:
            self.status.hide()
        self.refresh_tiles()
        req = self.requirements()
        if req is not None and self.plots is not None:
            self.plots.set_slos({k: getattr(req, f"slo_{k}") for k in ("p50_ms", "p95_ms", "p99_ms")},
                                req.budget_per_hour)

    def set_estimate(self, estimated: bool) -> None:
        """Say whether the figures shown are an estimate (their exact batching tables are being built)."""
        self.estimate_label.setVisible(estimated)

    def show_steady_peak(self, result) -> None:
        """Keep the steady state at the peak rate, shown when the peak is the basis."""
        self.steady_peak = result
        if self.mode == PEAK:
            self.refresh_tiles()

    def load_test_rate(self) -> tuple[float | None, str]:
        """The rate the load test runs at, the figures' own (None: the requirements' mean), and words
        for it."""
        reading = self.reading
        if reading is not None and reading.offered_rps and reading.mode == PLAYHEAD:
            return reading.offered_rps, f"the playhead's rate, {humanize.clock(reading.time_s)}"
        if reading is not None and reading.offered_rps and reading.mode == PEAK:
            return reading.offered_rps, "the peak rate"
        return None, "the mean rate"

    def explain(self, key: str) -> str:
        """The simulator's own notation for a steady-state figure."""
        if self.steady is None or not hasattr(self.steady, "explain"):
            return ""
        try:
            return str(self.steady.explain(key))
        except Exception as error:  # an explanation must never break the window
            return f"(no explanation: {error})"

    def show_working(self, key: str, raise_tab: bool = True) -> None:
        """Show how figure ``key`` was worked out, in the Working tab (brought to the front with ``raise_tab``)."""
        title = TILES[key][0] if key in TILES else key
        self.working.show_figure(key, title, self.reading, self.steady, self.design_provider(), self.explain(key))
        if raise_tab:
            self.tabs.setCurrentWidget(self.working)

    def show_failed(self, step: str, message: str) -> None:
        """Say that ``step`` failed, with the last line of ``message`` (all of it in the tooltip)."""
        first = message.strip().splitlines()[-1] if message.strip() else step
        self.status.setText(f"<i>{html.escape(step)}: {html.escape(first)}</i>")
        self.status.setToolTip(message.strip()[-2000:])
        self.status.show()

    # ------------------------------------------------------------------ timeline
    def show_timeline(self, result) -> None:
        """Plot a new simulated day, its series named by the nodes' labels, and move the playhead over it."""
        self.timeline = result
        design = self.design_provider()
        titles = {}
        if design is not None:
            labels = [n.label for n in design.nodes.values() if n.label]
            for node in design.nodes.values():
                if not node.label:
                    titles[node.id] = node.id
                else:  # a label two pools share is told apart by the id
                    titles[node.id] = node.label if labels.count(node.label) == 1 else f"{node.label} ({node.id})"
        self.ensure_plots().show_timeline(result, titles, design)
        self.plots.show_faults(self.fault_plan.faults)
        self.playback.show_timeline(result)

    def _show_playhead(self, index: int) -> None:
        """The playhead moved to tick ``index``: the plots' cursor and the figures follow."""
        if self.plots is not None:
            self.plots.set_cursor(float(self.timeline.times_s[index]))
        self.refresh_tiles()

    def _show_faults(self, faults: tuple) -> None:
        if self.plots is not None:
            self.plots.show_faults(faults)

    # ------------------------------------------------------------------ load test
    def show_load_result(self, summary) -> None:
        """Show a finished load test: its histogram in the plots and its line under the tiles."""
        self.load_summary = summary
        pct = {"p50_ms": summary.p50_ms, "p95_ms": summary.p95_ms, "p99_ms": summary.p99_ms}
        n = summary.n_requests
        self.ensure_plots().show_histogram(summary.histogram_edges_ms, summary.histogram_counts, pct, summary.ci_ms,
                                           f"Load test: {humanize.count(n)} requests")
        rps = summary.offered_rps
        self.load_test.show_line(summary, steady_at_rate(self.steady, self.steady_peak, self.reading, rps),
                                 rate_words(self.requirements(), rps))
        self.tabs.setCurrentWidget(self.plots.histogram)

    def show_load_failed(self, message: str) -> None:
        """Say why the load test failed, and offer Run again."""
        self.load_test.set_running(False)
        self.show_failed("load test", message)
