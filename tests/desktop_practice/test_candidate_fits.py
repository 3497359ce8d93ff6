"""The candidate's window (editor, readouts, interview column, follow-up banner) fits a 1366x768
screen on its own and, at 1600x1000, sits beside the interviewer's console: both minimum sizes fit
side by side, neither window covers the other, and the candidate's plots and headline numbers are
whole inside its window, clear of the interview column."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt

from desktop.readouts.tiles import NARROW_COLUMNS
from desktop.window_placement import minimum_frame, pair_layout

TITLE_BAR = 40  # room for a window manager's frame


def global_rect(widget) -> QRect:
    return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())


def numbers_whole(candidate) -> None:
    for tile in candidate.readouts.tiles.values():
        for label in tile.lines().values():
            assert label.fontMetrics().horizontalAdvance(label.text()) <= label.contentsRect().width(), tile.key
        corner = tile.mapTo(candidate, QPoint(tile.width() - 1, tile.height() - 1))
        assert candidate.rect().contains(corner), tile.key


def with_banner(candidate) -> None:
    candidate.follow_up_banner.setText("Follow-up from the interviewer: Europe doubles<br>The launch went well.")
    candidate.follow_up_banner.show()


def placed(mock, qtbot):
    """The interview's own placement is over (it places again once the windows are framed)."""
    qtbot.waitUntil(lambda: mock.placements_pending == 0)
    return mock


def test_the_candidate_window_fits_1366x768_with_the_follow_up_banner(interview, qtbot):
    candidate = placed(interview(evaluate=False), qtbot).candidate
    with_banner(candidate)
    hint = minimum_frame(candidate)
    assert hint.width() <= 1366 and hint.height() <= 768 - TITLE_BAR, hint
    candidate.resize(1366, 768 - TITLE_BAR)
    qtbot.waitUntil(lambda: candidate.size() == QSize(1366, 768 - TITLE_BAR))
    candidate.fit_docks()
    assert candidate.dockWidgetArea(candidate.docks["palette"]) == Qt.DockWidgetArea.LeftDockWidgetArea
    qtbot.waitUntil(lambda: minimum_frame(candidate).height() <= candidate.height())
    numbers_whole(candidate)


def test_at_1600x1000_the_two_windows_sit_side_by_side_with_the_plots_whole(interview, qtbot):
    mock = placed(interview(evaluate=False), qtbot)
    candidate, console = mock.candidate, mock.console
    with_banner(candidate)
    candidate_min, console_min = minimum_frame(candidate), minimum_frame(console)
    assert candidate_min.width() + console_min.width() <= 1600, (candidate_min, console_min)
    assert max(candidate_min.height(), console_min.height()) <= 1000 - TITLE_BAR
    area = QRect(0, 0, 1600, 1000 - TITLE_BAR)
    left, right = pair_layout([area], candidate_min, console_min)
    assert left.right() < right.left() and left.top() == right.top() == 0  # side by side, not stacked
    candidate.setGeometry(left)
    console.setGeometry(right)
    qtbot.waitUntil(lambda: candidate.size() == left.size() and console.size() == right.size())
    readouts = candidate.readouts
    readouts.ensure_plots()
    candidate.fit_docks()
    qtbot.waitUntil(lambda: readouts.board.columns == NARROW_COLUMNS)
    tabs, interview_column = global_rect(readouts.tabs), global_rect(candidate.interview_dock)
    window = global_rect(candidate)
    assert window.contains(tabs) and not tabs.intersects(interview_column), (tabs, interview_column)
    assert not global_rect(candidate.docks["readouts"]).intersects(interview_column)
    assert tabs.width() >= 280 and tabs.height() >= 200, tabs
    # The canvas takes the palette's column (the palette joins the inspector's tabs): more than half
    # the window's width for the design, and Fit Everything says so when that is still too small.
    assert candidate.dockWidgetArea(candidate.docks["palette"]) == Qt.DockWidgetArea.RightDockWidgetArea
    assert candidate.view.viewport().width() >= 0.55 * candidate.width(), candidate.view.viewport().width()
    candidate.document.set_design(console.link.entry.reference_design())
    candidate.fit_all()
    bounds, viewport = candidate.scene.nodes_rect(), candidate.view.viewport().rect()
    assert abs(candidate.view.zoom() - min((viewport.width() - 40) / bounds.width(),
                                           (viewport.height() - 40) / bounds.height())) < 1e-6
    assert candidate.view.zoom() < 0.8 and "too small to read" in candidate.statusBar().currentMessage()
    inspector = candidate.docks["inspector"]
    candidate.scene.select_ids([next(iter(candidate.document.design.nodes))], [])
    qtbot.waitUntil(lambda: not inspector.widget().visibleRegion().isEmpty())  # a selection shows the inspector
    plot = readouts.plots.tabs.currentWidget() if hasattr(readouts.plots, "tabs") else readouts.tabs.currentWidget()
    assert window.contains(global_rect(plot))
    numbers_whole(candidate)
    faults = readouts.fault_plan.fault_label
    assert faults.fontMetrics().horizontalAdvance(faults.text()) <= faults.contentsRect().width(), faults.text()
    # The console stacks its panels where they do not fit side by side.
    assert console.splitter.orientation() == Qt.Orientation.Vertical
    for panel in (console.questions, console.mirror, console.tabs):
        assert global_rect(console).contains(global_rect(panel))
        assert panel.width() >= panel.minimumSizeHint().width()


def test_the_console_lays_its_panels_side_by_side_when_alone_on_a_wide_screen(interview, qtbot):
    console = placed(interview(evaluate=False), qtbot).console
    console.resize(1600, 960)
    qtbot.waitUntil(lambda: console.splitter.orientation() == Qt.Orientation.Horizontal)
    assert console.questions.y() == console.mirror.y() == console.tabs.y()
    console.resize(QSize(minimum_frame(console).width(), 960))
    qtbot.waitUntil(lambda: console.splitter.orientation() == Qt.Orientation.Vertical)
    assert console.questions.y() < console.mirror.y() < console.tabs.y()


def test_the_console_stays_narrow_enough_once_the_interview_has_ended(interview, qtbot):
    mock = placed(interview(evaluate=False), qtbot)
    mock.console.end_interview(confirm=False)
    assert mock.console.replay_button.isVisible() and not mock.console.end_button.isVisible()
    assert minimum_frame(mock.candidate).width() + minimum_frame(mock.console).width() <= 1600


def test_follow_up_titles_are_whole_in_the_console_beside_the_candidate(interview, qtbot, clock):
    """Each follow-up's button shows its whole title (wrapped when long), also once played with its
    time, at the width the console has beside the candidate's window."""
    mock = placed(interview(evaluate=False), qtbot)
    console = mock.console
    console.resize(minimum_frame(console).width(), 960)
    console.tabs.setCurrentWidget(console.follow_ups)
    panel = console.follow_ups
    long_title = "The busiest region loses its GPUs at the peak while the cache is being flushed after a deploy"
    first = next(iter(panel.buttons))
    panel.buttons[first].setText(long_title)  # as an instructor may write one
    qtbot.waitUntil(lambda: console.splitter.orientation() == Qt.Orientation.Vertical)

    def whole(button) -> bool:
        label = button.label
        needed = label.fontMetrics().boundingRect(QRect(0, 0, label.width(), 10_000),
                                                  int(Qt.TextFlag.TextWordWrap), label.text())
        return needed.width() <= label.width() and needed.height() <= label.height() + 1

    qtbot.waitUntil(lambda: all(whole(b) for b in panel.buttons.values()))
    assert panel.buttons[first].height() > panel.buttons[list(panel.buttons)[-1]].height()  # it took two lines
    for follow_up_id in panel.buttons:
        clock.advance(61)
        console.play_follow_up(follow_up_id)
    assert all(b.text().startswith("✓") for b in panel.buttons.values())
    qtbot.waitUntil(lambda: all(whole(b) for b in panel.buttons.values()))
    for button in panel.buttons.values():
        assert global_rect(console).contains(global_rect(button))
