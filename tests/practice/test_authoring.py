"""Authoring a scenario: a draft checked with the YAML files' schema (fields named), saved into the
user's library, exported as a pack that the importer takes back unchanged and that grades the same."""

from __future__ import annotations

import copy
import zipfile

import pytest

from inferboard.practice.authoring import (AUTHORED_PACK, check_draft, export_pack, parse_requirement_changes,
                                           requirement_changes_text, save_to_library, scenario_yaml, slug, taken_ids)
from inferboard.practice.grading import score_design
from inferboard.practice.library import ScenarioLibrary, known_rubrics
from inferboard.practice.scenario import load_scenario
from inferboard.safe_yaml import load_yaml_text
from tests.practice.authored import complete_draft, example_design


def test_a_complete_draft_is_a_scenario_the_yaml_loader_accepts(tmp_path):
    checked = check_draft(complete_draft(), known_rubrics())
    assert checked.ok, checked.messages()
    scenario = checked.scenario
    assert scenario.id == "card-checks-in-europe"
    assert scenario.requirements == example_design().requirements  # the design's requirements are the truth
    path = tmp_path / "scenario.yaml"
    path.write_text(scenario_yaml(scenario))
    assert load_scenario(path) == scenario


@pytest.mark.parametrize("change, field, words", [
    (lambda d: d.update(prompt="Too short"), "prompt", "at least 40"),
    (lambda d: d["facts"][1].update(text="short"), "facts.1.text", "at least 10"),
    (lambda d: d["questions"][0].update(reveals=["nope"]), "questions.0.reveals", "unknown fact 'nope'"),
    (lambda d: d["questions"][1].update(category="weather"), "questions.1.category", "Input should be"),
    (lambda d: d["phases"][0].update(minutes=0), "phases.0.minutes", "greater than 0"),
    (lambda d: d["phases"].reverse(), "phases.0.name", "first phase must be 'clarify'"),
    (lambda d: d["follow_ups"][0].update(faults=["melt:*"]), "follow_ups.0.faults.0", "unknown fault"),
    (lambda d: d["follow_ups"][0].update(faults=[], requirement_changes={}), "follow_ups.0", "needs faults"),
    (lambda d: d["rubrics"].append({"rubric": "astrology", "weight": 1}), "rubrics.3.rubric", "unknown rubric"),
    (lambda d: d["rubrics"][0].update(weight=-1), "rubrics.0.weight", "greater than or equal to 0"),
])
def test_every_problem_names_its_field(change, field, words):
    draft = complete_draft()
    change(draft)
    checked = check_draft(draft, known_rubrics())
    assert not checked.ok and checked.scenario is None
    hits = [p for p in checked.problems if p.field == field]
    assert hits, checked.messages()
    assert any(words in p.message for p in hits), hits


def test_an_id_used_elsewhere_in_the_library_is_refused():
    checked = check_draft(complete_draft(), None, taken_ids={"card-checks-in-europe"})
    assert [p.field for p in checked.problems] == ["id"]


def test_requirement_changes_are_read_as_values():
    changes, problems = parse_requirement_changes("peak_rps=9000, allowed_regions=[eu-west, eu-central], "
                                                  "accuracy_target_pct=98.5")
    assert problems == []
    assert changes == {"peak_rps": 9000, "allowed_regions": ["eu-west", "eu-central"], "accuracy_target_pct": 98.5}
    assert parse_requirement_changes(requirement_changes_text(changes))[0] == changes
    _, problems = parse_requirement_changes("colour=blue, peak_rps")
    assert problems == ["'colour' is not a requirements field", "'peak_rps' is not field=value"]


def test_slug_makes_a_valid_id():
    assert slug("Real-time fraud: CPUs!") == "real-time-fraud-cpus"
    assert slug("42 things") == "s-42-things"


def test_saved_into_the_users_pack_the_library_loads_it(tmp_path):
    library = ScenarioLibrary(user_packs=tmp_path / "scenarios").load()
    scenario = check_draft(complete_draft(), library.rubric_names(), taken_ids(library)).scenario
    folder = save_to_library(library, scenario, example_design())
    assert folder == tmp_path / "scenarios" / AUTHORED_PACK / scenario.id
    assert library.problems == []
    entry = library.get(scenario.id)
    assert entry.pack_id == AUTHORED_PACK and entry.scenario == scenario
    # Its own id is not "taken" for the editor that saved it; for a new one it is.
    assert scenario.id not in taken_ids(library, own=scenario.id)
    assert scenario.id in taken_ids(library)


def test_export_import_round_trip_loads_identically_and_grades_the_same(tmp_path):
    design = example_design()
    draft = complete_draft(design)
    draft["follow_ups"].append({"id": "stricter", "title": "The bank tightens the SLO", "phase": "deep_dive",
                                "prompt": "The bank now wants 40 ms at p99. What changes in your design?",
                                "faults": [], "requirement_changes": {"slo_p99_ms": 40},
                                "look_for": "Service time against the budget, queueing, more replicas."})
    scenario = check_draft(draft, known_rubrics()).scenario
    before = score_design(design, scenario)
    target = tmp_path / "out" / "pack.zip"
    target.parent.mkdir()
    export_pack(target, scenario, design)
    assert sorted(zipfile.ZipFile(target).namelist()) == sorted([
        f"{scenario.id}/pack.yaml", f"{scenario.id}/{scenario.id}/reference.json",
        f"{scenario.id}/{scenario.id}/scenario.yaml"])
    elsewhere = ScenarioLibrary(user_packs=tmp_path / "another-machine").load()
    pack = elsewhere.import_pack(target)
    assert pack.scenario_ids == [scenario.id]
    entry = elsewhere.get(scenario.id)
    assert entry.scenario == scenario
    assert entry.scenario.model_dump() == scenario.model_dump()
    after = score_design(entry.reference_design(), entry.scenario)
    assert after.overall == pytest.approx(before.overall, abs=1e-9)
    assert {k: v.percent for k, v in after.scores.items()} == {k: v.percent for k, v in before.scores.items()}
    assert sorted((f.rule_id, f.node_ids) for f in after.findings) == sorted(
        (f.rule_id, f.node_ids) for f in before.findings)
    # The same scenario gives the same bytes (a pack handed out twice is the same pack).
    again = tmp_path / "again.zip"
    export_pack(again, scenario, design)
    assert again.read_bytes() == target.read_bytes()


def test_the_yaml_holds_every_field_once():
    scenario = check_draft(complete_draft(), None).scenario
    raw = load_yaml_text(scenario_yaml(scenario), "x")
    assert set(raw) == set(type(scenario).model_fields)
    broken = copy.deepcopy(raw)
    broken["colour"] = "blue"
    checked = check_draft(broken)
    assert [(p.field, p.message) for p in checked.problems] == [("colour", "unknown field")]


def test_a_blank_drafts_problems_read_as_plain_words():
    """The authoring form lists what the schema refuses in an author's words: fields by name and
    number from one, no regular expression and no 'after validation'."""
    from inferboard.model import Design
    from inferboard.practice.authoring import check_draft, new_draft, plain_problem

    texts = [plain_problem(p) for p in check_draft(new_draft(Design())).problems]
    assert "Id: use lower-case letters, digits and dashes, starting with a letter (2 to 64 characters)" in texts
    assert "Phases 1, goal: needs at least 10 characters" in texts and "Facts: needs at least one" in texts
    assert not any(mark in text for text in texts for mark in ("^[", "validation", "String should", ".0."))
