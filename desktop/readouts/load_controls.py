"""The readouts' load-test controls: how many requests, Run and Cancel, the progress bar, and the
line with the load test's percentiles set against the steady state at the same rate."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QProgressBar, QPushButton, QSpinBox, QWidget

from desktop.readouts.readings import Reading, load_test_line, steady_reading
from desktop.wrapping import LinesLabel

NO_LOAD_TEST = ("Load test: not run yet. It follows every request through the design at the rate of the figures "
                "shown (the playhead's, the mean or the peak) and gives its percentiles with 95% intervals.")


def _close(x: float | None, rps: float) -> bool:
    return x is not None and abs(x - rps) <= 1e-6 * max(1.0, rps)


def rate_words(requirements, rps: float | None) -> str:
    """Whose rate a load test at ``rps`` ran at ("the mean rate", "the peak rate", "the playhead's
    rate"), told from the rate itself; "" when either is unknown."""
    if rps is None or requirements is None:
        return ""
    if _close(requirements.mean_rps, rps):
        return "the mean rate"
    if _close(requirements.peak_rps, rps):
        return "the peak rate"
    return "the playhead's rate"


def steady_at_rate(steady, steady_peak, shown: Reading | None, rps: float | None) -> Reading | None:
    """The steady state at a load test's rate when one is known (mean or peak), else the figures
    ``shown`` (else the mean's)."""
    for result, at_peak in ((steady, False), (steady_peak, True)):
        reading = steady_reading(result, at_peak) if result is not None else None
        if reading is not None and rps is not None and _close(reading.offered_rps, rps):
            return reading
    if shown is not None:
        return shown
    return steady_reading(steady) if steady is not None else None


class LoadTestControls(QObject):
    """The load test's widgets (``requests``, ``run_button``, ``progress``, ``cancel_button`` and the
    ``load_label`` line, laid out by the panel); ``requested(n)`` and ``cancelled`` for the runner."""

    requested = Signal(int)
    cancelled = Signal()

    def __init__(self, owner: QWidget):
        super().__init__(owner)
        self.requests = QSpinBox(owner)
        self.requests.setAccessibleName("Requests to simulate")
        self.requests.setRange(1000, 5_000_000)
        self.requests.setSingleStep(10_000)
        self.requests.setValue(50_000)
        self.requests.setGroupSeparatorShown(True)
        self.run_button = QPushButton("Run load test", owner)
        self.run_button.clicked.connect(lambda: self.requested.emit(self.requests.value()))
        self.progress = QProgressBar(owner)
        self.progress.setAccessibleName("Load test progress")
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(140)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel", owner)
        self.cancel_button.clicked.connect(self.cancelled.emit)
        self.cancel_button.hide()
        self.load_label = LinesLabel(NO_LOAD_TEST, owner)
        self.load_label.setObjectName("load_test_line")
        self.load_label.setAccessibleName("Load test")

    def widgets(self) -> tuple[QWidget, ...]:
        """The controls in the order they sit in the timeline row."""
        return self.requests, self.run_button, self.progress, self.cancel_button

    def set_running(self, running: bool) -> None:
        """Show the progress bar and Cancel while a load test runs; Run and the count otherwise."""
        self.run_button.setEnabled(not running)
        self.requests.setEnabled(not running)
        self.progress.setVisible(running)
        self.cancel_button.setVisible(running)
        if running:
            self.progress.setValue(0)
            self.progress.setFormat("%p%")

    def set_progress(self, fraction: float) -> None:
        """Show how far the running load test has got (0 to 1)."""
        self.progress.setValue(round(fraction * 1000))

    def show_line(self, summary, steady: Reading | None, basis: str) -> None:
        """The load test's result in one line (with its notes and warnings), beside ``steady``."""
        self.set_running(False)
        note = "".join(f" {text}" for text in [summary.load_note, *summary.warnings] if text)
        self.load_label.setText(load_test_line(summary, steady, basis) + note)
        self.load_label.setToolTip(self.load_label.text())
