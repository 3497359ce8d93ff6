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

from desktop.app import installed_features, make_application  # noqa: E402

OUT = ROOT / "docs" / "screenshots"


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def settle(ms: int = 400, until=None, timeout_ms: int = 20000) -> None:
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
    path = OUT / name
    widget.grab().save(str(path))
    print(f"wrote {path}")


def partial_reference(entry, drop_kinds=(), keep=None):
    """The scenario's reference design with some component kinds left out (a candidate's draft)."""
    design = entry.reference_design()
    for node in list(design.nodes.values()):
        if node.kind in drop_kinds or (keep is not None and node.id not in keep and node.kind != "region"):
            design.apply(ops.RemoveNode(node.id))
    return design


def evaluated(window):
    return lambda: not window.evaluator.busy() and "steady" in window.evaluator.latest


def main() -> int:
    app = make_application()
    from desktop import practice
    from desktop.practice.common import open_history, open_library
    from desktop.practice.history_view import HistoryWindow
    from desktop.practice.library_dialog import ScenarioLibraryDialog
    from desktop.practice.mock import MockInterview
    from desktop.shell.main_window import MainWindow

    library = open_library()
    history = open_history()
    clock = Clock()

    # ---- the library dialog
    dialog = ScenarioLibraryDialog(library)
    dialog.select("fraud-scoring-cpu")
    dialog.show()
    settle(300)
    shoot(dialog, "practice-library.png")
    dialog.close()

    # ---- a few earlier attempts, so the history has a curve
    window = MainWindow(restore_layout=False, theme_mode="light", features=installed_features())
    window.resize(1600, 1000)
    window.move(0, 0)
    window.show()
    settle(600)
    entry = library.get("fraud-scoring-cpu")
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

    # ---- solo practice: the question panel with some answers, mid-round
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

    # ---- the result screen
    clock.t += 600
    panel.submit(confirm=False)
    screen = controller.result_window
    screen.resize(1600, 1000)
    screen.move(0, 0)
    settle(500)
    shoot(screen, "practice-result.png")
    screen.tabs.setCurrentWidget(screen.lost)
    items = screen.lost.items
    rule = next((i for i in items if not i.data(0, 256)["source"].startswith("question:")), None)
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

    # ---- the history
    history_window = HistoryWindow(history)
    history_window.resize(1400, 900)
    history_window.show()
    settle(600)
    shoot(history_window, "practice-history.png")
    history_window.close()
    window.files.ask_unsaved = lambda: "discard"
    window.close()

    # ---- the mock interview: both windows
    entry = library.get("image-embedding-search")
    scenario = entry.scenario
    clock.t = 50_000.0
    mock = MockInterview(entry, history, clock=clock, theme_mode="light")
    mock.candidate.resize(1600, 1000)
    mock.candidate.move(0, 0)
    mock.console.resize(1600, 1000)
    mock.console.move(0, 0)
    mock.show()
    mock.start()
    settle(600)
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
    path = OUT / "interview-side-by-side.png"
    app.primaryScreen().grabWindow(0).save(str(path))
    print(f"wrote {path}")
    console.tabs.setCurrentWidget(console.follow_ups)
    settle(200)
    shoot(console, "interview-console-follow-ups.png")
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
    mock.close(discard=True)
    history.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
