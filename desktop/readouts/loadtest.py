"""Runs the request-level load test on a worker thread with progress and cancel, at the rate asked
for (the figures' basis: the playhead's offered rate, the peak, or by default the mean)."""

from __future__ import annotations

import threading
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from inferboard.store import parse_design


def _run(design, n_requests: int, seed: int, progress: Callable, cancel: Callable[[], bool],
         rps: float | None = None):
    # the simulator loads on first use, not at start-up
    from inferboard.sim.loadtest.design_loadtest import run_design_load_test

    return run_design_load_test(design, n_requests, seed=seed, progress=progress, cancel=cancel, rps=rps)


class _Signals(QObject):
    progress = Signal(float)
    finished = Signal(object)
    failed = Signal(str)


class LoadTestJob(QRunnable):
    """One load test on the worker: parses the design snapshot, runs, reports progress, result or failure."""

    def __init__(self, data: bytes, n_requests: int, seed: int, cancel_flag: threading.Event, runner=_run,
                 rps: float | None = None):
        super().__init__()
        self.data = data
        self.rps = rps
        self.n_requests = n_requests
        self.seed = seed
        self.cancel_flag = cancel_flag
        self.runner = runner
        self.signals = _Signals()

    def _progress(self, *args: Any) -> None:
        """Accepts progress(fraction) or progress(done, total)."""
        if len(args) >= 2 and args[1]:
            fraction = float(args[0]) / float(args[1])
        elif args:
            value = float(args[0])
            fraction = value / self.n_requests if value > 1.0 else value
        else:
            return
        self.signals.progress.emit(max(0.0, min(1.0, fraction)))

    def run(self) -> None:
        """Run the load test and emit its summary, or the traceback of what went wrong."""
        try:
            design = parse_design(self.data, "<snapshot>")
            summary = self.runner(design, self.n_requests, self.seed, self._progress, self.cancel_flag.is_set,
                                  rps=self.rps)
        except Exception:
            self.signals.failed.emit(traceback.format_exc(limit=4))
            return
        self.signals.finished.emit(summary)


class LoadTestRunner(QObject):
    """Runs one load test at a time on its own thread, with progress and cancel."""

    started = Signal()
    progress = Signal(float)
    #: The summary (with ``cancelled`` true when it was stopped early).
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None, runner=_run):
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.runner = runner
        self.job: LoadTestJob | None = None
        self.cancel_flag = threading.Event()

    def running(self) -> bool:
        """Whether a load test is running."""
        return self.job is not None

    def start(self, data: bytes, n_requests: int, seed: int = 0, rps: float | None = None) -> bool:
        """Simulate ``n_requests`` at ``rps`` (None: the requirements' mean rate)."""
        if self.job is not None:
            return False
        self.cancel_flag = threading.Event()
        job = LoadTestJob(data, n_requests, seed, self.cancel_flag, self.runner, rps)
        job.signals.progress.connect(self.progress)
        job.signals.finished.connect(self._finished)
        job.signals.failed.connect(self._failed)
        self.job = job
        self.started.emit()
        self.pool.start(job)
        return True

    def cancel(self) -> None:
        """Ask the running load test to stop (it reports what it has so far)."""
        self.cancel_flag.set()

    def _finished(self, summary: object) -> None:
        self.job = None
        self.finished.emit(summary)

    def _failed(self, message: str) -> None:
        self.job = None
        self.failed.emit(message)

    def shutdown(self) -> None:
        """Cancel any load test and wait for its thread (the window is closing)."""
        self.cancel_flag.set()
        self.pool.waitForDone(5000)
