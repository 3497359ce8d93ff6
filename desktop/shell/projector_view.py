"""View > Projector View: the whole editor in larger type for the back of a room. The readouts and
plots scale their own figures; the side panels, the menus, the toolbar and the status bar take a
larger font; the canvas is shown larger (its least legible zoom scales too) with thicker wires and
card borders. Workshop > Projector Mode is a different, full-screen presentation."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtGui import QFont
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDockWidget, QTabBar, QToolBar, QWidget


def scaled_font(scale: float) -> QFont:
    """The application's font ``scale`` times as large (an empty font, inherit again, at 1.0)."""
    if abs(scale - 1.0) < 1e-9:
        return QFont()
    font = QFont(QApplication.font())
    size = font.pointSizeF() if font.pointSizeF() > 0 else 9.0
    font.setPointSizeF(size * scale)
    return font


def projected_theme(theme, scale: float):
    """``theme`` with its wires and borders ``scale`` times as thick."""
    return replace(theme, line_scale=theme.line_scale * scale) if abs(scale - 1.0) > 1e-9 else theme


def follow_projector_view(window, dock: QWidget) -> None:
    """A dock added to ``window`` after Projector View was turned on takes its larger type too."""
    scale = getattr(window, "projector_scale", 1.0)
    if abs(scale - 1.0) > 1e-9:
        apply_projector_view(window, scale)


def apply_projector_view(window, scale: float) -> None:
    """Show ``window`` (a MainWindow) at ``scale`` (1.0: the normal size)."""
    window.projector_scale = scale
    font = scaled_font(scale)
    # Dock tab bars belong to the window itself, not to a dock.
    bars = [bar for bar in window.findChildren(QTabBar) if bar.parent() is window]
    fonted = getattr(window, "_projector_fonted", [])
    # Every dock of the window: its own and those a feature adds (the practice and interview panels).
    docks = [dock for dock in window.findChildren(QDockWidget) if dock.parent() is window]
    for widget in (*docks, window.menuBar(), window.statusBar(), *window.findChildren(QToolBar), *bars):
        widget.setFont(font)
        # A widget that a style sheet (its own or the application's) matches does not take its parent's
        # new font: it is given the font itself, unless something else chose its font.
        for child in widget.findChildren(QWidget):
            if child.styleSheet() or not child.testAttribute(Qt.WidgetAttribute.WA_SetFont) or child in fonted:
                child.setFont(font)
                fonted.append(child)
    window._projector_fonted = [w for w in dict.fromkeys(fonted) if shiboken6.isValid(w)]
    window.readouts.set_scale(scale)  # after the fonts: the tiles size their own from the application's
    window.scene.set_theme(projected_theme(window.theme_manager.theme, scale))
    window.view.set_text_scale(scale)
    window.view.resetCachedContent()
