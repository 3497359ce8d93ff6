"""Malformed rule files are errors that name the file, the rule id and the field; never skipped."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from inferboard.paths import data_dir
from inferboard.rules import RuleFileError, load_rules

EXPLANATION = {key: f"Some teaching text about {key} that is long enough to pass."
               for key in ("checks", "why", "trade_off", "example", "fix")}
GOOD = {"id": "DEMO-001", "rubric": "demo", "severity": "minor", "roles": ["main"], "points": 2, "title": "A demo rule",
        "message": "{nodes}: demo finding.", "topics": ["demo.topic"], "explanation": EXPLANATION,
        "when": {"kind_count": {"kind": "gpu_pool", "min": 1}}}


def make_rubrics(root: Path, **changes) -> Path:
    (root / "demo").mkdir(parents=True)
    (root / "topics.yaml").write_text(yaml.safe_dump({"topics": [{"id": "demo.topic", "title": "A demo topic"}]}))
    (root / "demo" / "rubric.yaml").write_text(yaml.safe_dump(
        {"id": "demo", "title": "Demo", "prefix": "DEMO", "description": "A rubric used only by these tests."}))
    rule = {**GOOD, **changes}
    rule = {k: v for k, v in rule.items() if v is not None}
    (root / "demo" / "DEMO-001.yaml").write_text(yaml.safe_dump(rule, sort_keys=False))
    return root


def error_of(root: Path) -> RuleFileError:
    with pytest.raises(RuleFileError) as caught:
        load_rules(root)
    return caught.value


def test_a_well_formed_folder_loads(tmp_path):
    rules = load_rules(make_rubrics(tmp_path))
    assert list(rules.rules) == ["DEMO-001"] and rules.get("demo-001").title == "A demo rule"


@pytest.mark.parametrize("changes,field,words", [
    ({"colour": "red"}, "colour", "unknown field"),
    ({"severity": "critical"}, "severity", "blocker"),
    ({"roles": ["primary"]}, "roles.0", "main"),
    ({"roles": []}, "roles", "at least 1"),
    ({"points": -1}, "points", "greater than or equal"),
    ({"when": {"kind_cuont": {"kind": "gpu_pool"}}}, "when.kind_cuont", "unknown condition 'kind_cuont'"),
    ({"when": {"all": [{"kind_count": {"kind": "gpu_pool", "mni": 1}}]}}, "when.all.0.kind_count.mni",
     "unknown field"),
    ({"when": {"param": {"kind": "gpu_pool", "test": {"spot_shar": {"gt": 0.5}}}}}, "when.param.test.spot_shar",
     "no parameter or derived attribute"),
    ({"when": {"param": {"kind": "gpu_pool", "test": {"precision": "int4"}}}}, "when.param.test.precision",
     "not a choice"),
    ({"when": {"kind_count": {"kind": "gpu_pools"}}}, "when.kind_count.kind", "unknown component kind"),
    ({"when": {"requirement": {"name": "slo_p999_ms"}}}, "when.requirement.name", "unknown requirement"),
    ({"when": {"param": {"kind": "gpu_pool", "test": {"replicas": {"gt": 1, "lt": 4}}}}},
     "when.param.test.replicas", "exactly one operator"),
    ({"applies_when": {"not": {"all": []}}}, "applies_when.not.all", "non-empty list"),
    ({"when": None}, "when", "Field required"),
    ({"topics": ["demo.unknown"]}, "topics.0", "unknown topic"),
    ({"message": "{node} is wrong"}, "message", "unknown placeholder"),
    ({"explanation": {**EXPLANATION, "fix": None}}, "explanation.fix", "valid string"),
    ({"id": "DEMO-002"}, "id", "file name"),
    ({"rubric": "other"}, "rubric", "folder"),
])
def test_a_malformed_rule_names_file_rule_and_field(tmp_path, changes, field, words):
    error = error_of(make_rubrics(tmp_path, **changes))
    assert error.file.endswith("DEMO-001.yaml")
    assert error.rule_id == changes.get("id", "DEMO-001")
    assert error.field == field
    assert words in error.message
    assert str(error).startswith(str(tmp_path))
    assert f"rule '{error.rule_id}'" in str(error) and f"field '{field}'" in str(error)


def test_a_duplicate_rule_id_across_files_is_an_error(tmp_path):
    root = make_rubrics(tmp_path)
    shutil.copy(root / "demo" / "DEMO-001.yaml", root / "demo" / "DEMO-001.yml")
    error = error_of(root)
    assert error.rule_id == "DEMO-001" and error.field == "id"
    assert "duplicate" in error.message and "DEMO-001.yaml" in error.message


def test_invalid_yaml_names_the_file(tmp_path):
    root = make_rubrics(tmp_path)
    (root / "demo" / "DEMO-001.yaml").write_text("id: DEMO-001\nwhen: [unclosed\n")
    error = error_of(root)
    assert error.file.endswith("DEMO-001.yaml") and "YAML" in error.message


def test_a_rubric_folder_without_rubric_file_is_an_error(tmp_path):
    root = make_rubrics(tmp_path)
    (root / "stray").mkdir()
    assert "rubric.yaml" in error_of(root).message


def test_a_broken_shipped_rule_is_reported_not_skipped(tmp_path):
    root = tmp_path / "rubrics"
    shutil.copytree(data_dir("rubrics"), root)
    path = root / "autoscaling" / "SCALE-002.yaml"
    path.write_text(path.read_text().replace("severity: major", "severity: major\nweight: 3"))
    error = error_of(root)
    assert (Path(error.file).name, error.rule_id, error.field) == ("SCALE-002.yaml", "SCALE-002", "weight")


def test_shipped_rules_cover_every_topic_and_rubric():
    rules = load_rules(data_dir("rubrics"))
    covered = {topic for rule in rules for topic in rule.topics}
    assert covered == set(rules.topics)
    assert len(rules) >= 40
    assert all(rules.of_rubric(name) for name in rules.rubrics)
