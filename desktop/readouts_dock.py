"""The readouts dock: the steady-state figures (each can show its working), the simulated day
with play, pause and scrub, a traffic-pattern selector, fault injection, and the load test."""

from __future__ import annotations

import html
import math
from typing import Any, Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QComboBox, QGridLayout, QHBoxLayout, QLabel, QMenu, QProgressBar, QPushButton,
                               QSizePolicy, QSlider, QSpinBox, QSplitter, QTextBrowser, QToolButton, QVBoxLayout,
                               QWidget)

from desktop.fault_menu import fill_fault_menu
from desktop.theme import LIGHT, Theme

#: tile key -> (title, unit, SLO field of the requirements or None)
TILES = {
    "p50_ms": ("p50 latency", "ms", "slo_p50_ms"),
    "p95_ms": ("p95 latency", "ms", "slo_p95_ms"),
    "p99_ms": ("p99 latency", "ms", "slo_p99_ms"),
    "throughput_rps": ("Throughput", "req/s", None),
    "shed_rate": ("Shed", "%", None),
    "error_rate": ("Errors", "%", None),
    "cost_per_hour": ("Cost per hour", "$", "budget_per_hour"),
    "cost_per_1k": ("Cost per 1k", "$", "budget_per_1k"),
}
FAULT_HOURS = 2.0


def hours_label(value_h: float) -> str:
    minutes = int(round(value_h * 60))
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def value_of(x: Any) -> float | None:
    """A number from a figure that may be a float, None, or an estimate with ``.value``."""
    if x is None:
        return None
    x = getattr(x, "value", x)
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def fmt(key: str, value: float | None) -> str:
    if value is None:
        return "—"
    if key in ("shed_rate", "error_rate"):
        return f"{value * 100:.2f}"
    if key == "cost_per_1k":
        return f"{value:.4f}" if value < 0.1 else f"{value:.3g}"
    if key == "cost_per_hour":
        return f"{value:,.2f}"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.1f}"


def fmt_limit(key: str, value: float) -> str:
    """A limit as short as it reads: 60 not 60.0, $0.005 not $0.0050."""
    return f"{value:,.4g}"


def figure_text(key: str, unit: str, value: float | None, limit: float | None) -> str:
    """'11.9 / 60 ms', '$15.30 / $60', '2,000 req/s', '0.00 %'."""
    if value is None:
        return "—"
    money = unit == "$"
    text = ("$" if money else "") + fmt(key, value)
    if limit is not None:
        text += " / " + ("$" if money else "") + fmt_limit(key, limit)
    return text if money else f"{text} {unit}"


def patterns() -> tuple[str, ...]:
    """The traffic patterns a timeline can run from the requirements (``replay`` needs a recorded CSV,
    so it is not offered here)."""
    import typing

    from inferboard.model.requirements import TrafficPattern

    return typing.get_args(TrafficPattern)


class Tile(QToolButton):
    def __init__(self, key: str, parent: QWidget):
        super().__init__(parent)
        self.key = key
        self.title, self.unit, self.limit_field = TILES[key]
        self.setObjectName(f"tile:{key}")
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.setAutoRaise(True)
        self.setMinimumWidth(60)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.explanation = ""
        self.show_value(None, None, LIGHT)

    def show_value(self, value: float | None, limit: float | None, theme: Theme) -> None:
        colour = theme.text
        if value is not None and limit is not None:
            colour = theme.bad if value > limit else theme.ok
        text = figure_text(self.key, self.unit, value, limit)
        self.setText(f"{self.title}\n{text}")
        self.setStyleSheet(f"QToolButton {{ color: {colour}; font-weight: 600; padding: 2px 4px; }}")
        within = "" if value is None or limit is None else (" (over the limit)" if value > limit else " (within)")
        self.setAccessibleName(f"{self.title}: {text}{within}")


class ReadoutsPanel(QWidget):
    pattern_changed = Signal(object)
    faults_changed = Signal(tuple)
    load_test_requested = Signal(int)
    load_test_cancelled = Signal()

    def __init__(self, design_provider: Callable[[], Any], parent: QWidget | None = None):
        super().__init__(parent)
        self.design_provider = design_provider
        self.theme: Theme = LIGHT
        self.faults: tuple = ()
        self.steady = None
        self.timeline = None
        self.load_summary = None
        # ---- controls
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
        self.play_button = QPushButton("Play", self)
        self.play_button.setAccessibleName("Play or pause the timeline")
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self.set_playing)
        self.scrub = QSlider(Qt.Orientation.Horizontal, self)
        self.scrub.setAccessibleName("Timeline position")
        self.scrub.setRange(0, 0)
        self.scrub.valueChanged.connect(self._scrubbed)
        self.time_label = QLabel("", self)
        self.time_label.setMinimumWidth(40)
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
        controls = QHBoxLayout()
        controls.setSpacing(6)
        for widget in (self.pattern, self.fault_button, self.clear_faults_button):
            controls.addWidget(widget)
        controls.addWidget(self.fault_label, 1)
        controls.addSpacing(12)
        for widget in (self.requests, self.run_button, self.progress, self.cancel_button):
            controls.addWidget(widget)
        timeline_row = QHBoxLayout()
        timeline_row.setSpacing(6)
        timeline_row.addWidget(self.play_button)
        timeline_row.addWidget(self.scrub, 1)
        timeline_row.addWidget(self.time_label)
        # Long texts must not widen the dock (and with it the window): they are cut, and the
        # whole text is in the tooltip.
        for label in (self.fault_label,):
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        # ---- tiles
        tiles = QGridLayout()
        tiles.setSpacing(2)
        self.tiles: dict[str, Tile] = {}
        for index, key in enumerate(TILES):
            tile = Tile(key, self)
            tile.clicked.connect(lambda _c=False, k=key: self.show_working(k))
            tiles.addWidget(tile, 0, index)
            self.tiles[key] = tile
        self.at_label = QLabel("", self)
        self.at_label.setAccessibleName("Values at the timeline position")
        self.at_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.status = QLabel("", self)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        #: The pyqtgraph plots are built just after the window first shows (pyqtgraph is slow to load).
        self.plots = None
        self.plots_placeholder = QLabel("Plots appear here once the design has been simulated.", self)
        self.plots_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.working = QTextBrowser(self)
        self.working.setAccessibleName("Working")
        self.working.setPlaceholderText("Click a figure to see how it was worked out.")
        self.working.setMinimumWidth(150)
        left = QWidget(self)
        column = QVBoxLayout(left)
        column.setContentsMargins(4, 4, 4, 4)
        column.setSpacing(4)
        column.addLayout(controls)
        column.addLayout(tiles)
        column.addWidget(self.status)
        column.addLayout(timeline_row)
        column.addWidget(self.at_label)
        column.addWidget(self.plots_placeholder, 1)
        self.column = column
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(left)
        splitter.addWidget(self.working)
        splitter.setStretchFactor(0, 5)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([1000, 210])
        splitter.setCollapsible(0, False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        self.play_timer = QTimer(self)
        self.play_timer.setInterval(40)
        self.play_timer.timeout.connect(self._advance)
        self.status.hide()

    def ensure_plots(self):
        """Build the plots (once) and show anything that arrived before them."""
        if self.plots is None:
            from desktop.readouts_plots import TimelinePlots

            self.plots = TimelinePlots(self)
            self.plots.cursor_moved.connect(self._cursor_dragged)
            self.plots.set_theme(self.theme)
            self.column.replaceWidget(self.plots_placeholder, self.plots)
            self.plots_placeholder.deleteLater()
            self.column.setStretchFactor(self.plots, 1)
            if self.steady is not None:
                self.show_steady(self.steady)
            if self.timeline is not None:
                self.show_timeline(self.timeline)
            if self.load_summary is not None:
                self.show_load_result(self.load_summary)
        return self.plots

    # ------------------------------------------------------------------ theme
    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        if self.plots is not None:
            self.plots.set_theme(theme)
        self.refresh_tiles()

    # ------------------------------------------------------------------ steady state
    def requirements(self):
        design = self.design_provider()
        return design.requirements if design is not None else None

    def show_steady(self, result) -> None:
        self.steady = result
        if result.load_note:  # no traffic figures declared: the tiles are at an assumed load
            self.status.setText(f"<i>{html.escape(result.load_note)}</i>")
            self.status.show()
        else:
            self.status.hide()
        self.refresh_tiles()
        req = self.requirements()
        if req is not None and self.plots is not None:
            self.plots.set_slos({k: getattr(req, f"slo_{k}") for k in ("p50_ms", "p95_ms", "p99_ms")},
                                req.budget_per_hour)

    def refresh_tiles(self) -> None:
        req = self.requirements()
        for key, tile in self.tiles.items():
            value = value_of(getattr(self.steady, key)) if self.steady is not None else None
            limit = getattr(req, tile.limit_field) if (req is not None and tile.limit_field) else None
            tile.show_value(value, limit, self.theme)
            tile.explanation = self.explain(key)
            tip = tile.explanation.strip()
            tile.setToolTip(f"<b>{tile.title}</b><br>" + html.escape(tip[:900]).replace("\n", "<br>")
                            if tip else tile.title)

    def explain(self, key: str) -> str:
        if self.steady is None:
            return ""
        try:
            return str(self.steady.explain(key))
        except Exception as error:  # an explanation must never break the window
            return f"(no explanation: {error})"

    def show_working(self, key: str) -> None:
        text = self.explain(key) or "No figures yet."
        title = TILES[key][0] if key in TILES else key
        self.working.setHtml(f"<h4 style='margin:0'>{html.escape(title)}</h4><pre style='white-space:pre-wrap'>"
                             f"{html.escape(text)}</pre>")

    def show_failed(self, step: str, message: str) -> None:
        first = message.strip().splitlines()[-1] if message.strip() else step
        self.status.setText(f"<i>{html.escape(step)}: {html.escape(first)}</i>")
        self.status.show()

    # ------------------------------------------------------------------ timeline
    def show_timeline(self, result) -> None:
        self.timeline = result
        design = self.design_provider()
        titles = {}
        if design is not None:
            labels = [n.label for n in design.nodes.values() if n.label]
            for node in design.nodes.values():
                unique = node.label and labels.count(node.label) == 1
                titles[node.id] = node.label if unique else node.id
        self.ensure_plots().show_timeline(result, titles)
        self.plots.show_faults(self.faults)
        count = len(result.times_s)
        position = self.scrub.value()
        self.scrub.blockSignals(True)
        self.scrub.setRange(0, max(0, count - 1))
        self.scrub.setValue(min(position, max(0, count - 1)))
        self.scrub.blockSignals(False)
        self._scrubbed(self.scrub.value())

    def _scrubbed(self, index: int) -> None:
        result = self.timeline
        if result is None or not len(result.times_s):
            self.time_label.setText("")
            return
        index = max(0, min(index, len(result.times_s) - 1))
        t = float(result.times_s[index])
        if self.plots is not None:
            self.plots.set_cursor(t)
        self.time_label.setText(hours_label(t / 3600.0))
        parts = []
        for key, label in (("offered_rps", "offered"), ("throughput_rps", "served"), ("p99_ms", "p99"),
                           ("shed_rate", "shed"), ("error_rate", "errors"), ("cost_per_hour", "cost")):
            series = result.series.get(key)
            if series is None:
                continue
            value = float(series[index])
            unit = {"offered_rps": " req/s", "throughput_rps": " req/s", "p99_ms": " ms",
                    "cost_per_hour": " $/h"}.get(key, " %")
            parts.append(f"{label} {fmt(key, value)}{unit}")
        events = [e for e in result.events
                  if abs(e.time_s - t) <= max(60.0, float(result.times_s[-1]) / 200)]
        event_text = f" — {events[0].message}" if events else ""
        text = f"At {hours_label(t / 3600.0)}: " + ", ".join(parts) + event_text
        self.at_label.setText(text)
        self.at_label.setToolTip(text)

    def _cursor_dragged(self, time_s: float) -> None:
        result = self.timeline
        if result is None or not len(result.times_s):
            return
        import numpy as np

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
        from inferboard.sim.faults import TimedFault

        fault = TimedFault(kind=kind, target=target, magnitude=magnitude,
                           start_s=self.fault_start_s() if start_s is None else start_s,
                           duration_s=FAULT_HOURS * 3600.0 if duration_s is None else duration_s)
        self.faults = (*self.faults, fault)
        self._faults_updated()
        return fault

    def clear_faults(self) -> None:
        if self.faults:
            self.faults = ()
            self._faults_updated()

    def _faults_updated(self) -> None:
        if self.faults:
            self.fault_label.setText("; ".join(
                f"{f.title()} → {f.target} ({hours_label(f.start_s / 3600)}–"
                f"{hours_label((f.start_s + f.duration_s) / 3600)})" for f in self.faults))
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
        self.ensure_plots().show_histogram(summary.histogram_edges_ms, summary.histogram_counts, pct)
        counts = (f"served {summary.served:,}, shed {summary.shed:,}, timed_out {summary.timed_out:,}, "
                  f"errors {summary.errors:,}")
        state = " (cancelled: partial results)" if summary.cancelled else ""
        note = f" · {summary.load_note}" if summary.load_note else ""
        self.at_label.setText(f"Load test{state}: p50 {fmt('p50_ms', pct['p50_ms'])} ms, p95 "
                              f"{fmt('p95_ms', pct['p95_ms'])} ms, p99 {fmt('p99_ms', pct['p99_ms'])} ms · {counts}"
                              + note)

    def show_load_failed(self, message: str) -> None:
        self.set_load_running(False)
        self.show_failed("load test", message)
