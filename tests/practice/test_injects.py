"""Timed injects: a plan of follow-ups played when their minute comes, in order, never twice, and
a scenario's shipped plan checked against its follow-ups."""

from __future__ import annotations

import pytest

from inferboard.practice.injects import MAX_MINUTE, InjectPlan, PlannedInject, check_injects


def test_due_entries_play_in_minute_order_once_and_skip_what_was_played_by_hand():
    plan = InjectPlan([(10, "surge"), (2, "outage"), (5, "budget")])
    assert [e.follow_up for e in plan.entries] == ["outage", "budget", "surge"]
    assert plan.due(119.0) == []  # minute 2 is 120 s
    assert [e.follow_up for e in plan.due(121.0)] == ["outage"]
    assert plan.due(200.0) == []  # played once only
    assert [e.follow_up for e in plan.due(700.0, played=["budget"])] == ["surge"]
    budget = next(e for e in plan.entries if e.follow_up == "budget")
    assert budget.by_hand and budget.played_s == 700.0
    assert plan.next_entry() is None


def test_changing_the_plan_during_the_round_moves_only_what_is_still_to_come():
    plan = InjectPlan([(1, "a"), (8, "b")])
    first, second = plan.entries
    plan.due(90.0)
    plan.change(first, minute=20)  # already played: stays
    plan.change(second, minute=-3, follow_up="c")
    assert (first.minute, second.minute, second.follow_up) == (1, 0.0, "c")
    assert plan.entries[0] is second  # kept in minute order
    assert plan.add(MAX_MINUTE + 50, "d").minute == MAX_MINUTE


def test_a_shipped_plan_names_known_follow_ups():
    problems = check_injects([PlannedInject(minute=12, follow_up="surge"), PlannedInject(minute=3, follow_up="nope")],
                             {"surge"})
    assert [(p.field, p.message) for p in problems] == [("injects.1.follow_up", "unknown follow-up 'nope'")]
    with pytest.raises(ValueError):
        PlannedInject(minute=-1, follow_up="surge")
