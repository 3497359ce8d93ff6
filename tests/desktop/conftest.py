"""Fixtures for the desktop tests: a private data folder (never the real home), main windows that
are always closed, and helpers that drive the canvas with real mouse events."""

from __future__ import annotations

import gc
import os

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import desktop.compat  # noqa: E402,F401  (PySide6 6.12 on Python 3.11: see desktop/compat.py)


@pytest.fixture(autouse=True)
def data_folder(tmp_path, monkeypatch):
    folder = tmp_path / "inferboard-data"
    monkeypatch.setenv("INFERBOARD_DATA_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def no_leaked_windows(qapp):
    """Like napari's leak check: a test must close every window it opened."""
    yield
    QApplication.processEvents()
    # pyqtgraph keeps parentless menus in reference cycles; if the garbage collector frees one while
    # we walk the list of top-level widgets, the walk touches a deleted widget. Collect first, then
    # walk with the collector off.
    gc.collect()
    gc.disable()
    try:
        leaked = [w for w in QApplication.topLevelWidgets() if shiboken6.isValid(w) and w.isVisible()]
        names = [type(w).__name__ for w in leaked]
        for widget in leaked:
            widget.close()
    finally:
        gc.enable()
    assert not leaked, f"windows left open: {names}"


@pytest.fixture
def make_window(qtbot, data_folder):
    from desktop.app import installed_features
    from desktop.shell.main_window import MainWindow

    windows = []

    def make(design=None, evaluate=False, **options):
        options.setdefault("restore_layout", False)
        options.setdefault("theme_mode", "light")
        options.setdefault("features", installed_features())
        window = MainWindow(data_folder, evaluate=evaluate, **options)
        if design is not None:
            window.document.set_design(design)
        window.resize(1400, 900)
        window.show()
        qtbot.waitExposed(window)
        window.view.fit_all()
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.files.ask_unsaved = lambda: "discard"
        window.close()
        window.deleteLater()
    QApplication.processEvents()


@pytest.fixture
def window(make_window):
    from tests.desktop.gestures import demo_design

    return make_window(demo_design())
