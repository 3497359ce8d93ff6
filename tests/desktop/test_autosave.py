"""Autosave into the data folder, and recovery after an unclean exit (a real crashed process)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from inferboard.model import ops
from inferboard.store import parse_design

from desktop.shell.autosave import find_recoverable
from tests.desktop.gestures import demo_design

ROOT = Path(__file__).resolve().parents[2]

CRASHING_SESSION = textwrap.dedent("""
    import os
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from desktop.shell.main_window import MainWindow
    from inferboard.model import ops
    from tests.desktop.gestures import demo_design
    window = MainWindow(evaluate=False, restore_layout=False)
    window.document.set_design(demo_design())
    window.document.execute(ops.SetLabel("gpus", "unsaved work"), "label")
    window.document.execute(ops.SetParams("gpus", {"replicas": 9}), "replicas")
    assert window.autosaver.save_now()
    print(window.autosaver.design_file, flush=True)
    os._exit(3)  # no clean shutdown: the autosave stays behind
""")


def test_autosave_timer_writes_only_unsaved_changes(make_window, data_folder, qtbot):
    window = make_window(demo_design(), autosave_ms=30)
    autosave = window.autosaver.design_file
    ticks = []
    window.autosaver.timer.timeout.connect(lambda: ticks.append(autosave.exists()))
    qtbot.waitUntil(lambda: len(ticks) >= 3, timeout=3000)
    assert ticks[:3] == [False, False, False]  # the timer ran three times: nothing unsaved yet
    window.document.execute(ops.SetLabel("gpus", "edited"), "label")
    qtbot.waitUntil(autosave.exists, timeout=3000)
    assert parse_design(autosave.read_bytes()).node("gpus").label == "edited"
    assert autosave.parent == data_folder / "autosave"
    window.document.undo_stack.undo()  # back to the clean state: nothing to recover
    assert not autosave.exists()


def test_a_clean_exit_leaves_nothing_to_recover(make_window, data_folder):
    window = make_window(demo_design())
    window.document.execute(ops.SetLabel("gpus", "edited"), "label")
    assert window.autosaver.save_now()
    window.files.ask_unsaved = lambda: "discard"
    window.close()
    assert find_recoverable(data_folder) == []


def test_recovery_after_an_unclean_exit(make_window, data_folder):
    env = dict(os.environ, INFERBOARD_DATA_DIR=str(data_folder), QT_QPA_PLATFORM="offscreen",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    crashed = subprocess.run([sys.executable, "-c", CRASHING_SESSION], env=env, cwd=ROOT, capture_output=True,
                             text=True, timeout=60)
    assert crashed.returncode == 3, crashed.stderr
    left = find_recoverable(data_folder)
    assert len(left) == 1 and "Untitled design" in left[0].describe()

    window = make_window()
    offered = []
    window.ask_recover = lambda entry: offered.append(entry) or "recover"
    assert window.offer_recovery()
    assert offered and offered[0].design_file == left[0].design_file
    design = window.document.design
    assert design.node("gpus").label == "unsaved work" and design.node("gpus").params["replicas"] == 9
    assert window.isWindowModified() and "(recovered)" in window.windowTitle()
    assert not left[0].design_file.exists()  # taken over by this session's own autosave
    assert find_recoverable(data_folder) == []
    assert window.autosaver.design_file.exists()


def test_recovery_can_be_declined_or_postponed(make_window, data_folder):
    folder = data_folder / "autosave"
    folder.mkdir(parents=True)
    (folder / "old.json").write_bytes(b'{"format": "inferboard-design", "version": 1}')
    (folder / "old.meta.json").write_text('{"pid": 999999999, "title": "lost design", "saved_at": 1}')
    window = make_window()
    window.ask_recover = lambda entry: "later"
    assert not window.offer_recovery()
    assert len(find_recoverable(data_folder)) == 1
    window.ask_recover = lambda entry: "discard"
    assert not window.offer_recovery()
    assert find_recoverable(data_folder) == []
