"""For every planted cause: the mitigations the drill says fix it restore the SLO (or the model's
quality) in the simulation, and the others do not."""

import pytest

from inferboard.drills.engine import DrillSession
from inferboard.drills.library import load_drills
from inferboard.drills.scoring import _restored

DRILLS = load_drills()
CASES = [(drill_id, i) for drill_id, drill in sorted(DRILLS.items()) for i in range(len(drill.mitigations))]
FAST = {("slow-canary-version", 0), ("slow-canary-version", 1), ("bad-retrained-model", 0),
        ("bad-retrained-model", 1)}


def run(design, drill, mitigation=None):
    session = DrillSession(drill, design, seed=0)
    if mitigation is not None:
        session.apply_mitigation(mitigation.action, mitigation.target, mitigation.value)
    # latency: 40 minutes after acting; quality: to the end (retraining takes hours)
    session.advance_to(session.horizon_s if drill.kind == "quality" else session.now_s + 40 * 60)
    return session


def check(design, drill_id, index):
    drill = DRILLS[drill_id]
    mitigation = drill.mitigations[index]
    session = run(design, drill, mitigation)
    restored = _restored(session, session.series())
    assert restored == (mitigation.effect == "fixes"), (drill_id, mitigation.action, mitigation.effect)
    assert session.actions[-1].outcome == mitigation.effect


def test_the_library_has_the_twelve_causes_of_the_issue():
    assert len(DRILLS) >= 12
    assert {d.kind for d in DRILLS.values()} == {"latency", "quality"}


@pytest.mark.parametrize("drill_id", sorted(DRILLS))
def test_the_planted_cause_breaks_the_slo_or_quality_when_nothing_is_done(drill_design, drill_id):
    session = run(drill_design, DRILLS[drill_id])
    assert not _restored(session, session.series())


@pytest.mark.parametrize("drill_id,index", sorted(FAST))
def test_right_and_wrong_mitigation_of_two_causes(drill_design, drill_id, index):
    check(drill_design, drill_id, index)


@pytest.mark.slow
@pytest.mark.parametrize("drill_id,index", [c for c in CASES if c not in FAST])
def test_each_mitigation_does_what_the_drill_says(drill_design, drill_id, index):
    check(drill_design, drill_id, index)
