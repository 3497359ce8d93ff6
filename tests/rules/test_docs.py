"""docs/rules.md is generated from the rule files and must not go stale."""

from inferboard.rules.docs import DOC_PATH, render


def test_docs_rules_md_is_up_to_date():
    assert DOC_PATH.read_text(encoding="utf-8") == render(), "docs/rules.md is stale: python -m inferboard.rules.docs"


def test_docs_name_every_rule_and_leaf():
    text = render()
    from inferboard.rules import default_rules
    from inferboard.rules.conditions import LEAVES

    assert all(f"### {rule_id}:" in text for rule_id in default_rules().rules)
    assert all(f"`{leaf}`" in text for leaf in LEAVES)
