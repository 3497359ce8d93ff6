"""The drift rules under a scenario's own drift: the fraud scenario's world changes what payments
mean (concept drift), which a detector watching inputs only never sees."""

from __future__ import annotations

from inferboard.model import ops
from inferboard.paths import data_dir
from inferboard.practice.library import ScenarioLibrary
from inferboard.rules import check_design
from inferboard.store import read_design

FRAUD = data_dir("assets") / "scenarios" / "fraud-scoring-cpu"


def lost(report, rule_id: str) -> bool:
    return any(rule == rule_id for score in report.scores.values() for rule, _ in score.lost)


def inputs_only():
    design = read_design(FRAUD / "reference.json")[0]
    detector = next(n.id for n in design.nodes.values() if n.kind == "drift_detector")
    design.apply(ops.SetParams(detector, {**design.nodes[detector].params, "drift_type": "input"}))
    return design


def test_the_scenario_states_its_drift_and_the_reference_holds_its_target_through_it():
    scenario = ScenarioLibrary(user_packs=None).load().entries["fraud-scoring-cpu"].scenario
    assert scenario.drift == ["concept_drift*0.3:*@2h+46h"]
    report = check_design(read_design(FRAUD / "reference.json")[0], rubrics=["drift"],
                          drift=scenario.drift)
    assert not lost(report, "DRIFT-006")


def test_a_detector_watching_inputs_only_misses_the_target_under_concept_drift_not_under_input_drift():
    design = inputs_only()
    concept = check_design(design, rubrics=["drift"], drift=["concept_drift*0.3:*@2h+46h"])
    assert lost(concept, "DRIFT-006")
    finding = next(f for f in concept.findings if f.rule_id == "DRIFT-006")
    assert "concept_drift*0.3" in finding.message and "nothing noticed it" in finding.message
    assert not lost(check_design(design, rubrics=["drift"]), "DRIFT-006")  # the rule's own input drift
