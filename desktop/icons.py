"""The SVG icon set (``assets/icons``): one icon per component kind plus the app icon.

Icons are drawn in slate strokes; in the dark theme the stroke colour is swapped for a light one
so they stay legible. Renderers are cached per (name, dark).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QRectF, QSize, Qt
from PySide6.QtGui import QIcon, QIconEngine, QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from inferboard.paths import data_dir

LIGHT_STROKE = "#334155"
DARK_STROKE = "#cbd5e1"


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


class _SvgIconEngine(QIconEngine):
    """Renders the SVG on demand at whatever size and pixel ratio Qt asks for."""

    def __init__(self, name: str, dark: bool):
        super().__init__()
        self.name, self.dark = name, dark

    def paint(self, painter: QPainter, rect, mode, state) -> None:
        if mode == QIcon.Mode.Disabled:
            painter.setOpacity(0.4)
        renderer(self.name, self.dark).render(painter, QRectF(rect))

    def pixmap(self, size: QSize, mode, state) -> QPixmap:
        return self.scaledPixmap(size, mode, state, 1.0)

    def scaledPixmap(self, size: QSize, mode, state, scale: float) -> QPixmap:
        out = pixmap(self.name, max(size.width(), size.height()), float(scale or 1.0), self.dark)
        if mode == QIcon.Mode.Disabled:
            faded = QPixmap(out.size())
            faded.setDevicePixelRatio(out.devicePixelRatio())
            faded.fill(Qt.GlobalColor.transparent)
            painter = QPainter(faded)
            painter.setOpacity(0.4)
            painter.drawPixmap(0, 0, out)
            painter.end()
            return faded
        return out

    def clone(self) -> "QIconEngine":
        return _SvgIconEngine(self.name, self.dark)


@lru_cache(maxsize=128)
def icon(name: str, dark: bool = False) -> QIcon:
    """A QIcon sharp at any size and device pixel ratio."""
    return QIcon(_SvgIconEngine(name, dark))


def app_icon() -> QIcon:
    return icon("app")


def standard_size() -> QSize:
    return QSize(20, 20)
