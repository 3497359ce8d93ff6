"""Batch grading: the right row for every good, weak, broken and hostile file, CSV and HTML
checked against the single scoring function, and the process pool agreeing with one process."""

from __future__ import annotations

import csv
import io
import json
import threading
from pathlib import Path

import pytest

from inferboard.cli import main
from inferboard.practice.grading import score_design
from inferboard.practice.library import ScenarioLibrary
from inferboard.store import read_design
from inferboard.workshop import reports
from inferboard.workshop.grading import grade_submissions
from inferboard.workshop.submissions import Submission, collect
from tests.workshop.conftest import EXPECTED, GOOD, SCENARIO, WEAK


@pytest.fixture(scope="module")
def entry():
    return ScenarioLibrary().load().get(SCENARIO)


def _by_suffix(rows, suffix):
    matches = [row for row in rows if row.name.endswith(suffix)]
    assert len(matches) == 1, (suffix, [r.name for r in rows])
    return matches[0]


def test_collect_reads_files_folders_and_zips_refusing_what_is_hostile(room):
    found = collect([room])
    names = [s.name for s in found.submissions]
    assert len(names) == len(EXPECTED), names
    for suffix, expected in EXPECTED.items():
        submission = _by_suffix(found.submissions, suffix)
        if expected == "graded" or suffix in ("carol-corrupt.json", "dave-not-a-design.json"):
            assert submission.ok, (suffix, submission.error)
        else:
            assert not submission.ok and expected in submission.error, (suffix, submission.error)
    assert not any(".hidden" in n or "__MACOSX" in n for n in names)
    assert found.skipped == [str(room / "notes.txt")]
    assert not (room.parent / "escape.json").exists() and not Path("/abs/path.json").exists()


def test_every_row_is_right_and_scored_by_the_one_scoring_function(room, entry):
    found = collect([room])
    run = grade_submissions(entry.scenario, entry.reference_bytes, found.submissions, jobs=1)
    assert [r.name for r in run.results] == [s.name for s in found.submissions]
    for suffix, expected in EXPECTED.items():
        row = _by_suffix(run.results, suffix)
        if expected == "graded":
            assert row.ok, (suffix, row.error)
        else:
            assert not row.ok and expected in row.error, (suffix, row.error)
            assert row.overall is None and row.rubrics == {}
    for path, suffix in ((GOOD, "alice-good.json"), (WEAK, "bob-weak.json")):
        design, _ = read_design(path)
        report = score_design(design, entry.scenario)
        row = _by_suffix(run.results, suffix)
        assert row.design_overall == pytest.approx(report.overall)
        assert row.overall == pytest.approx(report.overall), "no clarifying score in a batch: overall = design's"
        assert row.rubrics == pytest.approx({name: score.percent for name, score in report.scores.items()})
        assert sorted(f["rule_id"] for f in row.findings) == sorted(f.rule_id for f in report.findings)
    good, weak = _by_suffix(run.results, "alice-good.json"), _by_suffix(run.results, "bob-weak.json")
    assert good.overall > weak.overall + 20
    slo = entry.scenario.requirements.slo_p99_ms
    assert good.figures["slo_p99_ms"] == slo and good.figures["within_slo"] is (good.figures["p99_ms"] <= slo)
    assert good.figures["region_loss_served_pct"] == pytest.approx(100.0, abs=1.0), "the reference survives"
    assert [f["id"] for f in good.follow_ups] == [f.id for f in entry.scenario.follow_ups]


def _csv_rows(text):
    return {row["file"]: row for row in csv.DictReader(io.StringIO(text))}


def test_csv_and_html_match_the_scores(room, entry, tmp_path):
    run = grade_submissions(entry.scenario, entry.reference_bytes, collect([room]).submissions, jobs=1)
    rows = _csv_rows(reports.write_csv(run, tmp_path / "room.csv").read_text())
    assert len(rows) == len(EXPECTED)
    for path, suffix in ((GOOD, "alice-good.json"), (WEAK, "bob-weak.json")):
        report = score_design(read_design(path)[0], entry.scenario)
        row = next(r for name, r in rows.items() if name.endswith(suffix))
        assert row["status"] == "graded" and float(row["overall"]) == pytest.approx(report.overall, abs=0.006)
        for name, score in report.scores.items():
            cell = row[f"rubric:{name}"]
            assert (cell == "") if score.percent is None else float(cell) == pytest.approx(score.percent, abs=0.006)
    bomb = next(r for name, r in rows.items() if name.endswith("bomb.json"))
    assert bomb["status"] == "error" and "zip bomb" in bomb["error"] and bomb["overall"] == ""
    html = reports.write_html(run, tmp_path / "room.html").read_text()
    assert html.count("<svg class=\"diagram\"") == len(run.graded), "each graded design has its picture"
    for row in run.results:
        assert f"id='s{row.index}'" in html
    assert "src=\"http" not in html and "href=\"http" not in html and "<script" not in html
    weak = _by_suffix(run.results, "bob-weak.json")
    assert f"overall {weak.overall:.0f}%" in html
    assert "../../escape.json" in html and "not a zip file" in html


def test_csv_defuses_formulas_in_file_names(entry, tmp_path):
    run = grade_submissions(entry.scenario, entry.reference_bytes, [Submission("=HYPERLINK(evil).json", b"{")],
                            jobs=1)
    row = list(csv.reader(io.StringIO(reports.csv_text(run))))[1]
    assert row[0] == "'=HYPERLINK(evil).json"


def test_html_escapes_what_a_submission_says(entry):
    data = json.loads(GOOD.read_text())
    data.setdefault("metadata", {})["title"] = "<script>alert(1)</script>"
    run = grade_submissions(entry.scenario, entry.reference_bytes,
                            [Submission("<img src=x onerror=alert(1)>.json", json.dumps(data).encode())], jobs=1)
    html = reports.report_html(run)
    assert "<script>alert" not in html and "<img src=x" not in html and "&lt;script&gt;" in html


@pytest.mark.slow
def test_the_process_pool_gives_the_same_rows_as_one_process(room, entry):
    submissions = collect([room]).submissions
    one = grade_submissions(entry.scenario, entry.reference_bytes, submissions, jobs=1)
    seen = []
    two = grade_submissions(entry.scenario, entry.reference_bytes, submissions, jobs=2,
                            progress=lambda done, total, row: seen.append((done, total)))
    assert two.jobs == 2 and one.jobs == 1
    assert [r.to_dict() for r in two.results] == [r.to_dict() for r in one.results]
    assert [d for d, _ in seen] == list(range(1, len(submissions) + 1)) and {t for _, t in seen} == {len(submissions)}


def test_cancel_stops_grading_and_keeps_what_was_done(entry):
    submissions = [Submission(f"s{i}.json", entry.reference_bytes) for i in range(6)]
    cancel = threading.Event()

    def progress(done, total, row):
        if done == 2:
            cancel.set()

    run = grade_submissions(entry.scenario, entry.reference_bytes, submissions, jobs=1, progress=progress,
                            cancel=cancel)
    assert run.cancelled and len(run.results) == 2 and all(r.ok for r in run.results)


def test_cli_grades_a_folder_and_writes_both_reports(room, tmp_path, capsys):
    out_csv, out_html = tmp_path / "out.csv", tmp_path / "out.html"
    code = main(["grade", str(room), "--scenario", SCENARIO, "--csv", str(out_csv), "--html", str(out_html),
                 "--jobs", "1", "--data-dir", str(tmp_path / "data")])
    assert code == 1, "some submissions could not be graded"
    text = capsys.readouterr().out
    assert f"{len(EXPECTED)} submissions against '{SCENARIO}'" in text and "ERROR" in text
    assert len(_csv_rows(out_csv.read_text())) == len(EXPECTED) and out_html.read_text().startswith("<!doctype")


def test_cli_json_lists_every_submission(tmp_path, capsys):
    good = tmp_path / "a.json"
    good.write_bytes(GOOD.read_bytes())
    weak = tmp_path / "b.json"
    weak.write_bytes(WEAK.read_bytes())
    assert main(["grade", str(good), str(weak), "--scenario", SCENARIO, "--json", "--jobs", "1",
                 "--data-dir", str(tmp_path / "data")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in data["submissions"]] == [str(good), str(weak)]
    assert data["submissions"][0]["overall"] > data["submissions"][1]["overall"]


def test_cli_single_file_output_is_unchanged(tmp_path, capsys):
    assert main(["grade", str(WEAK), "--scenario", SCENARIO, "--json", "--data-dir", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["file"] == str(WEAK) and "rubrics" in data and "submissions" not in data


def test_identical_files_are_pointed_out(entry, tmp_path, capsys):
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_bytes(GOOD.read_bytes())
    (tmp_path / "c.json").write_bytes(WEAK.read_bytes())
    run = grade_submissions(entry.scenario, entry.reference_bytes, collect([tmp_path]).submissions, jobs=1)
    assert reports.identical_groups(run.results) == [[str(tmp_path / "a.json"), str(tmp_path / "b.json")]]
    assert "<h2>Identical files</h2>" in reports.report_html(run)
    assert main(["grade", str(tmp_path), "--scenario", SCENARIO, "--jobs", "1", "--data-dir", str(tmp_path / "d")]) == 0
    assert f"Identical files: {tmp_path / 'a.json'}, {tmp_path / 'b.json'}" in capsys.readouterr().out
