"""The practice subcommands: scenarios, grade, pack export and pack import."""

from __future__ import annotations

import json
import zipfile

import pytest

from inferboard.cli import main
from tests.practice.conftest import ROOT, SHIPPED


@pytest.fixture
def data_dir(tmp_path):
    return ["--data-dir", str(tmp_path / "data")]


def test_scenarios_lists_the_library(capsys, data_dir):
    assert main(["scenarios", *data_dir]) == 0
    out = capsys.readouterr().out
    assert "global-llm-chat" in out and "Real-time fraud scoring on CPUs" in out
    assert main(["scenarios", "--json", *data_dir]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed) >= 8 and {"id", "title", "difficulty", "rubrics", "follow_ups"} <= set(listed[0])


def test_grade_scores_a_file_against_a_scenario(capsys, data_dir):
    example = ROOT / "assets" / "examples" / "cpu-small.json"
    assert main(["grade", str(example), "--scenario", "fraud-scoring-cpu", "--json", *data_dir]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["scenario"] == "fraud-scoring-cpu" and 0 <= report["overall"] <= 100
    assert report["clarify"] is None, "a file graded alone has no clarifying score"
    assert any(lost["source"] == "REGION-008" for lost in report["lost"]), "eu-west is not an allowed region"
    assert "admission_control" in report["diff"]["missing"]
    assert main(["grade", str(SHIPPED / "fraud-scoring-cpu" / "reference.json"), "--scenario",
                 "fraud-scoring-cpu", *data_dir]) == 0
    out = capsys.readouterr().out
    assert "against 'fraud-scoring-cpu'" in out and "Requirements and SLOs" in out


def test_grade_refuses_unknown_scenarios_and_bad_files(capsys, tmp_path, data_dir):
    example = ROOT / "assets" / "examples" / "cpu-small.json"
    assert main(["grade", str(example), "--scenario", "nope", *data_dir]) == 2
    assert "no scenario 'nope'" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main(["grade", str(bad), "--scenario", "fraud-scoring-cpu", *data_dir]) == 2
    assert "bad.json" in capsys.readouterr().err


def test_pack_export_and_import(capsys, tmp_path, data_dir):
    target = tmp_path / "speech.zip"
    assert main(["pack", "export", "bursty-speech", "-o", str(target), *data_dir]) == 0
    assert "bursty-speech/bursty-speech/scenario.yaml" in zipfile.ZipFile(target).namelist()
    assert main(["pack", "import", str(target), *data_dir]) == 2
    assert "already used in pack 'core'" in capsys.readouterr().err
    renamed = tmp_path / "renamed.zip"
    with zipfile.ZipFile(target) as source, zipfile.ZipFile(renamed, "w") as out:
        for info in source.infolist():
            data = source.read(info).replace(b"bursty-speech", b"my-speech")
            out.writestr(info.filename.replace("bursty-speech", "my-speech"), data)
    assert main(["pack", "import", str(renamed), *data_dir]) == 0
    assert "imported pack 'my-speech' (1 scenarios)" in capsys.readouterr().out
    assert main(["scenarios", *data_dir]) == 0
    assert "my-speech" in capsys.readouterr().out
    assert main(["pack", "export", "no-such-thing", "-o", str(tmp_path / "x.zip"), *data_dir]) == 2
