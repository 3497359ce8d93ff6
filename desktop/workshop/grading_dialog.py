"""Workshop › Grade Submissions…: pick a scenario and the room's files, folders or zips, grade them
on a worker thread (the core's process pool over every core) with a progress bar and Cancel, keep
the result as a cohort and open it in the cohort view."""

from __future__ import annotations

import threading
import traceback
from pathlib import Path
from typing import Any, Sequence

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QListWidget, QProgressBar, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from inferboard.practice.library import ScenarioLibrary
from inferboard.workshop.cohorts import CohortStore
from inferboard.workshop.grading import GradingRun, default_jobs, grade_submissions
from inferboard.workshop.submissions import collect
from desktop.practice.common import open_library
from desktop.window_placement import fit_window
from desktop.workshop.cohort_view import CohortWindow


class _Signals(QObject):
    progress = Signal(int, int, str)
    finished = Signal(object)
    failed = Signal(str)


class GradingJob(QRunnable):
    """Collect and grade on a worker thread; the GUI thread only hears signals."""

    def __init__(self, entry, paths: Sequence[str], jobs: int, cancel: threading.Event):
        super().__init__()
        self.entry, self.paths, self.jobs, self.cancel = entry, list(paths), jobs, cancel
        self.signals = _Signals()

    def run(self) -> None:
        """Collect the submissions and grade each, reporting progress, then store the cohort."""
        try:
            found = collect(self.paths)
            self.signals.progress.emit(0, len(found.submissions), "")
            run = grade_submissions(self.entry.scenario, self.entry.reference_bytes, found.submissions,
                                    jobs=self.jobs, cancel=self.cancel, skipped=found.skipped,
                                    progress=lambda done, total, row: self.signals.progress.emit(done, total, row.name))
        except Exception:  # noqa: BLE001 - shown in the dialog
            self.signals.failed.emit(traceback.format_exc(limit=4))
            return
        self.signals.finished.emit(run)


class GradeSubmissionsDialog(QDialog):
    """Grades a room; ``graded`` carries the GradingRun and the cohort id it was saved under."""

    graded = Signal(object, int)

    def __init__(self, library: ScenarioLibrary, store: CohortStore, parent: QWidget | None = None,
                 scenario_id: str | None = None, jobs: int | None = None):
        super().__init__(parent)
        self.setObjectName("grade_submissions")
        self.setWindowTitle("Grade submissions — Inferboard")
        self.library, self.store = library, store
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.cancel_flag = threading.Event()
        self.job: GradingJob | None = None
        self.run: GradingRun | None = None
        self.cohort_id: int | None = None

        self.scenario = QComboBox(self)
        self.scenario.setAccessibleName("Scenario")
        for entry in sorted(library.entries.values(), key=lambda e: (e.pack_id != "core", e.scenario.title)):
            self.scenario.addItem(entry.scenario.title, entry.id)
        if scenario_id is not None and self.scenario.findData(scenario_id) >= 0:
            self.scenario.setCurrentIndex(self.scenario.findData(scenario_id))
        self.name = QLineEdit(self)
        self.name.setAccessibleName("Cohort name")
        self.name.setPlaceholderText("e.g. Tuesday morning group")
        self.jobs = QSpinBox(self)
        self.jobs.setAccessibleName("Worker processes")
        self.jobs.setRange(1, 64)
        self.jobs.setValue(jobs if jobs is not None else default_jobs())
        self.paths = QListWidget(self)
        self.paths.setObjectName("submission_paths")
        self.paths.setAccessibleName("Submissions to grade")
        self.paths.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        add_files = QPushButton("Add &Files…", self)
        add_files.clicked.connect(self.choose_files)
        add_folder = QPushButton("Add F&older…", self)
        add_folder.clicked.connect(self.choose_folder)
        remove = QPushButton("&Remove", self)
        remove.clicked.connect(self.remove_selected)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("grading_progress")
        self.progress.setAccessibleName("Grading progress")
        self.progress.setFormat("%v of %m graded")
        self.progress.setValue(0)
        self.status = QLabel("Add the room's design files, folders or zips, then Grade.", self)
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.grade_button = QPushButton("&Grade", self)
        self.grade_button.setDefault(True)
        self.grade_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("&Cancel Grading", self)
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.open_button = QPushButton("&Open in Cohort View", self)
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self.open_cohort)
        close = QPushButton("C&lose", self)
        close.clicked.connect(self.close)

        form = QFormLayout()
        form.addRow("&Scenario", self.scenario)
        form.addRow("Cohort &name", self.name)
        form.addRow("&Worker processes", self.jobs)
        adders = QHBoxLayout()
        for button in (add_files, add_folder, remove):
            adders.addWidget(button)
        adders.addStretch(1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.grade_button)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        buttons.addWidget(self.open_button)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(QLabel("Submissions (design files, folders of them, zips of them):", self))
        layout.addWidget(self.paths, 1)
        layout.addLayout(adders)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addLayout(buttons)
        fit_window(self, 720, 520)

    # ------------------------------------------------------------------ choosing
    def add_paths(self, paths: Sequence[str | Path]) -> None:
        """Add files or folders to grade, skipping ones already listed."""
        present = {self.paths.item(n).text() for n in range(self.paths.count())}
        for path in paths:
            if str(path) not in present:
                self.paths.addItem(str(path))
                present.add(str(path))

    def chosen_paths(self) -> list[str]:
        """The files and folders listed for grading."""
        return [self.paths.item(n).text() for n in range(self.paths.count())]

    def choose_files(self) -> None:
        """Ask for design files or zips to add."""
        files, _ = QFileDialog.getOpenFileNames(self, "Add submissions", str(Path.home()),
                                                "Designs and zips (*.json *.zip);;All files (*)")
        self.add_paths(files)

    def choose_folder(self) -> None:
        """Ask for a folder of submissions to add."""
        folder = QFileDialog.getExistingDirectory(self, "Add a folder of submissions", str(Path.home()))
        if folder:
            self.add_paths([folder])

    def remove_selected(self) -> None:
        """Take the selected paths off the list."""
        for item in self.paths.selectedItems():
            self.paths.takeItem(self.paths.row(item))

    # ------------------------------------------------------------------ grading
    def running(self) -> bool:
        """Whether grading is in progress."""
        return self.job is not None

    def start(self) -> bool:
        """Grade the listed submissions against the chosen scenario on a worker; False if already running."""
        if self.running():
            return False
        paths = self.chosen_paths()
        scenario_id = self.scenario.currentData()
        if not paths or scenario_id is None:
            self.status.setText("Choose a scenario and add at least one file, folder or zip.")
            return False
        self.cancel_flag = threading.Event()
        self.job = GradingJob(self.library.get(scenario_id), paths, self.jobs.value(), self.cancel_flag)
        self.job.setAutoDelete(False)
        self.job.signals.progress.connect(self._progress)
        self.job.signals.finished.connect(self._finished)
        self.job.signals.failed.connect(self._failed)
        self.progress.setRange(0, 0)  # busy until the submissions are counted
        self.status.setText("Reading the submissions…")
        self.grade_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.open_button.setEnabled(False)
        self.pool.start(self.job)
        return True

    def cancel(self) -> None:
        """Stop grading after the submission in progress."""
        if self.running():
            self.cancel_flag.set()
            self.cancel_button.setEnabled(False)
            self.status.setText("Cancelling: the designs being graded now finish first…")

    def _progress(self, done: int, total: int, name: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        if name and not self.cancel_flag.is_set():
            self.status.setText(f"Graded {done} of {total}: {name}")

    def _finished(self, run: GradingRun) -> None:
        self.job = None
        self.run = run
        self.progress.setRange(0, max(len(run.results), 1))
        self.progress.setValue(len(run.results))
        self.cohort_id = self.store.save(run, self.name.text().strip())
        state = "Cancelled: " if run.cancelled else ""
        self.status.setText(f"{state}{len(run.graded)} graded, {len(run.errors)} not graded in "
                            f"{run.duration_s:.1f} s; kept as a cohort.")
        self.grade_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.open_button.setEnabled(True)
        self.graded.emit(run, self.cohort_id)

    def _failed(self, message: str) -> None:
        self.job = None
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status.setText(f"Grading failed:\n{message}")
        self.grade_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    def open_cohort(self):
        """Open the cohort just graded in the cohort window; returns it, or None."""
        if self.cohort_id is None:
            return None

        window = CohortWindow(self.store, cohort_id=self.cohort_id, library=self.library)
        window.show()
        _OPEN.append(window)
        return window

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """Cancel grading and wait for the worker before closing."""
        if self.running():
            self.cancel_flag.set()
            self.pool.waitForDone()
        super().closeEvent(event)


_OPEN: list[Any] = []


def open_grade_submissions(main_window=None, *, library: ScenarioLibrary | None = None,
                           store: CohortStore | None = None, data_folder=None, paths: Sequence[str] = ()):
    """Workshop › Grade Submissions…"""
    if data_folder is None and main_window is not None:
        data_folder = getattr(main_window, "data_dir", None)
    library = library if library is not None else open_library(data_folder)
    store = store if store is not None else CohortStore(data_folder)
    dialog = GradeSubmissionsDialog(library, store, None)
    dialog.add_paths(paths)
    dialog.show()
    _OPEN.append(dialog)
    return dialog
