"""Pool roles: derived from the graph and the catalog, and each rule judges only the roles it states."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferboard.rules import check_design, default_rules
from inferboard.rules.context import DesignIndex
from inferboard.store import read_design
from tests.rules.builders import drop_edge, reference, simple, wire

RULES = default_rules()
EXAMPLE = Path(__file__).resolve().parents[2] / "assets" / "examples" / "multi-region.json"
NOT_MAIN = ("canary", "shadow", "fallback", "batch")


def _batch_design():
    """A user-facing CPU pool plus an offline GPU pool drained from a request queue."""
    design = simple("cpu_pool")
    design.add_node("request_queue", 300, 600, node_id="jobs")
    design.add_node("gpu_pool", 500, 600, {"gpu_type": "t4", "replicas": 1}, node_id="offline")
    wire(design, "jobs", "requests", "offline", "requests")
    return design


def test_roles_of_the_reference_design():
    roles = DesignIndex(reference()).roles
    assert roles["gpu-use1"] == "main" and roles["gpu-usw2"] == "main"
    assert roles["next-use1"] == "canary" and roles["next-usw2"] == "canary"
    assert roles["fallback-use1"] == "fallback"


def test_a_canary_router_in_shadow_mode_makes_a_shadow_pool():
    design = reference()
    design.set_params("canary-use1", shadow=True)
    roles = DesignIndex(design).roles
    assert roles["next-use1"] == "shadow" and roles["next-usw2"] == "canary"


def test_a_pool_drained_from_a_queue_is_batch_and_an_unwired_pool_is_main():
    design = _batch_design()
    design.add_node("gpu_pool", 700, 600, node_id="forgotten")
    roles = DesignIndex(design).roles
    assert roles["offline"] == "batch"
    assert roles["forgotten"] == "main"


def test_every_rule_states_known_roles():
    for rule in RULES:
        assert rule.roles and set(rule.roles) <= {"main", *NOT_MAIN}, rule.id


def _scenario_reference(scenario_id: str):
    from inferboard.practice.library import ScenarioLibrary

    return lambda: ScenarioLibrary(user_packs=None).load().get(scenario_id).reference_design()


@pytest.mark.parametrize("design_factory", [reference, lambda: read_design(EXAMPLE)[0],
                                            _scenario_reference("recsys-ranking-diurnal"),
                                            _scenario_reference("global-llm-chat")],
                         ids=["reference", "multi-region-example", "recsys-reference", "llm-chat-reference"])
def test_no_canary_shadow_or_fallback_pool_draws_a_main_pool_finding(design_factory):
    design = design_factory()
    for router in [n.id for n in design.nodes.values() if n.kind == "canary_router"][:1]:
        design.set_params(router, shadow=True)
    index = DesignIndex(design)
    others = {pool for pool, role in index.roles.items() if role != "main"}
    assert {"canary", "shadow"} <= {index.roles[p] for p in others}
    report = check_design(design)
    for finding in report.findings:
        if set(RULES.get(finding.rule_id).roles) == {"main"}:
            assert not others & set(finding.node_ids), (finding.rule_id, finding.node_ids)


def test_a_one_replica_canary_without_autoscaler_costs_nothing():
    design = reference()
    base = check_design(design, behaviour=False)
    drop_edge(design, "scaler-use1:next-use1")
    design.set_params("next-use1", replicas=1, min_replicas=1, max_replicas=1)
    small = check_design(design, behaviour=False)
    assert small.overall == pytest.approx(base.overall)
    assert not {"SCALE-001", "SCALE-004"} & small.fired()


def test_the_main_pool_without_autoscaler_still_draws_the_finding():
    design = reference()
    drop_edge(design, "scaler-use1:gpu-use1")
    finding = next(f for f in check_design(design, behaviour=False).findings if f.rule_id == "SCALE-001")
    assert finding.node_ids == ("gpu-use1",)


def test_the_canary_has_its_own_expectations():
    design = reference()
    design.set_params("canary-use1", auto_rollback=False)
    finding = next(f for f in check_design(design, behaviour=False).findings if f.rule_id == "ROLL-002")
    assert finding.node_ids == ("canary-use1",)


def test_a_batch_pool_is_not_held_to_the_main_pool_autoscaling_rule():
    report = check_design(_batch_design(), behaviour=False)
    assert all("offline" not in f.node_ids for f in report.findings if f.rule_id in ("SCALE-001", "LAT-003"))
