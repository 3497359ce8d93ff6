"""What the screenshot groups share: where shots go, waiting with the event loop running,
capturing the whole screen with ImageMagick's ``import``, as a person would see it, saving a
grabbed picture (an error if it was not written), and the windows' release before the exit."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QApplication
from shiboken6 import Shiboken

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "screenshots"


def wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def capture(name: str) -> Path:
    path = OUT / name
    subprocess.run(["import", "-window", "root", str(path)], check=True)
    print(f"wrote {path}")
    return path


def save(picture: QPixmap | QImage, name: str) -> Path:
    """Write a grabbed ``picture`` as docs/screenshots/``name``; raise if it was not written."""
    path = OUT / name
    if not picture.save(str(path)):
        raise OSError(f"{path}: the picture was not written")
    print(f"wrote {path}")
    return path


def release_windows() -> None:
    """Delete every window still open while Python is whole, each plot's scene cleared first (as
    pyqtgraph's own ``close`` does): left to the interpreter's exit, a plot's items call back into a
    half-torn Python and the process crashes (exit 139 after every shot was written)."""
    QApplication.closeAllWindows()
    for plot in [p for w in QApplication.topLevelWidgets() for p in w.findChildren(pg.GraphicsView)]:
        plot.close()  # before any window goes: a plot's menus are windows of their own
    for widget in QApplication.topLevelWidgets():
        if Shiboken.isValid(widget):  # else it went with a window deleted before it
            widget.deleteLater()
            wait(0)  # deferred deletions run in the event loop
