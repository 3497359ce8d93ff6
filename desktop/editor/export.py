"""Export the diagram as PNG (1x or 2x) or SVG (text kept as text), written atomically."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsItem

from inferboard.store import atomic_write

from desktop.editor.canvas.scene import DesignScene

MARGIN = 24.0


@contextmanager
def clean_scene(scene: DesignScene):
    """Render without selection, highlights, guides, hints, grid or item caches."""
    selected = scene.selectedItems()
    cached = [(item, item.cacheMode()) for item in scene.items()
              if item.cacheMode() != QGraphicsItem.CacheMode.NoCache]
    hint_visible = scene.interactions.hint.isVisible()
    scene.clearSelection()
    scene.clear_highlight()
    scene.guides.hide()
    scene.interactions.hint.hide()
    scene.export_mode = True
    for item, _ in cached:
        item.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    try:
        yield
    finally:
        scene.export_mode = False
        for item, mode in cached:
            item.setCacheMode(mode)
        scene.guides.show()
        scene.interactions.hint.setVisible(hint_visible)
        for item in selected:
            item.setSelected(True)


def export_rect(scene: DesignScene) -> QRectF:
    """The scene area an export covers: every item plus a margin."""
    rect = scene.nodes_rect()
    if rect.isEmpty():
        rect = QRectF(0, 0, 200, 120)
    return rect.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)


def png_bytes(scene: DesignScene, scale: float = 1.0) -> bytes:
    """The design drawn as a PNG image at ``scale``, without selection or hover marks."""
    source = export_rect(scene)
    size = QSize(max(1, round(source.width() * scale)), max(1, round(source.height() * scale)))
    image = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(1.0)
    image.fill(QColor(scene.theme.canvas))
    with clean_scene(scene):
        painter = QPainter(image)
        painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing
                               | QPainter.RenderHint.SmoothPixmapTransform)
        scene.render(painter, QRectF(0, 0, size.width(), size.height()), source,
                     Qt.AspectRatioMode.IgnoreAspectRatio)
        painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data)


def svg_bytes(scene: DesignScene, title: str = "Inferboard design") -> bytes:
    """The design drawn as an SVG document titled ``title``."""
    source = export_rect(scene)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(QSize(round(source.width()), round(source.height())))
    generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
    generator.setTitle(title)
    generator.setDescription("Exported from Inferboard")
    with clean_scene(scene):
        painter = QPainter(generator)
        painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        painter.fillRect(QRectF(0, 0, source.width(), source.height()), QColor(scene.theme.canvas))
        scene.render(painter, QRectF(0, 0, source.width(), source.height()), source)
        painter.end()
    buffer.close()
    return bytes(data)


def export_png(scene: DesignScene, path: str | Path, scale: float = 1.0) -> Path:
    """Write the design as a PNG file at ``path`` (atomically); returns the path."""
    path = Path(path)
    atomic_write(path, png_bytes(scene, scale), keep_backup=False)
    return path


def export_svg(scene: DesignScene, path: str | Path, title: str = "Inferboard design") -> Path:
    """Write the design as an SVG file at ``path`` (atomically); returns the path."""
    path = Path(path)
    atomic_write(path, svg_bytes(scene, title), keep_backup=False)
    return path
