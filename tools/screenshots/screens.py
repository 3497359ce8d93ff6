"""Regenerate docs/screenshots/<WIDTH>x<HEIGHT>/*.png: every window and dialog as the app places it
on the screen it runs on (the whole screen captured with ImageMagick's ``import``), so each can be
looked at on a 1366x768 laptop and a 1600x1000 desk screen::

    Xvfb :57 -screen 0 1366x768x24 & DISPLAY=:57 openbox &
    DISPLAY=:57 QT_QPA_PLATFORM=xcb python -m tools.screenshots screens
    Xvfb :58 -screen 0 1600x1000x24 & DISPLAY=:58 openbox &
    DISPLAY=:58 QT_QPA_PLATFORM=xcb python -m tools.screenshots screens

Each shot also prints any visible control off the screen and any two windows that overlap (the
test helper's checks), so a run says what it saw. A hand-driven clock makes the times repeatable.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ["INFERBOARD_DATA_DIR"] = tempfile.mkdtemp(prefix="inferboard-screen-shots-")

from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop.app import installed_features, make_application  # noqa: E402
from tests.layout_check import controls_off_screen, overlapping  # noqa: E402
from tools.screenshots.practice import Clock, evaluated, partial_reference, settle  # noqa: E402
from tools.screenshots.screen import release_windows  # noqa: E402

DRILL = "slow-canary-version"


def out_dir() -> Path:
    size = QApplication.primaryScreen().geometry().size()
    folder = ROOT / "docs" / "screenshots" / f"{size.width()}x{size.height()}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def capture(name: str, *windows) -> None:
    """The whole screen, and what the layout checks say about ``windows``."""
    if windows:
        windows[-1].raise_()
        windows[-1].activateWindow()
    settle(300)
    path = out_dir() / name
    subprocess.run(["import", "-window", "root", str(path)], check=True)
    area = QApplication.primaryScreen().availableGeometry()
    problems = [p for w in windows if w.isVisible() for p in controls_off_screen(w, area)]
    problems += overlapping(list(windows))
    print(f"wrote {path}" + "".join(f"\n  ! {p}" for p in problems))


def main_window(library, history, clock):
    """The editor on the multi-region example, fitted, then its fault editor and a solo round."""
    from desktop import practice
    from desktop.app import open_window

    window = open_window(str(ROOT / "assets" / "examples" / "multi-region.json"), restore_layout=False,
                         theme_mode="light")
    settle(800, evaluated(window))
    capture("main-window.png", window)
    editor = window.edit_faults()
    editor.add_button.click()
    capture("fault-editor.png", editor)
    editor.reject()
    entry = library.get("fraud-scoring-cpu")
    controller = practice.open_practice(window, entry.id, library=library, history=history, clock=clock,
                                        check_unsaved=False)
    for question in entry.scenario.questions[:4]:
        clock.t += 40
        controller.panel.ask(question.id)
    window.document.set_design(partial_reference(entry, drop_kinds=("drift_detector", "retraining_pipeline")))
    settle(600, evaluated(window))
    capture("practice-round.png", window)
    clock.t += 900
    controller.panel.submit(confirm=False)
    result = controller.result_window
    capture("practice-result.png", result)
    result.close()
    window.files.ask_unsaved = lambda: "discard"
    window.close()


def mock_interview(library, history, clock):
    from desktop.practice.history_window import HistoryWindow
    from desktop.practice.library_dialog import ScenarioLibraryDialog
    from desktop.practice.mock import MockInterview

    entry = library.get("image-embedding-search")
    mock = MockInterview(entry, history, clock=clock, theme_mode="light")
    mock.show()
    mock.start()
    settle(800, lambda: mock.placements_pending == 0)
    candidate, console = mock.candidate, mock.console
    for question in entry.scenario.questions[:3]:
        clock.t += 45
        candidate.ask(question.id)
        console.answer(question.id)
    candidate.fill_requirements()
    clock.t += 200
    console.advance_phase()
    candidate.document.set_design(partial_reference(entry, drop_kinds=("drift_detector", "retraining_pipeline")))
    candidate.send_design()
    follow_up = next(f for f in entry.scenario.follow_ups if f.requirement_changes)
    clock.t += 300
    console.play_follow_up(follow_up.id)
    candidate.send_design()
    settle(800, lambda: evaluated(candidate)() and console.checklist.grade is not None)
    console.mirror.fit()
    if mock.pair.toggled:
        capture("interview-console.png", candidate, console)
        mock.pair.switch_from(console)
        settle(400)
        capture("interview-candidate.png", candidate, console)
        mock.pair.switch_from(candidate)
    else:
        capture("interview-side-by-side.png", candidate, console)
    clock.t += 240
    console.end_interview(confirm=False)
    replay = console.open_replay()
    replay.view.show_frame(max(0, len(console.session.replay) - 2))
    settle(400)
    replay.view.canvas.fit()
    capture("interview-replay.png", replay)
    replay.close()
    result = console.open_result()
    capture("interview-result.png", result)
    result.close()
    mock.close(discard=True)
    for dialog, name in ((HistoryWindow(history), "practice-history.png"),
                         (ScenarioLibraryDialog(library), "practice-library.png")):
        dialog.show()
        capture(name, dialog)
        dialog.close()


def drill_interview(history):
    from desktop import drills
    from tools.screenshots.drills import design, mitigate_at

    run = drills.open_drill_interview(None, DRILL, design=design(), history=history)
    run.clock.stop()
    settle(800, lambda: run.pair.placements_pending == 0)
    session = run.session
    mitigate_at(run, 3, "system", "rollback_canary", "eu-west-canary", check_changes=True)
    session.advance_to(session.notice_s + 12 * 60)
    run.candidate.refresh()
    run.console.refresh()
    capture("drill-interview.png", run.candidate, run.console)
    run.console.reveal.setChecked(True)
    capture("drill-interview-truth-shown.png", run.candidate, run.console)
    run.candidate.finish()
    result = run.candidate.result_window
    capture("drill-result.png", result)
    replay = run.candidate.open_replay()
    capture("drill-replay.png", replay)
    for other in run.candidate.windows:
        other.close()
    run.close()


def projector():
    from desktop.app import open_window
    from desktop.workshop.projector import projector_mode

    window = open_window(str(ROOT / "assets" / "examples" / "multi-region.json"), restore_layout=False,
                         theme_mode="light")
    settle(600, evaluated(window))
    mode = projector_mode(window)
    stage = mode.enter(play=False)
    settle(1500, lambda: stage.report is not None and stage.timeline is not None)
    capture("projector.png", window)
    stage.next_finding()
    capture("projector-finding.png", window)
    mode.leave()
    settle(800)
    capture("projector-left.png", window)
    window.files.ask_unsaved = lambda: "discard"
    window.close()


def dialogs(library, history):
    """Every other dialog and window: welcome, help, shortcuts, command palette, scenario authoring,
    grading a room, the cohort view, hosting and joining an interview, the drill picker and history."""
    from inferboard.store import read_design
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

    design = read_design(ROOT / "assets" / "examples" / "multi-region.json")[0]
    folder = Path(os.environ["INFERBOARD_DATA_DIR"])
    with CohortStore(folder) as store:
        makers = {"welcome.png": lambda: WelcomeDialog([], True), "getting-started.png": GettingStarted,
                  "shortcuts.png": ShortcutsDialog, "command-palette.png": lambda: CommandPalette({}),
                  "scenario-authoring.png": lambda: ScenarioAuthoringDialog(design, library),
                  "grading.png": lambda: GradeSubmissionsDialog(library, store),
                  "cohort.png": lambda: CohortWindow(store),
                  "host-interview.png": lambda: HostInterviewDialog(library, None, folder),
                  "join-interview.png": lambda: JoinInterviewDialog(library, history),
                  "drill-picker.png": lambda: DrillPicker(design), "drill-history.png": lambda: DrillHistoryWindow(history)}
        for name, make in makers.items():
            dialog = make()
            dialog.show()
            capture(name, dialog)
            dialog.close()


def main() -> int:
    from desktop.practice.common import open_history, open_library

    make_application()
    installed_features()
    library, history, clock = open_library(), open_history(), Clock()
    main_window(library, history, clock)
    mock_interview(library, history, clock)
    drill_interview(history)
    projector()
    dialogs(library, history)
    history.close()
    release_windows()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
