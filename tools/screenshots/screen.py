"""What the screenshot groups share: where shots go, waiting with the event loop running, and
capturing the whole screen with ImageMagick's ``import``, as a person would see it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer

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
