"""Autosave into the data folder, and recovery after an unclean exit (a real crashed process)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

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
    qtbot.waitUntil(lambda: len(ticks) >= 3, timeout=15_000)
    assert ticks[:3] == [False, False, False]  # the timer ran three times: nothing unsaved yet
    window.document.execute(ops.SetLabel("gpus", "edited"), "label")
    qtbot.waitUntil(autosave.exists, timeout=15_000)
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


class Crash(Exception):
    """Stands for the process dying at that point."""


def _crash_during_autosave(monkeypatch, window, call, inside):
    """Make the autosave's ``call``-th file write die before it (or, ``inside``, after writing its
    temporary file), then let the session go as a crash would."""
    from desktop.shell import autosave
    from inferboard.store.atomic import TEMP_SUFFIX

    real, writes = autosave.atomic_write, []

    def dying_write(path, data, **options):
        writes.append(path)
        if len(writes) == call:
            if inside:
                (path.parent / f".{path.name}.dead{TEMP_SUFFIX}").write_bytes(data[: len(data) // 2])
            raise Crash(path)
        return real(path, data, **options)

    monkeypatch.setattr(autosave, "atomic_write", dying_write)
    with pytest.raises(Crash):
        window.autosaver.save_now()
    monkeypatch.undo()
    window.autosaver.stop(keep=True)  # the lock goes with the process; the files stay


@pytest.mark.parametrize("call, inside, label", [(1, False, "first"), (1, True, "first"), (2, False, "second"),
                                                 (2, True, "second")])
def test_every_crash_point_of_an_autosave_is_offered(make_window, data_folder, monkeypatch, call, inside, label):
    """Before the design's rename the previous autosave is offered; after it, the new design, with
    or without its meta file; the temporary files the crash left are removed by the scan."""
    window = make_window(demo_design())
    window.document.execute(ops.SetLabel("gpus", "first"), "label")
    assert window.autosaver.save_now()
    window.document.execute(ops.SetLabel("gpus", "second"), "label")
    _crash_during_autosave(monkeypatch, window, call, inside)
    (entry,) = find_recoverable(data_folder)
    assert parse_design(entry.design_file.read_bytes()).node("gpus").label == label
    assert [p.name for p in (data_folder / "autosave").iterdir() if p.name.startswith(".")] == []
    window.files.ask_unsaved = lambda: "discard"


def _left_behind(folder, session, meta, design=b'{"format": "inferboard-design", "metadata": {"title": "T"}}'):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session}.json").write_bytes(design)
    if meta is not None:
        (folder / f"{session}.meta.json").write_text(meta)


ODD_META = {"list": "[1, 2]", "null": "null", "text": "not json at all", "pid-text": '{"pid": "12"}',
            "pid-huge": '{"pid": 1' + "0" * 40 + "}", "pid-float": '{"pid": 3.5}',
            "saved-text": '{"saved_at": "yesterday"}', "saved-huge": '{"saved_at": 1e300}',
            "saved-nan": '{"saved_at": NaN}', "title-list": '{"title": ["x"], "path": 7}',
            "huge-file": '{"title": "' + "x" * 100_000 + '"}'}


def test_odd_meta_files_are_each_their_own_problem(data_folder):
    folder = data_folder / "autosave"
    for session, meta in ODD_META.items():
        _left_behind(folder, session, meta)
    _left_behind(folder, "no-meta", None)
    _left_behind(folder, "good", '{"pid": 999999999, "title": "good one", "saved_at": 1700000000}')
    found = {entry.design_file.name[:-len(".json")]: entry for entry in find_recoverable(data_folder)}
    assert set(found) == set(ODD_META) | {"no-meta", "good"}
    assert found["good"].title == "good one" and found["good"].saved_at == 1700000000
    assert found["no-meta"].title == "T" and found["title-list"].original_path is None
    for entry in found.values():
        assert "autosaved" in entry.describe()


def test_a_live_owner_is_told_from_a_reused_pid(data_folder):
    import fcntl

    folder = data_folder / "autosave"
    _left_behind(folder, "live", '{"pid": 999999999, "saved_at": 1}')
    _left_behind(folder, "reused", f'{{"pid": {os.getpid()}, "host": "{os.uname().nodename}", "saved_at": 2}}')
    (folder / "reused.lock").touch()  # its owner died; this process now has its pid
    held = os.open(folder / "live.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)  # its owner still runs, whatever its meta file says
        assert [entry.design_file.name for entry in find_recoverable(data_folder)] == ["reused.json"]
    finally:
        os.close(held)
    assert {entry.design_file.name for entry in find_recoverable(data_folder)} == {"live.json", "reused.json"}


def test_the_start_removes_temporary_files_crashed_saves_left_beside_recent_files(make_window, tmp_path):
    from inferboard.store.atomic import TEMP_SUFFIX

    folder = tmp_path / "designs"
    folder.mkdir()
    (folder / "mine.json").write_bytes(b"{}")
    left = folder / f".mine.json.dead{TEMP_SUFFIX}"
    left.write_bytes(b"half a des")
    for older in (".mine.json.a1b2c3d4.tmp", ".mine.json.bak.tmp"):  # named by earlier versions' saves
        (folder / older).write_bytes(b"half")
    window = make_window()
    window.recent.add(folder / "mine.json")
    window.ask_recover = lambda entry: "later"
    window.offer_recovery()
    assert sorted(p.name for p in folder.iterdir()) == ["mine.json"]
