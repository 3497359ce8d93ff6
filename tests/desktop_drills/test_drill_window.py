"""The drill window as a user works it: the page, a clock that runs while they think, the
dashboards the design has, the alerts and the change log, a mitigation whose effect shows on the
dashboard, the result traced to actions, and the drill kept in the history, exported and replayed."""

from __future__ import annotations

import math

from PySide6.QtCore import Qt

from inferboard.drills.record import drill_runs


def click(qtbot, button) -> None:
    assert button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def test_a_solo_drill_from_the_page_to_the_result_in_the_history(start_drill, history, qtbot, tmp_path):
    window = start_drill("slow-canary-version")
    session = window.session
    slo = session.design.requirements.slo_p99_ms
    told = session.notice_s
    # The user is told first, with the page of the drill.
    assert "p99 has roughly tripled" in window.page.text()
    assert "minute 20.2" in window.page.text()
    # The clock runs while they think.
    qtbot.waitUntil(lambda: session.now_s >= told + 5 * 60, timeout=5000)
    assert "simulated since the drill started" in window.clock_label.text()
    # The alert that told them is listed as delivered.
    alerts = [window.notifications.item(i).text() for i in range(window.notifications.count())]
    assert any("burn rate" in text and "TICKET" in text for text in alerts)
    assert window.alerts_box.title() == "Alerts (1 delivered)"
    # Symptom and scope, then the recent changes.
    window.notebook.symptom.setText("p99 about 3x the 150 ms SLO, p50 barely moved")
    window.notebook.scope.setText("eu-west, since minute 6")
    click(qtbot, window.notebook.symptom_button)
    assert window.changes.rowCount() == 0  # the log shows once checked
    click(qtbot, window.changes_button)
    changes = [window.changes.item(r, 2).text() for r in range(window.changes.rowCount())]
    assert any("ranker build 2.14" in text for text in changes) and len(changes) == len(session.drill.changes)
    # The system dashboard: p99 over the SLO.
    system = window.open_dashboard("system")
    assert system.available
    p99_before = system.plots.latest("Latency (ms)", "p99")
    assert p99_before > slo
    assert ("Latency (ms)", "p99 SLO") in system.plots.curves
    # The breakdown has a panel per instrumented component.
    breakdown = window.open_dashboard("breakdown")
    assert "eu-west-canary-gpus" in breakdown.plots.plots
    # One axis per plot: the times are drawn, utilisation and replicas are given in the title.
    assert ("eu-west-canary-gpus", "time spent (ms)") in breakdown.plots.curves
    assert ("eu-west-canary-gpus", "utilisation (%)") not in breakdown.plots.curves
    assert "now: utilisation (%) " in breakdown.plots.titles["eu-west-canary-gpus"]
    window.notebook.hypothesis.setText("the canary build 2.14 is slower")
    click(qtbot, window.notebook.hypothesis_button)
    assert window.notebook.hypotheses.count() == 1
    # Mitigate: roll the canary back; the effect shows on the dashboard.
    window.notebook.picker.choose("rollback_canary", "eu-west-canary")
    assert not window.notebook.picker.value.isVisibleTo(window.notebook.picker)
    click(qtbot, window.notebook.picker.apply_button)
    applied = session.now_s
    system = window.open_dashboard("system")
    qtbot.waitUntil(lambda: session.now_s >= applied + 15 * 60, timeout=5000)
    p99_after = system.plots.latest("Latency (ms)", "p99")
    assert p99_after <= slo < p99_before
    assert any(label == "roll back the canary" for _, label, _ in window.markers())
    # Root cause, follow-up, finish.
    window.notebook.root_cause.setPlainText("canary build 2.14 is slower and auto-rollback was paused")
    click(qtbot, window.notebook.root_cause_button)
    window.notebook.fix.setPlainText("a latency gate in the canary analysis; never pause automatic rollback")
    window.notebook.monitoring.setPlainText("per-version p99 alert")
    click(qtbot, window.notebook.follow_up_button)
    verbs = [a.verb for a in session.actions]
    assert verbs == ["state_symptom", "check_changes", "open_dashboard", "open_dashboard", "record_hypothesis",
                     "apply_mitigation", "open_dashboard", "name_root_cause", "write_follow_up"]
    click(qtbot, window.finish_button)
    result = window.result_window
    qtbot.waitExposed(result)
    from desktop.drills.result import DrillResultWindow

    assert [w for w in window.windows if isinstance(w, DrillResultWindow)] == [result]  # shown once
    lines = result.line_texts()
    assert len(lines) == len(result.result["lines"]) >= 8
    assert any(line.startswith("Time to mitigate") and "#6 apply mitigation" in line for line in lines)
    assert any(line.startswith("Root cause named | 15 / 15") and "#8 name root cause" in line for line in lines)
    assert result.missing.item(0).text().startswith("Nothing")
    assert "What really happened" in result.truth.text()  # solo: the debrief tells the cause
    assert not window.finish_button.isEnabled() and not window.notebook.picker.apply_button.isEnabled()
    # Kept in the history, exportable.
    runs = drill_runs(history)
    assert [r["drill_id"] for r in runs] == ["slow-canary-version"] and runs[0]["id"] == window.record_id
    path = result.export(tmp_path / "drill.html")
    text = path.read_text(encoding="utf-8")
    assert "Score, action by action" in text and "What really happened" in text


def test_the_header_says_the_clock_is_stopped_when_its_timer_is(start_drill, qtbot):
    """The header reads the clock itself: a stopped timer is never shown as a running clock."""
    window = start_drill("slow-canary-version")
    qtbot.waitUntil(lambda: window.clock.running, timeout=15_000)
    window.refresh()
    assert "clock running" in window.clock_label.text()
    window.clock.stop()
    window.refresh()
    assert "clock stopped" in window.clock_label.text() and "running" not in window.clock_label.text()


def test_pausing_stops_the_simulated_clock_in_solo_practice(start_drill, qtbot):
    window = start_drill("slow-canary-version")
    session = window.session
    assert window.pause_button.isEnabled()
    assert window.toggle_pause() is True
    stopped = session.now_s
    for _ in range(3):
        window.clock.step()
    assert session.now_s == stopped and "clock paused" in window.clock_label.text()
    assert window.pause_button.text() == "&Resume"
    assert window.toggle_pause() is False
    qtbot.waitUntil(lambda: session.now_s > stopped, timeout=5000)
    before = session.now_s
    click(qtbot, window.skip_button)
    assert session.now_s >= before + 5 * 60


def test_the_speed_is_shown_and_can_be_changed(start_drill):
    window = start_drill("slow-canary-version", speed=60.0)
    assert "×60 (1 s = 1 simulated min)" in window.clock_label.text()
    window.speed.setCurrentIndex(window.speed.findData(300.0))
    assert window.session.speed == 300.0
    window.refresh()
    assert "×300 (1 s = 5 simulated min)" in window.clock_label.text()


def test_a_design_without_metrics_shows_the_breakdown_as_unavailable(start_drill, blind_design, qtbot):
    window = start_drill("slow-canary-version", design=blind_design)
    page = window.open_dashboard("breakdown")
    assert not page.available
    assert "Unavailable:" in page.unavailable.text() and "no metrics collector" in page.unavailable.text()
    index = window.dashboards.indexOf(page)
    assert window.dashboards.tabText(index) == "By component (none)"
    assert window.dashboards.tabToolTip(index) == "Unavailable: the design has no metrics collector"
    assert window.session.actions[-1].verb == "open_dashboard" and window.session.actions[-1].outcome == "missing"
    assert "no alerting" in window.notifications.item(0).text()
    assert "This design cannot show" in window.intro.text()
    assert "a customer reports" in window.page.text().lower()
    click(qtbot, window.finish_button)
    missing = [window.result_window.missing.item(i).text() for i in range(window.result_window.missing.count())]
    assert any("min)" in text and "cost" in text for text in missing)
    assert not missing[0].startswith("Nothing")


def test_a_mitigation_that_cannot_be_done_is_explained_and_not_recorded(start_drill, qtbot):
    window = start_drill("slow-canary-version")
    picker = window.notebook.picker
    picker.choose("pin_previous_model")
    assert picker.target.currentText() == "(no target)" and not picker.target.isEnabled()
    before = len(window.session.actions)
    click(qtbot, picker.apply_button)
    assert "no earlier model version" in window.status.text()
    assert len(window.session.actions) == before
    picker.choose("scale_out", "eu-west-gpus")
    assert picker.value.isVisibleTo(picker) and picker.value.value() == 2.0
    assert picker.value_label.text() == "Factor (× replicas):"
    assert picker.value.minimum() > 1.0 and picker.value.maximum() == 10.0
    click(qtbot, picker.apply_button)
    assert window.status.text() == ""
    assert window.session.actions[-1].args == {"action": "scale_out", "target": "eu-west-gpus", "value": 2.0}
    assert "Scale out a pool: eu-west-gpus = 2" in window.notebook.log.item(window.notebook.log.count() - 1).text()


def test_the_drill_ends_by_itself_at_its_horizon_and_is_kept(start_drill, history, qtbot):
    window = start_drill("slow-canary-version", speed=20000.0)
    qtbot.waitUntil(lambda: window.record_id is not None, timeout=10000)
    assert window.session.finished_at == window.session.horizon_s
    assert [r["id"] for r in drill_runs(history)] == [window.record_id]
    assert "clock over" in window.clock_label.text()


def test_the_picker_lists_every_drill_with_why_it_cannot_run_here(qtbot, starter_design):
    from inferboard.drills.library import applicable, load_drills

    from desktop.drills.picker import DrillPicker

    dialog = DrillPicker(starter_design)
    qtbot.addWidget(dialog)
    drills = load_drills()
    assert dialog.table.rowCount() == len(drills) >= 12
    shown = {dialog.table.item(r, 0).data(Qt.ItemDataRole.UserRole): dialog.table.item(r, 3).text()
             for r in range(dialog.table.rowCount())}
    for drill_id, drill in drills.items():
        problems = applicable(drill, starter_design)
        assert shown[drill_id] == ("; ".join(problems) if problems else "can be planted")
    assert shown["slow-canary-version"] == "the design has no canary router"
    dialog.select("slow-canary-version")
    assert not dialog.start_button.isEnabled() and "Cannot be planted here" in dialog.summary.text()
    dialog.select("replica-leak")
    assert dialog.start_button.isEnabled()
    dialog.accept_selected()
    assert dialog.chosen.id == "replica-leak" and not dialog.surprise
    again = DrillPicker(starter_design)
    qtbot.addWidget(again)
    again.pick_surprise()
    assert again.surprise and not applicable(again.chosen, starter_design)


def test_the_drill_history_lists_the_drill_with_its_result_report_and_replay(start_drill, history, qtbot, tmp_path):
    from desktop.drills.history import DrillHistoryWindow

    window = start_drill("slow-canary-version")
    window.check_changes()
    window.notebook.picker.choose("rollback_canary", "eu-west-canary")
    window.notebook.apply_mitigation()
    window.finish()
    kept = DrillHistoryWindow(history)
    qtbot.addWidget(kept)
    assert kept.titles() == ["A slower model version went out through the canary"]
    assert not kept.empty.isVisible()
    result = kept.open_result()
    assert result.line_texts() == window.result_window.line_texts()
    path = kept.export_report(tmp_path / "kept.html")
    assert "rollback" in path.read_text(encoding="utf-8")
    replay = kept.open_replay()
    assert replay.actions.count() == len(window.session.actions) == 2
    replay.actions.setCurrentRow(1)
    assert replay.dashboards.cursor_min == window.session.actions[1].t_s / 60.0
    assert "Time to mitigate" in replay.moment.text()
    kept.close()


def test_the_practice_history_opens_the_drills(start_drill, history, qtbot):
    from desktop.drills.menu import DRILL_HISTORY_VIEW
    from desktop.practice.history_window import HistoryWindow

    window = start_drill("slow-canary-version")
    window.finish()
    practice = HistoryWindow(history, views=(DRILL_HISTORY_VIEW,))
    qtbot.addWidget(practice)
    assert practice.view_buttons["drills"].text() == "Dr&ills…"
    drills = practice.open_view("drills")
    assert drills.titles() == ["A slower model version went out through the canary"]
    drills.close()
    practice.close()


def test_the_main_window_menu_and_command_palette_start_a_drill_on_the_open_design(make_window, starter_design,
                                                                                   qtbot):
    from desktop import drills
    from desktop.shell.command_palette import CommandPalette

    main = make_window(starter_design)
    for action_id in ("practice.drill", "practice.drill_interview", "practice.drill_history"):
        assert action_id in main.actions_by_id
    practice_history = main.open_practice_history()  # the practice history offers the drills too
    assert list(practice_history.view_buttons) == ["drills"]
    practice_history.close()
    palette = CommandPalette(main.actions_by_id, main)
    palette.search.setText("incident drill")
    assert "practice.drill" in palette.visible_ids()
    palette.deleteLater()
    window = main.open_drill("replica-leak")
    try:
        assert window.session.source_design.nodes.keys() == starter_design.nodes.keys()
        assert window.session.source_design is not main.document.design  # a private copy
        assert "Incident drill" in window.windowTitle()
        assert math.isfinite(window.session.now_s)
    finally:
        window.confirm_close = False
        window.close()
        drills.forget(window)


def test_an_accuracy_drill_shows_labels_late_and_the_pinned_model_restores_accuracy(start_drill, qtbot):
    """Accuracy needs labels: nothing is known at the notice; later the model dashboard shows the
    drop, slicing by segment is recorded, and pinning the previous model brings accuracy back."""
    window = start_drill("bad-retrained-model")
    session = window.session
    model = window.open_dashboard("model")
    assert "labels, which arrive 30 min late" in model.plots.notes.text()
    assert math.isnan(model.plots.latest("Accuracy (%), labelled traffic", "all traffic"))
    told = session.now_s
    qtbot.waitUntil(lambda: session.now_s >= told + 25 * 60, timeout=5000)
    window.refresh()
    dropped = model.plots.latest("Accuracy (%), labelled traffic", "all traffic")
    segments = window.open_dashboard("segments")
    assert session.actions[-1].verb == "slice_by_segment"
    assert len(segments.plots.curves) >= 4  # accuracy and input shift per segment
    window.open_dashboard("business")
    window.notebook.picker.choose("pin_previous_model")
    window.notebook.apply_mitigation()
    model = window.open_dashboard("model")
    pinned = session.now_s
    qtbot.waitUntil(lambda: session.now_s >= pinned + 45 * 60, timeout=5000)
    window.refresh()
    restored = model.plots.latest("Accuracy (%), labelled traffic", "all traffic")
    assert dropped < restored - 5.0
    # Accuracy moves far from zero: the plot scales to it rather than starting at zero.
    low, _high = model.plots.plots["Accuracy (%), labelled traffic"].viewRange()[1]
    assert low > 50.0


def test_an_empty_drill_history_says_how_to_start_one(history, qtbot):
    from desktop.drills.history import DrillHistoryWindow

    kept = DrillHistoryWindow(history)
    qtbot.addWidget(kept)
    kept.show()
    assert kept.titles() == [] and kept.empty.isVisible()
    assert "Practice > Incident Drill" in kept.empty.text()
    assert not kept.open_button.isEnabled() and kept.open_result() is None
    kept.close()


def test_the_menu_asks_which_drill_and_starts_the_one_picked(make_window, drill_design, qtbot):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop.drills import launch
    from desktop.drills.picker import DrillPicker

    main = make_window(drill_design)

    def pick():
        dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, DrillPicker) and w.isVisible())
        dialog.select("cache-eviction-storm")
        dialog.start_button.click()

    QTimer.singleShot(0, pick)
    main.actions_by_id["practice.drill"].trigger()
    window = next(w for w in launch._OPEN if getattr(w, "session", None) is not None
                  and w.session.drill.id == "cache-eviction-storm")
    try:
        assert window.isVisible()
        qtbot.waitUntil(lambda: window.clock.running)  # once the window is drawn
        assert window.session.mode == "solo" and window.session.seed == 0
    finally:
        window.confirm_close = False
        window.close()
        launch.forget(window)


def test_an_alert_delivered_after_the_notice_is_marked_new_until_looked_at(start_drill, qtbot):
    window = start_drill("bad-retrained-model")
    assert window.new_alerts() == 0 and "NEW" not in window.alerts_box.title()
    qtbot.waitUntil(lambda: window.new_alerts() > 0, timeout=10000)  # accuracy alert once labels are in
    assert window.alerts_box.title().endswith("— NEW")
    assert any("accuracy below target" in window.notifications.item(i).text()
               for i in range(window.notifications.count()))
    qtbot.mouseClick(window.notifications.viewport(), Qt.MouseButton.LeftButton,
                     pos=window.notifications.visualItemRect(window.notifications.item(0)).center())
    assert window.new_alerts() == 0 and "NEW" not in window.alerts_box.title()
