"""Practice > Host Interview… and Join Interview…: two machines' windows in one process, joined
over 127.0.0.1 by the code the host dialog shows."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QApplication

from inferboard.practice.history import History
from tests.desktop_practice.conftest import add_node, all_texts, connect


@pytest.fixture
def remote(library, tmp_path, qtbot, monkeypatch):
    """Host (candidate) and join (interviewer) dialogs with separate data folders, as on two machines."""
    from PySide6.QtWidgets import QMessageBox

    from desktop import practice

    monkeypatch.setattr(QMessageBox, "question", lambda *_a, **_k: QMessageBox.StandardButton.Yes)
    opened = []
    histories = []

    def start(scenario_id="fraud-scoring-cpu", candidate_library=None, interviewer_library=None):
        host = practice.host_interview(None, scenario_id, library=candidate_library or library,
                                       data_folder=tmp_path / "candidate")
        host.port.setValue(0)
        qtbot.waitExposed(host)
        remote_candidate = host.start_hosting()
        assert remote_candidate is not None, host.setup_problem.text()
        history = History(tmp_path / "interviewer")
        histories.append(history)
        join = practice.join_interview(None, library=interviewer_library or library, history=history,
                                       data_folder=tmp_path / "interviewer")
        join.port.setValue(remote_candidate.port)
        opened.extend([host, join])
        return host, join, history

    yield start
    for dialog in opened:
        remote_obj = dialog.remote
        if remote_obj is not None:
            remote_obj.close(discard=True)
            for window in (getattr(remote_obj, "candidate", None), getattr(remote_obj, "console", None)):
                if window is not None:
                    window.deleteLater()
        dialog.close()
        dialog.deleteLater()
        practice.forget(dialog)
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()
    for history in histories:
        history.close()


def console_of(join):
    return join.remote.console if join.remote is not None else None


def join_and_draw(host, join, qtbot):
    """Join with the code the host dialog shows; the candidate draws a traffic source, the
    interviewer's mirror shows it. Returns (console, candidate window)."""
    join.port.setValue(host.remote.port)
    join.code.setText(host.code_label.text())
    join.join()
    qtbot.waitUntil(lambda: console_of(join) is not None and host.remote.candidate.link.phase is not None,
                    timeout=10000)
    console, candidate = console_of(join), host.remote.candidate
    add_node(candidate.document, "traffic_source", -300, 0, "users")
    qtbot.waitUntil(lambda: console.mirror.node_ids() == ["users"], timeout=10000)
    return console, candidate


def close_join_dialog(join) -> None:
    """Close a join dialog a test made itself (and its console and history), as the fixture does."""
    from desktop import practice

    if join.remote is not None:
        join.remote.close(discard=True)
        if join.remote.console is not None:
            join.remote.console.deleteLater()
    join.close()
    join.deleteLater()
    practice.forget(join)
    join.history.close()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()


@pytest.mark.slow
def test_joining_with_the_spoken_code_mirrors_the_candidates_edits(remote, qtbot):
    host, join, history = remote()
    code = host.code_label.text()
    assert code.count("-") == 2 and code.split("-")[0].isdigit()
    assert "Waiting for the interviewer" in host.status_label.text()
    join.code.setText(code.upper().replace("-", " "))  # read aloud, typed loosely
    qtbot.mouseClick(join.join_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: console_of(join) is not None, timeout=10000)
    console = console_of(join)
    candidate = host.remote.candidate
    # both show the same verification string
    qtbot.waitUntil(lambda: host.remote.verification != "" and join.remote.verification != "")
    assert host.remote.verification == join.remote.verification
    assert host.remote.verification in host.verification_label.text()
    assert host.remote.verification in console.banner.text() and "Connected" in console.banner.text()
    assert console.running() and console.scenario.id == "fraud-scoring-cpu"
    # the candidate draws; the interviewer's mirror follows
    qtbot.waitUntil(lambda: candidate.link.phase is not None)
    add_node(candidate.document, "traffic_source", -300, 0, "users")
    add_node(candidate.document, "cpu_pool", 0, 0, "cpus")
    connect(candidate.document, "users", "cpus")
    qtbot.waitUntil(lambda: console.mirror.node_ids() == ["users", "cpus"], timeout=10000)
    assert console.mirror.view.isInteractive() is False
    # a question and its answer travel as in the local mode
    question = console.scenario.questions[0]
    candidate.ask(question.id)
    qtbot.waitUntil(lambda: console.questions.inbox.count() == 1)
    console.answer(question.id)
    facts = [console.scenario.fact(f).text for f in question.reveals]
    box = candidate.interview.answers
    qtbot.waitUntil(lambda: all(any(f in box.item(n).text() for n in range(box.count())) for f in facts))
    # notes and the score sheet stay on the interviewer's machine, in its history
    console.add_note("Asked about the model early.")
    assert "Asked about the model early." not in "\n".join(all_texts(candidate))
    console.end_interview(confirm=False)
    qtbot.waitUntil(lambda: candidate.link.ended and candidate.interview.ended_label.isVisibleTo(candidate))
    console.score_sheet.use_suggestions()
    console.score_sheet.set_score("clarifying", 35, "One question before drawing")
    qtbot.waitUntil(lambda: any(e["kind"] == "score_sheet"
                                for e in history.attempt(console.session.attempt_id).events), timeout=5000)
    record = history.attempt(console.session.attempt_id)
    sheet = json.loads(next(e["detail"] for e in record.events if e["kind"] == "score_sheet"))
    assert {"rubric": "clarifying", "given": 35.0}.items() <= next(
        r for r in sheet["rows"] if r["rubric"] == "clarifying").items()
    assert any(e["kind"] == "note" and "Asked about the model" in e["detail"] for e in record.events)
    from desktop.practice.report_export import record_report_html

    report = record_report_html(record)
    assert "Interviewer's score sheet" in report and "One question before drawing" in report
    assert record.attempt["mode"] == "mock"
    candidate_history = History(host.data_folder)
    try:
        assert candidate_history.attempts() == [], "nothing of the interview is stored on the candidate's machine"
    finally:
        candidate_history.close()
    # the interview over, the session closes on both sides
    qtbot.waitUntil(lambda: "Session ended" in host.status_label.text() and "Session ended" in console.banner.text())


def test_a_dropped_connection_shows_on_both_sides_then_resumes(remote, qtbot):
    host, join, _ = remote()
    console, candidate = join_and_draw(host, join, qtbot)
    seen_host, seen_join = [], []
    host.remote.status_changed.connect(lambda s: seen_host.append(host.status_label.text()))
    join.remote.status_changed.connect(lambda s: seen_join.append(console.banner.text()))
    host.remote.peer.cut_connection()
    qtbot.waitUntil(lambda: any("Connection lost" in t for t in seen_host)
                    and any("Connection lost" in t for t in seen_join), timeout=10000)
    add_node(candidate.document, "cpu_pool", 0, 0, "cpus")  # drawn while the line is down
    qtbot.waitUntil(lambda: "Connected" in console.banner.text() and "Connected" in host.status_label.text(),
                    timeout=10000)
    qtbot.waitUntil(lambda: console.mirror.node_ids() == ["users", "cpus"], timeout=10000)
    assert host.remote.verification == join.remote.verification
    assert console.running()
    # the candidate ends the session: the interviewer's side ends the interview and keeps the record
    host.end_session(confirm=False)
    qtbot.waitUntil(lambda: not console.running() and console.result is not None, timeout=10000)
    assert "Session ended" in console.banner.text()


def test_a_wrong_code_is_refused_in_the_join_dialog(remote, qtbot):
    host, join, _ = remote()
    number, first, second = host.code_label.text().split("-")
    join.code.setText(f"{number}-{first}-{'acorn' if second != 'acorn' else 'apple'}")
    join.join()
    qtbot.waitUntil(lambda: "wrong code" in join.status_label.text() or "refused" in join.status_label.text(),
                    timeout=10000)
    assert console_of(join) is None and join.join_button.isEnabled()
    assert "Waiting for the interviewer" in host.status_label.text()
    join.code.setText("7 amber")
    assert join.join() is None and "a number and two words" in join.status_label.text()


def test_the_practice_menu_has_host_and_join(make_window):
    window = make_window()
    for action_id, text in (("practice.host", "Host Interview"), ("practice.join", "Join Interview")):
        action = window.actions_by_id[action_id]
        assert text in action.text().replace("&", "")


def test_the_remote_candidate_window_sends_each_edit_as_it_completes(library, clock, qtbot, data_folder):
    """No event-loop turn between an edit and its sending (nothing queued can hold it back);
    edits in quick succession go out once the interval is over; a compound edit goes out once."""
    from inferboard.model import ops
    from inferboard.practice.interview_link import CandidateLink, InProcessTransport, InterviewerLink

    from desktop.practice.candidate import CandidateWindow

    transport = InProcessTransport()
    interviewer = InterviewerLink(transport, library.get("fraud-scoring-cpu"), None, clock=clock)
    link = CandidateLink(transport, interviewer.brief())
    interviewer.start()
    window = CandidateWindow(link, data_folder, theme_mode="light", clock=clock, evaluate=False, send_ms=300,
                             send_at_once=True)
    qtbot.addWidget(window)
    window.files.ask_unsaved = lambda: "discard"

    def designs_sent() -> int:
        return sum(1 for _to, data in transport.sent if data["type"] == "design_changed")

    add_node(window.document, "traffic_source", -300, 0, "users")
    assert list(interviewer.latest.nodes) == ["users"], "sent within the edit's own call"
    add_node(window.document, "cpu_pool", 0, 0, "cpus")
    assert list(interviewer.latest.nodes) == ["users"], "a second edit right after waits for the interval"
    qtbot.waitUntil(lambda: list(interviewer.latest.nodes) == ["users", "cpus"], timeout=3000)
    assert designs_sent() == 2
    qtbot.waitUntil(lambda: not window.send_timer.isActive())
    window._sent_at -= 1.0  # as if a second had passed since
    before = designs_sent()
    moved = ops.Compound((ops.MoveNodes({"users": (-400, 0)}), ops.MoveNodes({"cpus": (100, 0)})), "Move both")
    assert window.document.execute(moved, "Move both")
    assert designs_sent() == before + 1 and interviewer.latest.nodes["cpus"].x == 100
    window._sent_at -= 1.0
    window.document.undo_stack.undo()
    assert interviewer.latest.nodes["cpus"].x == 0, "an undo is an edit too"
    assert designs_sent() == before + 2 and not window.send_timer.isActive(), "nothing left to send later"


def test_five_wrong_codes_show_a_new_code_in_the_host_dialog_which_then_joins(remote, qtbot):
    from inferboard.remote.attempts import AttemptLimiter
    from tests.fakes import FakeClock

    host, join, _ = remote()
    waits = FakeClock(100.0)
    host.remote.peer.limiter = AttemptLimiter(clock=waits)  # the real limits, on a clock the test moves
    old = host.code_label.text()
    number, first, second = old.split("-")
    for n in range(5):
        join.code.setText(f"{number}-{first}-{'acorn' if second != 'acorn' else 'apple'}")
        join.join()
        qtbot.waitUntil(lambda: join.remote.peer.ended and join.join_button.isEnabled(), timeout=10000)
        assert "wrong code" in join.status_label.text(), join.status_label.text()
        assert console_of(join) is None
        if n < 4:
            assert host.code_label.text() == old
        waits.advance(60)  # past the wait this wrong code imposed
    qtbot.waitUntil(lambda: host.code_label.text() != old, timeout=10000)
    new = host.code_label.text()
    assert new == host.remote.code and new.count("-") == 2
    assert "Too many wrong codes" in host.status_label.text()
    join.code.setText(old)  # the retired code is just another wrong one
    join.join()
    qtbot.waitUntil(lambda: join.remote.peer.ended and join.join_button.isEnabled(), timeout=10000)
    assert "wrong code" in join.status_label.text() and console_of(join) is None
    waits.advance(60)
    join.code.setText(new)
    join.join()
    qtbot.waitUntil(lambda: console_of(join) is not None and host.remote.verification != "", timeout=10000)
    assert host.code_label.text() == "joined" and "Connected" in console_of(join).banner.text()


def test_a_scenario_missing_on_the_interviewers_machine_is_named_and_nothing_opens(remote, tmp_path, qtbot):
    """The candidate hosts a scenario from a pack they imported; the interviewer's machine lacks it."""
    from desktop.practice.common import open_library
    from inferboard.practice.library import user_packs_dir
    from tests.practice.conftest import copy_pack

    copy_pack(user_packs_dir(tmp_path / "candidate") / "extra", ["fraud-scoring-cpu"])
    candidate_library = open_library(tmp_path / "candidate")
    scenario = candidate_library.get("extra-fraud-scoring-cpu").scenario
    host, join, history = remote("extra-fraud-scoring-cpu", candidate_library, open_library(tmp_path / "interviewer"))
    join.code.setText(host.code_label.text())
    join.join()
    qtbot.waitUntil(lambda: join.remote.problem != "" and join.join_button.isEnabled(), timeout=10000)
    text = join.status_label.text()
    assert "extra-fraud-scoring-cpu" in text and "import the same scenario pack" in text, text
    assert console_of(join) is None and join.isVisible()
    assert history.attempts() == [], "no attempt was started on the interviewer's machine"
    qtbot.waitUntil(lambda: "Session ended" in host.status_label.text(), timeout=10000)
    assert "cannot run this scenario" in host.status_label.text()
    assert host.remote.candidate.link.ended and scenario.title in host.remote.candidate.windowTitle()


def test_the_interviewers_notes_and_score_sheet_are_in_the_practice_history_of_the_interviewers_app(
        remote, make_window, qtbot):
    """Joined from the interviewer's own main window (no history injected): Practice › Practice
    History on that machine lists the remote attempt with its notes and score sheet."""
    from desktop import practice
    from desktop.practice.report_export import record_report_html

    host, _, _ = remote()
    window = make_window()
    join = window.join_interview()
    try:
        console, candidate = join_and_draw(host, join, qtbot)
        console.add_note("Started with the traffic source.")
        console.end_interview(confirm=False)
        console.score_sheet.use_suggestions()
        console.score_sheet.set_score("clarifying", 20, "No questions before drawing")
        attempt_id = console.session.attempt_id
        qtbot.waitUntil(lambda: any(e["kind"] == "score_sheet" for e in join.history.attempt(attempt_id).events),
                        timeout=5000)
        shown = window.open_practice_history()
        rows = shown.history.attempts()
        assert [(r["id"], r["mode"], r["status"]) for r in rows] == [(attempt_id, "mock", "submitted")]
        assert shown.history.path == join.history.path, "the same history as the interviewer's app"
        record = shown.history.attempt(attempt_id)
        assert any(e["kind"] == "note" and "Started with the traffic source." in e["detail"] for e in record.events)
        sheet = json.loads(next(e["detail"] for e in record.events if e["kind"] == "score_sheet"))
        assert next(r for r in sheet["rows"] if r["rubric"] == "clarifying")["given"] == 20
        assert "No questions before drawing" in record_report_html(record)
        assert shown.table.rowCount() == 1 and "mock" in shown.table.item(0, 2).text()
        shown.close()
        shown.deleteLater()
        practice.forget(shown)
        shown.history.close()
    finally:
        close_join_dialog(join)


def test_after_the_interviewers_app_restarts_a_new_code_carries_the_same_interview_on(remote, qtbot, tmp_path,
                                                                                      library):
    from desktop import practice

    host, join, history = remote()
    console, candidate = join_and_draw(host, join, qtbot)
    question = console.scenario.questions[0]
    candidate.ask(question.id)
    qtbot.waitUntil(lambda: console.questions.inbox.count() == 1)
    console.answer(question.id)
    console.add_note("Asked about the workload first.")
    attempt_id, first_verification = console.session.attempt_id, host.remote.verification
    qtbot.waitUntil(lambda: bool(console.score_sheet.rubrics), timeout=20000)  # the live grade's rows
    console.score_sheet.set_score("clarifying", 40, "Asked early")
    qtbot.waitUntil(lambda: any(e["kind"] == "score_sheet" for e in history.attempt(attempt_id).events))
    assert not host.new_code_button.isEnabled(), "no new code while the interviewer is connected"
    # the interviewer's app stops: no goodbye, the interview not ended, the keys gone with it
    gone = join.remote
    gone.closed = True
    gone.peer.ended = True
    gone.peer.cut_connection()
    console.tick.stop()
    console.evaluator.shutdown()
    console.hide()
    qtbot.waitUntil(lambda: "Connection lost" in host.status_label.text() and host.new_code_button.isEnabled(),
                    timeout=10000)
    add_node(candidate.document, "cpu_pool", 0, 0, "cpus")  # the candidate carries on meanwhile
    code = host.issue_new_code()
    assert code and host.code_label.text() == code and "join this session again" in host.lead.text()
    qtbot.waitUntil(lambda: "join again" in host.status_label.text())
    # the app comes back: a new history connection to the same folder, Join Interview with the new code
    again_history = History(tmp_path / "interviewer")
    again = practice.join_interview(None, library=library, history=again_history, data_folder=tmp_path / "interviewer")
    try:
        again.port.setValue(host.remote.port)
        again.code.setText(code)
        again.join()
        qtbot.waitUntil(lambda: console_of(again) is not None, timeout=10000)
        resumed = console_of(again)
        assert again.remote.resumed_attempt == attempt_id and resumed.session.attempt_id == attempt_id
        assert resumed.notes.notes() and "Asked about the workload first." in resumed.notes.notes()[0]
        assert question.id in resumed.session.asked_ids()
        restored = next(r for r in resumed.score_sheet.rows() if r["rubric"] == "clarifying")
        assert (restored["given"], restored["comment"]) == (40, "Asked early")
        fact = question.reveals[0]
        assert resumed.questions.fact_items[fact].text(1).startswith("✓")
        qtbot.waitUntil(lambda: resumed.mirror.node_ids() == ["users", "cpus"], timeout=10000)
        qtbot.waitUntil(lambda: host.remote.verification == again.remote.verification != first_verification)
        assert "Connected" in host.status_label.text() and host.code_label.text() == "joined"
        resumed.add_note("Carried on after the restart.")
        resumed.end_interview(confirm=False)
        qtbot.waitUntil(lambda: candidate.link.ended, timeout=10000)
        record = again_history.attempt(attempt_id)
        assert record.attempt["status"] == "submitted" and len(again_history.attempts()) == 1
        assert [e["detail"] for e in record.events if e["kind"] == "note"] == [
            "Asked about the workload first.", "Carried on after the restart."]
    finally:
        close_join_dialog(again)
