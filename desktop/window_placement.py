"""The one layout rule every top-level window and dialog follows: its size comes from the screen's
available area, never larger (frame and title bar included), and a pair of windows for two people
(the mock interview's candidate window and console, the drill interview's) tile the screen. With a
second screen, one on each; on one screen, side by side when both fit at their minimum widths, else
one above the other when their minimum heights fit, else each takes the whole screen and a button
in each switches to the other, so neither covers the other and only one shows at a time (the
second, the interviewer's, first: the interviewer starts the round and hands the screen over)."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QMargins, QObject, QPoint, QRect, QSize, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow, QPushButton, QWidget

#: Room left for a window manager's frame before a window is shown and its real frame is known.
FRAME_GUESS = QMargins(1, 30, 1, 1)
#: When a shown window is measured again (the window manager frames it a moment after showing).
REFIT_MS = (0, 300)


def available_area(widget: QWidget | None = None) -> QRect:
    """The available area (without panels and docks) of the screen ``widget`` is on, else the primary one."""
    screen = (widget.screen() if widget is not None else None) or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def _fit(rect: QRect, area: QRect) -> QRect:
    """``rect`` moved (and if need be shrunk) to lie inside ``area``."""
    width, height = min(rect.width(), area.width()), min(rect.height(), area.height())
    x = max(area.left(), min(rect.left(), area.right() + 1 - width))
    y = max(area.top(), min(rect.top(), area.bottom() + 1 - height))
    return QRect(x, y, width, height)


def frame_margins(window: QWidget) -> QMargins:
    """The window manager's frame around ``window`` (a guess until it has been framed)."""
    frame, inner = window.frameGeometry(), window.geometry()
    margins = QMargins(inner.left() - frame.left(), inner.top() - frame.top(),
                       frame.right() - inner.right(), frame.bottom() - inner.bottom())
    framed = window.isVisible() and not margins.isNull()
    return margins if framed or QGuiApplication.platformName() == "offscreen" else FRAME_GUESS


def _apply_frame(window: QWidget, target: QRect) -> None:
    """Resize and move ``window`` so its frame fills ``target``."""
    window.resize(target.marginsRemoved(frame_margins(window)).size())
    window.move(target.topLeft())  # move() places the frame, title bar included


def frame_at(window: QWidget, target: QRect) -> None:
    """Give ``window`` the frame ``target`` now and again once the window manager has framed it."""
    _apply_frame(window, target)
    if QGuiApplication.platformName() != "offscreen":
        for ms in REFIT_MS:
            QTimer.singleShot(ms, window, lambda: window.isVisible() and _apply_frame(window, target))


def fit_window(window: QWidget, width: int, height: int) -> None:
    """Give a top-level window the size it asks for, or its screen's area if that is smaller,
    centred on the screen; it is measured again each time it is shown."""
    area = available_area(window)
    margins = frame_margins(window)
    frame = QSize(min(width + margins.left() + margins.right(), area.width()),
                  min(height + margins.top() + margins.bottom(), area.height()))
    centre = QRect(QPoint(0, 0), frame)
    centre.moveCenter(area.center())
    _apply_frame(window, _fit(centre, area))
    keep_on_screen(window)


def clamp_to_screen(window: QWidget) -> None:
    """Shrink and move a window so its frame lies inside its screen's area (no change if it does)."""
    if not shiboken6.isValid(window) or window.isFullScreen() or window.isMaximized():
        return
    area = available_area(window)
    frame = window.frameGeometry()
    if not area.contains(frame):
        _apply_frame(window, _fit(frame, area))


class _KeepOnScreen(QObject):
    """Clamps its window to the screen each time it is shown, once the window manager has framed it."""

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Show and watched is self.parent():
            clamp_to_screen(watched)
            if QGuiApplication.platformName() != "offscreen":  # a window manager frames it a moment later
                for ms in REFIT_MS:
                    QTimer.singleShot(ms, self, lambda: clamp_to_screen(self.parent()))
        return False


def keep_on_screen(window: QWidget) -> None:
    """Clamp ``window`` to its screen whenever it is shown (once per window)."""
    if window.findChild(_KeepOnScreen, "keep_on_screen") is None:
        keeper = _KeepOnScreen(window)
        keeper.setObjectName("keep_on_screen")
        window.installEventFilter(keeper)


def pair_layout(areas: list[QRect], first_min: QSize, second_min: QSize,
                share: float = 0.6) -> tuple[QRect, QRect] | None:
    """Frame rectangles for two windows side by side or one above the other, or None when they do
    not fit at their minimum sizes (then each takes the whole screen in turn); ``areas`` are the
    screens' available areas, the first the primary one; ``share`` the first window's part."""
    main = areas[0]
    if len(areas) > 1:
        return QRect(main), QRect(areas[1])
    x, y, width, height = main.x(), main.y(), main.width(), main.height()
    if first_min.width() + second_min.width() <= width and max(first_min.height(), second_min.height()) <= height:
        left = max(first_min.width(), min(width - second_min.width(), round(width * share)))
        return QRect(x, y, left, height), QRect(x + left, y, width - left, height)
    if first_min.height() + second_min.height() <= height and max(first_min.width(), second_min.width()) <= width:
        top = max(first_min.height(), min(height - second_min.height(), round(height * share)))
        return QRect(x, y, width, top), QRect(x, y + top, width, height - top)
    return None


def minimum_frame(window: QWidget) -> QSize:
    """The smallest frame the window can be given (its layout's minimum plus the frame)."""
    margins = frame_margins(window)
    # What Qt enforces: the layout's minimum (the size hint asks for more than the window needs).
    layout = window.layout()
    size = (layout.totalMinimumSize() if layout is not None else window.minimumSizeHint()).expandedTo(
        window.minimumSize())
    return QSize(size.width() + margins.left() + margins.right(), size.height() + margins.top() + margins.bottom())


class WindowPair(QObject):
    """Two top-level windows for two people placed by ``pair_layout``; when they do not tile, each
    fills the screen and shows a button that hides it and shows the other (``second`` in front)."""

    #: The screen was handed over: the window now in front.
    switched = Signal(object)

    def __init__(self, first: QWidget, second: QWidget, first_name: str, second_name: str,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.first, self.second = first, second
        self.toggled = False  #: whether the windows take turns (the screen is too small to tile them)
        self.placements_pending = 0  #: placements still to come once the windows are framed
        self.closed: set[int] = set()  #: ids of the windows that were closed
        self.after_place = None  #: called after each placement (a window may share out its docks)
        self.buttons = {first: self._switch_button(first, f"Show the {second_name} ⇄"),
                        second: self._switch_button(second, f"Show the {first_name} ⇄")}
        for window in (first, second):
            window.installEventFilter(self)

    def _switch_button(self, window: QWidget, text: str) -> QPushButton:
        button = QPushButton(text, window)
        button.setObjectName("switch_window")
        button.setToolTip("This screen is too small for both windows side by side: they take turns")
        button.clicked.connect(lambda: self.switch_from(window))
        button.hide()
        bar = getattr(window, "top_bar", None)
        if bar is not None:
            bar.addWidget(button)
        elif isinstance(window, QMainWindow):
            window.statusBar().addPermanentWidget(button)
        return button

    def alive(self) -> bool:
        """Whether both windows still exist on the Qt side."""
        return shiboken6.isValid(self.first) and shiboken6.isValid(self.second)

    def show(self) -> None:
        """Show both (or, when they take turns, the second only) and place them; again once framed."""
        self.toggled = self._targets() is None
        if not self.toggled:
            self.first.show()
        self.second.show()
        self.place()
        self.placements_pending += len(REFIT_MS)
        for ms in REFIT_MS:
            QTimer.singleShot(ms, self, self._place_later)

    def _place_later(self) -> None:
        self.placements_pending -= 1
        self.place()

    def place(self) -> None:
        """Tile the two windows on their screens, or give each the whole screen in turn."""
        if not self.alive() or not (self.first.isVisible() or self.second.isVisible()):
            return
        areas = self._areas()
        targets = self._targets()
        was_toggled, self.toggled = self.toggled, targets is None
        for window, button in self.buttons.items():
            button.setVisible(self.toggled)
        if targets is None:
            for window in (self.first, self.second):
                _apply_frame(window, areas[0])
            if not was_toggled and self.second.isVisible():
                self.first.hide()
        else:
            for window, target in zip((self.first, self.second), targets):
                if was_toggled and id(window) not in self.closed:
                    window.show()  # they took turns on a smaller screen: both again
                _apply_frame(window, target)
        if self.after_place is not None:
            self.after_place()

    def _areas(self) -> list[QRect]:
        """The available areas: the first window's screen, then another one if there is one."""
        primary = self.first.screen() or QGuiApplication.primaryScreen()
        others = [s for s in QGuiApplication.screens() if s is not primary]
        return [available_area(self.first), *[s.availableGeometry() for s in others[:1]]]

    def _targets(self) -> tuple[QRect, QRect] | None:
        return pair_layout(self._areas(), minimum_frame(self.first), minimum_frame(self.second))

    def switch_from(self, window: QWidget) -> None:
        """Hide ``window`` and show the other one in its place."""
        other = self.second if window is self.first else self.first
        if not self.alive():
            return
        target = window.frameGeometry()
        other.show()
        frame_at(other, target)
        other.raise_()
        other.activateWindow()
        window.hide()
        self.switched.emit(other)

    def eventFilter(self, watched, event) -> bool:
        """When one of two windows taking turns closes, the other one shows."""
        if event.type() == QEvent.Type.Close and self.alive():
            self.closed.add(id(watched))
            other = self.second if watched is self.first else self.first
            QTimer.singleShot(0, self, lambda: self._closed(watched, other))
        return False

    def _closed(self, window: QWidget, other: QWidget) -> None:
        if not self.alive():
            return
        if window.isVisible():  # the close was refused
            self.closed.discard(id(window))
        elif self.toggled and id(other) not in self.closed:
            other.show()
