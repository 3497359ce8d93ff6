"""One score everywhere, and the three cases of a sparse design that used to be rewarded.

The surfaces compared: ``score_design`` (the findings dock's call), ``grade_design`` (the practice
result and the interviewer's live checklist), ``inferboard check --scenario`` and ``inferboard grade``,
on every scenario's reference design and on deliberately weak designs."""

from __future__ import annotations

import json

import pytest

from inferboard.cli import main
from inferboard.model import Design
from inferboard.practice.grading import AskedQuestion, grade_design, score_design
from inferboard.practice.library import ScenarioLibrary
from inferboard.practice.whatif import run_follow_ups
from inferboard.rules import check_design
from inferboard.store import save_design
from tests.calibration.designs import three_boxes, weak

LIBRARY = ScenarioLibrary(user_packs=None).load()
SCENARIOS = sorted(LIBRARY.entries)


DESIGNS = {"reference": lambda e: e.reference_design(), "weak": weak, "blank": lambda e: Design(),
           "three-boxes": lambda e: three_boxes()}
CASES = [(s, d) for s in SCENARIOS for d in DESIGNS]


def _cli_json(capsys, argv) -> dict:
    main(argv)
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("scenario_id,design_name", CASES, ids=[f"{s}/{d}" for s, d in CASES])
def test_every_surface_shows_the_same_score(scenario_id, design_name, tmp_path, capsys):
    entry = LIBRARY.get(scenario_id)
    design = DESIGNS[design_name](entry)
    path = tmp_path / "design.json"
    save_design(design, path)
    dock = score_design(design, entry.scenario)
    graded = grade_design(entry.scenario, design, entry.reference_design())
    data = ["--data-dir", str(tmp_path / "data")]
    checked = _cli_json(capsys, ["check", str(path), "--scenario", scenario_id, "--json", *data])
    cli_graded = _cli_json(capsys, ["grade", str(path), "--scenario", scenario_id, "--json", *data])
    overall = dock.overall
    assert graded.overall == pytest.approx(overall) == graded.design_overall
    assert checked["overall"] == pytest.approx(overall, abs=0.01)
    assert cli_graded["overall"] == pytest.approx(overall, abs=0.01)
    assert checked["grade"] == cli_graded["grade"] == graded.grade == dock.grade
    percents = {name: score.percent for name, score in dock.scores.items()}
    assert {line.rubric: line.percent for line in graded.rubrics} == pytest.approx(percents)
    assert {n: s["percent"] for n, s in checked["scores"].items()} == pytest.approx(percents)
    assert {r["rubric"]: r["percent"] for r in cli_graded["rubrics"]} == pytest.approx(percents)
    # The interviewer's checklist adds the clarifying questions as one more weighted line, no more.
    live = grade_design(entry.scenario, design, entry.reference_design(), asked=[])
    assert live.design_overall == pytest.approx(overall)
    assert live.rubrics[0].rubric == "clarifying" and live.rubrics[1:] == graded.rubrics


def test_a_blank_design_scores_nothing_anywhere():
    blank = check_design(Design())
    assert blank.overall < 10 and blank.scores["requirements"].percent == 0
    assert [name for name, s in blank.scores.items() if s.percent is not None] == ["requirements"]
    for scenario_id in SCENARIOS:
        entry = LIBRARY.get(scenario_id)
        graded = grade_design(entry.scenario, Design(), entry.reference_design(), asked=[])
        assert graded.overall < 10, scenario_id
        assert all(line.percent is None or line.percent < 10 for line in graded.rubrics), scenario_id


def test_the_three_box_fraud_design_is_weak_and_its_follow_ups_fail():
    entry = LIBRARY.get("fraud-scoring-cpu")
    asked = [AskedQuestion(q.id, 30.0, "clarify") for q in entry.scenario.questions]  # even a perfect interview
    graded = grade_design(entry.scenario, three_boxes(), entry.reference_design(), asked=asked)
    assert graded.overall < 50 and graded.design_overall < 30
    fired = {f.rule_id for f in graded.findings}
    # The missing capabilities are findings with their points lost, not inapplicable rules.
    assert {"REGION-001", "SCALE-001", "OBS-001", "OBS-002", "DRIFT-001", "ROLL-001", "LAT-007", "LAT-010"} <= fired
    assert graded.percent_of("multi_region") == 0 and graded.percent_of("autoscaling") == 0
    region = next(f for f in graded.findings if f.rule_id == "REGION-001")
    assert "6,000 req/s" in region.message and "99.99%" in region.message and "4 minutes a month" in region.message
    # Messages speak in the scenario's figures, judged from its real requirements, not the candidate's.
    scaling = next(f for f in graded.findings if f.rule_id == "SCALE-001")
    assert "spike traffic of 2,500 req/s on average and 6,000 req/s at peak" in scaling.message
    fallback = next(f for f in graded.findings if f.rule_id == "LAT-010")
    assert "99.99%" in fallback.message and "4 minutes a month" in fallback.message
    verdicts = {w.follow_up_id: w for w in run_follow_ups(entry.scenario, three_boxes(),
                                                          ["region-down", "feature-store-errors"])}
    assert not verdicts["region-down"].held and not verdicts["feature-store-errors"].held
    assert "no feature store" in verdicts["feature-store-errors"].verdict
    assert "no regions" in verdicts["region-down"].verdict


def test_the_live_and_graded_autoscaling_scores_agree_on_a_sparse_design():
    """The issue's third case: the dock said Autoscaling 100% where the result said 83%."""
    entry = LIBRARY.get("fraud-scoring-cpu")
    design = three_boxes()
    live = score_design(design, entry.scenario)
    graded = grade_design(entry.scenario, design, entry.reference_design())
    assert live.scores["autoscaling"].percent == graded.percent_of("autoscaling") == 0
    assert ("SCALE-001", 5.0) in live.scores["autoscaling"].lost
