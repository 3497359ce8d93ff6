"""Files through the GUI: save and reopen, the title bar, the unsaved-work prompt, recent files,
templates, and a save refused when the file changed on disk."""

from __future__ import annotations

from pathlib import Path

from inferboard.model import ops
from inferboard.store import design_to_bytes, read_design

from desktop.shell.templates import templates


def test_save_and_reopen_through_the_gui(make_window, tmp_path):
    from tests.desktop.gestures import demo_design

    window = make_window(demo_design())
    target = tmp_path / "mine.json"
    window.files.ask_save_path = lambda: str(target)
    window.scene.select_ids(["gpus"])
    window.inspector.editors["replicas"].edit.setText("6")
    window.inspector.editors["replicas"].edit.editingFinished.emit()
    assert window.isWindowModified() and "Untitled[*]" in window.windowTitle()
    window.actions_by_id["file.save"].trigger()  # untitled: Save asks for a name
    assert target.exists() and not window.isWindowModified()
    assert window.windowTitle().startswith("mine.json[*]")
    saved = target.read_bytes()
    assert saved == design_to_bytes(window.document.design)

    other = make_window()
    other.files.ask_open_path = lambda: str(target)
    other.actions_by_id["file.open"].trigger()
    assert design_to_bytes(other.document.design) == saved
    assert other.document.path == target.resolve()
    assert other.recent.paths()[0] == str(target.resolve())
    assert other.document.design.node("gpus").params["replicas"] == 6
    # editing and saving again writes the same file, keeping a backup
    other.scene.select_ids(["gpus"])
    other.inspector.editors["replicas"].edit.setText("8")
    other.inspector.editors["replicas"].edit.editingFinished.emit()
    assert other.isWindowModified()
    other.actions_by_id["file.save"].trigger()
    assert read_design(target)[0].node("gpus").params["replicas"] == 8
    assert Path(str(target) + ".bak").read_bytes() == saved


def test_undo_back_to_the_saved_state_clears_the_modified_mark(window, tmp_path):
    window.files.save_to(tmp_path / "a.json")
    window.document.execute(ops.SetLabel("gpus", "x"), "label")
    assert window.isWindowModified()
    window.document.undo_stack.undo()
    assert not window.isWindowModified()


def test_prompt_before_losing_unsaved_work(window, tmp_path):
    asked = []
    window.files.ask_unsaved = lambda: asked.append(1) or "cancel"
    window.document.execute(ops.SetLabel("gpus", "x"), "label")
    assert not window.close()  # cancelled: the window stays
    assert window.isVisible() and asked
    assert not window.files.new_from_template("blank")
    assert "gpus" in window.document.design.nodes
    window.files.ask_unsaved = lambda: "save"
    window.files.ask_save_path = lambda: str(tmp_path / "kept.json")
    assert window.files.new_from_template("blank")
    assert (tmp_path / "kept.json").exists() and not window.document.design.nodes


def test_new_from_each_template(window):
    names = list(templates())
    assert names[0] == "blank" and len(names) >= 2
    for name in names:
        window.files.ask_unsaved = lambda: "discard"
        assert window.files.new_from_template(name)
        assert window.document.path is None and not window.isWindowModified()
        assert set(window.scene.nodes) == set(window.document.design.nodes)
    assert window.document.undo_stack.count() == 0


def test_a_file_changed_on_disk_is_not_overwritten_silently(window, tmp_path):
    path = tmp_path / "shared.json"
    window.files.save_to(path)
    path.write_bytes(path.read_bytes().replace(b'"use1"', b'"use1"', 1) + b"\n")
    window.document.execute(ops.SetLabel("gpus", "mine"), "label")
    answers = []
    window.files.ask_conflict = lambda p: answers.append(p) or "cancel"
    assert not window.files.save()
    assert answers and window.isWindowModified()
    window.files.ask_conflict = lambda p: "overwrite"
    assert window.files.save()
    assert read_design(path)[0].node("gpus").label == "mine"


def test_opening_a_broken_file_reports_it_and_keeps_the_design(window, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "inferboard-design", "version": 1, "nodes": [{"id": "x", "kind": "nope"}]}')
    errors = []
    window.files.report_error = lambda title, text: errors.append(text)
    assert not window.files.open(str(broken))
    assert errors and "nope" in errors[0]
    assert "gpus" in window.document.design.nodes


def test_recent_files_menu_lists_opened_files(window, tmp_path):
    for name in ("one.json", "two.json"):
        window.files.save_to(tmp_path / name)
    window._fill_recent_menu()
    texts = [a.text() for a in window.recent_menu.actions()]
    assert texts[0].endswith("two.json") and texts[1].endswith("one.json")


def test_layout_and_choices_are_remembered(make_window):
    first = make_window(restore_layout=True)
    first.docks["outline"].hide()
    first.actions_by_id["view.snap_grid"].setChecked(False)
    first.close()
    second = make_window(restore_layout=True)
    assert second.docks["outline"].isHidden()
    assert not second.actions_by_id["view.panel.outline"].isChecked()
    assert not second.scene.snap_to_grid
