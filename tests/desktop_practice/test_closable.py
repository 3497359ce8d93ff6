"""Every dialog-like window has a Close button and closes with Esc: the replay (which had
neither), the history, a result, and the editor's own dialogs."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QDialog

from inferboard.practice.replay import Replay
from inferboard.store import design_to_bytes

from tests.desktop.gestures import demo_design


def close_buttons(window):
    return [b for b in window.findChildren(QAbstractButton) if b.text().replace("&", "") == "Close"
            and b.isVisibleTo(window)]


def test_the_replay_window_has_close_and_escape(qtbot):
    from desktop.practice.replay_view import ReplayWindow

    replay = Replay()
    replay.add(0.0, design_to_bytes(demo_design()), "design")
    window = ReplayWindow(replay, "A session")
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    assert close_buttons(window) == [window.close_button]
    qtbot.keyClick(window.view, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.isVisible())
    window.show()
    qtbot.mouseClick(window.close_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.isVisible())


def test_the_history_window_has_close_and_escape(history, qtbot):
    from desktop.practice.history_window import HistoryWindow

    window = HistoryWindow(history)
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    assert len(close_buttons(window)) == 1
    qtbot.keyClick(window.table, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.isVisible())


@pytest.mark.parametrize("action_id", ["help.getting_started", "sim.edit_faults", "help.shortcuts",
                                       "view.command_palette"])
def test_the_editors_dialogs_close_with_escape(make_window, qtbot, action_id):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    window = make_window(demo_design())
    seen = []

    def press_escape():
        dialog = QApplication.activeModalWidget() or next(
            w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible())
        seen.append(dialog)
        qtbot.keyClick(dialog.focusWidget() or dialog, Qt.Key.Key_Escape)

    QTimer.singleShot(50, press_escape)
    window.actions_by_id[action_id].trigger()
    qtbot.waitUntil(lambda: bool(seen))
    qtbot.waitUntil(lambda: not seen[0].isVisible())
    if action_id not in ("view.command_palette",):
        assert close_buttons(seen[0]) or seen[0].findChildren(QAbstractButton)
