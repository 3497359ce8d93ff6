"""A drill score starts at 0 and earns only from recorded actions; its outcome is judged at a fixed
horizon, so ending the drill early never changes it."""

import pytest

from inferboard.drills.engine import OUTCOME_TARGETS, DrillSession
from inferboard.drills.library import get_drill

MITIGATE = ("apply_mitigation", {"action": "rollback_canary", "target": "{canary}"})


def _play(design, order, end_after_min: float = 0.0):
    session = DrillSession(get_drill("slow-canary-version"), design, seed=0)
    for verb, args in order:
        session.perform(verb, args)
    if end_after_min:
        session.wait(end_after_min)
    session.finish()
    return session, session.result()


def test_a_drill_ended_with_no_action_scores_zero(drill_design):
    _, result = _play(drill_design, [])
    assert result.percent == 0
    lines = {line.criterion: line for line in result.lines}
    assert lines["error_budget"].points == 0 and "no working mitigation" in lines["error_budget"].reason
    assert lines["customer_impact"].points == 0


def test_a_lone_look_at_recent_changes_earns_only_its_own_points(drill_design):
    _, result = _play(drill_design, [("check_changes", {})])
    earned = {line.criterion: line.points for line in result.lines if line.points}
    assert earned == {"changes_early": 10}
    assert result.percent == pytest.approx(10.0)


def test_the_outcome_is_judged_at_a_fixed_horizon_whenever_the_drill_ends(drill_design):
    actions = [("check_changes", {}), MITIGATE]
    early_session, early = _play(drill_design, actions)
    _, late = _play(drill_design, actions, end_after_min=OUTCOME_TARGETS * 10 + 5)
    assert early_session.outcome_horizon_s == pytest.approx(early_session.notice_s + OUTCOME_TARGETS * 10 * 60)
    assert early.percent == pytest.approx(late.percent)
    assert {l.criterion: l.points for l in early.lines} == {l.criterion: l.points for l in late.lines}
    assert early.budget_burned_pct == pytest.approx(late.budget_burned_pct)
