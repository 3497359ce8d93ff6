"""A solo practice round: phases on an injected clock, nudges, question scoring, submit."""

from __future__ import annotations

import pytest

from inferboard.model import Design
from inferboard.practice.grading import (AFTER_BUILDING_CAP, PHASE_CREDIT, AskedQuestion, clarify_score,
                                         question_credit)
from inferboard.practice.session import PracticeSession, SessionStateError

MIN = 60.0


@pytest.fixture
def entry(library):
    return library.get("fraud-scoring-cpu")  # phases 7, 12, 16, 10 minutes


@pytest.fixture
def session(entry, clock):
    s = PracticeSession(entry, clock=clock, behaviour=False)
    s.start()
    return s


def test_phases_follow_the_clock(session, clock):
    assert session.phase == "clarify"
    status = session.status()
    assert status.phase_remaining_s == 7 * MIN and status.total_remaining_s == 45 * MIN
    assert "latency budget" in status.goal
    clock.advance(7 * MIN)
    assert session.phase == "high_level"
    clock.advance(12 * MIN + 16 * MIN)
    assert session.phase == "tradeoffs"
    clock.advance(10 * MIN + 1)
    status = session.status()
    assert status.phase == "overtime" and status.total_remaining_s == 0
    assert status.nudges == ["Time is up: summarise your trade-offs and submit."]


def test_moving_on_early_shifts_the_schedule(session, clock):
    clock.advance(3 * MIN)
    assert session.advance_phase() == "high_level"
    assert session.phase == "high_level"
    slots = session.schedule()
    assert slots[0].end_s == 3 * MIN and slots[1].start_s == 3 * MIN and slots[1].end_s == 15 * MIN
    clock.advance(12 * MIN)
    assert session.phase == "deep_dive"
    session.advance_phase()
    with pytest.raises(SessionStateError, match="last phase"):
        session.advance_phase()


def test_gentle_nudges(session, clock):
    assert session.status().nudges == []
    clock.advance(4 * MIN)
    nudges = session.status().nudges
    assert any("Ask about the workload" in n for n in nudges)
    assert any(n.startswith("Areas you have not asked about yet:") for n in nudges)
    session.ask("latency")
    clock.advance(1.5 * MIN)
    nudges = session.status().nudges
    assert any(n.startswith("About 2 min left for clarify requirements.") for n in nudges)
    assert all("50 ms at p99" not in n for n in nudges), "a nudge never reveals a hidden fact"
    clock.advance(8 * MIN)  # half of the high-level phase, nothing drawn
    assert any("Sketch the request path" in n for n in session.status().nudges)


def test_asking_reveals_facts_with_their_requirement_values(session, clock):
    clock.advance(30)
    asked = session.ask("latency")
    assert asked.phase == "clarify" and asked.credit == 1.0 and asked.first_time
    assert [f.fact_id for f in asked.facts] == ["latency"] and asked.facts[0].t_s == asked.t_s
    assert asked.facts[0].values == {"slo_p50_ms": 12.0, "slo_p95_ms": 30.0, "slo_p99_ms": 50.0}
    assert session.revealed_requirements().slo_p99_ms == 50.0
    assert session.revealed_requirements().peak_rps is None
    again = session.ask("latency")
    assert not again.first_time
    assert session.ask("labels").credit == 0.0, "non-key questions carry no points"
    with pytest.raises(SessionStateError, match="no question 'nope'"):
        session.ask("nope")


def test_question_credit_formula():
    assert [question_credit(p, False) for p in ("clarify", "high_level", "deep_dive", "tradeoffs", "overtime")] \
        == [1.0, 0.5, 0.25, 0.25, 0.25]
    assert question_credit("clarify", True) == AFTER_BUILDING_CAP == 0.5
    assert question_credit("deep_dive", True) == PHASE_CREDIT["deep_dive"]


def test_clarify_score_counts_key_questions_once_at_their_best(entry):
    s = entry.scenario
    key = [q for q in s.questions if q.key]
    possible = sum(q.points for q in key)
    assert clarify_score(s, []).percent == 0
    everything = [AskedQuestion(q.id, 10, "clarify") for q in s.questions]
    assert clarify_score(s, everything).percent == 100
    first = key[0]  # model-type, 2 points
    score = clarify_score(s, [AskedQuestion(first.id, 900, "high_level"), AskedQuestion(first.id, 10, "clarify")])
    assert score.earned == first.points and score.possible == possible
    late = clarify_score(s, [AskedQuestion(first.id, 10, "clarify", after_building=True)])
    assert late.earned == first.points * 0.5
    assert late.percent == pytest.approx(100 * first.points * 0.5 / possible)


def test_building_before_asking_caps_the_credit(session, clock):
    design = Design()
    design.add_node("cpu_pool", 0, 0, node_id="scorers")
    session.record_design(design)
    clock.advance(60)
    assert session.ask("volume").credit == 0.5
    assert any("started drawing" in n for n in session.status().nudges)


def test_a_design_snapshot_is_kept_only_when_it_changes(session, clock):
    design = Design()
    assert session.record_design(design)
    assert not session.record_design(design)
    design.add_node("traffic_source", 0, 0, node_id="users")
    clock.advance(10)
    assert session.record_design(design)
    assert len(session.replay) == 2


def test_submit_grades_traces_and_replays(session, clock, entry):
    for question_id in ("model-type", "latency", "volume"):
        clock.advance(20)
        session.ask(question_id)
    clock.advance(10 * MIN)
    session.ask("availability")  # late: high-level phase
    design = entry.reference_design()
    clock.advance(20 * MIN)
    result = session.submit(design)
    assert session.state == "submitted"
    grade = result.grade
    assert grade.rubrics[0].rubric == "clarifying"
    clarify = {q.question_id: q for q in grade.clarify.questions}
    assert clarify["availability"].credit == 0.5 and clarify["spikes"].asked_phase is None
    sources = {lost.source: lost for lost in grade.lost}
    assert "Asked late" in sources["question:availability"].message
    assert "Never asked" in sources["question:spikes"].message
    assert "Traffic jumps sharply" in sources["question:spikes"].explanation
    rule_losses = [lost for lost in grade.lost if not lost.source.startswith("question:")]
    for lost in rule_losses:
        assert lost.explanation and lost.points > 0
    assert grade.diff.missing == {}
    assert {w.follow_up_id for w in result.what_ifs} == {f.id for f in entry.scenario.follow_ups}
    assert result.duration_s == pytest.approx(31 * MIN)
    assert set(result.phase_ends) == {"clarify", "high_level", "deep_dive"}
    with pytest.raises(SessionStateError):
        session.ask("latency")
    assert "<html" in session.report_html()


def test_the_session_refuses_out_of_order_calls(entry, clock):
    s = PracticeSession(entry, clock=clock)
    with pytest.raises(SessionStateError, match="start it first"):
        s.ask("latency")
    s.start()
    with pytest.raises(SessionStateError, match="cannot start again"):
        s.start()
    with pytest.raises(SessionStateError, match="submit the design first"):
        s.report_html()
    s.abandon()
    assert s.state == "abandoned"
    with pytest.raises(SessionStateError, match="abandoned"):
        s.submit(Design())


class Wall:
    """Wall-clock time as the history keeps it (ISO, to the second), moved by hand."""

    def __init__(self) -> None:
        from datetime import datetime, timezone

        self.t = datetime(2026, 3, 1, 10, 0, 0, tzinfo=timezone.utc)

    def advance(self, seconds: float) -> None:
        from datetime import timedelta

        self.t += timedelta(seconds=seconds)

    def __call__(self) -> str:
        return self.t.isoformat(timespec="seconds")


def test_an_attempt_in_progress_carries_on_after_a_restart(entry, clock, tmp_path):
    from inferboard.practice.history import History
    from tests.fakes import FakeClock

    wall = Wall()
    history = History(tmp_path)
    try:
        first = PracticeSession(entry, history, clock=clock, wall=wall, behaviour=False, mode="mock")
        first.start()
        clock.advance(2 * MIN)
        wall.advance(2 * MIN)
        first.ask("volume")
        design = Design()
        design.add_node("cpu_pool", 0, 0, node_id="scorers")
        clock.advance(MIN)
        wall.advance(MIN)
        first.record_design(design)
        first.advance_phase()  # to high_level at 3 min instead of 7
        first.add_note("Drew the scorers first.")
        follow_up = entry.scenario.follow_ups[0]
        first.play_follow_up(follow_up.id)
        clock.advance(30)
        wall.advance(30)
        asked_facts = set(first.revealed)
        # the app stops here; it comes back 90 s later with a new monotonic clock
        wall.advance(90)
        later = FakeClock(50.0)
        again = PracticeSession.resume(entry, History(tmp_path), first.attempt_id, clock=later, wall=wall,
                                       behaviour=False)
        assert again.state == "running" and again.attempt_id == first.attempt_id and again.mode == "mock"
        assert again.elapsed() == pytest.approx(3.5 * MIN + 90), "the interview's clock ran on meanwhile"
        assert [(a.question_id, a.t_s, a.phase) for a in again.asked] == [("volume", 2 * MIN, "clarify")]
        assert set(again.revealed) == asked_facts
        assert again.follow_ups_played == [follow_up.id]
        assert again.notes == [(3 * MIN, "Drew the scorers first.")]
        assert again.phase == "high_level" and again.schedule()[1].start_s == 3 * MIN
        assert len(again.replay) == 1 and again._building
        later.advance(MIN)
        wall.advance(MIN)
        again.add_note("After the restart.")
        result = again.submit(design)
        record = again.history.attempt(first.attempt_id)
        assert record.attempt["status"] == "submitted" and result.duration_s == pytest.approx(4.5 * MIN + 90)
        assert [e["detail"] for e in record.events if e["kind"] == "note"] == ["Drew the scorers first.",
                                                                              "After the restart."]
        assert history.attempts() and len(history.attempts()) == 1, "the same attempt, not a new one"
        with pytest.raises(SessionStateError, match="not a round of"):
            PracticeSession.resume(entry, history, first.attempt_id, clock=later, wall=wall)
        again.history.close()
    finally:
        history.close()
