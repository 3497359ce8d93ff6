"""The drill windows fit a 1366x768 laptop and a 1600x1000 desk screen: the drill interview's two
windows tile it without overlapping, the console keeps the hidden truth folded away while it
shares the screen with the candidate, and the result and replay windows lie inside the screen."""

from __future__ import annotations

from tests.layout_check import assert_fits, screen  # noqa: F401  (screen: a fixture)


def test_the_drill_interview_tiles_the_screen_and_folds_the_truth_away(screen, drill_interview, qtbot):
    interview = drill_interview("slow-canary-version")
    qtbot.waitUntil(lambda: interview.pair.placements_pending == 0)
    candidate, console = interview.candidate, interview.console
    assert candidate.isVisible() and console.isVisible() and not interview.pair.toggled
    assert_fits(screen, candidate, console)
    assert not console.truth.isVisible()  # one screen: the candidate can see the console
    console.reveal.click()
    assert console.truth.isVisible() and "Hidden root cause" in console.truth_texts()
    assert_fits(screen, candidate, console)


def test_the_drill_result_and_replay_fit(screen, start_drill, qtbot):
    window = start_drill("slow-canary-version")
    assert_fits(screen, window)
    window.finish()
    result = window.result_window
    qtbot.waitExposed(result)
    assert_fits(screen, result)
    replay = window.open_replay()
    qtbot.waitExposed(replay)
    assert_fits(screen, replay)
