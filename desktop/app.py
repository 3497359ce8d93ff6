"""Starting the desktop app: ``run_app(path)`` opens the main window (on ``path`` if given, else
on the starter example), offers to recover unsaved work from a crashed session, and runs Qt."""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication
import desktop.compat  # noqa: F401  (must run before heavy Qt use)


def make_application() -> QApplication:
    app = QApplication.instance()
    if app is None:
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication(sys.argv[:1])
        app.setStyle("Fusion")
    app.setApplicationName("Inferboard")
    app.setOrganizationName("Inferboard")
    app.setApplicationDisplayName("Inferboard")
    app.setDesktopFileName("inferboard")
    from desktop import icons

    app.setWindowIcon(icons.app_icon())
    return app  # type: ignore[return-value]


def open_window(path: str | None = None, **options):
    """Create and show the main window (used by ``run_app``, the tests and the benchmarks)."""
    from desktop.shell.main_window import MainWindow

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
    from desktop.editor.canvas.editing import FRAGMENT_MIME

    clipboard = QApplication.clipboard()
    mime = clipboard.mimeData()
    if mime is not None and mime.hasFormat(FRAGMENT_MIME):
        clipboard.setText(mime.text())


def run_app(path: str | None = None) -> int:
    app = make_application()
    app.aboutToQuit.connect(release_clipboard)
    window = open_window(path)

    def start() -> None:
        if not window.offer_recovery() and not path:
            window.welcome_at_start()

    QTimer.singleShot(0, start)
    return app.exec()
