"""A drill as an interview on one machine: the clock cannot be paused, the candidate's window
shows only what the design shows (never the planted cause), and the interviewer's console shows
the hidden truth, the SLO status and each action's real effect."""

from __future__ import annotations

from PySide6.QtWidgets import (QAbstractButton, QComboBox, QLabel, QLineEdit, QListWidget, QPlainTextEdit, QTableWidget,
                               QTabWidget, QWidget)

from inferboard.drills.record import drill_runs


def visible_texts(window: QWidget) -> str:
    """Every text a person could read in ``window``: labels, buttons, lists, tables, tabs, combo
    items, fields, tooltips and the plots' titles and legends."""
    import pyqtgraph as pg

    texts = [window.windowTitle()]
    for widget in [window, *window.findChildren(QWidget)]:
        texts.append(widget.toolTip())
        if isinstance(widget, (QLabel, QAbstractButton, QLineEdit)):
            texts.append(widget.text())
        if isinstance(widget, QLineEdit):
            texts.append(widget.placeholderText())
        if isinstance(widget, QPlainTextEdit):
            texts += [widget.toPlainText(), widget.placeholderText()]
        if isinstance(widget, QListWidget):
            texts += [widget.item(i).text() for i in range(widget.count())]
        if isinstance(widget, QTableWidget):
            texts += [widget.item(r, c).text() for r in range(widget.rowCount()) for c in range(widget.columnCount())
                      if widget.item(r, c) is not None]
            texts += [widget.horizontalHeaderItem(c).text() for c in range(widget.columnCount())]
        if isinstance(widget, QTabWidget):
            texts += [widget.tabText(i) for i in range(widget.count())]
        if isinstance(widget, QComboBox):
            texts += [widget.itemText(i) for i in range(widget.count())]
        if isinstance(widget, pg.PlotWidget):
            plot = widget.getPlotItem()
            texts.append(plot.titleLabel.text)
            if plot.legend is not None:
                texts += [label.text for _, label in plot.legend.items]
    return "\n".join(t for t in texts if t)


def test_the_candidate_cannot_pause_and_never_sees_the_truth_the_interviewer_sees(drill_interview, history, qtbot,
                                                                                   tmp_path):
    interview = drill_interview("slow-canary-version")
    session, candidate, console = interview.session, interview.candidate, interview.console
    truth = session.truth()
    assert session.mode == "interview"
    # The clock runs and cannot be paused from the candidate's window.
    assert not candidate.pause_button.isEnabled() and not candidate.skip_button.isEnabled()
    assert not candidate.speed.isEnabled()
    assert candidate.toggle_pause() is False and not session.paused
    assert "keeps running" in candidate.status.text()
    start = session.now_s
    qtbot.waitUntil(lambda: session.now_s >= start + 3 * 60, timeout=5000)
    # The interviewer's console: the hidden root cause, the planted change against the decoys.
    panel = console.truth_texts()
    assert truth.root_cause in panel
    assert "Planted change" in panel and "ranker build 2.14" in panel
    assert "log sampling lowered" in panel.split("Decoys in the change log")[1]
    assert "fixes — rollback canary eu-west-canary" in panel and "worsens — flush cache eu-west-cache" in panel
    qtbot.waitUntil(lambda: "SLO BREACHED" in console.slo_text(), timeout=5000)
    # The candidate works the drill.
    candidate.check_changes()
    for name in ("system", "breakdown", "model", "segments", "business"):
        candidate.open_dashboard(name)
    candidate.notebook.hypothesis.setText("a slow build in the canary")
    candidate.notebook.record_hypothesis()
    candidate.notebook.picker.choose("flush_cache", "eu-west-cache")
    candidate.notebook.apply_mitigation()
    candidate.notebook.picker.choose("rollback_canary", "eu-west-canary")
    candidate.notebook.apply_mitigation()
    applied = session.now_s
    qtbot.waitUntil(lambda: session.now_s >= applied + 15 * 60, timeout=5000)
    console.refresh()
    # The console sees each mitigation's real effect and the SLO recover.
    effects = [console.actions.item(r, 1).text() for r in range(console.actions.rowCount())]
    assert effects[-2:] == ["worsens", "fixes"]
    qtbot.waitUntil(lambda: "SLO met" in console.slo_text(), timeout=5000)
    # Nothing of the truth anywhere in the candidate's window.
    candidate.refresh()
    seen = visible_texts(candidate)
    assert "ranker build 2.14" in seen  # the change log is there, planted and decoys alike
    for secret in (truth.root_cause, session.drill.title, session.drill.summary, "planted", "decoy", "fixes",
                   "worsens", "no effect", *(m["why"] for m in truth.mitigations)):
        assert secret not in seen, secret
    # The interviewer ends the drill; it is kept as an interview; the candidate's result has no truth.
    console.end_button.click()
    assert session.finished_at is not None and candidate.record_id is not None
    assert [(r["drill_id"], r["mode"]) for r in drill_runs(history)] == [("slow-canary-version", "interview")]
    result = candidate.result_window
    assert result is not None and not result.truth.isVisibleTo(result)
    assert truth.root_cause not in visible_texts(result)
    assert not console.end_button.isEnabled()
    report = console.export_report(tmp_path / "interview.html").read_text(encoding="utf-8")
    assert "What really happened" in report and truth.root_cause in report


def test_the_interviewer_plants_the_cause_from_the_picker(qtbot, drill_design):
    from desktop.drills.picker import DrillPicker

    dialog = DrillPicker(drill_design, interviewer=True)
    qtbot.addWidget(dialog)
    assert dialog.start_button.text() == "Plant and start"
    assert "only you will see it" in dialog.findChildren(QLabel)[0].text()
    dialog.select("input-drift-one-segment")
    dialog.accept_selected()
    assert dialog.chosen.id == "input-drift-one-segment"


def test_the_candidate_goes_on_when_the_interviewer_closes_the_console(drill_interview, qtbot):
    interview = drill_interview("slow-canary-version")
    session = interview.session
    interview.console.close()
    qtbot.waitUntil(lambda: interview.console.closed, timeout=2000)
    start = session.now_s
    qtbot.waitUntil(lambda: session.now_s >= start + 5 * 60, timeout=5000)
    interview.candidate.open_dashboard("system")
    assert interview.candidate.finish()["drill_id"] == "slow-canary-version"


def test_the_console_says_so_when_the_candidate_leaves_mid_drill(drill_interview, qtbot):
    """Closing the candidate's window stops the clock; the console must not sit there as if the
    drill ran on: it names the minute the candidate left, turns End drill and the speed off, and
    keeps the actions and the report."""
    interview = drill_interview("slow-canary-version")
    session, console = interview.session, interview.console
    qtbot.waitUntil(lambda: session.now_s >= 120, timeout=5000)
    interview.candidate.open_dashboard("system")
    interview.candidate.confirm_close = False
    interview.candidate.close()
    qtbot.waitUntil(lambda: console.left_at is not None, timeout=2000)
    left = console.left_at
    assert left == session.now_s and not session.finished
    assert "candidate closed their drill window" in console.slo_text()
    assert "candidate left" in console.clock_label.text()
    assert not console.end_button.isEnabled() and not console.speed.isEnabled()
    assert console.report_button.isEnabled() and console.actions.rowCount() >= 1
    assert not interview.clock.running and not interview.clock.timer.isActive()
    interview.close()


def test_a_finished_drill_closed_by_the_candidate_is_no_departure(drill_interview, qtbot):
    interview = drill_interview("slow-canary-version")
    interview.candidate.finish()
    interview.candidate.close()
    qtbot.waitUntil(lambda: not interview.candidate.isVisible(), timeout=2000)
    assert interview.console.left_at is None
    interview.close()
