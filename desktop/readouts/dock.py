"""The readouts dock: the headline tiles (at the playhead or at steady state, always saying which),
the plots in tabs beside them with the selected figure's working, the simulated day with play,
pause and scrub, a traffic-pattern selector, fault injection, and the load test.

Every figure shown comes from one :class:`desktop.readouts.readings.Reading`, so the tiles, the line under
them, the plots' cursor and the canvas badges cannot disagree."""

from __future__ import annotations

import html
from typing import Any, Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QMenu, QProgressBar, QPushButton, QSizePolicy,
                               QSlider, QSpinBox, QSplitter, QTabWidget, QToolButton, QVBoxLayout, QWidget)

from inferboard import humanize
from inferboard.sim.explain.trust import steady_trust, timeline_trust

from desktop.readouts.fault_menu import fill_fault_menu
from desktop.readouts.readings import (PEAK, PLAYHEAD, STEADY, Reading, busiest_index, load_test_line, steady_reading,
                              timeline_reading)
from desktop.readouts.tiles import TILES, TileBoard
from desktop.readouts.working_view import WorkingView
from desktop.theme import LIGHT, Theme

FAULT_HOURS = 2.0
#: The plots' tabs are never squeezed narrower than this (at scale 1): the tiles go two across first.
PLOTS_MIN_WIDTH = 280
NO_LOAD_TEST = ("Load test: not run yet. It follows every request through the design at the rate of the figures "
                "shown (the playhead's, the mean or the peak) and gives its percentiles with 95% intervals.")


def patterns() -> tuple[str, ...]:
    """The traffic patterns a timeline can run from the requirements (``replay`` needs a recorded CSV,
    so it is not offered here)."""
    import typing

    from inferboard.model.requirements import TrafficPattern

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
    pattern_changed = Signal(object)
    faults_changed = Signal(tuple)
    load_test_requested = Signal(int)
    load_test_cancelled = Signal()
    #: The figures now shown changed (a Reading): the canvas shows the same moment.
    reading_changed = Signal(object)

    def __init__(self, design_provider: Callable[[], Any], parent: QWidget | None = None):
        super().__init__(parent)
        self.design_provider = design_provider
        self.theme: Theme = LIGHT
        self.faults: tuple = ()
        self.steady = None
        #: The steady state at the requirements' peak rate (None until worked out, or with no peak).
        self.steady_peak = None
        self.timeline = None
        self.load_summary = None
        self.mode = PLAYHEAD
        self.scale = 1.0
        self.compact = False
        self.reading: Reading | None = None
        #: The user put the playhead somewhere: new timelines keep it there (else: the busiest tick).
        self.playhead_placed = False
        self._build_controls()
        self._build_timeline_row()
        self._build_figures()
        self._build_tabs()
        self._lay_out()
        self._fit_tiles_column()
        self.play_timer = QTimer(self)
        self.play_timer.setInterval(40)
        self.play_timer.timeout.connect(self._advance)

    # ------------------------------------------------------------------ building
    def _build_controls(self) -> None:
        self.pattern = QComboBox(self)
        self.pattern.setAccessibleName("Traffic pattern")
        self.pattern.addItem("Requirements' pattern", None)
        for name in patterns():
            self.pattern.addItem(name.title(), name)
        self.pattern.activated.connect(lambda _i: self.pattern_changed.emit(self.pattern.currentData()))
        self.fault_button = QToolButton(self)
        self.fault_button.setText("Inject fault")
        self.fault_button.setAccessibleName("Inject fault")
        self.fault_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.fault_menu = QMenu(self.fault_button)
        self.fault_menu.aboutToShow.connect(self._fill_fault_menu)
        self.fault_button.setMenu(self.fault_menu)
        self.clear_faults_button = QPushButton("Clear faults", self)
        self.clear_faults_button.clicked.connect(self.clear_faults)
        self.fault_label = QLabel("No faults", self)
        self.fault_label.setAccessibleName("Injected faults")
        self.requests = QSpinBox(self)
        self.requests.setAccessibleName("Requests to simulate")
        self.requests.setRange(1000, 5_000_000)
        self.requests.setSingleStep(10_000)
        self.requests.setValue(50_000)
        self.requests.setGroupSeparatorShown(True)
        self.run_button = QPushButton("Run load test", self)
        self.run_button.clicked.connect(lambda: self.load_test_requested.emit(self.requests.value()))
        self.progress = QProgressBar(self)
        self.progress.setAccessibleName("Load test progress")
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(140)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.clicked.connect(self.load_test_cancelled.emit)
        self.cancel_button.hide()
        _cut_not_widen(self.fault_label)  # a list of faults is cut (it is in the tooltip), "No faults" never
        self.fault_label.setMinimumWidth(self.fault_label.fontMetrics().horizontalAdvance("No faults") + 4)

    def _build_timeline_row(self) -> None:
        self.play_button = QPushButton("Play", self)
        self.play_button.setAccessibleName("Play or pause the timeline")
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self.set_playing)
        self.scrub = QSlider(Qt.Orientation.Horizontal, self)
        self.scrub.setAccessibleName("Timeline position")
        self.scrub.setRange(0, 0)
        self.scrub.valueChanged.connect(self._scrubbed)
        self.scrub.actionTriggered.connect(lambda _a: self._placed_by_user())
        self.scrub.sliderPressed.connect(self._placed_by_user)
        self.time_label = QLabel("", self)
        self.time_label.setMinimumWidth(self.time_label.fontMetrics().horizontalAdvance("1d 00:00") + 6)
        self.at_label = QLabel("", self)
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
        self.load_label = QLabel(NO_LOAD_TEST, self)
        self.load_label.setObjectName("load_test_line")
        self.load_label.setAccessibleName("Load test")

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
        controls = QHBoxLayout()
        controls.setSpacing(6)
        controls.addWidget(self.board.head)
        controls.addSpacing(6)
        for widget in (self.pattern, self.fault_button, self.clear_faults_button):
            controls.addWidget(widget)
        controls.addWidget(self.fault_label, 1)
        controls.addWidget(self.estimate_label)
        controls.addWidget(self.status, 2)
        timeline_row = QHBoxLayout()
        timeline_row.setSpacing(6)
        timeline_row.addWidget(self.play_button)
        timeline_row.addWidget(self.scrub, 1)
        timeline_row.addWidget(self.time_label)
        timeline_row.addSpacing(12)
        for widget in (self.requests, self.run_button, self.progress, self.cancel_button):
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
        for label in (self.at_label, self.load_label):  # always there, so the dock never grows
            fixed_lines(label, 2)
            layout.addWidget(label)

    def ensure_plots(self):
        """Build the plots (once) and show anything that arrived before them."""
        if self.plots is None:
            from desktop.readouts.plots import TimelinePlots

            self.plots_placeholder.hide()
            self.plots = TimelinePlots(self.tabs)
            self.plots.cursor_moved.connect(self._cursor_dragged)
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
        self.theme = theme
        if self.plots is not None:
            self.plots.set_theme(theme)
        self.refresh_tiles()

    def _fit_tiles_column(self) -> None:
        """The tiles take the room their numbers need four across (and a little more); the plots the
        rest. Narrower, the tiles go two across and the plots keep at least ``PLOTS_MIN_WIDTH``."""
        from desktop.readouts.tiles import COLUMNS

        self.tiles_column.setMaximumWidth(round(self.board.width_for(COLUMNS) * 1.15) + 8)
        self.tabs.setMinimumWidth(round(PLOTS_MIN_WIDTH * self.scale))

    def resizeEvent(self, event) -> None:
        """Share the width between the tiles and the plots: four tiles across (two rows, the least
        height) when the plots still get their minimum width beside them, else two across."""
        super().resizeEvent(event)
        from desktop.readouts.tiles import COLUMNS, NARROW_COLUMNS

        total = self.splitter.width() - self.splitter.handleWidth()
        wide = self.board.width_for(COLUMNS) + 2
        plots_min = self.tabs.minimumWidth()
        tiles = wide if total - wide >= plots_min else self.board.width_for(NARROW_COLUMNS) + 2
        tiles = max(self.tiles_column.minimumSizeHint().width(), min(tiles, total - plots_min))
        self.splitter.setSizes([tiles, max(plots_min, total - tiles)])

    def set_compact(self, compact: bool) -> None:
        """On a short screen the sentences under the tiles take one line each (two for the basis),
        so the canvas keeps its height; their whole text is in their tooltips."""
        self.compact = compact
        self.board.set_compact(compact)
        for label in (self.at_label, self.load_label):
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
        design = self.design_provider()
        return design.requirements if design is not None else None

    def pattern_name(self) -> str | None:
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
        timeline = self.timeline
        if self.mode == PLAYHEAD and timeline is not None and len(timeline.times_s):
            return timeline_reading(timeline, self.scrub.value(), self.pattern_name())
        if self.mode == PEAK and self.steady_peak is not None:
            return steady_reading(self.steady_peak, at_peak=True)
        if self.steady is not None:
            return steady_reading(self.steady)
        return None

    def refresh_tiles(self) -> None:
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
        title = TILES[key][0] if key in TILES else key
        self.working.show_figure(key, title, self.reading, self.steady, self.design_provider(), self.explain(key))
        if raise_tab:
            self.tabs.setCurrentWidget(self.working)

    def show_failed(self, step: str, message: str) -> None:
        first = message.strip().splitlines()[-1] if message.strip() else step
        self.status.setText(f"<i>{html.escape(step)}: {html.escape(first)}</i>")
        self.status.setToolTip(message.strip()[-2000:])
        self.status.show()

    # ------------------------------------------------------------------ timeline
    def show_timeline(self, result) -> None:
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
        self.ensure_plots().show_timeline(result, titles)
        self.plots.show_faults(self.faults)
        count = len(result.times_s)
        position = self.scrub.value() if self.playhead_placed else busiest_index(result)
        self.scrub.blockSignals(True)
        self.scrub.setRange(0, max(0, count - 1))
        self.scrub.setValue(min(position, max(0, count - 1)))
        self.scrub.blockSignals(False)
        self._scrubbed(self.scrub.value())

    def _placed_by_user(self) -> None:
        self.playhead_placed = True

    def _scrubbed(self, index: int) -> None:
        result = self.timeline
        if result is None or not len(result.times_s):
            self.time_label.setText("")
            return
        index = max(0, min(index, len(result.times_s) - 1))
        t = float(result.times_s[index])
        if self.plots is not None:
            self.plots.set_cursor(t)
        self.time_label.setText(humanize.clock(t))
        self.refresh_tiles()

    def _cursor_dragged(self, time_s: float) -> None:
        result = self.timeline
        if result is None or not len(result.times_s):
            return
        import numpy as np

        self.playhead_placed = True
        index = int(np.clip(np.searchsorted(result.times_s, time_s), 0, len(result.times_s) - 1))
        self.scrub.setValue(index)

    def set_playing(self, on: bool) -> None:
        if self.play_button.isChecked() != on:
            self.play_button.setChecked(on)  # comes back here through ``toggled``
            return
        if on and (self.timeline is None or not len(self.timeline.times_s)):
            self.play_button.setChecked(False)
            return
        self.play_button.setText("Pause" if on else "Play")
        if on:
            self.playhead_placed = True
            if self.mode != PLAYHEAD:
                self.set_mode(PLAYHEAD)
            if self.scrub.value() >= self.scrub.maximum():
                self.scrub.setValue(0)
            self.play_timer.start()
        else:
            self.play_timer.stop()

    def toggle_play(self) -> None:
        self.set_playing(not self.play_button.isChecked())

    def _advance(self) -> None:
        step = max(1, (self.scrub.maximum() + 1) // 360)
        if self.scrub.value() >= self.scrub.maximum():
            self.set_playing(False)
            return
        self.scrub.setValue(min(self.scrub.maximum(), self.scrub.value() + step))

    # ------------------------------------------------------------------ faults
    def _fill_fault_menu(self) -> None:
        fill_fault_menu(self.fault_menu, self.design_provider(), self.add_fault)

    def fault_start_s(self) -> float:
        result = self.timeline
        if result is not None and len(result.times_s):
            t = float(result.times_s[self.scrub.value()])
            if 0 < t < float(result.times_s[-1]) - 1800:
                return t
            return float(result.times_s[-1]) * 0.4
        return 10 * 3600.0

    def add_fault(self, kind: str, target: str, start_s: float | None = None, duration_s: float | None = None,
                  magnitude: float | None = None):
        from inferboard.sim.design.faults import TimedFault

        fault = TimedFault(kind=kind, target=target, magnitude=magnitude,
                           start_s=self.fault_start_s() if start_s is None else start_s,
                           duration_s=FAULT_HOURS * 3600.0 if duration_s is None else duration_s)
        self.faults = (*self.faults, fault)
        self._faults_updated()
        return fault

    def set_faults(self, faults) -> None:
        """Show ``faults`` (the design's planned faults, as the simulator's timed faults)."""
        self.faults = tuple(faults)
        self._faults_updated()

    def clear_faults(self) -> None:
        if self.faults:
            self.faults = ()
            self._faults_updated()

    def _faults_updated(self) -> None:
        if self.faults:
            self.fault_label.setText("; ".join(
                f"{f.title()} → {f.target} ({humanize.clock(f.start_s)}–"
                f"{humanize.clock(f.start_s + f.duration_s)})" for f in self.faults))
        else:
            self.fault_label.setText("No faults")
        self.fault_label.setToolTip(self.fault_label.text())
        if self.plots is not None:
            self.plots.show_faults(self.faults)
        self.faults_changed.emit(self.faults)

    # ------------------------------------------------------------------ load test
    def set_load_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.requests.setEnabled(not running)
        self.progress.setVisible(running)
        self.cancel_button.setVisible(running)
        if running:
            self.progress.setValue(0)
            self.progress.setFormat("%p%")

    def set_load_progress(self, fraction: float) -> None:
        self.progress.setValue(round(fraction * 1000))

    def show_load_result(self, summary) -> None:
        self.load_summary = summary
        self.set_load_running(False)
        pct = {"p50_ms": summary.p50_ms, "p95_ms": summary.p95_ms, "p99_ms": summary.p99_ms}
        n = summary.n_requests
        self.ensure_plots().show_histogram(summary.histogram_edges_ms, summary.histogram_counts, pct, summary.ci_ms,
                                           f"Load test: {humanize.count(n)} requests")
        note = "".join(f" {text}" for text in [summary.load_note, *summary.warnings] if text)
        self.load_label.setText(load_test_line(summary, self._steady_at(summary.offered_rps),
                                               self.load_basis_words(summary.offered_rps)) + note)
        self.load_label.setToolTip(self.load_label.text())
        self.tabs.setCurrentWidget(self.plots.histogram)

    def _steady_at(self, rps: float | None) -> Reading | None:
        """The steady state at the load test's rate when one is known (mean or peak), else the one shown."""
        for result, at_peak in ((self.steady, False), (self.steady_peak, True)):
            reading = steady_reading(result, at_peak) if result is not None else None
            if reading is not None and rps is not None and reading.offered_rps is not None \
                    and abs(reading.offered_rps - rps) <= 1e-6 * max(1.0, rps):
                return reading
        return self.reading if self.reading is not None else (
            steady_reading(self.steady) if self.steady is not None else None)

    def load_basis_words(self, rps: float | None) -> str:
        """Whose rate the load test ran at, told from the rate itself."""
        req = self.requirements()
        if rps is None or req is None:
            return ""
        close = lambda x: x is not None and abs(x - rps) <= 1e-6 * max(1.0, rps)  # noqa: E731
        if close(req.mean_rps):
            return "the mean rate"
        if close(req.peak_rps):
            return "the peak rate"
        return "the playhead's rate"

    def show_load_failed(self, message: str) -> None:
        self.set_load_running(False)
        self.show_failed("load test", message)
