"""The candidate's window (editor, readouts, interview column, follow-up banner) fits a 1600x1000
screen: its minimum size is within it, and at that size no headline number is cut."""

from __future__ import annotations

from PySide6.QtCore import QPoint


def test_the_candidate_window_fits_1600x1000_with_the_follow_up_banner(interview, qtbot):
    mock = interview(evaluate=False)
    candidate = mock.candidate
    candidate.follow_up_banner.setText("Follow-up from the interviewer: Europe doubles<br>The launch went well.")
    candidate.follow_up_banner.show()
    hint = candidate.minimumSizeHint()
    assert hint.width() <= 1600 and hint.height() <= 1000 - 40  # and room for a title bar
    candidate.resize(1600, 1000)
    qtbot.waitUntil(lambda: candidate.height() == 1000)
    panel = candidate.readouts
    for tile in panel.tiles.values():
        for label in tile.lines().values():
            assert label.fontMetrics().horizontalAdvance(label.text()) <= label.contentsRect().width()
        corner = tile.mapTo(candidate, QPoint(tile.width() - 1, tile.height() - 1))
        assert candidate.rect().contains(corner), tile.key
