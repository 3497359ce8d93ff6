"""Timed injects in a mock interview: the interviewer plans a follow-up for minute 3 from the
console's Plan tab, the round's clock reaches it, and the candidate gets the notice; the session,
its replay and the notes record it, and a follow-up played by hand is not played again."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication


def test_a_planned_follow_up_plays_itself_at_its_minute(interview, qtbot, clock):
    mock = interview(evaluate=False)
    console, candidate = mock.console, mock.candidate
    panel = console.injects
    scenario = console.scenario
    first, second = scenario.follow_ups[0], scenario.follow_ups[1]
    entry = panel.add_entry()  # five minutes from now, the first follow-up not yet planned
    assert (entry.minute, entry.follow_up) == (5, first.id)
    panel._change(entry, minute=3)  # as the minute field does when edited
    assert panel.table.rowCount() == len(panel.plan.entries) and "minute 3" in panel.next_label.text()
    later = panel.add_entry()
    panel._change(later, follow_up=second.id, minute=4)
    clock.advance(170)
    console.tick.timeout.emit()
    assert first.id not in console.session.follow_ups_played
    clock.advance(20)  # 3 min 10 s into the round
    console.tick.timeout.emit()
    assert console.session.follow_ups_played == [first.id]
    qtbot.waitUntil(lambda: first.title in candidate.follow_up_banner.text())
    moments = [m for m in console.session.replay.moments if m.kind == "follow_up"]
    assert [m.t_s for m in moments] == [190.0] and first.title in moments[0].text
    assert any("Planned follow-up played at minute 3" in text for _t, text in console.session.notes)
    assert "played at 3:10" in panel.table.cellWidget(0, 2).text()
    console.play_follow_up(second.id)  # the interviewer plays the second by hand first
    clock.advance(60)
    console.tick.timeout.emit()
    assert console.session.follow_ups_played == [first.id, second.id]  # not played twice
    assert "by hand" in panel.table.cellWidget(1, 2).text()


def test_the_plan_is_folded_away_with_what_only_the_interviewer_sees(interview, qtbot):
    mock = interview(evaluate=False)
    console = mock.console
    index = console.tabs.indexOf(console.injects)
    console.private.setChecked(False)
    assert not console.tabs.isTabVisible(index)
    console.private.setChecked(True)
    assert console.tabs.isTabVisible(index)
    console.tabs.setCurrentIndex(0)
    console.windowHandle().requestActivate()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is console)
    qtbot.keyClick(console.tabs, Qt.Key.Key_L, Qt.KeyboardModifier.AltModifier)  # the tab's key (F1 lists it)
    assert console.tabs.currentWidget() is console.injects
