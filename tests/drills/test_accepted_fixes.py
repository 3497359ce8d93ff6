"""Where a drill accepts more than one mitigation, each scores as the working one."""

import pytest

from inferboard.drills.engine import DrillSession
from inferboard.drills.library import get_drill


def mitigated_by(design, action, target, value=None):
    session = DrillSession(get_drill("slow-canary-version"), design, seed=0)
    session.state_symptom("p99 tripled, p50 flat", "one region")
    session.apply_mitigation(action, target, value)
    session.advance_to(session.now_s + 20 * 60)
    session.finish()
    return {line.criterion: line for line in session.result().lines}, session


@pytest.mark.parametrize("action,value", [("rollback_canary", None), ("move_traffic", 0.0)])
def test_either_accepted_fix_of_the_slow_canary_earns_the_mitigation_points(drill_design, action, value):
    lines, session = mitigated_by(drill_design, action, "{canary}", value)
    assert session.actions[-1].outcome == "fixes"
    assert lines["time_to_mitigate"].points == lines["time_to_mitigate"].max_points
    assert lines["mitigation_first"].points > 0


def test_a_mitigation_the_drill_does_not_accept_earns_none(drill_design):
    lines, session = mitigated_by(drill_design, "scale_out", "{pool}", 2.0)
    assert session.actions[-1].outcome == "no_effect"
    assert lines["time_to_mitigate"].points == 0
