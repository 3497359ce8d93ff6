"""Regenerate docs/screenshots/practice-*.png and interview-*.png from the real windows.

Run on a display at 1600x1000 (Xvfb works):

    Xvfb :98 -screen 0 1600x1000x24 &
    DISPLAY=:98 QT_QPA_PLATFORM=xcb python -m tools.screenshots practice

The history and settings go to a temporary folder; a hand-driven clock makes the times repeatable.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ["INFERBOARD_DATA_DIR"] = tempfile.mkdtemp(prefix="inferboard-practice-shots-")

from PySide6.QtCore import QEventLoop, Qt, QTimer  # noqa: E402

from inferboard.model import ops  # noqa: E402

from desktop import practice  # noqa: E402
from desktop.app import installed_features, make_application  # noqa: E402
from desktop.practice.common import open_history, open_library  # noqa: E402
from desktop.practice.history_window import HistoryWindow  # noqa: E402
from desktop.practice.library_dialog import ScenarioLibraryDialog  # noqa: E402
from desktop.practice.mock import MockInterview  # noqa: E402
from desktop.shell.main_window import MainWindow  # noqa: E402
from tools.screenshots.screen import release_windows, save  # noqa: E402

OUT = ROOT / "docs" / "screenshots"


class Clock:
    """The hand-driven clock the rounds are timed by: ``clock.t += 60`` is a minute later."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def settle(ms: int = 400, until=None, timeout_ms: int = 20000) -> None:
    """Run the event loop until ``until()`` holds (or ``timeout_ms`` passed), then ``ms`` more."""
    loop = QEventLoop()
    waited = 0

    def poll():
        nonlocal waited
        waited += 100
        if (until is None or until()) or waited > timeout_ms:
            QTimer.singleShot(ms, loop.quit)
        else:
            QTimer.singleShot(100, poll)

    QTimer.singleShot(50, poll)
    loop.exec()


def shoot(widget, name: str) -> None:
    """Save ``widget`` as docs/screenshots/``name``."""
    save(widget.grab(), name)


def partial_reference(entry, drop_kinds=(), keep=None):
    """The scenario's reference design with some component kinds left out (a candidate's draft)."""
    design = entry.reference_design()
    for node in list(design.nodes.values()):
        if node.kind in drop_kinds or (keep is not None and node.id not in keep and node.kind != "region"):
            design.apply(ops.RemoveNode(node.id))
    return design


def evaluated(window):
    """A condition: the window's evaluator is idle with a steady-state result."""
    return lambda: not window.evaluator.busy() and "steady" in window.evaluator.latest


def shoot_library(library) -> None:
    """The scenario library dialog, one scenario selected."""
    dialog = ScenarioLibraryDialog(library)
    dialog.select("fraud-scoring-cpu")
    dialog.show()
    settle(300)
    shoot(dialog, "practice-library.png")
    dialog.close()


def open_main_window() -> MainWindow:
    """A main window filling the 1600x1000 screen."""
    window = MainWindow(restore_layout=False, theme_mode="light", features=installed_features())
    window.resize(1600, 1000)
    window.move(0, 0)
    window.show()
    settle(600)
    return window


def record_earlier_attempts(window, entry, library, history, clock: Clock) -> None:
    """Three submitted drafts, each better than the last, so the history has a curve."""
    scenario = entry.scenario
    drafts = [dict(keep={"users-us", "lb", "scorer"}), dict(drop_kinds=("drift_detector", "retraining_pipeline",
                                                                        "fallback_model", "alerting")),
              dict(drop_kinds=("drift_detector", "retraining_pipeline"))]
    for n, draft in enumerate(drafts):
        controller = practice.open_practice(window, entry.id, library=library, history=history, clock=clock,
                                            check_unsaved=False)
        for question in scenario.questions[: 2 + 3 * n]:
            clock.t += 40
            controller.panel.ask(question.id)
        clock.t += 300
        window.document.set_design(partial_reference(entry, **draft))
        controller.panel.record_now()
        clock.t += 900
        controller.panel.submit(confirm=False)
        controller.result_window.close()


def shoot_solo_round(window, entry, library, history, clock: Clock):
    """A solo round mid-way: some questions asked, requirements filled, a partial design drawn.
    Returns the round's controller."""
    scenario = entry.scenario
    controller = practice.open_practice(window, entry.id, library=library, history=history, clock=clock,
                                        check_unsaved=False)
    panel = controller.panel
    t0 = clock.t
    for question in scenario.questions[:4]:
        clock.t += 50
        panel.ask(question.id)
    panel.fill_requirements()
    clock.t += 150
    window.document.set_design(partial_reference(entry, drop_kinds=("drift_detector", "retraining_pipeline",
                                                                    "fallback_model", "alerting",
                                                                    "metrics_collector", "model_registry")))
    window.document.execute(ops.SetRequirements(window.document.design.requirements.model_copy(
        update={k: v for k, v in panel.session.revealed_requirements().model_dump().items() if v not in (None, [])})),
        "Fill requirements")
    panel.record_now()
    clock.t = t0 + 60 * scenario.phases[0].minutes + 60 * scenario.phases[1].minutes - 70
    panel.refresh_status()
    panel.questions.select(scenario.questions[3].id)
    window.view.fit_all()
    settle(600, evaluated(window))
    # the inspector made small, as a candidate working the questions would: the panel shows them
    window.resizeDocks([window.docks["inspector"], controller.dock], [150, 850], Qt.Orientation.Vertical)
    settle(200)
    controller.dock.widget().ensureWidgetVisible(panel.questions.tree, 0, 0)
    window.view.fit_all()
    settle(300)
    shoot(window, "practice-questions.png")
    return controller


def shoot_result(controller, clock: Clock) -> None:
    """The round submitted: the result screen's summary, lost points, reference and follow-up tabs."""
    clock.t += 600
    controller.panel.submit(confirm=False)
    screen = controller.result_window
    screen.resize(1600, 1000)
    screen.move(0, 0)
    settle(500)
    shoot(screen, "practice-result.png")
    screen.tabs.setCurrentWidget(screen.lost)
    rule = next((i for i in screen.lost.items if not i.data(0, 256)["source"].startswith("question:")), None)
    if rule is not None:
        screen.lost.tree.setCurrentItem(rule)
    settle(300)
    shoot(screen, "practice-result-lost-points.png")
    screen.tabs.setCurrentWidget(screen.compare)
    settle(300)
    screen.compare.yours.fit()
    screen.compare.reference.fit()
    settle(300)
    shoot(screen, "practice-result-reference.png")
    screen.tabs.setCurrentWidget(screen.what_ifs)
    settle(300)
    shoot(screen, "practice-result-follow-ups.png")
    screen.close()


def shoot_history(history) -> None:
    """The attempt history with the rounds recorded so far."""
    history_window = HistoryWindow(history)
    history_window.resize(1400, 900)
    history_window.show()
    settle(600)
    shoot(history_window, "practice-history.png")
    history_window.close()


def start_mock_interview(entry, history, clock: Clock) -> MockInterview:
    """Both mock-interview windows on the one screen, the interview started."""
    clock.t = 50_000.0
    mock = MockInterview(entry, history, clock=clock, theme_mode="light")
    for window in (mock.candidate, mock.console):
        window.resize(1600, 1000)
        window.move(0, 0)
    mock.show()
    mock.start()
    settle(600)
    return mock


def play_interview(mock: MockInterview, entry, clock: Clock) -> None:
    """Questions asked and answered, a design sent, notes taken and a follow-up played."""
    scenario = entry.scenario
    candidate, console = mock.candidate, mock.console
    for question in scenario.questions[:3]:
        clock.t += 45
        candidate.ask(question.id)
        console.answer(question.id)
    clock.t += 30
    candidate.ask(scenario.questions[3].id)
    candidate.fill_requirements()
    clock.t += 200
    console.advance_phase()
    candidate.document.set_design(partial_reference(entry, drop_kinds=("drift_detector", "retraining_pipeline",
                                                                       "alerting")))
    candidate.fill_requirements()
    candidate.send_design()
    clock.t += 400
    console.add_note("Asked about the peak before drawing: good.")
    console.add_note("Sized the batcher from the SLO, not from a guess.")
    clock.t += 300
    follow_up = next(f for f in scenario.follow_ups if f.requirement_changes)
    console.play_follow_up(follow_up.id)
    candidate.send_design()


def shoot_interview_windows(app, mock: MockInterview) -> None:
    """The candidate's window, the console, both side by side, and the console's follow-ups."""
    candidate, console = mock.candidate, mock.console
    candidate.view.fit_all()
    settle(800, lambda: evaluated(candidate)() and console.checklist.grade is not None)
    candidate.view.fit_all()
    console.mirror.fit()
    console.checklist.tree.topLevelItem(1).setExpanded(True)
    console.checklist.tree.topLevelItem(0).setExpanded(True)
    settle(400)
    shoot(candidate, "interview-candidate.png")
    shoot(console, "interview-console.png")
    # Both windows as placed on the one 1600x1000 screen, frames included: side by side.
    save(app.primaryScreen().grabWindow(0), "interview-side-by-side.png")
    console.tabs.setCurrentWidget(console.follow_ups)
    settle(200)
    shoot(console, "interview-console-follow-ups.png")


def shoot_score_sheet_and_replay(mock: MockInterview, clock: Clock) -> None:
    """The interview ended: the score sheet filled in, then the replay near its end."""
    console = mock.console
    clock.t += 240
    console.end_interview(confirm=False)
    console.score_sheet.use_suggestions()
    console.score_sheet.set_score("clarifying", 85, "Asked about peak and budget early")
    settle(300)
    shoot(console, "interview-console-score-sheet.png")
    replay = console.open_replay()
    replay.resize(1600, 1000)
    replay.move(0, 0)
    replay.view.show_frame(max(0, len(console.session.replay) - 2))
    settle(400)
    replay.view.canvas.fit()
    settle(200)
    shoot(replay, "interview-replay.png")
    replay.close()


def main() -> int:
    """Shoot every practice and interview screenshot, in the order a user meets the windows."""
    app = make_application()
    library = open_library()
    history = open_history()
    clock = Clock()
    shoot_library(library)
    window = open_main_window()
    entry = library.get("fraud-scoring-cpu")
    record_earlier_attempts(window, entry, library, history, clock)
    controller = shoot_solo_round(window, entry, library, history, clock)
    shoot_result(controller, clock)
    shoot_history(history)
    window.files.ask_unsaved = lambda: "discard"
    window.close()
    entry = library.get("image-embedding-search")
    mock = start_mock_interview(entry, history, clock)
    play_interview(mock, entry, clock)
    shoot_interview_windows(app, mock)
    shoot_score_sheet_and_replay(mock, clock)
    mock.close(discard=True)
    history.close()
    release_windows()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
