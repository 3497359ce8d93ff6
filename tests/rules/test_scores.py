"""Scores: applicable points only, every lost point traced to a finding, weights and rubric choice."""

from __future__ import annotations

import json

import pytest

from inferboard.rules import UnknownRubric, check_design, default_rules, grade_of
from inferboard.rules.engine import BLOCKER_CAP, SEVERITY_PENALTY
from inferboard.store import read_design
from tests.rules.builders import llm, reference, set_requirements

RULES = default_rules()
SAMPLE = sorted(RULES.folder.rglob("examples/*/fail-1.json"))[::4]


@pytest.mark.parametrize("path", SAMPLE, ids=[p.parent.name for p in SAMPLE])
def test_every_lost_point_traces_to_a_finding(path):
    report = check_design(read_design(path)[0], behaviour=False)
    for name, score in report.scores.items():
        mine = [f for f in report.findings if f.rubric == name]
        assert sorted(score.lost) == sorted((f.rule_id, f.points) for f in mine)
        assert score.earned == pytest.approx(score.applicable - sum(f.points for f in mine))
        assert 0 <= score.earned <= score.applicable
    assert {f.rule_id for f in report.findings} <= set(RULES.rules)


def test_rules_that_do_not_apply_cost_nothing_and_count_nothing():
    fixed = check_design(reference(), rubrics=["requirements"], behaviour=False)
    generative = check_design(llm(slo_ttft_ms=None), rubrics=["requirements"], behaviour=False)
    req5 = RULES.get("REQ-005").points
    assert fixed.scores["requirements"].lost == [] and fixed.overall == 100.0
    assert generative.scores["requirements"].applicable - fixed.scores["requirements"].applicable == req5
    assert ("REQ-005", req5) in generative.scores["requirements"].lost


def test_weights_change_the_overall_and_rubrics_select_rules():
    design = reference()
    design.set_params("alerts", runbook_url="")          # observability loses points
    design.set_params("registry", versioned=False)       # rollout loses points
    plain = check_design(design, behaviour=False)
    only_obs = check_design(design, behaviour=False, weights={name: 0 for name in RULES.rubrics} | {"observability": 1})
    only_roll = check_design(design, behaviour=False, weights={name: 0 for name in RULES.rubrics} | {"rollout": 1})
    # the overall is the one weighted rubric, less the penalty of that rubric's findings only
    assert only_obs.overall == pytest.approx(only_obs.scores["observability"].percent - SEVERITY_PENALTY["minor"])
    assert only_roll.overall == pytest.approx(only_roll.scores["rollout"].percent - SEVERITY_PENALTY["major"])
    assert len({round(plain.overall, 6), round(only_obs.overall, 6), round(only_roll.overall, 6)}) == 3
    picked = check_design(design, behaviour=False, rubrics=["rollout"])
    assert list(picked.scores) == ["rollout"] and {f.rubric for f in picked.findings} == {"rollout"}


def test_unknown_rubrics_and_bad_weights_are_refused():
    with pytest.raises(UnknownRubric, match="speling"):
        check_design(reference(), rubrics=["speling"], behaviour=False)
    with pytest.raises(UnknownRubric):
        check_design(reference(), weights={"nope": 1.0}, behaviour=False)
    with pytest.raises(UnknownRubric):
        check_design(reference(), weights={"rollout": -1.0}, behaviour=False)


@pytest.mark.parametrize("overall,grade", [(100, "A"), (90, "A"), (89.9, "B"), (80, "B"), (70, "C"), (60, "D"),
                                           (59.9, "F"), (0, "F")])
def test_grades(overall, grade):
    assert grade_of(overall) == grade
    assert grade_of(overall, blocked=True) == max(grade, "D")


def test_a_blocker_caps_the_score_well_under_a_pass():
    design = reference(model_size_gb=30)  # the model fits no GPU: HW-001
    report = check_design(design, behaviour=False)
    assert [f.rule_id for f in report.blockers] == ["HW-001"]
    assert report.overall == BLOCKER_CAP and BLOCKER_CAP <= 50 and report.grade == "F"


def test_each_major_finding_costs_a_visible_share_of_the_overall():
    clean = check_design(reference(), behaviour=False)
    design = reference()
    design.set_params("registry", versioned=False)  # ROLL-004, major
    one = check_design(design, behaviour=False)
    assert one.fired() - clean.fired() == {"ROLL-004"}
    assert clean.overall - one.overall >= SEVERITY_PENALTY["major"] + 1


def test_the_report_serialises_to_json_with_blockers_first():
    design = reference(slo_p95_ms=None, slo_p99_ms=None)
    design.set_params("retrain", promote_via_canary=False)
    report = check_design(design, behaviour=False)
    data = json.loads(json.dumps(report.to_dict()))
    assert data["findings"][0]["rule_id"] == "REQ-001" and data["findings"][0]["severity"] == "blocker"
    assert data["grade"] == report.grade and set(data["scores"]) == set(RULES.rubrics)
    assert report.blockers and report.fired() >= {"REQ-001", "ROLL-006"}


# ------------------------------------------------------------------------- points are earned
from inferboard.model import Design, Requirements  # noqa: E402

#: Requirements that imply every capability: traffic, SLOs, a high availability target, a budget,
#: an accuracy bar; spiky (LAT-007) and diurnal (SCALE-007) traffic are tried in turn.
IMPLYING = dict(workload="fixed", model_size_gb=1.0, slo_p95_ms=100, slo_p99_ms=200, availability_slo=99.95,
                mean_rps=500, peak_rps=1500, budget_per_hour=50, accuracy_target_pct=95)


@pytest.mark.parametrize("rule_id", [r.id for r in RULES if r.implied_by])
def test_a_capability_rule_fires_on_a_design_that_lacks_the_capability(rule_id):
    """An empty design under requirements that imply the capability loses the rule's points."""
    rule = RULES.get(rule_id)
    fired = []
    for pattern in ("spike", "diurnal"):
        for workload in ("fixed", "generative"):
            design = Design(requirements=Requirements(**{**IMPLYING, "traffic_pattern": pattern,
                                                         "workload": workload}))
            if rule.rubric == "requirements":
                design = Design()
            report = check_design(design, rubrics=[rule.rubric])
            fired.append((rule_id, rule.points) in report.scores[rule.rubric].lost)
    assert any(fired), f"{rule_id} never fires on an empty design"


def test_quality_rules_do_not_count_for_components_that_are_not_drawn():
    design = Design(requirements=Requirements(**IMPLYING))
    report = check_design(design)
    counted = {rule_id for score in report.scores.values() for rule_id, _ in score.lost}
    quality = {r.id for r in RULES if not r.implied_by}
    assert not counted & quality
    # Beyond the declared requirements, every applicable point is lost: nothing is earned by leaving
    # things out.
    assert report.scores["requirements"].percent == 100
    for score in report.scores.values():
        assert score.rubric == "requirements" or score.earned == 0, score.rubric


def test_a_rubric_with_nothing_applicable_is_not_assessed_and_leaves_the_overall():
    design = reference()
    report = check_design(design, behaviour=False, rubrics=["requirements", "drift"])
    set_requirements(design, accuracy_target_pct=None, workload="generative")
    for node_id in [n.id for n in design.nodes.values() if n.kind in ("drift_detector", "gpu_pool")]:
        design.remove_node(node_id)
    sparse = check_design(design, behaviour=False, rubrics=["requirements", "drift"])
    assert report.scores["drift"].percent == 100.0
    assert sparse.scores["drift"].percent is None and sparse.scores["drift"].applicable == 0
    penalty = sum(SEVERITY_PENALTY[f.severity] for f in sparse.findings)
    assert sparse.overall == pytest.approx(sparse.scores["requirements"].percent - penalty)
    assert check_design(Design(), rubrics=["drift"]).overall == 0.0


def test_a_guard_costs_points_when_it_fires_and_counts_nothing_otherwise():
    guard = RULES.get("HW-001")
    assert guard.guard and not RULES.get("LAT-001").guard and not RULES.get("HW-008").guard
    fine = check_design(reference(), behaviour=False, rubrics=["hardware"]).scores["hardware"]
    broken = check_design(reference(model_size_gb=30), behaviour=False, rubrics=["hardware"]).scores["hardware"]
    assert broken.applicable == pytest.approx(fine.applicable + guard.points)
    assert ("HW-001", guard.points) in broken.lost and not fine.lost


def test_message_figures_come_from_the_requirements_in_their_own_terms():
    from inferboard.rules.schema import UNDECLARED, requirement_figures

    figures = requirement_figures(Requirements(peak_rps=2400, mean_rps=900, availability_slo=99.9, slo_p95_ms=80))
    assert figures["peak"] == "2,400 req/s" and figures["mean"] == "900 req/s" and figures["slo"] == "p95 80 ms"
    assert figures["availability"] == "99.9%" and figures["downtime"] == "43 minutes a month"  # 0.1% of 30 days
    assert requirement_figures(Requirements(availability_slo=99.0))["downtime"] == "7 hours a month"
    assert requirement_figures(Requirements())["peak"] == UNDECLARED
