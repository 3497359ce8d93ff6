"""Drill files: unknown fields refused, errors naming the file, the drill and the field."""

from pathlib import Path

import pytest

from inferboard.drills.library import applicable, load_drills
from inferboard.drills.schema import MITIGATIONS, DrillError, load_drill
from inferboard.paths import data_dir
from inferboard.safe_yaml import load_yaml_file

SOURCE = data_dir("assets") / "drills" / "slow-canary-version.yaml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_an_unknown_field_is_named_with_file_drill_and_field(tmp_path):
    text = SOURCE.read_text(encoding="utf-8").replace("    effect: fixes\n", "    effect: fixes\n    colour: red\n", 1)
    path = write(tmp_path, text)
    with pytest.raises(DrillError) as caught:
        load_drill(path)
    message = str(caught.value)
    assert str(path) in message and "drill 'slow-canary-version'" in message
    assert "field 'mitigations.0.colour': unknown field" in message


def test_an_unknown_mitigation_and_fault_kind_are_refused(tmp_path):
    text = SOURCE.read_text(encoding="utf-8").replace("action: rollback_canary", "action: pray", 1)
    text = text.replace("kind: slow_canary", "kind: gremlins", 1)
    with pytest.raises(DrillError) as caught:
        load_drill(write(tmp_path, text))
    assert "unknown mitigation 'pray'" in str(caught.value)
    assert "unknown fault kind 'gremlins'" in str(caught.value)


def test_a_drill_needs_a_fix_and_a_wrong_turn(tmp_path):
    raw = load_yaml_file(SOURCE)
    text = SOURCE.read_text(encoding="utf-8").replace("effect: no_effect", "effect: fixes").replace(
        "effect: worsens", "effect: fixes")
    with pytest.raises(DrillError, match="must not fix"):
        load_drill(write(tmp_path, text))
    assert raw["id"] == "slow-canary-version"


def test_every_bundled_drill_is_planted_with_changes_decoys_and_mitigations(drill_design):
    for drill in load_drills().values():
        assert any(c.planted for c in drill.changes) or drill.plant.drift, drill.id
        assert any(not c.planted for c in drill.changes), drill.id
        assert {m.effect for m in drill.mitigations} >= {"fixes"}, drill.id
        assert all(m.action in MITIGATIONS for m in drill.mitigations)
        assert applicable(drill, drill_design) == [], drill.id


def test_a_design_lacking_the_drills_components_is_told_why(starter_design):
    drills = load_drills()
    assert applicable(drills["slow-canary-version"], starter_design) == ["the design has no canary router"]


def test_the_library_does_not_follow_one_template():
    """Change logs of different lengths, causes that start at different minutes and not always in
    the entry at the jump, and several drills with more than one fix."""
    drills = list(load_drills().values())
    assert len({len(d.changes) for d in drills}) >= 3
    assert sum(d.cause_start_min != 10 for d in drills) >= 6
    planted_elsewhere = [d.id for d in drills
                         if not any(c.planted and c.at_min == d.cause_start_min for c in d.changes)]
    assert len(planted_elsewhere) >= 6, planted_elsewhere
    assert sum(sum(m.effect == "fixes" for m in d.mitigations) > 1 for d in drills) >= 6


def test_a_symptom_with_a_segment_must_be_about_accuracy(tmp_path):
    text = SOURCE.read_text(encoding="utf-8").replace(
        "symptom: {metric: p99_ms, measure: baseline_multiple, size: 3}",
        "symptom: {metric: p99_ms, measure: drop_pp, size: 3, segment: mobile}")
    with pytest.raises(DrillError) as caught:
        load_drill(write(tmp_path, text))
    assert "field 'symptom'" in str(caught.value) and "segment" in str(caught.value)
