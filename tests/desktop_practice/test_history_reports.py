"""The attempt history view, the HTML report export, replay scrubbing and the scenario library."""

from __future__ import annotations

import re
import zipfile

from PySide6.QtCore import Qt

from inferboard.practice import packzip
from tests.desktop_practice.conftest import add_node, connect, small_design
from tests.practice.conftest import copy_pack

EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//|<link\b|<script\b|"""
                      r"""@import""", re.IGNORECASE)


def submitted(solo, clock):
    controller = solo()
    scenario = controller.entry.scenario
    clock.advance(20)
    controller.panel.ask(scenario.questions[0].id)
    clock.advance(300)
    small_design(controller.window.document)
    controller.panel.record_now()
    clock.advance(300)
    controller.panel.submit(confirm=False)
    return controller


def assert_self_contained(text: str) -> None:
    assert text.lstrip().lower().startswith("<!doctype html>")
    assert not EXTERNAL.search(text), EXTERNAL.search(text).group(0)
    assert re.search(r'<img [^>]*src="data:image/png;base64,[A-Za-z0-9+/=]{200,}"', text)


def test_an_attempt_is_recorded_and_shown_in_the_history_view(solo, clock, history, qtbot):
    from desktop.practice.history_window import HistoryWindow

    first = submitted(solo, clock)
    second = submitted(solo, clock)
    window = HistoryWindow(history)
    qtbot.addWidget(window)
    window.show()
    assert window.table.rowCount() == 2
    titles = {window.table.item(r, 1).text() for r in range(2)}
    assert titles == {first.entry.scenario.title}
    assert window.table.item(0, 3).text() == "submitted"
    assert window.table.item(0, 4).text() == f"{second.result.grade.overall:.0f}%"
    # One curve per rubric (and the overall score), each with a point per attempt.
    names = {line.rubric for line in second.result.grade.rubrics} | {"overall"}
    assert set(window.curves) == names
    xs, ys = window.curves["overall"].getData()
    assert list(xs) == [1, 2]
    assert [round(y, 3) for y in ys] == [round(first.result.grade.overall, 3), round(second.result.grade.overall, 3)]
    # Hiding a rubric's curve from the list.
    item = window.rubrics.item(1)
    item.setCheckState(Qt.CheckState.Unchecked)
    assert not window.curves[item.data(Qt.ItemDataRole.UserRole)].isVisible()
    # The attempt opens as a result screen again, straight from the stored result.
    window.select_attempt(first.result.attempt_id)
    screen = window.open_result()
    assert screen.scores.table.rowCount() == len(first.result.grade.rubrics)
    for other in window.windows:
        other.close()


def test_the_report_exports_as_self_contained_html_with_the_diagram(solo, clock, history, tmp_path, qtbot):
    from desktop.practice.history_window import HistoryWindow

    controller = submitted(solo, clock)
    path = controller.result_window.export_report(tmp_path / "report.html")
    assert path is not None and path.exists()
    text = path.read_text(encoding="utf-8")
    assert_self_contained(text)
    assert controller.entry.scenario.title in text and "Where points were lost" in text
    assert controller.result.grade.lost[0].message.replace("'", "&#x27;").replace('"', "&quot;")[:30] in text
    # The same from the history window.
    window = HistoryWindow(history)
    qtbot.addWidget(window)
    again = window.export_report(tmp_path / "again.html")
    assert_self_contained(again.read_text(encoding="utf-8"))


def test_replay_scrubbing_shows_earlier_designs(solo, clock, qtbot):
    from desktop.practice.replay_view import ReplayView

    controller = solo()
    document = controller.window.document
    clock.advance(60)
    add_node(document, "traffic_source", -300, 0, "users")
    controller.panel.record_now()
    clock.advance(60)
    add_node(document, "regional_load_balancer", 0, 0, "lb")
    connect(document, "users", "lb")
    controller.panel.record_now()
    clock.advance(60)
    add_node(document, "cpu_pool", 300, 0, "cpus")
    controller.panel.record_now()
    view = ReplayView(controller.session.replay)
    qtbot.addWidget(view)
    view.show()
    assert set(view.shown_node_ids()) == {"users", "lb", "cpus"}, "it opens at the end"
    view.slider.setValue(round(90 * 10))  # 1:30, between the first and the second edit
    assert view.shown_node_ids() == ["users"]
    assert "users" in view.change_label.text()
    view.slider.setFocus()
    qtbot.keyClick(view.slider, Qt.Key.Key_Home)
    assert view.shown_node_ids() == []
    assert view.frames.count() == 4, "the empty canvas at the start, then three edits"
    view.frames.setCurrentRow(2)
    assert set(view.shown_node_ids()) == {"users", "lb"}
    view.next_button.click()
    assert set(view.shown_node_ids()) == {"users", "lb", "cpus"}
    assert view.canvas.view.isInteractive() is False


def test_the_library_dialog_lists_packs_and_imports_and_exports_zips(library, tmp_path, qtbot):
    from desktop.practice.library_dialog import ScenarioLibraryDialog

    dialog = ScenarioLibraryDialog(library)
    qtbot.addWidget(dialog)
    core = dialog.tree.topLevelItem(0)
    assert core.childCount() == len(library.packs["core"].scenario_ids) >= 9
    difficulties = {core.child(n).text(1) for n in range(core.childCount())}
    assert difficulties <= {"easy", "medium", "hard"} and core.child(0).text(3)
    dialog.difficulty.setCurrentIndex(dialog.difficulty.findData("hard"))
    assert {core.text(1) for core in [dialog.tree.topLevelItem(0).child(n)
                                      for n in range(dialog.tree.topLevelItem(0).childCount())]} == {"hard"}
    dialog.difficulty.setCurrentIndex(0)
    dialog.search.setText("fraud")
    assert dialog.tree.topLevelItem(0).childCount() == 1
    dialog.select("fraud-scoring-cpu")
    assert "Fraud" in dialog.details.toPlainText() or "fraud" in dialog.details.toPlainText()
    out = dialog.export_selected(tmp_path / "fraud.zip")
    assert out is not None
    assert any(n.endswith("fraud-scoring-cpu/scenario.yaml") for n in zipfile.ZipFile(out).namelist())
    # Import a pack zip made of renamed copies of shipped scenarios.
    folder = copy_pack(tmp_path / "src" / "extra", ["bursty-speech"])
    zipped = packzip.write_pack_zip(tmp_path / "extra.zip", {"id": "extra", "title": "Extra pack", "version": "1",
                                                              "description": "", "author": ""},
                                    [p for p in folder.iterdir() if p.is_dir()])
    dialog.search.clear()
    assert dialog.import_pack(zipped)
    packs = [dialog.tree.topLevelItem(n).data(0, Qt.ItemDataRole.UserRole)
             for n in range(dialog.tree.topLevelItemCount())]
    assert packs == ["core", "extra"]
    assert dialog.remove_button.isEnabled()
    dialog.select("extra-bursty-speech")
    entry = dialog.selected_entry()
    assert entry is not None and entry.pack_id == "extra"
    dialog.start_solo.click()
    assert dialog.chosen is entry and dialog.mode == "solo"
    # A broken zip is refused with a message, not an exception.
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    errors = []
    dialog._error = lambda title, text: errors.append(text)
    assert not dialog.import_pack(bad)
    assert errors and "bad.zip" in errors[0]
