"""The SVG icon set (``assets/icons``): one icon per component kind plus the app icon.

Icons are drawn in slate strokes; in the dark theme the stroke colour is swapped for a light one
so they stay legible. Renderers are cached per (name, dark).
"""

from __future__ import annotations

import os
import tempfile
from functools import lru_cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QRectF, QSize, Qt
from PySide6.QtGui import QIcon, QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from inferboard.paths import data_dir

from desktop.theme import ICON_STROKE

LIGHT_STROKE = ICON_STROKE[False]
DARK_STROKE = ICON_STROKE[True]


def icon_path(name: str) -> Path:
    """``name`` is a kind id (``gpu_pool``) or ``app``."""
    return data_dir("assets") / "icons" / f"{name}.svg"


@lru_cache(maxsize=128)
def _svg_bytes(name: str, dark: bool) -> bytes:
    path = icon_path(name)
    if not path.is_file():
        path = icon_path("app")
    text = path.read_text(encoding="utf-8")
    if dark:
        text = text.replace(LIGHT_STROKE, DARK_STROKE)
    return text.encode("utf-8")


@lru_cache(maxsize=128)
def renderer(name: str, dark: bool = False) -> QSvgRenderer:
    """An SVG renderer for icon ``name``, its strokes drawn for a light or a dark theme."""
    return QSvgRenderer(QByteArray(_svg_bytes(name, dark)))


@lru_cache(maxsize=512)
def pixmap(name: str, size: int, dpr: float = 1.0, dark: bool = False) -> QPixmap:
    """The icon rendered at ``size`` logical pixels for a screen of device pixel ratio ``dpr``."""
    side = max(1, round(size * dpr))
    image = QImage(side, side, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer(name, dark).render(painter, QRectF(0, 0, side, side))
    painter.end()
    out = QPixmap.fromImage(image)
    out.setDevicePixelRatio(dpr)
    return out


@lru_cache(maxsize=128)
def icon(name: str, dark: bool = False) -> QIcon:
    """A QIcon sharp at any size and device pixel ratio, rendered only when Qt needs a size.

    It uses Qt's own SVG icon engine on a file (the dark variant is a recoloured copy in a cache
    folder), not a Python QIconEngine subclass: Qt keeps some icons (the window icon) in global
    statics that are destroyed after the Python interpreter has finalised, and destroying a
    Python-implemented engine then crashes the process at exit. Qt derives the disabled look.
    """
    path = icon_path(name) if icon_path(name).is_file() else icon_path("app")
    if dark:
        path = _dark_copy(name)
    result = QIcon(str(path))
    if result.isNull():  # no SVG icon engine plugin: fall back to pixmaps at the usual sizes
        for size in (16, 20, 24, 32, 48, 64):
            for dpr in (1.0, 2.0):
                result.addPixmap(pixmap(name, size, dpr, dark))
    return result


def _dark_copy(name: str) -> Path:
    folder = Path(tempfile.gettempdir()) / f"inferboard-icons-{os.getuid() if hasattr(os, 'getuid') else 0}"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{name}-dark.svg"
    data = _svg_bytes(name, True)
    if not target.is_file() or target.read_bytes() != data:
        scratch = folder / f".{name}-dark.{os.getpid()}.tmp"
        scratch.write_bytes(data)
        os.replace(scratch, target)
    return target


def app_icon() -> QIcon:
    """The application's own icon (window title bars, the task bar)."""
    return icon("app")


def standard_size() -> QSize:
    """The size toolbar and palette icons are drawn at, in device-independent pixels."""
    return QSize(20, 20)
