"""Every rule against its own pass and fail example designs (checkov / sqlfluff style), plus the
checks that keep the example set honest: coverage, freshness and no duplicate rules."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest
import yaml

from inferboard.rules import default_rules
from inferboard.rules.context import DesignIndex
from inferboard.rules.engine import RuleSkipped, run_rule
from inferboard.store import read_design

RULES = default_rules()
CASES = [(rule.id, path) for rule in RULES for path in sorted(RULES.examples_dir(rule.id).glob("*.json"))]
ALL_EXAMPLES = sorted({path for _, path in CASES})


def expected_for(rule_id: str) -> dict:
    path = RULES.examples_dir(rule_id) / "expected.yaml"
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def outcome(rule, design, index=None):
    """(fired, node ids, edge ids) of one rule on one design (through ``index`` when one is kept)."""
    result = run_rule(rule, index or DesignIndex(design), RULES)
    if result is None or result is True:
        return False, (), ()
    return True, result.node_ids, result.edge_ids


@pytest.mark.parametrize("rule_id,path", CASES, ids=[f"{r}/{p.stem}" for r, p in CASES])
def test_rule_verdict_and_flagged_ids_on_its_example(rule_id: str, path: Path):
    rule = RULES.get(rule_id)
    design, _ = read_design(path)
    try:
        fired, nodes, edges = outcome(rule, design)
    except RuleSkipped as skip:
        pytest.fail(f"{rule_id} could not be answered on {path.name}: {skip}")
    if path.stem.startswith("pass"):
        assert not fired, f"{rule_id} fired on {path.name} (flagged {nodes})"
        return
    want = expected_for(rule_id)[path.stem]
    assert fired, f"{rule_id} did not fire on {path.name}"
    assert list(nodes) == want["nodes"]
    if "edges" in want:
        assert list(edges) == want["edges"]


@pytest.mark.parametrize("rule_id", list(RULES.rules))
def test_every_rule_has_pass_and_fail_examples_with_expectations(rule_id: str):
    folder = RULES.examples_dir(rule_id)
    names = {p.stem for p in folder.glob("*.json")}
    fails = {n for n in names if n.startswith("fail-")}
    assert any(n.startswith("pass-") for n in names), f"{rule_id} has no pass example"
    assert fails, f"{rule_id} has no fail example"
    assert names == {n for n in names if n.startswith(("pass-", "fail-"))}
    assert set(expected_for(rule_id)) == fails, "expected.yaml must list exactly the fail examples"


def test_examples_match_their_generator(tmp_path):
    from tests.rules.make_examples import write_examples

    write_examples(tmp_path)
    fresh = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    committed = {p.relative_to(RULES.folder): p.read_bytes() for p in RULES.folder.rglob("examples/**/*")
                 if p.is_file()}
    assert sorted(fresh) == sorted(committed), "run: python -m tests.rules.make_examples"
    stale = [str(name) for name, data in fresh.items() if committed[name] != data]
    assert not stale, f"stale examples (run python -m tests.rules.make_examples): {stale[:5]}"


@pytest.mark.slow  # every rule on every example
def test_no_two_rules_flag_the_same_fault():
    """Across every example, no two rules fire on exactly the same examples with the same nodes."""
    # one index per design, shared by the rules as in a real check (its simulator runs are kept)
    indexes = {path: DesignIndex(read_design(path)[0]) for path in ALL_EXAMPLES}
    signatures: dict[str, frozenset] = {}
    for rule in RULES:
        hits = set()
        for path, index in indexes.items():
            try:
                fired, nodes, _ = outcome(rule, index.design, index)
            except RuleSkipped:
                continue
            if fired:
                hits.add((path.name, path.parent.name, nodes))
        signatures[rule.id] = frozenset(hits)
    duplicates = [(a, b) for a, b in combinations(signatures, 2) if signatures[a] == signatures[b]]
    assert not duplicates, f"rules that flag the same fault everywhere: {duplicates}"
    assert all(signatures.values()), "every rule fires somewhere"


def test_the_reference_design_passes_every_structural_rule():
    design, _ = read_design(RULES.examples_dir("REQ-001") / "pass-1.json")
    fired = [rule.id for rule in RULES if not rule.behaviour and outcome(rule, design)[0]]
    assert fired == []
