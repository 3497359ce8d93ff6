"""Broken scenario files are refused with the file, the scenario and the field named."""

from __future__ import annotations

import pytest
import yaml

from inferboard.practice.scenario import ScenarioError, load_scenario, parse_fault_spec, scenario_from_data
from tests.practice.conftest import SHIPPED


@pytest.fixture
def raw() -> dict:
    return yaml.safe_load((SHIPPED / "fraud-scoring-cpu" / "scenario.yaml").read_text())


def problems_of(raw: dict) -> str:
    with pytest.raises(ScenarioError) as info:
        scenario_from_data(raw, "packs/x/scenario.yaml")
    text = str(info.value)
    assert text.startswith("packs/x/scenario.yaml: scenario '")
    return text


def test_a_valid_copy_loads(raw):
    assert scenario_from_data(raw, "x").id == "fraud-scoring-cpu"


def test_unknown_fields_are_refused_by_path(raw):
    raw["questions"][2]["hint"] = "psst"
    raw["surprise"] = 1
    text = problems_of(raw)
    assert "scenario 'fraud-scoring-cpu' field 'questions.2.hint': unknown field" in text
    assert "field 'surprise': unknown field" in text


def test_a_question_revealing_an_unknown_fact(raw):
    raw["questions"][0]["reveals"] = ["nope"]
    text = problems_of(raw)
    assert "field 'questions.0.reveals': unknown fact 'nope'" in text
    assert "fact 'model' is revealed by no question" in text


@pytest.mark.parametrize("fault, message", [
    ("meteor:*", "unknown fault 'meteor'"),
    ("region_outage:no such/node", "is neither *, a node id nor key=value"),
    ("traffic_surge*lots:*", "could not convert"),
    ("region_outage:kind=,x=1", "is not key=value"),
])
def test_bad_fault_strings(raw, fault, message):
    raw["follow_ups"][0]["faults"] = [fault]
    text = problems_of(raw)
    assert "field 'follow_ups.0.faults.0'" in text and message in text


def test_requirement_changes_are_validated_against_requirements(raw):
    raw["follow_ups"][3]["requirement_changes"] = {"accuracy_target_pct": 140, "warp": 9}
    text = problems_of(raw)
    assert "field 'follow_ups.3.requirement_changes.warp': not a requirements field" in text
    raw["follow_ups"][3]["requirement_changes"] = {"mean_rps": 99999}
    text = problems_of(raw)
    assert "follow_ups.3.requirement_changes" in text and "peak_rps must be at least mean_rps" in text


def test_a_surge_and_a_new_rate_together_are_refused(raw):
    raw["follow_ups"][0]["requirement_changes"] = {"peak_rps": 20000}
    assert "would count the growth twice" in problems_of(raw)


def test_a_follow_up_must_change_something(raw):
    raw["follow_ups"][0]["faults"] = []
    assert "field 'follow_ups.0': a follow-up needs faults" in problems_of(raw)


def test_phases_must_start_with_clarify_and_keep_their_order(raw):
    raw["phases"] = list(reversed(raw["phases"]))
    text = problems_of(raw)
    assert "field 'phases.0.name': the first phase must be 'clarify'" in text
    assert "in the order clarify, high_level, deep_dive, tradeoffs" in text


def test_duplicate_ids_and_no_key_question(raw):
    raw["questions"][1]["id"] = raw["questions"][0]["id"]
    for question in raw["questions"]:
        question["key"] = False
    text = problems_of(raw)
    assert "question id 'model-type' is used twice" in text
    assert "at least one question must be a key question" in text


def test_wrong_types_name_the_field(raw):
    raw["phases"][1]["minutes"] = "ten"
    raw["difficulty"] = "extreme"
    text = problems_of(raw)
    assert "field 'phases.1.minutes'" in text and "field 'difficulty'" in text


def test_not_a_mapping_and_bad_yaml(tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text("- just\n- a list\n")
    with pytest.raises(ScenarioError, match="must hold a YAML mapping"):
        load_scenario(tmp_path)
    path.write_text("id: [unclosed\n")
    with pytest.raises(ScenarioError, match="not valid YAML"):
        load_scenario(path)
    path.write_text("a: &x [1]\nb: *x\n")
    with pytest.raises(ScenarioError, match="aliases"):
        load_scenario(path)


def test_fault_spec_selectors():
    spec = parse_fault_spec("gpu_shortage*2:kind=gpu_pool,location=primary@1h+10m")
    assert (spec.kind, spec.magnitude, spec.selector) == ("gpu_shortage", 2.0,
                                                          (("kind", "gpu_pool"), ("location", "primary")))
    assert parse_fault_spec("cache_flush:*").target == "*" and not parse_fault_spec("cache_flush:*").is_selector
