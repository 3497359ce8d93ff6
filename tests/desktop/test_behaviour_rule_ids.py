"""Which findings the findings panel keeps while structural ones refresh: the rules that need the
simulator, read from the rubric files here; a malformed rubric gives none, any other error is raised."""

from __future__ import annotations

import pytest
import yaml

import inferboard.rules
from inferboard.paths import data_dir
from inferboard.rules import RuleFileError
from inferboard.rules.conditions import BEHAVIOUR_LEAVES

from desktop.shell.presenting import behaviour_rule_ids


def keys_in(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | set().union(*(keys_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_in(v) for v in value)) if value else set()
    return set()


def test_the_ids_are_the_rules_whose_conditions_ask_the_simulator():
    expected = set()
    for path in data_dir("rubrics").glob("*/*.yaml"):
        if path.name == "rubric.yaml":
            continue
        raw = yaml.safe_load(path.read_text())
        if keys_in([raw.get("when"), raw.get("applies_when")]) & BEHAVIOUR_LEAVES:
            expected.add(raw["id"])
    assert expected  # the shipped rubrics do have simulator rules
    assert behaviour_rule_ids() == expected


def test_a_malformed_rubric_gives_no_ids(monkeypatch):
    def broken():
        raise RuleFileError("rubrics/latency/LAT-001.yaml", "LAT-001", "when", "unknown condition 'fast'")

    monkeypatch.setattr(inferboard.rules, "default_rules", broken)
    assert behaviour_rule_ids() == set()


def test_other_errors_are_not_swallowed(monkeypatch):
    def failing():
        raise TypeError("a bug in the loader")

    monkeypatch.setattr(inferboard.rules, "default_rules", failing)
    with pytest.raises(TypeError, match="a bug in the loader"):
        behaviour_rule_ids()
