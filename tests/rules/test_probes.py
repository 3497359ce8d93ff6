"""The list of mistakes an interviewer probes names real rules, and a bad entry is named exactly."""

from __future__ import annotations

import pytest

from inferboard.rules import default_rules
from inferboard.rules.loader import RuleFileError
from inferboard.rules.probes import PROBES_FILE, load_probes

RULES = default_rules()


def test_every_probe_names_rules_that_exist_and_the_new_mistakes_are_covered():
    probes = load_probes(RULES)
    named = {rule_id for probe in probes.probes for rule_id in probe.rules}
    assert named <= set(RULES.rules)
    assert {"LAT-011", "LAT-012", "COST-006", "ROLL-007", "REGION-003", "LAT-006", "HW-003"} <= named


@pytest.mark.parametrize("text,field,words", [
    ("probes:\n  - {mistake: 'A mistake nobody checks', rules: [NOPE-001]}\n", "probes.0.rules.0", "unknown rule"),
    ("probes:\n  - {mistake: 'A mistake with no rule', rules: []}\n", "probes.0.rules", "at least 1"),
    ("probes: []\nextra: 1\n", "", ""),
])
def test_a_bad_probe_file_names_the_item(tmp_path, text, field, words):
    (tmp_path / PROBES_FILE).write_text(text, encoding="utf-8")
    with pytest.raises(RuleFileError) as raised:
        load_probes(RULES, tmp_path)
    assert field in str(raised.value) and words in str(raised.value)
