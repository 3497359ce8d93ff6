"""Cohorts kept in SQLite and compared across sessions; ``inferboard scenario check``."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from inferboard.cli import main
from inferboard.practice.grading import grade_design
from inferboard.practice.library import ScenarioLibrary
from inferboard.store import read_design
from inferboard.workshop.cohorts import CohortStore, compare_runs
from inferboard.workshop.grading import grade_submissions
from inferboard.workshop.scenario_check import check_scenario_file
from inferboard.workshop.submissions import Submission
from tests.workshop.conftest import GOOD, MIDDLE, SCENARIO, SHIPPED, WEAK


@pytest.fixture(scope="module")
def entry():
    return ScenarioLibrary().load().get(SCENARIO)


def _room(entry, files):
    subs = [Submission(f"{n}-{p.name}", p.read_bytes()) for n, p in enumerate(files)] + [Submission("x.json", b"{")]
    return grade_submissions(entry.scenario, entry.reference_bytes, subs, jobs=1)


def test_a_cohort_round_trips_through_the_store(entry, tmp_path):
    run = _room(entry, [GOOD, WEAK, MIDDLE])
    with CohortStore(tmp_path) as store:
        cohort_id = store.save(run, "Tuesday morning")
    with CohortStore(tmp_path) as store:  # reopened, as a later session would
        listed = store.cohorts()
        assert [(c["id"], c["name"], c["submissions"], c["graded"]) for c in listed] == [
            (cohort_id, "Tuesday morning", 4, 3)]
        assert listed[0]["mean_overall"] == pytest.approx(sum(r.overall for r in run.graded) / 3)
        back = store.load(cohort_id)
        assert back.to_dict() == json.loads(json.dumps(run.to_dict()))
        counted = store.db.execute("select count(*) from findings where cohort_id = ?", [cohort_id]).fetchone()[0]
        assert counted == sum(len(r.findings) for r in run.graded)
        store.delete(cohort_id)
        assert store.cohorts() == []


def test_a_cohort_is_saved_whole_or_not_at_all(entry, tmp_path, monkeypatch):
    run = _room(entry, [GOOD, WEAK])
    def disk_full(self, cohort_id, row):
        raise OSError("disk full")

    with CohortStore(tmp_path) as store:
        monkeypatch.setattr(CohortStore, "_insert_submission", disk_full)
        with pytest.raises(OSError):
            store.save(run, "half")
        assert store.cohorts() == []
        assert store.db.execute("select count(*) from submissions").fetchone()[0] == 0


def test_a_corrupt_cohort_database_is_moved_aside(tmp_path):
    (tmp_path / "cohorts.db").write_bytes(b"this is not sqlite" * 100)
    with CohortStore(tmp_path) as store:
        assert store.notice and store.recovered_from.exists() and store.cohorts() == []


def test_a_second_session_is_compared_with_the_first(entry):
    first = _room(entry, [WEAK, WEAK, MIDDLE])
    second = _room(entry, [GOOD, MIDDLE, GOOD])
    comparison = compare_runs(first, second)
    overall = comparison.rubrics[0]
    assert overall.rubric == "overall" and comparison.first_graded == comparison.second_graded == 3
    assert overall.first == pytest.approx(sum(r.overall for r in first.graded) / 3)
    assert overall.delta == pytest.approx(overall.second - overall.first) and overall.delta > 10
    shares = {rule: (a, b) for rule, _, a, b in compare_runs(first, second, limit=1000).findings}
    for rule in {f["rule_id"] for r in [*first.graded, *second.graded] for f in r.findings}:
        in_first = sum(1 for r in first.graded if any(f["rule_id"] == rule for f in r.findings)) / 3
        in_second = sum(1 for r in second.graded if any(f["rule_id"] == rule for f in r.findings)) / 3
        assert shares[rule] == pytest.approx((in_first, in_second)), rule


def _copy_scenario(tmp_path, name=SCENARIO):
    target = tmp_path / name
    shutil.copytree(SHIPPED / SCENARIO, target)
    return target


def test_check_reports_what_the_reference_scores(tmp_path, capsys):
    folder = _copy_scenario(tmp_path)
    report = check_scenario_file(folder / "scenario.yaml")
    scenario = report.scenario
    reference = read_design(folder / "reference.json")[0]
    expected = grade_design(scenario, reference, reference)
    assert report.ok and not report.warnings
    assert report.grade.overall == pytest.approx(expected.overall)
    assert len(report.follow_ups) == len(scenario.follow_ups)
    assert main(["scenario", "check", str(folder)]) == 0
    assert f"reference design scores {expected.overall:.1f}" in capsys.readouterr().out


def test_check_names_file_scenario_and_field(tmp_path, capsys):
    folder = _copy_scenario(tmp_path)
    path = folder / "scenario.yaml"
    data = yaml.safe_load(path.read_text())
    data["colour"] = "blue"
    data["questions"][0]["reveals"] = ["no-such-fact"]
    path.write_text(yaml.safe_dump(data))
    assert main(["scenario", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: scenario '{SCENARIO}' field 'colour': unknown field" in err
    data.pop("colour")
    path.write_text(yaml.safe_dump(data))
    assert main(["scenario", "check", str(path)]) == 2
    assert f"scenario '{SCENARIO}' field 'questions.0.reveals': unknown fact 'no-such-fact'" in capsys.readouterr().err


def test_check_refuses_an_unknown_rubric_and_a_missing_reference(tmp_path):
    folder = _copy_scenario(tmp_path)
    path = folder / "scenario.yaml"
    data = yaml.safe_load(path.read_text())
    data["rubrics"][0]["rubric"] = "charisma"
    path.write_text(yaml.safe_dump(data))
    report = check_scenario_file(path)
    assert not report.ok and "field 'rubrics.0.rubric': unknown rubric 'charisma'" in report.problems[0]
    data = yaml.safe_load((SHIPPED / SCENARIO / "scenario.yaml").read_text())
    path.write_text(yaml.safe_dump(data))
    (folder / "reference.json").unlink()
    report = check_scenario_file(path)
    assert not report.ok and "field 'reference.file': cannot read reference.json" in report.problems[0]


def test_check_warns_about_a_weak_reference_and_a_misnamed_folder(tmp_path):
    folder = _copy_scenario(tmp_path, "my-draft")
    shutil.copy(WEAK, folder / "reference.json")
    report = check_scenario_file(folder)
    assert report.ok
    assert any("folder to be named" in w for w in report.warnings)
    assert any("reference design scores only" in w for w in report.warnings)


def test_design_differences_name_what_changed():
    from inferboard.workshop.compare import design_differences

    a = json.loads(GOOD.read_text())
    b = json.loads(GOOD.read_text())
    dropped = next(n for n in b["nodes"] if n["kind"] == "admission_control")
    b["nodes"] = [n for n in b["nodes"] if n["id"] != dropped["id"]]
    b["edges"] = [e for e in b["edges"] if dropped["id"] not in (e["source"], e["target"])]
    pool = next(n for n in b["nodes"] if n["kind"] == "cpu_pool")
    before = pool["params"]["replicas"]
    pool["params"]["replicas"] = before + 3
    diff = design_differences(json.dumps(a), json.dumps(b))
    count_a = sum(1 for n in a["nodes"] if n["kind"] == "admission_control")
    assert diff.kinds == {"admission_control": (count_a, count_a - 1)}
    assert diff.only_a == [(dropped["id"], "admission_control")] and diff.only_b == []
    assert diff.params == [(pool["id"], "replicas", before, before + 3)]
    lost = {f"{e['source']} -> {e['target']}" for e in a["edges"] if dropped["id"] in (e["source"], e["target"])}
    assert set(diff.wires_only_a) == lost and diff.wires_only_b == []
    assert design_differences(json.dumps(a), json.dumps(a)).same
