import gc
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_sessionfinish(session, exitstatus):
    """Tear Qt down while Python is still alive: finish worker threads, delete every window and
    undo stack, and collect their wrappers, so no Qt global static destroys a Python-owned object
    after the interpreter has finalised (which crashes the process at exit)."""
    if "PySide6.QtWidgets" not in sys.modules:
        return
    from PySide6.QtCore import QEvent, QThreadPool
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        return
    QThreadPool.globalInstance().waitForDone(10_000)
    app.clipboard().clear()  # the clipboard owns Python-made QMimeData (see desktop.app.release_clipboard)
    for widget in app.topLevelWidgets():
        widget.close()
        widget.deleteLater()
    app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    app.processEvents()
    gc.collect()
