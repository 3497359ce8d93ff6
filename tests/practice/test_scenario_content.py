"""Every shipped scenario: schema, substance, and a reference design that passes its own rubrics
(that the scenarios are in the project's own words is tools/own_words.py's to check)."""

from __future__ import annotations

import pytest

from inferboard.model.faults import FAULT_KINDS
from inferboard.practice.grading import grade_design
from inferboard.practice.library import ScenarioLibrary
from inferboard.practice.scenario import PHASE_TITLES, parse_fault_spec
from inferboard.practice.whatif import resolve_targets
from inferboard.rules import default_rules
from tests.practice.conftest import SHIPPED
from tools import reference_designs

IDS = sorted(p.name for p in SHIPPED.iterdir() if (p / "scenario.yaml").is_file())


@pytest.fixture(scope="module")
def shipped() -> ScenarioLibrary:
    return ScenarioLibrary(user_packs=None).load()


def test_the_shipped_pack_loads_cleanly_with_at_least_eight_scenarios(shipped):
    assert shipped.problems == []
    assert len(shipped.entries) >= 8
    assert set(shipped.entries) == set(IDS)
    assert shipped.packs["core"].shipped


def test_together_the_scenarios_use_every_rubric_and_every_phase(shipped):
    used = {r for e in shipped.entries.values() for r in e.scenario.rubric_names()}
    assert used == set(default_rules().rubrics)
    kinds = {parse_fault_spec(f).kind for e in shipped.entries.values() for fu in e.scenario.follow_ups
             for f in fu.faults}
    assert {"region_outage", "gpu_shortage", "traffic_surge", "slow_canary", "spot_reclaimed", "cache_flush",
            "slow_replica", "dependency_errors"} <= kinds <= set(FAULT_KINDS)


@pytest.mark.parametrize("scenario_id", IDS)
def test_scenario_is_substantive(shipped, scenario_id):
    s = shipped.get(scenario_id).scenario
    assert 6 <= len(s.questions) <= 12
    assert len({q.category for q in s.questions}) >= 5
    assert sum(1 for q in s.questions if q.key) >= 5
    assert len(s.follow_ups) >= 3
    assert 45 <= s.total_minutes <= 60
    assert [p.name for p in s.phases] == list(PHASE_TITLES)
    weights = s.rubric_weights()
    assert len(weights) >= 6 and max(weights.values()) > min(weights.values()), "weights should show a focus"
    for name in ("slo_p99_ms", "peak_rps", "budget_per_hour", "availability_slo", "model_size_gb"):
        assert getattr(s.requirements, name) is not None, name
    revealed = {name for f in s.facts for name in f.sets}
    for name, value in s.requirements.model_dump(exclude_defaults=True).items():
        assert name in revealed, f"requirement {name}={value} is not revealed by any fact"


@pytest.mark.parametrize("scenario_id", IDS)
def test_reference_requirements_match_the_scenario(shipped, scenario_id):
    entry = shipped.get(scenario_id)
    assert entry.reference_design().requirements == entry.scenario.requirements


def test_checked_in_references_are_what_the_generator_builds():
    assert reference_designs.main(["--check"]) == 0, "run python -m tools.reference_designs"
    assert set(reference_designs.BUILDERS) == set(IDS)


@pytest.mark.parametrize("scenario_id", IDS)
def test_reference_passes_its_own_rubrics(shipped, scenario_id):
    entry = shipped.get(scenario_id)
    reference = entry.reference_design()
    grade = grade_design(entry.scenario, reference, reference, behaviour=True)
    assert grade.overall >= 80.0, [(lost.source, lost.message) for lost in grade.lost]
    for line in grade.rubrics:
        assert line.percent is None or line.percent >= 50.0, (line.rubric, line.percent)
    assert not [f for f in grade.findings if f.severity == "blocker"]
    assert grade.diff.missing == {}


@pytest.mark.parametrize("scenario_id", IDS)
def test_follow_up_faults_hit_the_reference_design(shipped, scenario_id):
    entry = shipped.get(scenario_id)
    reference = entry.reference_design()
    for follow_up in entry.scenario.follow_ups:
        for text in follow_up.faults:
            assert resolve_targets(reference, parse_fault_spec(text)), f"{follow_up.id}: {text} matches nothing"


@pytest.mark.parametrize("scenario_id", IDS)
def test_reference_notes_explain_components_the_reference_has(shipped, scenario_id):
    entry = shipped.get(scenario_id)
    kinds = {n.kind for n in entry.reference_design().nodes.values()}
    assert set(entry.scenario.reference.components) <= kinds
