"""Solo practice in the main window: asking, the phase timer, submitting, the result screen."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.desktop_practice.conftest import small_design


def ask_with_enter(qtbot, panel, question_id):
    panel.questions.select(question_id)
    panel.questions.tree.setFocus()
    qtbot.keyClick(panel.questions.tree, Qt.Key.Key_Return)


def test_asking_a_question_in_the_panel_reveals_its_answer_and_records_it(solo, qtbot, clock, history):
    controller = solo()
    panel = controller.panel
    scenario = controller.entry.scenario
    question = next(q for q in scenario.questions if q.key)
    facts = [scenario.fact(f).text for f in question.reveals]
    assert panel.questions.answers(question.id) == [], "nothing is shown before the question is asked"
    clock.advance(45)
    ask_with_enter(qtbot, panel, question.id)
    qtbot.waitUntil(lambda: panel.questions.answers(question.id) == facts)
    assert question.id in panel.questions.asked_ids()
    assert [a.question_id for a in controller.session.asked] == [question.id]
    assert controller.session.asked[0].t_s == 45 and controller.session.asked[0].phase == "clarify"
    rows = history.attempt(controller.session.attempt_id).questions
    assert [(r["question_id"], r["t_s"], r["phase"]) for r in rows] == [(question.id, 45.0, "clarify")]
    # The answers can fill the requirements editor.
    if any(scenario.fact(f).sets for f in question.reveals):
        assert panel.fill_button.isEnabled()
        panel.fill_button.click()
        req = controller.window.document.design.requirements
        for fact_id in question.reveals:
            for name in scenario.fact(fact_id).sets:
                assert getattr(req, name) == getattr(scenario.requirements, name)


def test_the_phase_timer_follows_the_injected_clock_with_gentle_nudges(solo, qtbot, clock):
    controller = solo()
    timer = controller.panel.timer_widget
    phases = controller.entry.scenario.phases
    qtbot.waitUntil(lambda: timer.phase_label.text() == "Clarify requirements")
    assert timer.step_label.text() == f"Phase 1 of {len(phases)}"
    clock.advance(60 * phases[0].minutes - 60)  # one minute left: a nudge
    qtbot.waitUntil(lambda: timer.left_label.text() == "1:00 left")
    assert timer.nudge_label.isVisible() and "min left" in timer.nudge_label.text()
    clock.advance(61)
    qtbot.waitUntil(lambda: timer.phase_label.text() == "High-level design")
    assert timer.step_label.text() == f"Phase 2 of {len(phases)}"
    assert "High-level design" in controller.status_label.text()
    controller.panel.next_phase_button.click()
    qtbot.waitUntil(lambda: timer.phase_label.text() == phases[2].title)
    clock.advance(60 * 200)
    qtbot.waitUntil(lambda: timer.phase_label.text() == "Overtime")
    assert timer.left_label.text().startswith("+")


def test_live_findings_are_hidden_during_the_round_and_come_back(solo, qtbot):
    controller = solo()
    findings = controller.window.docks["findings"]
    assert findings.isHidden() and not controller.dock.isHidden()
    controller.panel.submit(confirm=False)
    qtbot.waitUntil(lambda: controller.result_window is not None and controller.result_window.isVisible())
    assert not findings.isHidden()
    assert controller.dock.isHidden()


def test_submit_shows_the_scores_with_every_lost_point_traced_to_a_finding(solo, qtbot, clock):
    controller = solo()
    panel = controller.panel
    scenario = controller.entry.scenario
    clock.advance(30)
    panel.ask(scenario.questions[0].id)
    clock.advance(400)
    small_design(controller.window.document)
    clock.advance(600)
    result = panel.submit(confirm=False)
    qtbot.waitUntil(lambda: controller.result_window is not None and controller.result_window.isVisible())
    screen = controller.result_window
    rubrics = result.grade.rubrics
    table = screen.scores.table
    assert table.rowCount() == len(rubrics) >= 2
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == [line.title for line in rubrics]
    assert table.item(0, 1).text() == f"{rubrics[0].percent:.0f}%"
    # Every lost point is an item; each names the rule (a fired finding) or the question behind it.
    fired = {f.rule_id: f for f in result.grade.findings}
    items = screen.lost.items
    assert len(items) == len(result.grade.lost) > 0
    for item in items:
        lost = item.data(0, Qt.ItemDataRole.UserRole)
        assert lost["source"] in fired or lost["source"].startswith("question:")
        if lost["source"] in fired:
            assert fired[lost["source"]].message == lost["message"]
    rule_item = next(i for i in items if i.data(0, Qt.ItemDataRole.UserRole)["source"] in fired)
    screen.lost.tree.setCurrentItem(rule_item)
    lost = rule_item.data(0, Qt.ItemDataRole.UserRole)
    text = screen.lost.detail.toPlainText()
    assert lost["message"] in text and lost["source"] in text
    assert fired[lost["source"]].explanation.split("\n")[0].strip()[:40] in text
    # The reference sits beside the design, with the missing components called out.
    compare = screen.compare
    assert set(compare.yours.node_ids()) == {"users", "lb", "cpus"}
    assert len(compare.reference.node_ids()) == len(controller.entry.reference_design().nodes)
    missing = [compare.missing.item(n).text() for n in range(compare.missing.count())]
    assert result.grade.diff.missing and all(
        any(kind.replace("_", " ") in line for line in missing) for kind in result.grade.diff.missing)
    # The follow-ups were replayed against the design.
    assert screen.what_ifs.table.rowCount() == len(scenario.follow_ups) == len(result.what_ifs)
    assert screen.what_ifs.table.item(0, 3).text() == result.what_ifs[0].verdict


def test_show_in_my_design_selects_the_components_of_a_lost_point(solo, qtbot):
    controller = solo()
    small_design(controller.window.document)
    controller.panel.submit(confirm=False)
    screen = controller.result_window
    item = next((i for i in screen.lost.items if i.data(0, Qt.ItemDataRole.UserRole)["node_ids"]), None)
    assert item is not None
    screen.lost.tree.setCurrentItem(item)
    assert screen.lost.show_button.isEnabled()
    screen.lost.show_button.click()
    nodes = list(item.data(0, Qt.ItemDataRole.UserRole)["node_ids"])
    assert controller.window.scene.selected_node_ids() == [n for n in controller.window.document.design.nodes
                                                           if n in nodes]


def test_the_entry_points_pick_a_scenario_and_keep_one_round_per_window(make_window, library, history, clock,
                                                                          monkeypatch, qtbot):
    from desktop import practice
    from desktop.practice import library_dialog
    from desktop.practice.mock import MockInterview
    from desktop.practice.solo import SoloPractice

    window = make_window()
    monkeypatch.setattr(library_dialog, "choose_scenario", lambda *_a, **_k: None)
    assert practice.open_practice(window, library=library, history=history) is None, "cancelled"
    entry = library.get("bursty-speech")
    monkeypatch.setattr(library_dialog, "choose_scenario", lambda *_a, **_k: (entry, "solo"))
    controller = practice.open_practice(window, library=library, history=history, clock=clock, check_unsaved=False)
    assert isinstance(controller, SoloPractice) and controller.entry is entry
    assert window.document.design.metadata["title"] == f"Practice: {entry.scenario.title}"
    assert practice.open_practice(window, library=library, history=history) is controller, "one round at a time"
    controller.panel.abandon(confirm=False)
    assert history.attempts()[0]["status"] == "abandoned"
    assert not window.docks["findings"].isHidden()
    # Choosing "mock interview" in the dialog opens the two interview windows instead.
    monkeypatch.setattr(library_dialog, "choose_scenario", lambda *_a, **_k: (entry, "mock"))
    mock = practice.open_mock_interview(window, library=library, history=history, clock=clock, show=False)
    try:
        assert isinstance(mock, MockInterview) and mock.console.running()
        assert mock.candidate.link.phase is not None
    finally:
        mock.close(discard=True)
        practice.forget(mock)
        practice.forget(controller)


def test_closing_the_main_window_mid_round_keeps_it_as_abandoned(solo, qtbot, history):
    controller = solo()
    window = controller.window
    window.files.ask_unsaved = lambda: "discard"
    window.close()
    qtbot.waitUntil(lambda: history.attempts()[0]["status"] == "abandoned")
    assert not controller.panel.tick.isActive() and not controller.panel.record_timer.isActive()


def test_the_result_shows_that_a_key_question_asked_late_earns_less(solo, clock):
    controller = solo()
    scenario = controller.entry.scenario
    early, late = [q for q in scenario.questions if q.key][:2]
    clock.advance(20)
    controller.panel.ask(early.id)
    small_design(controller.window.document)
    controller.panel.record_now()
    clock.advance(60 * scenario.phases[0].minutes)  # now in the high-level phase, after drawing
    controller.panel.ask(late.id)
    controller.panel.submit(confirm=False)
    table = controller.result_window.scores.questions
    rows = {table.item(r, 0).text(): (table.item(r, 2).text(), table.item(r, 3).text())
            for r in range(table.rowCount())}
    assert rows[early.text] == ("Clarify requirements", f"{early.points:g} / {early.points:g}")
    when, points = rows[late.text]
    assert when == "High-level design"
    assert float(points.split(" / ")[0]) < late.points


def test_the_findings_dock_scores_the_design_as_the_practice_result_does(solo, qtbot, clock):
    """One scoring calculation: after a round the findings dock judges the design in the scenario's
    terms, so its score and rubric percentages are the result's design score, not a second opinion."""
    controller = solo()
    small_design(controller.window.document)
    result = controller.panel.submit(confirm=False)
    qtbot.waitUntil(lambda: controller.result_window is not None and controller.result_window.isVisible())
    evaluator = controller.window.evaluator
    assert evaluator.settings.scenario is controller.entry.scenario
    evaluator.run_now()
    qtbot.waitUntil(lambda: not evaluator.busy() and "report" in evaluator.latest, timeout=20000)
    report = evaluator.latest["report"]
    assert report.overall == pytest.approx(result.grade.design_overall)
    graded = {line.rubric: line.percent for line in result.grade.rubrics if line.rubric != "clarifying"}
    assert {name: score.percent for name, score in report.scores.items()} == pytest.approx(graded)
    qtbot.waitUntil(lambda: f"<b>{report.overall:.0f}</b>/100" in controller.window.findings.summary.text())
    # A design opened afterwards is scored on its own requirements again.
    from inferboard.model import Design

    controller.window.document.set_design(Design())
    assert evaluator.settings.scenario is None


def test_a_practice_round_fits_a_1600x1000_screen(solo, qtbot):
    """The practice panel scrolls rather than making the window taller than the screen."""
    from desktop.practice.solo import MIN_PANEL_HEIGHT

    controller = solo()
    window = controller.window
    qtbot.waitUntil(lambda: controller.dock.isVisible())
    assert window.minimumSizeHint().height() <= 1000 - 40  # the screen less a title bar
    window.resize(1600, 960)
    qtbot.waitUntil(lambda: window.height() <= 960)
    assert controller.dock.widget().widget() is controller.panel  # inside its scroll area
    assert controller.dock.height() >= MIN_PANEL_HEIGHT


def test_the_phase_timer_grows_with_projector_view(solo, qtbot, clock):
    """The phase and the time left lead the timer in a larger semibold font; Projector View enlarges
    them with the rest of the practice panel (the panel's dock was left out of Projector View, and
    the two labels' size was fixed at 11 pt in a style sheet)."""
    from PySide6.QtWidgets import QApplication

    from desktop.shell.main_window import PROJECTOR_SCALE

    controller = solo()
    timer, window = controller.panel.timer_widget, controller.window
    qtbot.waitUntil(lambda: timer.phase_label.text() == "Clarify requirements")
    clock.advance(60 * controller.entry.scenario.phases[0].minutes - 60)  # one minute left: the caution colour
    qtbot.waitUntil(lambda: timer.left_label.text() == "1:00 left")

    def sizes():
        timer.phase_label.ensurePolished()
        timer.left_label.ensurePolished()
        return timer.phase_label.font().pointSizeF(), timer.left_label.font().pointSizeF()

    base = QApplication.font().pointSizeF()
    before = sizes()
    assert before[0] == pytest.approx(base * 11 / 9, abs=0.06) and before[1] == pytest.approx(before[0])
    assert timer.step_label.font().pointSizeF() == pytest.approx(base)
    window.actions_by_id["view.projector"].setChecked(True)
    qtbot.waitUntil(lambda: sizes()[0] == pytest.approx(before[0] * PROJECTOR_SCALE, abs=0.06))
    assert sizes()[1] == pytest.approx(before[1] * PROJECTOR_SCALE, abs=0.06)
    assert "color" in timer.left_label.styleSheet()  # the caution colour survives the new size
    assert timer.step_label.font().pointSizeF() == pytest.approx(base * PROJECTOR_SCALE)
    window.actions_by_id["view.projector"].setChecked(False)
    qtbot.waitUntil(lambda: sizes()[0] == pytest.approx(before[0], abs=0.06))


def test_a_practice_panel_opened_in_projector_view_is_large_from_the_start(make_window, library, history, clock,
                                                                           qtbot):
    from PySide6.QtWidgets import QApplication

    from desktop import practice
    from desktop.shell.main_window import PROJECTOR_SCALE

    window = make_window()
    window.actions_by_id["view.projector"].setChecked(True)
    controller = practice.open_practice(window, "fraud-scoring-cpu", library=library, history=history, clock=clock,
                                        check_unsaved=False)
    try:
        timer = controller.panel.timer_widget
        base = QApplication.font().pointSizeF()
        qtbot.waitUntil(lambda: timer.step_label.font().pointSizeF() == pytest.approx(base * PROJECTOR_SCALE))
        timer.phase_label.ensurePolished()
        assert timer.phase_label.font().pointSizeF() == pytest.approx(base * PROJECTOR_SCALE * 11 / 9, abs=0.06)
    finally:
        window.actions_by_id["view.projector"].setChecked(False)
        controller.panel.abandon(confirm=False)
        practice.forget(controller)


def test_a_damaged_history_is_moved_aside_and_the_window_says_where(make_window, library, clock, data_folder):
    from desktop import practice

    data_folder.mkdir(parents=True, exist_ok=True)
    (data_folder / "history.db").write_bytes(b"not a database at all " * 200)
    window = make_window()
    controller = practice.open_practice(window, "fraud-scoring-cpu", library=library, clock=clock,
                                        check_unsaved=False)
    try:
        moved = controller.history.recovered_from
        assert moved is not None and moved.exists()
        assert str(moved) in window.statusBar().currentMessage()
    finally:
        controller.panel.abandon(confirm=False)
        practice.forget(controller)
        controller.history.close()


def test_on_a_laptop_the_practice_panel_takes_the_column_from_the_warnings(solo, qtbot, monkeypatch):
    """The panel shares the inspector's place as a tab; the warnings below it (findings are hidden
    during a round) keep a strip, not the most of the column."""
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QApplication

    from desktop import window_placement
    from desktop.practice import solo as solo_module

    for module in (window_placement, solo_module):
        monkeypatch.setattr(module, "available_area", lambda widget=None: QRect(0, 0, 1366, 768))
    controller = solo()
    window = controller.window
    window.resize(1366, 728)
    qtbot.waitUntil(lambda: window.size().height() == 728)
    QApplication.processEvents()
    controller._size_dock()
    warnings = window.docks["warnings"]
    assert controller.dock in window.tabifiedDockWidgets(window.docks["inspector"])
    # (the warnings keep their least height, about 114 px offscreen, 85 px under a window manager)
    qtbot.waitUntil(lambda: warnings.isVisible() and controller.dock.height() >= 1.6 * warnings.height())
