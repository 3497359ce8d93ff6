"""A replay carries what was said as well as the edits: questions, answers, phase changes and
follow-ups at their times, read back from a session or from the history's rows."""

from __future__ import annotations

from inferboard.practice.replay import Moment, Replay, moments_from_rows


def test_moments_keep_time_order_and_say_what_was_said_by_then():
    replay = Replay()
    replay.add(10.0, b'{"nodes": []}', "clarify")
    replay.mark(30.0, "follow_up", "Europe doubles")
    replay.mark(5.0, "question", "What is the peak?")
    replay.mark(5.0, "answer", "2,400 queries a second")
    assert [m.kind for m in replay.moments] == ["question", "answer", "follow_up"]
    assert [m.text for m in replay.said_until(10.0)] == ["What is the peak?", "2,400 queries a second"]
    assert replay.duration == 30.0  # the last thing said, after the last edit
    assert replay.moments[-1].title() == "Follow-up"


def test_history_rows_become_moments_in_words():
    questions = [{"t_s": 12.0, "question_id": "peak", "text": "How busy at peak?"}]
    events = [{"t_s": 0.0, "kind": "phase", "detail": "clarify"}, {"t_s": 40.0, "kind": "fact", "detail": "slo-p99"},
              {"t_s": 90.0, "kind": "follow_up", "detail": "europe-doubles"}, {"t_s": 95.0, "kind": "score_sheet"}]
    assert moments_from_rows(questions, events) == [
        Moment(0.0, "phase", "Clarify"), Moment(12.0, "question", "How busy at peak?"),
        Moment(40.0, "answer", "Slo p99"), Moment(90.0, "follow_up", "Europe doubles")]
