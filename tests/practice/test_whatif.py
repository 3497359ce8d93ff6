"""Follow-ups replayed as what-if runs change the simulator's readouts."""

from __future__ import annotations

import pytest

from inferboard.practice.scenario import parse_fault_spec
from inferboard.practice.whatif import (faults_for, primary_location, readout, resolve_targets, run_follow_ups,
                                        what_if)
from tests.calibration.designs import three_boxes


def test_selectors_resolve_against_the_candidates_own_ids(library):
    design = library.get("global-llm-chat").reference_design()
    # eu-west holds the most generation replicas (11 + 2 against us-east's 10 + 2)
    assert primary_location(design) == "eu-west"
    pools = resolve_targets(design, parse_fault_spec("gpu_shortage*2:kind=generation_pool,location=primary"))
    assert pools == ["eu-west-llm", "eu-west-llm-canary"]
    assert resolve_targets(design, parse_fault_spec("region_outage:kind=region,location=primary")) == ["eu-west"]
    assert resolve_targets(design, parse_fault_spec("traffic_surge*3:kind=traffic_source,origin=eu-west")) \
        == ["users-eu"]
    assert resolve_targets(design, parse_fault_spec("cache_flush:*")) == ["*"]
    assert resolve_targets(design, parse_fault_spec("region_outage:eu-west")) == ["eu-west"]
    assert resolve_targets(design, parse_fault_spec("region_outage:mars")) == []


def test_a_fault_that_matches_nothing_is_reported(library):
    scenario = library.get("fraud-scoring-cpu").scenario
    follow_up = scenario.follow_up("region-down")
    entry = library.get("global-llm-chat")  # regions in us-east, eu-west and ap-northeast: none in us-west
    faults, texts, unmatched = faults_for(entry.reference_design(), follow_up)
    assert [f.target for f in faults] == ["us-east"] and unmatched == []
    moved = follow_up.model_copy(update={"faults": ["region_outage:mars"]})
    faults, texts, unmatched = faults_for(entry.reference_design(), moved)
    assert faults == [] and unmatched == ["region_outage:mars"]


def test_a_fault_at_a_region_the_design_lacks_hits_its_main_region(library):
    """'us-west goes down' on a design with regions in us-east, eu-west and ap-northeast: the region
    holding the most serving replicas takes the outage, the verdict says so, and the numbers change
    as they do for an outage aimed at that region itself."""
    from inferboard.practice.whatif import SERVING_KINDS

    scenario = library.get("fraud-scoring-cpu").scenario
    design = library.get("global-llm-chat").reference_design()
    replicas: dict[str, int] = {}
    for node in design.nodes.values():
        if node.kind in SERVING_KINDS and node.region:
            where = design.nodes[node.region].params["location"]
            replicas[where] = replicas.get(where, 0) + int(node.params.get("replicas", 0))
    main = max(replicas, key=replicas.get)
    assert "us-west" not in replicas and len(replicas) > 1
    follow_up = scenario.follow_up("region-down").model_copy(
        update={"faults": ["region_outage:kind=region,location=us-west"]})
    result = what_if(scenario, design, follow_up)
    assert result.unmatched == [] and result.missing == []
    assert "no us-west region" in result.retargeted[0] and f"main region, {main}" in result.retargeted[0]
    assert "no us-west region" in result.verdict
    direct = what_if(scenario, design, follow_up.model_copy(update={"faults": [f"region_outage:{main}"]}))
    assert result.after.to_dict() == direct.after.to_dict() and result.after.to_dict() != result.before.to_dict()
    slow = follow_up.model_copy(update={"faults": ["slow_replica*3:kind=generation_pool,location=us-west"]})
    faults, _, unmatched = faults_for(design, slow)
    pools = [n.id for n in design.nodes.values() if n.kind == "generation_pool" and n.region
             and design.nodes[n.region].params["location"] == main]
    assert [(f.kind, f.target) for f in faults] == [("slow_replica", pools[0])] and unmatched == []


def test_what_ifs_leave_the_design_untouched(library):
    entry = library.get("bursty-speech")
    design = entry.reference_design()
    before = design.requirements
    results = run_follow_ups(entry.scenario, design)
    assert design.requirements == before and len(results) == len(entry.scenario.follow_ups)
    assert all(r.before.available and r.after.available for r in results)
    assert all(r.verdict for r in results)


@pytest.mark.parametrize("scenario_id, follow_up_id", [
    ("global-llm-chat", "region-down"),
    ("global-llm-chat", "eu-triples"),
    ("bursty-speech", "sixfold-burst"),
    ("image-embedding-search", "cache-flush"),
    ("recsys-ranking-diurnal", "spot-reclaim"),
    ("p99-latency-spike", "slow-pool"),
    ("fraud-scoring-cpu", "feature-store-errors"),
    ("recsys-ranking-diurnal", "new-market"),
])
def test_a_follow_up_changes_the_simulators_result(library, scenario_id, follow_up_id):
    entry = library.get(scenario_id)
    result = what_if(entry.scenario, entry.reference_design(), entry.scenario.follow_up(follow_up_id))
    assert result.before.source == "simulator" and result.after.source == "simulator"
    assert result.changed(), result
    assert result.unmatched == []


def test_a_surge_hurts_a_design_without_headroom(library):
    entry = library.get("bursty-speech")
    design = entry.reference_design()
    for pool in ("us-east-gpu", "us-west-gpu"):
        design.set_params(pool, replicas=3, spot_share=0.0)
    result = what_if(entry.scenario, design, entry.scenario.follow_up("sixfold-burst"))
    assert result.after.p99_ms > entry.scenario.requirements.slo_p99_ms > result.before.p99_ms
    assert not result.held and result.verdict.startswith(("Struggles", "Fails"))


def test_automatic_rollback_contains_a_slow_release(library):
    entry = library.get("p99-latency-spike")
    follow_up = entry.scenario.follow_up("deploy-regression")
    guarded = what_if(entry.scenario, entry.reference_design(), follow_up)
    design = entry.reference_design()
    for router in ("us-east-canary", "us-west-canary"):
        design.set_params(router, auto_rollback=False, canary_share=0.25)
    exposed = what_if(entry.scenario, design, follow_up)
    assert exposed.changed() and exposed.after.p99_ms > guarded.after.p99_ms


def test_an_outage_in_a_single_region_design_loses_everything(library):
    entry = library.get("fraud-scoring-cpu")
    design = entry.reference_design()
    design.remove_node("us-west")  # members leave the region; their pools no longer count as us-west
    for node_id in [n.id for n in design.nodes.values() if n.id.startswith("us-west-")]:
        design.remove_node(node_id)
    result = what_if(entry.scenario, design, entry.scenario.follow_up("region-down"))
    assert result.after.lost_rate > 0.9


def test_a_simulator_failure_is_reported_not_estimated(library, monkeypatch):
    from inferboard.sim.steady import design_sim

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(design_sim, "evaluate", broken)
    out = readout(library.get("fraud-scoring-cpu").reference_design(), 2500)
    assert out.source == "unavailable" and not out.available and "boom" in out.notes[0]
    assert out.p99_ms is None and out.max_utilisation is None


def test_a_follow_up_at_a_missing_feature_store_fails_and_names_it(library):
    scenario = library.get("fraud-scoring-cpu").scenario
    result = what_if(scenario, three_boxes(), scenario.follow_up("feature-store-errors"))
    assert not result.held and result.verdict.startswith("Fails:")
    assert "no feature store" in result.verdict and "where do features come from" in result.verdict
    assert result.missing and result.unmatched == ["dependency_errors*0.2:kind=feature_service,location=primary"]


def test_a_region_outage_on_a_design_without_regions_hits_everything(library):
    scenario = library.get("fraud-scoring-cpu").scenario
    result = what_if(scenario, three_boxes(), scenario.follow_up("region-down"))
    assert not result.held and result.verdict.startswith("Fails:")
    assert result.unmatched == [] and "no regions" in result.retargeted[0] and "us-east" in result.retargeted[0]
    assert result.after.lost_rate > 0.99


def test_a_gpu_shortage_does_not_reach_a_design_serving_on_cpus(library):
    """Out of reach is not missing: the CPU design has nothing a GPU shortage could take."""
    scenario = library.get("bursty-speech").scenario
    result = what_if(scenario, three_boxes(), scenario.follow_up("gpu-shortage"))
    assert result.missing == [] and result.unmatched
    assert "no part of the design is in reach" in result.verdict


def test_the_reference_designs_hold_their_region_and_feature_follow_ups(library):
    entry = library.get("fraud-scoring-cpu")
    results = {w.follow_up_id: w for w in run_follow_ups(entry.scenario, entry.reference_design(),
                                                          ["region-down", "feature-store-errors"])}
    assert all(w.missing == [] and w.unmatched == [] for w in results.values())
    assert results["region-down"].held, results["region-down"].verdict


def test_one_slow_pool_in_a_named_region_reaches_a_design_without_regions(library):
    """'One GPU pool in us-east is slow' on a design drawn without regions: every pool is in that
    one place, so the first GPU pool stands in for it and the follow-up changes the numbers."""
    from inferboard.model import Design

    scenario = library.get("p99-latency-spike").scenario
    follow_up = scenario.follow_up("slow-pool")
    design = Design()
    design.add_node("traffic_source", 0, 0, node_id="users")
    design.add_node("gpu_pool", 300, 0, node_id="gpus")
    design.add_node("gpu_pool", 300, 200, node_id="more-gpus")
    faults, texts, unmatched = faults_for(design, follow_up)
    assert [(f.kind, f.target, f.magnitude) for f in faults] == [("slow_replica", "gpus", 3.0)] and unmatched == []
    assert texts == ["slow_replica*3:gpus"]


def test_a_follow_up_on_a_design_that_serves_nothing_fails_and_says_why():
    from inferboard.model import Design
    from inferboard.practice.library import ScenarioLibrary
    from inferboard.practice.whatif import NOTHING_SERVES, run_follow_ups

    entry = ScenarioLibrary(user_packs=None).load().get("fraud-scoring-cpu")
    blank = Design()
    unwired = Design()
    unwired.add_node("traffic_source", 0, 0, node_id="users")
    unwired.add_node("cpu_pool", 300, 0, node_id="pool")
    for design in (blank, unwired):
        results = run_follow_ups(entry.scenario, design)
        assert results and all(not r.held and NOTHING_SERVES in r.verdict for r in results)


def _fallback_readout(fallback_rps: float, busiest: float):
    from types import SimpleNamespace

    from inferboard.practice.whatif import simulator_readout

    node = lambda kind, arrival, utilisation: SimpleNamespace(kind=kind, arrival_rps=arrival, shed_rps=0.0,  # noqa: E731
                                                               down=False, utilisation=utilisation)
    result = SimpleNamespace(p99_ms=40.0, cost_per_hour=10.0, shed_rate=0.0, error_rate=0.0, timeout_rate=0.0,
                             notes=[], offered_rps=1000.0,
                             nodes={"gpus": node("gpu_pool", 1000.0 - fallback_rps, busiest),
                                    "fb": node("fallback_model", fallback_rps, 0.3)})
    return simulator_readout(result, 1000.0)


@pytest.mark.parametrize("fallback_rps,busiest,holds", [(0.0, 0.6, True), (300.0, 0.6, False), (0.0, 0.95, False)])
def test_degraded_or_hot_answers_do_not_hold_up(fallback_rps, busiest, holds):
    from inferboard.model import Requirements
    from inferboard.practice.whatif import WhatIf, verdict

    before, after = _fallback_readout(0.0, 0.5), _fallback_readout(fallback_rps, busiest)
    assert after.fallback_rate == pytest.approx(fallback_rps / 1000.0)
    result = WhatIf("f", "F", "?", [], {}, before, after)
    result.verdict = verdict(result, Requirements(slo_p99_ms=100))
    assert result.held == holds, result.verdict
    if fallback_rps:
        assert "answered by a fallback (degraded) 0% -> 30%" in result.verdict
