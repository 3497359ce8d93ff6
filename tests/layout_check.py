"""What "fits the screen" means for a window, for the tests and the screenshot groups: every
visible control lies inside the screen's available area, and no two tiled windows intersect."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import (QAbstractButton, QAbstractSlider, QAbstractSpinBox, QComboBox, QLineEdit, QTabBar,
                               QWidget)

from desktop import window_placement

#: The kinds of widget a person clicks or types into.
CONTROLS = (QAbstractButton, QAbstractSlider, QAbstractSpinBox, QComboBox, QLineEdit, QTabBar)


def global_rect(widget: QWidget) -> QRect:
    """The widget's rectangle in screen coordinates."""
    return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())


def visible_rect(widget: QWidget) -> QRect:
    """The widget's unclipped part (not scrolled out of view) in screen coordinates."""
    rect = global_rect(widget)
    node = widget
    while not node.isWindow() and node.parentWidget() is not None:
        node = node.parentWidget()
        rect = rect.intersected(global_rect(node))
    return rect


def controls_off_screen(window: QWidget, area: QRect) -> list[str]:
    """The visible controls of ``window`` (itself included, frame aside) not wholly inside ``area``."""
    problems = []
    if not area.contains(window.frameGeometry()):
        problems.append(f"{window.windowTitle() or type(window).__name__}: {window.frameGeometry()} outside {area}")
    for control in window.findChildren(QWidget):
        if not isinstance(control, CONTROLS) or not control.isVisible() or control.window() is not window:
            continue
        rect = visible_rect(control)
        if rect.isEmpty():
            continue  # scrolled out of view: reachable by scrolling
        if not area.contains(rect):
            name = getattr(control, "text", lambda: "")() or control.objectName() or type(control).__name__
            problems.append(f"{window.windowTitle()}: control {name!r} at {rect} outside {area}")
    return problems


def overlapping(windows: list[QWidget]) -> list[str]:
    """Pairs of the shown windows whose frames intersect."""
    shown = [w for w in windows if w.isVisible()]
    return [f"{a.windowTitle()} {a.frameGeometry()} overlaps {b.windowTitle()} {b.frameGeometry()}"
            for i, a in enumerate(shown) for b in shown[i + 1:] if a.frameGeometry().intersects(b.frameGeometry())]


#: The two laptop and desk screens every window is held to.
SCREENS = {"1366x768": QRect(0, 0, 1366, 768), "1600x1000": QRect(0, 0, 1600, 1000)}


def _available(monkeypatch, area: QRect) -> QRect:
    """Make the layout rule see ``area`` as the screen's available area."""
    monkeypatch.setattr(window_placement, "available_area", lambda widget=None: QRect(area))
    return area


@pytest.fixture(params=list(SCREENS))
def screen(request, monkeypatch) -> QRect:
    """A screen of each size: the layout rule sees it as the available area."""
    return _available(monkeypatch, SCREENS[request.param])


@pytest.fixture
def laptop(monkeypatch) -> QRect:
    """The 1366x768 laptop alone, as the layout rule's available area."""
    return _available(monkeypatch, SCREENS["1366x768"])


def assert_fits(area: QRect, *windows: QWidget) -> None:
    """Every shown window and its visible controls inside ``area``, no two shown windows overlapping."""
    problems = [p for w in windows if w.isVisible() for p in controls_off_screen(w, area)] + overlapping(list(windows))
    assert not problems, "\n".join(problems)
