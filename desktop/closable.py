"""Every dialog-like window closes with Esc and has a Close button (QDialogs get Esc from Qt;
plain top-level windows such as the replay, the history and a result get it here)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QPushButton, QWidget


def close_on_escape(window: QWidget) -> QShortcut:
    """Make Escape close ``window``; returns the shortcut, owned by the window."""
    shortcut = QShortcut(QKeySequence(Qt.Key.Key_Escape), window)
    shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
    shortcut.activated.connect(window.close)
    return shortcut


def close_button(window: QWidget) -> QPushButton:
    """A "Close" button for ``window`` (add it to the window's button row)."""
    button = QPushButton("&Close", window)
    button.setAccessibleName("Close")
    button.setToolTip("Close this window (Esc)")
    button.clicked.connect(window.close)
    return button
