"""One design, one load, one set of figures: ``inferboard simulate --json``, the behaviour rules and
``design_sim.evaluate`` report the same p99, utilisation and cost for every example design, and the
rules' decisions flip exactly where those figures cross a threshold."""

from __future__ import annotations

import json

import pytest

from inferboard.cli import main, templates
from inferboard.model import ops
from inferboard.rules import behaviour
from inferboard.rules import conditions as c
from inferboard.rules.context import DesignIndex
from inferboard.sim.steady.design_sim import evaluate
from inferboard.catalog.roles import kind_group
from inferboard.store import read_design

EXAMPLES = sorted(templates())
LOADS = ("mean", "peak")


def _pools(result):
    return {node_id: node for node_id, node in result.nodes.items() if node.kind in kind_group("serving_pool")}


@pytest.mark.parametrize("load", LOADS)
@pytest.mark.parametrize("example", EXAMPLES)
def test_cli_json_rules_and_evaluate_report_the_same_figures(example, load, capsys):
    path = templates()[example]
    design, _ = read_design(path)
    rps = behaviour.load_rps(DesignIndex(design), load)
    direct = evaluate(design, rps)
    by_rules = behaviour.simulate(DesignIndex(design), rps)
    assert main(["simulate", str(path), "--json"] + (["--peak"] if load == "peak" else [])) == 0
    cli = json.loads(capsys.readouterr().out)

    assert cli["offered_rps"] == direct.offered_rps == by_rules.offered_rps == rps
    for key in ("p50_ms", "p95_ms", "p99_ms", "cost_per_hour", "cost_per_1k", "throughput_rps"):
        assert cli[key] == getattr(direct, key) == getattr(by_rules, key), key
    pools = _pools(direct)
    assert pools, "every example has a serving pool"
    for node_id, node in pools.items():
        assert cli["nodes"][node_id]["utilisation"] == node.utilisation == by_rules.nodes[node_id].utilisation
        assert cli["nodes"][node_id]["cost_per_hour"] == node.cost_per_hour == by_rules.nodes[node_id].cost_per_hour


def _with_requirements(design, **changes):
    design.apply(ops.SetRequirements(design.requirements.model_copy(update=changes)))
    return DesignIndex(design)


@pytest.mark.parametrize("example", EXAMPLES)
def test_the_rules_decide_on_the_figures_evaluate_reports(example):
    """Thresholds just above and just below each figure of ``evaluate`` flip the rule: the rules read
    that very figure, not a copy computed another way."""
    design, _ = read_design(templates()[example])
    peak = behaviour.load_rps(DesignIndex(design), "peak")
    mean = behaviour.load_rps(DesignIndex(design), "mean")
    at_peak, at_mean = evaluate(design, peak), evaluate(design, mean)

    p99 = at_peak.p99_ms
    for factor, passes in ((1.001, True), (0.999, False)):
        index = _with_requirements(design, slo_p95_ms=None, slo_p99_ms=p99 * factor)
        assert behaviour.latency_within_slo(c.LatencyWithinSlo(load="peak"), index).holds is passes

    cost = at_mean.cost_per_hour
    for factor, passes in ((1.001, True), (0.999, False)):
        index = _with_requirements(design, budget_per_1k=None, budget_per_hour=cost * factor)
        assert behaviour.within_budget(c.WithinBudget(load="mean"), index).holds is passes

    busiest_id, busiest = max(_pools(at_peak).items(), key=lambda item: item[1].utilisation)
    spare_pct = (1.0 - busiest.utilisation) * 100.0
    if 0.2 < spare_pct < 99.8:
        index = DesignIndex(design)
        loose = behaviour.headroom(c.Headroom(min_pct=spare_pct - 0.1, kind=list(kind_group("serving_pool"))), index)
        tight = behaviour.headroom(c.Headroom(min_pct=spare_pct + 0.1, kind=list(kind_group("serving_pool"))), index)
        assert loose.holds is True and tight.holds is False
        assert busiest_id in tight.neg.nodes


@pytest.mark.parametrize("scenario_id", ["global-llm-chat", "llm-cost-cut"])
def test_llm_figures_agree_across_cli_rules_and_evaluate(scenario_id, tmp_path, capsys):
    """The LLM scenarios' references: TTFT percentiles, TPOT, utilisation and capacity of every
    generation pool, and the design's p99 and cost, are the same through all three doors."""
    from inferboard.practice.library import ScenarioLibrary
    from inferboard.store import save_design

    design = ScenarioLibrary(user_packs=None).load().get(scenario_id).reference_design()
    path = tmp_path / "reference.json"
    save_design(design, path)
    rps = behaviour.load_rps(DesignIndex(design), "peak")
    direct = evaluate(design, rps)
    by_rules = behaviour.simulate(DesignIndex(design), rps)
    assert main(["simulate", str(path), "--json", "--peak"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["p99_ms"] == direct.p99_ms == by_rules.p99_ms
    assert cli["cost_per_hour"] == direct.cost_per_hour == by_rules.cost_per_hour
    llm_pools = [n for n, node in direct.nodes.items() if node.kind == "generation_pool" and node.ttft_ms is not None]
    assert llm_pools
    for node_id in llm_pools:
        for key in ("ttft_ms", "ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms", "tpot_ms", "utilisation", "capacity_rps"):
            value = getattr(direct.nodes[node_id], key)
            assert cli["nodes"][node_id][key] == value == getattr(by_rules.nodes[node_id], key), (node_id, key)
        node = direct.nodes[node_id]
        assert node.ttft_p50_ms <= node.ttft_p95_ms <= node.ttft_p99_ms


def test_the_cli_table_shows_the_ttft_percentiles(tmp_path, capsys):
    from inferboard.practice.library import ScenarioLibrary
    from inferboard.store import save_design

    design = ScenarioLibrary(user_packs=None).load().get("llm-cost-cut").reference_design()
    path = tmp_path / "reference.json"
    save_design(design, path)
    assert main(["simulate", str(path)]) == 0
    text = capsys.readouterr().out
    node = evaluate(design).nodes["us-east-generation"]
    assert f"p95 {node.ttft_p95_ms:,.0f} / p99 {node.ttft_p99_ms:,.0f} ms" in text
