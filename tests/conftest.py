import os
import shutil
import sys
import tempfile

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if os.environ["QT_QPA_PLATFORM"] == "offscreen":
    # One 1600x1000 screen (offscreen's own is 800x800): windows are fitted to their screen.
    _SCREEN = os.path.join(os.path.dirname(__file__), "fixtures", "offscreen-screen.json")
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={_SCREEN}"
#: Batching tables are kept in a folder of this run's own (not the user's cache), shared by its
#: subprocesses, and removed at the end.
_TABLES = None if "INFERBOARD_CACHE_DIR" in os.environ else tempfile.mkdtemp(prefix="inferboard-tables-")
if _TABLES is not None:
    os.environ["INFERBOARD_CACHE_DIR"] = _TABLES

@pytest.fixture(autouse=True)
def user_data_folder(tmp_path, monkeypatch):
    """Every test keeps its settings, history, packs and cohorts in a folder of its own, never the
    real home (see ``inferboard.paths.user_data_dir``)."""
    folder = tmp_path / "inferboard-data"
    monkeypatch.setenv("INFERBOARD_DATA_DIR", str(folder))
    return folder


def pytest_sessionfinish(session, exitstatus):
    """Let Qt's worker threads finish, let the clipboard go and close every window, so nothing is
    still running when the process ends through pytest's own exit. The windows are closed, not
    deleted here: deleting the few hundred a GUI worker leaves behind in one batch of deferred
    deletions still crashes inside Qt now and then (seen once in a two-worker run)."""
    if _TABLES is not None:
        shutil.rmtree(_TABLES, ignore_errors=True)
    if "PySide6.QtWidgets" not in sys.modules:
        return
    from PySide6.QtCore import QThreadPool
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        return
    QThreadPool.globalInstance().waitForDone(10_000)
    app.clipboard().clear()  # the clipboard owns Python-made QMimeData (see desktop.app.release_clipboard)
    for widget in app.topLevelWidgets():
        widget.close()
    app.processEvents()
