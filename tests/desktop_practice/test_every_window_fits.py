"""Every window and dialog of the editor and the mock interview fits a 1366x768 laptop and a
1600x1000 desk screen: each shown window and its visible controls lie inside the screen's
available area, and the interview's two windows never overlap (on the laptop they take turns)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop.window_placement import fit_window
from tests.layout_check import assert_fits, screen  # noqa: F401  (screen: a fixture)


def test_the_main_window_fits(screen, qtbot, data_folder):
    from desktop.app import installed_features
    from desktop.shell.main_window import MainWindow

    window = MainWindow(data_folder, evaluate=False, restore_layout=False, theme_mode="light",
                        features=installed_features())
    window.show()
    qtbot.waitExposed(window)
    try:
        assert_fits(screen, window)
        assert window.frameGeometry().height() <= screen.height()
    finally:
        window.files.ask_unsaved = lambda: "discard"
        window.close()


@pytest.mark.slow
def test_the_mock_interview_tiles_or_takes_turns_and_its_dialogs_fit(screen, qtbot, library, history, clock,
                                                                    data_folder):
    from desktop.practice.history_window import HistoryWindow
    from desktop.practice.library_dialog import ScenarioLibraryDialog
    from desktop.practice.mock import MockInterview

    mock = MockInterview(library.get("image-embedding-search"), history, clock=clock, data_folder=data_folder,
                         theme_mode="light", evaluate=False)
    mock.show()
    qtbot.waitUntil(lambda: mock.placements_pending == 0)
    mock.start()
    candidate, console = mock.candidate, mock.console
    try:
        assert_fits(screen, candidate, console)
        assert console.isVisible()
        # What only the interviewer may see shows only while the candidate cannot see the console.
        assert console.private.isChecked() == mock.pair.toggled
        assert console.questions.facts.isVisibleTo(console) == mock.pair.toggled
        if mock.pair.toggled:  # the laptop: one window at a time, the console first
            assert not candidate.isVisible()
            qtbot.mouseClick(mock.pair.buttons[console], Qt.MouseButton.LeftButton)
            assert candidate.isVisible() and not console.isVisible()
            assert not console.private.isChecked()  # handed to the candidate: folded away again
            assert_fits(screen, candidate, console)
            qtbot.mouseClick(mock.pair.buttons[candidate], Qt.MouseButton.LeftButton)
        else:
            assert candidate.isVisible() and screen.width() >= 1600
        console.end_interview(confirm=False)
        for dialog in (console.open_replay(), console.open_result()):
            qtbot.waitExposed(dialog)
            assert_fits(screen, dialog)
            dialog.close()
        for dialog in (HistoryWindow(history), ScenarioLibraryDialog(library)):
            dialog.show()
            qtbot.waitExposed(dialog)
            assert_fits(screen, dialog)
            dialog.close()
    finally:
        mock.close(discard=True)
        for window in console.windows:
            window.close()


def test_a_solo_round_fits_and_shows_its_questions(screen, solo, qtbot):
    """The practice panel has room for its questions without scrolling the panel: at least five
    rows of the question list are in view, and nothing is off the screen."""
    from tests.layout_check import visible_rect

    controller = solo()
    window = controller.window
    window.showNormal()
    fit_window(window, 5000, 5000)  # as large as the screen allows
    qtbot.waitUntil(lambda: window.frameGeometry().size() == screen.size())
    controller.dock.raise_()
    tree = controller.panel.questions.tree
    qtbot.waitUntil(lambda: tree.isVisible())
    controller.dock.widget().ensureWidgetVisible(tree, 0, 0)
    row = tree.sizeHintForRow(0) if tree.topLevelItemCount() else 20
    qtbot.waitUntil(lambda: visible_rect(tree.viewport()).height() >= 5 * row)
    assert_fits(screen, window)


@pytest.mark.slow
def test_the_other_dialogs_fit(screen, qtbot, library, history, data_folder):
    """Welcome, help, command palette, shortcuts, scenario authoring, grading, the cohort window,
    the remote host and join dialogs, the drill picker and the drill history."""
    from inferboard.workshop.cohorts import CohortStore

    from desktop.drills.history import DrillHistoryWindow
    from desktop.drills.picker import DrillPicker
    from desktop.practice.remote_dialogs import HostInterviewDialog, JoinInterviewDialog
    from desktop.shell.command_palette import CommandPalette, ShortcutsDialog
    from desktop.shell.help_view import GettingStarted
    from desktop.shell.welcome import WelcomeDialog
    from desktop.workshop.authoring import ScenarioAuthoringDialog
    from desktop.workshop.cohort_view import CohortWindow
    from desktop.workshop.grading_dialog import GradeSubmissionsDialog
    from tests.desktop.gestures import demo_design

    data_folder.mkdir(parents=True, exist_ok=True)
    with CohortStore(data_folder) as store:
        host = HostInterviewDialog(library, None, data_folder)
        makers = [lambda: WelcomeDialog([], True), GettingStarted, lambda: ShortcutsDialog(), lambda: CommandPalette({}),
                  lambda: ScenarioAuthoringDialog(demo_design(), library), lambda: GradeSubmissionsDialog(library, store),
                  lambda: CohortWindow(store), lambda: host, lambda: JoinInterviewDialog(library, history),
                  lambda: DrillPicker(demo_design()), lambda: DrillHistoryWindow(history)]
        for make in makers:
            dialog = make()
            dialog.show()
            qtbot.waitExposed(dialog)
            assert_fits(screen, dialog)
            dialog.close()
        host.close()
