"""Starting the desktop app: ``run_app(path)`` opens the main window (on ``path`` if given, else
on the starter example), offers to recover unsaved work from a crashed session, and runs Qt."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from desktop.editor.canvas.editing import FRAGMENT_MIME
import desktop.compat  # noqa: F401  (must run before heavy Qt use)
from desktop.shell.application import make_application
from desktop.shell.features import Feature


def installed_features() -> tuple[Feature, ...]:
    """The menus above the shell, in menu order: practice (solo, mock and remote interviews, the
    history with its drills), incident drills (in the Practice menu) and workshops (scenario
    authoring, grading, cohorts, projector mode)."""
    # loaded when first opened, not with the first window
    from desktop.drills.menu import DRILL_HISTORY_VIEW, DRILLS_FEATURE
    from desktop.practice.menu import practice_feature
    from desktop.workshop.menu import WORKSHOP_FEATURE

    return (practice_feature(history_views=(DRILL_HISTORY_VIEW,)), DRILLS_FEATURE, WORKSHOP_FEATURE)


def open_window(path: str | None = None, **options):
    """Create and show the main window (used by ``run_app``, the tests and the benchmarks)."""
    # loaded when first opened, not with the first window
    from desktop.shell.main_window import MainWindow

    options.setdefault("features", installed_features())
    window = MainWindow(**options)
    if path:
        if not window.files.open(path, check_unsaved=False):
            window.load_start_design()
    else:
        window.load_start_design()
    window.show()
    return window


def release_clipboard() -> None:
    """Hand our copied fragment back to Qt as plain text before quitting.

    The clipboard owns the QMimeData our copy created in Python; Qt destroys the clipboard in a
    global static after the interpreter has finalised, and destroying a Python-made object then
    crashes the process. Plain text set by Qt itself has no Python wrapper.
    """
    clipboard = QApplication.clipboard()
    mime = clipboard.mimeData()
    if mime is not None and mime.hasFormat(FRAGMENT_MIME):
        clipboard.setText(mime.text())


def run_app(path: str | None = None) -> int:
    """Start the app on ``path`` (or the welcome screen) and run its event loop; returns the exit status."""
    app = make_application()
    app.aboutToQuit.connect(release_clipboard)
    window = open_window(path)
    window.evaluator.prefetch_tables = True  # the next replica edit finds its batching table built

    def start() -> None:
        if not window.offer_recovery() and not path:
            window.welcome_at_start()

    QTimer.singleShot(0, start)
    return app.exec()
