"""The one QApplication of a process: Fusion style, the app's names and icon, high-DPI scaling
that keeps fractional factors."""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

import desktop.compat  # noqa: F401,I001  (must run before heavy Qt use)
from desktop import icons


def make_application() -> QApplication:
    """The QApplication, made once with Inferboard's name, icon, high-DPI policy and style."""
    app = QApplication.instance()
    if app is None:
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication(sys.argv[:1])
        app.setStyle("Fusion")
    app.setApplicationName("Inferboard")
    app.setOrganizationName("Inferboard")
    app.setApplicationDisplayName("Inferboard")
    app.setDesktopFileName("inferboard")
    app.setWindowIcon(icons.app_icon())
    return app  # type: ignore[return-value]
