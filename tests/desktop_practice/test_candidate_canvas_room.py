"""On a 1366x768 laptop, where the interview's windows take turns, the candidate's canvas keeps most
of the height: the tiles go three across, the basis sentence moves into the readouts' title bar and
the follow-up shows in the interview column's list, and no readouts control is cut."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop.practice.mock import MockInterview
from desktop.readouts.tiles import MIDDLE_COLUMNS
from tests.layout_check import assert_fits, global_rect, laptop  # noqa: F401  (laptop: a fixture)


def test_the_candidate_canvas_keeps_its_height_at_1366x768(laptop, qtbot, library, history, clock, data_folder):
    mock = MockInterview(library.get("image-embedding-search"), history, clock=clock, data_folder=data_folder,
                         theme_mode="light", evaluate=False)
    mock.show()
    qtbot.waitUntil(lambda: mock.placements_pending == 0)
    mock.start()
    candidate, console = mock.candidate, mock.console
    try:
        assert mock.pair.toggled  # the laptop: the windows take turns
        qtbot.mouseClick(mock.pair.buttons[console], Qt.MouseButton.LeftButton)
        qtbot.waitExposed(candidate)
        console.play_follow_up(next(iter(console.follow_ups.buttons)))
        answers = candidate.interview.answers
        qtbot.waitUntil(lambda: answers.count() and "Follow-up:" in answers.item(answers.count() - 1).text())
        candidate.fit_docks()
        readouts = candidate.readouts
        qtbot.waitUntil(lambda: candidate.view.viewport().height() >= 320)
        assert readouts.board.columns == MIDDLE_COLUMNS
        assert not candidate.follow_up_banner.isVisible() and not candidate.basis_label.isVisible()
        dock = candidate.docks["readouts"]
        title = dock.windowTitle()
        assert candidate.basis_label.text() in title
        assert dock.fontMetrics().horizontalAdvance(title) <= dock.width() - 60, title  # room for its buttons
        assert_fits(laptop, candidate)
        window = global_rect(readouts)
        for tile in readouts.board.tiles.values():
            assert window.contains(global_rect(tile)), tile.key
            for label in tile.lines().values():
                assert label.fontMetrics().horizontalAdvance(label.text()) <= label.contentsRect().width(), tile.key
        assert readouts.tabs.width() >= 280 and readouts.tabs.height() >= 180, readouts.tabs.size()
    finally:
        mock.close(discard=True)
        for window in console.windows:
            window.close()
