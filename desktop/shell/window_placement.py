"""Where two windows for two people go: the mock interview's candidate window and interviewer
console. With a second screen, one on each; on one screen, side by side when both fit at their
minimum widths, else one above the other when their minimum heights fit, else as far apart as the
screen allows. Always whole windows (frames included) inside the available area."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QMargins, QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget


def _fit(rect: QRect, area: QRect) -> QRect:
    """``rect`` moved (and if need be shrunk) to lie inside ``area``."""
    width, height = min(rect.width(), area.width()), min(rect.height(), area.height())
    x = max(area.left(), min(rect.left(), area.right() + 1 - width))
    y = max(area.top(), min(rect.top(), area.bottom() + 1 - height))
    return QRect(x, y, width, height)


def pair_layout(areas: list[QRect], first_min: QSize, second_min: QSize, share: float = 0.6) -> tuple[QRect, QRect]:
    """Frame rectangles for two windows; ``areas`` are the screens' available areas, the first
    the primary one; ``*_min`` the windows' minimum frame sizes; ``share`` the first one's part
    of a shared screen."""
    main = areas[0]
    if len(areas) > 1:
        return QRect(main), QRect(areas[1])
    x, y, width, height = main.x(), main.y(), main.width(), main.height()
    if first_min.width() + second_min.width() <= width:
        left = max(first_min.width(), min(width - second_min.width(), round(width * share)))
        return QRect(x, y, left, height), QRect(x + left, y, width - left, height)
    if first_min.height() + second_min.height() <= height:
        top = max(first_min.height(), min(height - second_min.height(), round(height * share)))
        return QRect(x, y, width, top), QRect(x, y + top, width, height - top)
    # Too small for both: each at its minimum in opposite corners, so they overlap least.
    first = _fit(QRect(x, y, max(first_min.width(), width - second_min.width()),
                       max(first_min.height(), height - second_min.height())), main)
    second_size = QSize(min(width, max(second_min.width(), width - first.width())),
                        min(height, max(second_min.height(), height - first.height())))
    second = QRect(x + width - second_size.width(), y + height - second_size.height(),
                   second_size.width(), second_size.height())
    return first, second


def frame_margins(window: QWidget) -> QMargins:
    frame, inner = window.frameGeometry(), window.geometry()
    return QMargins(inner.left() - frame.left(), inner.top() - frame.top(),
                    frame.right() - inner.right(), frame.bottom() - inner.bottom())


def minimum_frame(window: QWidget) -> QSize:
    margins = frame_margins(window)
    # What Qt enforces: the layout's minimum (the size hint asks for more than the window needs).
    layout = window.layout()
    size = (layout.totalMinimumSize() if layout is not None else window.minimumSizeHint()).expandedTo(
        window.minimumSize())
    return QSize(size.width() + margins.left() + margins.right(), size.height() + margins.top() + margins.bottom())


def place_pair(first: QWidget, second: QWidget) -> tuple[QRect, QRect]:
    """Place two shown windows (first on the primary screen); returns the frame rectangles aimed at."""
    primary = first.screen() or QGuiApplication.primaryScreen()
    others = [s for s in QGuiApplication.screens() if s is not primary]
    areas = [primary.availableGeometry(), *[s.availableGeometry() for s in others[:1]]]
    targets = pair_layout(areas, minimum_frame(first), minimum_frame(second))
    for window, target in zip((first, second), targets):
        margins = frame_margins(window)
        inner = target.marginsRemoved(margins)
        window.resize(inner.size())
        window.move(target.topLeft())  # move() places the frame, title bar included
    return targets


def place_pair_if_shown(first: QWidget, second: QWidget) -> None:
    """``place_pair`` when both windows still exist and are shown (safe from a timer)."""
    if shiboken6.isValid(first) and shiboken6.isValid(second) and first.isVisible() and second.isVisible():
        place_pair(first, second)
