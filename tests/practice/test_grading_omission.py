"""The practice grade (the interviewer's live checklist shows it) earns nothing for parts that are
not drawn or not wired."""

from __future__ import annotations

import pytest

from inferboard.model import Design
from inferboard.practice.grading import grade_design
from inferboard.practice.library import ScenarioLibrary

LIBRARY = ScenarioLibrary(user_packs=None).load()


def _source_and_pool(wired: bool) -> Design:
    design = Design()
    design.add_node("traffic_source", 0, 0, node_id="users")
    design.add_node("gpu_pool", 300, 0, node_id="pool")
    if wired:
        design.connect("users", "requests", "pool", "requests")
    return design


@pytest.mark.parametrize("scenario_id", ["p99-latency-spike", "fraud-scoring-cpu"])
def test_a_source_and_a_pool_that_are_not_wired_earn_nothing_in_any_rubric(scenario_id):
    entry = LIBRARY.get(scenario_id)
    grade = grade_design(entry.scenario, _source_and_pool(wired=False), entry.reference_design(), asked=[])
    assert grade.overall == 0
    earned = {line.rubric: line.percent for line in grade.rubrics if line.percent}
    assert earned == {}, earned


def test_a_blank_design_scores_zero_and_wiring_the_pool_is_judged_on_what_it_does():
    entry = LIBRARY.get("fraud-scoring-cpu")
    assert grade_design(entry.scenario, Design(), entry.reference_design(), asked=[]).overall == 0
    wired = grade_design(entry.scenario, _source_and_pool(wired=True), entry.reference_design(), asked=[])
    assert wired.overall < 60 and {"LAT-001", "REQ-001"} <= {f.rule_id for f in wired.findings}
