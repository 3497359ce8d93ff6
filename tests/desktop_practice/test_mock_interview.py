"""The mock interview: two windows joined only by the engine's interview link."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt

from desktop.practice.interviewer_panels import RubricChecklist
from tests.desktop_practice.conftest import add_node, all_texts, connect, small_design
from tests.desktop_practice.test_history_reports import assert_self_contained


def answers(candidate) -> list[str]:
    box = candidate.interview.answers
    return [box.item(n).text() for n in range(box.count())]


def ask_from_the_panel(qtbot, candidate, question_id):
    panel = candidate.interview.questions
    panel.select(question_id)
    qtbot.mouseClick(panel.ask_button, Qt.MouseButton.LeftButton)


def test_the_interviewer_answering_a_question_shows_the_fact_in_the_candidate_window(interview, qtbot, clock):
    mock = interview()
    candidate, console = mock.candidate, mock.console
    scenario = console.scenario
    question = scenario.questions[0]
    clock.advance(30)
    ask_from_the_panel(qtbot, candidate, question.id)
    qtbot.waitUntil(lambda: console.questions.inbox.count() == 1)
    assert question.text in console.questions.inbox.item(0).text()
    assert answers(candidate) == [], "nothing is revealed until the interviewer answers"
    console.questions.inbox.setCurrentRow(0)
    qtbot.mouseClick(console.questions.answer_button, Qt.MouseButton.LeftButton)
    facts = [scenario.fact(f).text for f in question.reveals]
    qtbot.waitUntil(lambda: len(answers(candidate)) == len(facts))
    assert all(any(fact in line for line in answers(candidate)) for fact in facts)
    assert console.questions.inbox.item(0).text().startswith("✓")
    assert [a.question_id for a in console.session.asked] == [question.id]
    # A question in the candidate's own words, answered by revealing one fact, then by typing.
    candidate.interview.questions.free_text.setText("Is there a GPU quota?")
    qtbot.keyClick(candidate.interview.questions.free_text, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: console.questions.inbox.count() == 2)
    other = next(f for f in scenario.facts if f.id not in question.reveals)
    console.reveal(other.id)
    qtbot.waitUntil(lambda: any(other.text in line for line in answers(candidate)))
    console.questions.typed.setText("Assume one region to start with.")
    qtbot.keyClick(console.questions.typed, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: any("Assume one region" in line for line in answers(candidate)))


def test_the_candidate_window_never_shows_hidden_facts_or_findings(interview, qtbot, clock, library):
    from inferboard.practice.grading import grade_design
    from desktop.findings.dock import FindingsPanel

    mock = interview("eu-medical-imaging")
    candidate, console = mock.candidate, mock.console
    scenario = console.scenario
    assert not candidate.findChildren(FindingsPanel), "the findings panel is gone"
    assert candidate.docks["findings"].isHidden() and not candidate.docks["findings"].toggleViewAction().isEnabled()
    assert not candidate.actions_by_id["view.panel.findings"].isEnabled()
    secrets = {f"fact {f.id}": f.text for f in scenario.facts}
    secrets |= {f"look_for {f.id}": f.look_for for f in scenario.follow_ups}
    secrets["script"] = scenario.interviewer_script.strip()
    secrets["reference notes"] = scenario.reference.notes.strip()
    secrets |= {f"why {k}": v for k, v in scenario.reference.components.items()}
    secrets = {k: v for k, v in secrets.items() if v}

    def shown(revealed: set[str] = frozenset()) -> list[str]:
        text = "\n".join(all_texts(candidate))
        flat = re.sub(r"\s+", " ", text)
        return [key for key, secret in secrets.items() if key.removeprefix("fact ") not in revealed
                and (secret in text or re.sub(r"\s+", " ", secret) in flat)]

    # Build a design that fires rules, let the candidate's window evaluate it.
    small_design(candidate.document)
    candidate.send_design()
    qtbot.waitUntil(lambda: set(console.mirror.node_ids()) == {"users", "lb", "cpus"})
    qtbot.waitUntil(lambda: not candidate.evaluator.busy(), timeout=20000)
    assert shown() == []
    grade = grade_design(scenario, console.link.latest, console.link.entry.reference_design(), [])
    finding_texts = [f.message for f in grade.findings] + [f.explanation.strip() for f in grade.findings]
    assert grade.findings

    def findings_shown() -> list[str]:
        text = "\n".join(all_texts(candidate))
        return [t for t in finding_texts if t and t in text]

    assert findings_shown() == []
    # The interviewer answers one question and plays a follow-up: only that question's facts appear.
    question = next(q for q in scenario.questions if q.key)
    candidate.ask(question.id)
    console.answer(question.id)
    console.play_follow_up(scenario.follow_ups[0].id)
    console.add_note("Strong start on residency.")
    qtbot.waitUntil(lambda: any(scenario.fact(question.reveals[0]).text in t for t in answers(candidate)))
    assert shown(set(question.reveals)) == []
    for fact_id in question.reveals:
        assert scenario.fact(fact_id).text in "\n".join(all_texts(candidate)), "the positive control"
    assert "Strong start on residency." not in "\n".join(all_texts(candidate))
    assert findings_shown() == []
    # The console, of course, shows them.
    qtbot.waitUntil(lambda: console.checklist.grade is not None, timeout=20000)
    assert any(f.message in "\n".join(all_texts(console)) for f in grade.findings)


def test_the_interviewers_follow_up_changes_the_candidates_readouts(interview, qtbot, clock):
    from desktop.shell.evaluation import STEPS

    mock = interview("image-embedding-search")
    candidate, console = mock.candidate, mock.console
    candidate.evaluator.steps = tuple(s for s in STEPS if s[0] == "steady")  # the timeline is not needed here
    reference = console.link.entry.reference_design()
    candidate.document.set_design(reference)
    tile = candidate.readouts.tiles["throughput_rps"]
    qtbot.waitUntil(lambda: candidate.readouts.steady is not None and not candidate.evaluator.busy(), timeout=20000)
    before = tile.text()
    qtbot.waitUntil(lambda: console.link.latest is not None and len(console.mirror.node_ids()) == len(reference.nodes),
                    timeout=20000)
    follow_up = next(f for f in console.scenario.follow_ups if "mean_rps" in f.requirement_changes)
    console.follow_ups.buttons[follow_up.id].click()
    assert candidate.follow_up_banner.isVisibleTo(candidate) and follow_up.title in candidate.follow_up_banner.text()
    assert candidate.document.design.requirements.mean_rps == follow_up.requirement_changes["mean_rps"]
    qtbot.waitUntil(lambda: tile.text() != before and not candidate.evaluator.busy(), timeout=20000)
    assert console.follow_ups.buttons[follow_up.id].text().startswith("✓")
    assert "After:" in console.follow_ups.effects.toPlainText()


def test_a_fault_follow_up_is_injected_into_the_candidates_readouts(interview, qtbot, clock):
    from inferboard.practice.scenario import parse_fault_spec

    mock = interview("image-embedding-search")
    candidate, console = mock.candidate, mock.console
    reference = console.link.entry.reference_design()
    candidate.document.set_design(reference)
    qtbot.waitUntil(lambda: console.link.latest is not None and len(console.mirror.node_ids()) == len(reference.nodes),
                    timeout=20000)
    follow_up = next(f for f in console.scenario.follow_ups if f.faults and not f.requirement_changes)
    kinds = {parse_fault_spec(text).kind for text in follow_up.faults}
    assert candidate.readouts.fault_plan.faults == ()
    console.follow_ups.buttons[follow_up.id].click()
    qtbot.waitUntil(lambda: len(candidate.readouts.fault_plan.faults) > 0)
    assert {f.kind for f in candidate.readouts.fault_plan.faults} <= kinds
    assert all(f.target == "*" or f.target in candidate.document.design.nodes for f in candidate.readouts.fault_plan.faults)
    assert "Inject fault" not in candidate.follow_up_banner.text()
    assert candidate.readouts.fault_plan.fault_label.text() != "No faults"


def test_the_mirror_and_the_live_rubric_checklist_follow_the_candidate(interview, qtbot, clock):
    mock = interview("fraud-scoring-cpu")
    candidate, console = mock.candidate, mock.console
    add_node(candidate.document, "traffic_source", -300, 0, "users")
    qtbot.waitUntil(lambda: console.mirror.node_ids() == ["users"])
    assert console.mirror.view.isInteractive() is False
    add_node(candidate.document, "cpu_pool", 0, 0, "cpus")
    connect(candidate.document, "users", "cpus")
    qtbot.waitUntil(lambda: console.mirror.node_ids() == ["users", "cpus"])
    qtbot.waitUntil(lambda: isinstance(console.checklist, RubricChecklist) and console.checklist.grade is not None
                    and {"users", "cpus"} <= set(console.link.latest.nodes), timeout=20000)
    tree = console.checklist.tree
    titles = [tree.topLevelItem(n).text(0) for n in range(tree.topLevelItemCount())]
    assert titles[0] == "Clarifying questions" and len(titles) >= 3
    qtbot.waitUntil(lambda: console.score_sheet.table.rowCount() >= len(console.scenario.rubrics) + 1)
    assert console.score_sheet.table.item(0, 1).text() == "0%", "no key question asked yet"


def test_replay_and_the_feedback_report_after_the_interview(interview, qtbot, clock, tmp_path, history):
    mock = interview("fraud-scoring-cpu")
    candidate, console = mock.candidate, mock.console
    clock.advance(60)
    add_node(candidate.document, "traffic_source", -300, 0, "users")
    candidate.send_design()
    clock.advance(300)
    console.advance_phase()
    add_node(candidate.document, "cpu_pool", 0, 0, "cpus")
    connect(candidate.document, "users", "cpus")
    candidate.send_design()
    clock.advance(120)
    console.add_note("Chose CPUs without asking about latency.")
    result = console.end_interview(confirm=False)
    assert result is not None and candidate.link.ended
    qtbot.waitUntil(lambda: candidate.interview.ended_label.isVisibleTo(candidate))
    assert not candidate.interview.questions.ask_button.isEnabled()
    # Replay: the slider at t shows the design as it was then.
    window = console.open_replay()
    view = window.view
    assert view.shown_node_ids() == ["users", "cpus"]
    view.set_time(100)
    assert view.shown_node_ids() == ["users"]
    view.set_time(30)
    assert view.shown_node_ids() == []
    # Scores: the interviewer's own beside the suggestion.
    sheet = console.score_sheet
    sheet.use_suggestions()
    sheet.set_score("clarifying", 20, "Asked nothing before drawing")
    assert sheet.overall() is not None
    path = console.export_feedback(tmp_path / "feedback.html")
    text = path.read_text(encoding="utf-8")
    assert_self_contained(text)
    assert "Mock interview feedback" in text and "Chose CPUs without asking about latency." in text
    assert "Interviewer&#x27;s score sheet" in text or "Interviewer's score sheet" in text
    assert "Asked nothing before drawing" in text
    assert "Your design at the end of each phase" in text
    # The session is in the history as a mock interview.
    rows = history.attempts()
    assert rows[0]["mode"] == "mock" and rows[0]["status"] == "submitted"


def test_the_candidates_phase_timer_follows_the_interviewer(interview, qtbot, clock):
    mock = interview("fraud-scoring-cpu")
    candidate, console = mock.candidate, mock.console
    phases = console.scenario.phases
    timer = candidate.interview.timer_widget
    assert timer.phase_label.text() == phases[0].title and timer.step_label.text() == f"Phase 1 of {len(phases)}"
    clock.advance(60)
    qtbot.waitUntil(lambda: timer.left_label.text() == f"{phases[0].minutes - 1:g}:00 left")
    # The schedule moves on by itself: the candidate hears of it.
    clock.advance(60 * phases[0].minutes)
    qtbot.waitUntil(lambda: timer.phase_label.text() == phases[1].title)
    assert timer.left_label.text() == f"{phases[1].minutes - 1:g}:00 left"
    # The interviewer moves on early.
    console.next_phase_button.click()
    qtbot.waitUntil(lambda: timer.phase_label.text() == phases[2].title)
    assert console.timer_widget.phase_label.text() == phases[2].title
