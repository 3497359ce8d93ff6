"""The headless command line: validate, catalog, new."""

import json

import pytest

from inferboard.cli import main, templates
from inferboard.store import read_design


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_shipped_examples_validate(capsys):
    files = sorted(str(p) for p in templates().values())
    assert {"starter", "multi-region", "cpu-small"} <= set(templates())
    code, out, _ = run(capsys, "validate", *files)
    assert code == 0
    assert out.count(": valid") == len(files)


def test_validate_reports_every_bad_file_and_exits_2(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "inferboard-design", "version": 1, "nodes": [{"id": "a", "kind": "warp_drive"}]}')
    good = templates()["starter"]
    code, out, err = run(capsys, "validate", str(good), str(bad))
    assert code == 2
    assert "starter.json: valid" in out
    assert "bad.json: node 'a' field 'kind': unknown component kind 'warp_drive'" in err


def test_catalog_lists_every_kind_with_one_line(capsys):
    code, out, _ = run(capsys, "catalog")
    assert code == 0
    for kind in ("gpu_pool", "dynamic_batcher", "drift_detector", "region", "canary_router"):
        assert f"  {kind} " in out
    code, out, _ = run(capsys, "catalog", "--json")
    data = json.loads(out)
    assert len(data["kinds"]) >= 19 and {g["id"] for g in data["gpus"]} >= {"t4", "l4", "a10g", "h100"}
    assert all("\n" not in k["summary"] for k in data["kinds"])


def test_new_from_template_and_blank(capsys, tmp_path):
    target = tmp_path / "mine.json"
    code, _, _ = run(capsys, "new", "--template", "multi-region", "-o", str(target), "--title", "Mine")
    assert code == 0
    design, _ = read_design(target)
    assert design.metadata["title"] == "Mine" and len(design.nodes) > 10
    code, _, err = run(capsys, "new", "-o", str(target))
    assert code == 2 and "already exists" in err
    code, _, _ = run(capsys, "new", "--template", "blank", "-o", str(target), "--force")
    assert code == 0 and len(read_design(target)[0].nodes) == 0
    code, _, err = run(capsys, "new", "--template", "nope", "-o", str(tmp_path / "x.json"))
    assert code == 2 and "choose one of" in err


def test_no_command_prints_help(capsys):
    code, out, _ = run(capsys)
    assert code == 2 and "validate" in out
