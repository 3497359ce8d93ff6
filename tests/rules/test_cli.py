"""``inferboard check``, ``explain`` and ``rules``, called through inferboard.cli.main."""

from __future__ import annotations

import json

from inferboard.cli import main
from inferboard.rules import default_rules, explain_rule

RULES = default_rules()


def example(rule_id: str, name: str) -> str:
    return str(RULES.examples_dir(rule_id) / f"{name}.json")


def test_check_exits_1_on_a_blocker_and_lists_findings(capsys):
    assert main(["check", example("HW-001", "fail-1"), "--no-behaviour"]) == 1
    out = capsys.readouterr().out
    assert "HW-001" in out and "blocker" in out and "grade" in out and "Scores:" in out


def test_check_exits_0_without_blockers_and_prints_json(capsys):
    assert main(["check", example("REQ-001", "pass-1"), "--json", "--no-behaviour"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["findings"] == [] and data["grade"] == "A" and data["behaviour"] is False


def test_check_can_select_rubrics(capsys):
    assert main(["check", example("HW-001", "fail-1"), "--json", "--no-behaviour", "--rubric", "rollout",
                 "--rubric", "drift"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["scores"]) == {"rollout", "drift"}


def test_check_reports_unreadable_files_and_unknown_rubrics_with_exit_2(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text("{\"format\": \"inferboard-design\", ")
    assert main(["check", str(broken)]) == 2
    assert "broken.json" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "missing.json")]) == 2
    assert "cannot be read" in capsys.readouterr().err
    assert main(["check", example("REQ-001", "pass-1"), "--rubric", "nope"]) == 2
    assert "unknown rubric 'nope'" in capsys.readouterr().err


def test_explain_prints_the_gui_text(capsys):
    assert main(["explain", "SCALE-006"]) == 0
    assert capsys.readouterr().out == explain_rule("SCALE-006")
    assert main(["explain", "SCALE-66"]) == 2
    assert "unknown rule" in capsys.readouterr().err


def test_rules_lists_every_rule(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert all(rule_id in out for rule_id in RULES.rules)
    assert main(["rules", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in data] == list(RULES.rules)
    assert {"checks", "why", "trade_off", "example", "fix"} <= set(data[0]["explanation"])
