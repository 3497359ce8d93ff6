"""Projector mode: entering hides the chrome and leaving brings it back as it was; stepping through
the findings highlights exactly each finding's nodes; the type is large (measured in pixels), the
theme's colours keep 7:1 against what they sit on (computed here from WCAG's formula), the figures
are the normal window's at the same tick, the day plays, and a folder of designs is stepped through."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QToolBar

from inferboard.cli import templates
from inferboard.practice.grading import score_design
from inferboard.store import read_design, save_design

from desktop import window_placement
from desktop.editor.canvas.node_item import card_fonts
from desktop.workshop.projector_theme import PANEL, PROJECTOR
from tests.desktop.gestures import demo_design

WAIT_MS = 60_000


def chrome(window) -> dict:
    return {"menu": window.menuBar().isVisible(), "status": window.statusBar().isVisible(),
            "toolbars": [bar.isVisible() for bar in window.findChildren(QToolBar)],
            "docks": {name: dock.isVisible() for name, dock in window.docks.items()},
            "actions": {key: action.isEnabled() for key, action in window.actions_by_id.items()},
            "central": window.centralWidget(), "full_screen": window.isFullScreen(), "size": window.size()}


def enter(window, qtbot, paths=None):
    stage = window.enter_projector(paths) if paths is not None else None
    if stage is None:
        window.actions_by_id["workshop.projector"].trigger()
        stage = window.projector_mode.stage
    stage.set_playing(False)
    stage.autoplay = False
    qtbot.waitUntil(lambda: stage.report is not None and stage.timeline is not None and not stage.evaluator.busy(),
                    timeout=WAIT_MS)
    return stage


def by_loss(findings) -> list:
    """The room sees the biggest losses first, blockers first among equals."""
    return sorted(findings, key=lambda f: (-f.points, ["blocker", "major", "minor", "advice"].index(f.severity),
                                           f.rule_id))


def highlighted(stage) -> set[str]:
    return {node_id for node_id, item in stage.scene.nodes.items() if item.highlighted}


def test_entering_hides_the_chrome_and_esc_restores_it(make_window, qtbot):
    window = make_window(demo_design())
    window.docks["history"].show()
    window.docks["outline"].hide()
    before = chrome(window)
    assert before["menu"] and any(before["toolbars"]) and before["docks"]["readouts"]
    window.actions_by_id["workshop.projector"].trigger()
    stage = window.projector_mode.stage
    qtbot.waitUntil(window.isFullScreen, timeout=5000)
    during = chrome(window)
    assert during["central"] is stage and not during["menu"] and not during["status"]
    assert not any(during["toolbars"]) and not any(during["docks"].values())
    assert not any(during["actions"].values())  # Delete or Ctrl+Z cannot reach the hidden editor
    qtbot.waitUntil(stage.hasFocus, timeout=5000)
    qtbot.keyClick(stage, Qt.Key.Key_Escape)
    assert not window.projector_mode.active
    qtbot.waitUntil(lambda: not window.isFullScreen(), timeout=5000)
    window.actions_by_id["workshop.projector"].trigger()  # F11 again leaves too
    qtbot.keyClick(window.projector_mode.stage, Qt.Key.Key_F11)
    assert not window.projector_mode.active
    qtbot.waitUntil(lambda: window.size() == before["size"], timeout=5000)
    after = chrome(window)
    assert after == {**before, "central": window.view}
    assert before["central"] is window.view and window.view.isVisible()


def test_stepping_the_findings_highlights_each_findings_nodes(make_window, qtbot):
    design = demo_design()
    window = make_window(design)
    stage = enter(window, qtbot)
    expected = by_loss(score_design(design).findings)
    assert [(f.rule_id, f.node_ids) for f in stage.findings] == [(f.rule_id, f.node_ids) for f in expected]
    assert any(f.node_ids for f in expected), "the demo design must have findings on nodes"
    assert stage.finding_index == -1 and highlighted(stage) == set()
    for n, finding in enumerate(expected):
        qtbot.keyClick(stage, Qt.Key.Key_Right)
        assert stage.finding_index == n
        assert highlighted(stage) == set(finding.node_ids) & set(stage.scene.nodes)
        assert stage.finding_title.text() == finding.title and stage.finding_text.text() == finding.message
        assert stage.counter.text() == f"Finding {n + 1} of {len(expected)}"
        names = [stage.node_name(node_id) for node_id in finding.node_ids if node_id in stage.scene.nodes]
        assert stage.finding_where.text() == ("On: " + ", ".join(names) if names else "On the design as a whole")
    qtbot.keyClick(stage, Qt.Key.Key_Right)  # past the last: stays there
    assert stage.finding_index == len(expected) - 1
    qtbot.keyClick(stage, Qt.Key.Key_Left)
    if len(expected) > 1:
        assert highlighted(stage) == set(expected[-2].node_ids) & set(stage.scene.nodes)
    qtbot.keyClick(stage, Qt.Key.Key_Home)
    assert highlighted(stage) == set()
    qtbot.keyClick(stage, Qt.Key.Key_Escape)


def test_components_are_named_as_their_cards_are_titled(make_window, qtbot):
    window = make_window(demo_design())
    stage = enter(window, qtbot)
    assert stage.node_name("gpus") == "GPU pool (gpus)"  # no label: the kind's title, and the id
    qtbot.keyClick(stage, Qt.Key.Key_Escape)


def test_type_is_large_enough_for_the_back_of_the_room(make_window, qtbot, monkeypatch):
    monkeypatch.setattr(window_placement, "available_area", lambda widget=None: QRect(0, 0, 1920, 1080))
    window = make_window(demo_design())
    stage = enter(window, qtbot)
    window.showNormal()  # the test screen is 1600x1000: lay the stage out as on a 1920x1080 projector
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: stage.width() >= 1800, timeout=5000)
    qtbot.keyClick(stage, Qt.Key.Key_Right)
    for label in (stage.title, stage.finding_title):
        assert QFontMetrics(label.font()).height() >= 40, label.objectName()
    for label in (stage.finding_text, stage.finding_where, stage.score, stage.severity):
        assert QFontMetrics(label.font()).height() >= 30, label.objectName()
    for label in (stage.basis, stage.hint, stage.position):
        assert QFontMetrics(label.font()).height() >= 24, label.objectName()
    for tile in stage.tiles.values():
        assert QFontMetrics(tile.value_label.font()).height() >= 50
        assert QFontMetrics(tile.title_label.font()).height() >= 30
        metrics = tile.value_label.fontMetrics()
        assert metrics.horizontalAdvance(tile.value_label.text()) <= tile.value_label.contentsRect().width()
    # On the canvas: the cards' titles at the stage's zoom, and lines twice as thick.
    assert QFontMetrics(card_fonts()["title"]).height() * stage.view.zoom() >= 20
    assert PROJECTOR.line_scale == 2.0
    qtbot.keyClick(stage, Qt.Key.Key_Escape)


def test_on_a_laptop_the_stage_fits_and_esc_returns_to_the_window(make_window, qtbot, monkeypatch):
    """At 1366x768 the type is smaller so the stage fits the screen, the finding's lines stay apart
    (its column scrolls), and Esc gives back the window as it was, title bar and size."""
    laptop = QRect(0, 0, 1366, 768)
    monkeypatch.setattr(window_placement, "available_area", lambda widget=None: QRect(laptop))
    window = make_window(demo_design())
    window.showNormal()
    window.resize(1200, 700)
    before = window.geometry()
    stage = enter(window, qtbot)
    assert stage.minimumSizeHint().width() <= laptop.width() and stage.minimumSizeHint().height() <= laptop.height()
    window.resize(laptop.size())
    qtbot.waitUntil(lambda: stage.size() == laptop.size())
    qtbot.keyClick(stage, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: stage.current_finding() is not None)
    column = [stage.score, stage.counter, stage.severity, stage.finding_title, stage.finding_text, stage.finding_where]
    shown = [label for label in column if label.isVisible()]
    for upper, lower in zip(shown, shown[1:]):
        assert upper.geometry().bottom() < lower.geometry().top(), (upper.objectName(), lower.objectName())
        assert upper.height() >= upper.heightForWidth(upper.width()) - 1, upper.objectName()
    qtbot.keyClick(stage, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.isFullScreen())
    assert window.size() == before.size() and window.menuBar().isVisible()


def luminance(colour: str) -> float:
    channels = [int(colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_theme_keeps_seven_to_one_contrast():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # WCAG's worked grey
    t = PROJECTOR
    pairs = [(t.text, t.canvas), (t.text, t.card), (t.text, t.card_header), (t.muted, t.card), (t.text, t.region_fill),
             (t.card_border, t.card), (t.highlight, t.canvas), (t.highlight, t.card), (t.selection, t.canvas),
             (t.region_border, t.canvas), (t.ok, t.card), (t.warn, t.card), (t.bad, t.card), (t.text, PANEL),
             (t.muted, PANEL)]
    pairs += [(colour, t.canvas) for colour in t.signals.values()]
    pairs += [(colour, PANEL) for colour in t.severity.values()]
    pairs += [("#ffffff", colour) for colour in (t.ok, t.warn, t.bad)]  # badge text on its level colour
    weak = [(a, b, round(contrast(a, b), 2)) for a, b in pairs if contrast(a, b) < 7.0]
    assert not weak


def test_the_figures_are_the_normal_windows_at_the_same_tick(make_window, qtbot):
    design = read_design(templates()["starter"])[0]
    window = make_window(design, evaluate=True)
    qtbot.waitUntil(lambda: not window.evaluator.busy() and window.readouts.timeline is not None, timeout=WAIT_MS)
    readouts = window.readouts
    tick = len(readouts.timeline.times_s) // 3
    readouts.playback.scrub.setValue(tick)
    normal = {key: tile.value_label.text() for key, tile in readouts.tiles.items()}
    stage = enter(window, qtbot)
    stage.set_tick(tick)
    shown = {key: tile.value_label.text() for key, tile in stage.tiles.items()}
    assert shown == {key: normal[key] for key in shown}
    assert stage.reading.values == readouts.reading.values
    # The day plays on its own.
    stage.set_tick(0)
    stage.set_playing(True)
    qtbot.waitUntil(lambda: stage.tick > 3, timeout=5000)
    assert stage.day.index == stage.tick
    qtbot.keyClick(stage, Qt.Key.Key_P)
    assert not stage.playing()
    qtbot.keyClick(stage, Qt.Key.Key_Escape)


def test_a_folder_of_designs_is_stepped_design_to_design(make_window, qtbot, tmp_path):
    folder = tmp_path / "room"
    folder.mkdir()
    save_design(demo_design(), folder / "a-team.json")
    save_design(read_design(templates()["cpu-small"])[0], folder / "b-team.json")
    (folder / "c-team.json").write_text(json.dumps({"format": "inferboard-design", "nodes": "many"}))
    window = make_window(demo_design())
    stage = enter(window, qtbot, [folder])
    assert [s.path.name for s in stage.slides] == ["a-team.json", "b-team.json", "c-team.json"]
    assert stage.position.text() == "Design 1 of 3" and sorted(stage.design.nodes) == sorted(demo_design().nodes)
    qtbot.keyClick(stage, Qt.Key.Key_PageDown)
    qtbot.waitUntil(lambda: stage.report is not None, timeout=WAIT_MS)
    assert stage.position.text() == "Design 2 of 3" and "scorers" in stage.design.nodes
    qtbot.waitUntil(lambda: stage.evaluator.latest.get("report") is stage.report, timeout=WAIT_MS)
    expected = by_loss(score_design(read_design(folder / "b-team.json")[0]).findings)
    assert [(f.rule_id, f.node_ids) for f in stage.findings] == [(f.rule_id, f.node_ids) for f in expected]
    qtbot.keyClick(stage, Qt.Key.Key_PageDown)
    assert stage.position.text() == "Design 3 of 3"
    assert stage.finding_title.text() == "This design cannot be shown" and "c-team.json" in stage.finding_text.text()
    assert str(tmp_path) not in stage.finding_text.text()  # the room sees the file's name, not a path
    assert stage.day.placeholder == "No design to simulate."
    qtbot.keyClick(stage, Qt.Key.Key_PageDown)  # the last stays
    assert stage.slide_index == 2
    qtbot.keyClick(stage, Qt.Key.Key_PageUp)
    assert stage.slide_index == 1
    qtbot.keyClick(stage, Qt.Key.Key_Escape)
    QApplication.processEvents()


def test_design_files_are_scored_in_the_scenario_chosen(make_window, qtbot, tmp_path):
    from inferboard.practice.library import ScenarioLibrary

    path = tmp_path / "team.json"
    save_design(read_design(templates()["cpu-small"])[0], path)
    window = make_window(demo_design())
    window.present_design_files([path], scenario_id="fraud-scoring-cpu")
    stage = window.projector_mode.stage
    stage.autoplay = False
    qtbot.waitUntil(lambda: stage.report is not None and stage.evaluator.latest.get("report") is stage.report,
                    timeout=WAIT_MS)
    scenario = ScenarioLibrary(user_packs=None).load().get("fraud-scoring-cpu").scenario
    expected = score_design(read_design(path)[0], scenario)
    assert expected.overall != pytest.approx(score_design(read_design(path)[0]).overall)  # the scenario matters
    assert stage.report.overall == pytest.approx(expected.overall)
    assert [(f.rule_id, f.node_ids) for f in stage.findings] == [(f.rule_id, f.node_ids)
                                                               for f in by_loss(expected.findings)]
    assert stage.position.text() == f"Design 1 of 1 · {scenario.title}"
    qtbot.keyClick(stage, Qt.Key.Key_Escape)



def test_a_cohort_is_presented_submission_by_submission_in_its_scenario(make_window, qtbot, data_folder):
    from inferboard.store import design_to_bytes
    from inferboard.workshop.cohorts import CohortStore
    from inferboard.workshop.grading import GradingRun, SubmissionResult

    good = design_to_bytes(read_design(templates()["cpu-small"])[0]).decode("utf-8")
    run = GradingRun("fraud-scoring-cpu", "Real-time fraud scoring on CPUs", [("latency", "Latency", 1.0)], [
        SubmissionResult(0, "ana.json", title="Ana's design", design=good, overall=55.0),
        SubmissionResult(1, "bo.json", error="bo.json: not a design file (no 'nodes')")])
    with CohortStore(data_folder) as store:
        cohort_id = store.save(run, "Tuesday room")
    window = make_window(demo_design())
    stage = window.present_cohort(cohort_id)
    stage.autoplay = False
    assert [s.title for s in stage.slides] == ["Ana's design", "bo.json"]
    assert stage.scenario is not None and stage.scenario.id == "fraud-scoring-cpu"
    qtbot.waitUntil(lambda: stage.report is not None and stage.evaluator.latest.get("report") is stage.report,
                    timeout=WAIT_MS)
    expected = score_design(read_design(templates()["cpu-small"])[0], stage.scenario)
    assert stage.report.overall == pytest.approx(expected.overall)
    qtbot.keyClick(stage, Qt.Key.Key_PageDown)
    assert stage.finding_title.text() == "This design cannot be shown" and "no 'nodes'" in stage.finding_text.text()
    qtbot.keyClick(stage, Qt.Key.Key_Escape)
    assert not window.projector_mode.active
