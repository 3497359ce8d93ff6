"""Follow-ups replayed as what-if runs change the simulator's readouts."""

from __future__ import annotations

import pytest

from inferboard.model import Design
from inferboard.practice.scenario import parse_fault_spec
from inferboard.practice.whatif import (compiled_readout, faults_for, primary_location, readout, resolve_targets,
                                        run_follow_ups, what_if)


def test_selectors_resolve_against_the_candidates_own_ids(library):
    design = library.get("global-llm-chat").reference_design()
    assert primary_location(design) == "us-east"
    pools = resolve_targets(design, parse_fault_spec("gpu_shortage*2:kind=generation_pool,location=primary"))
    assert pools == ["us-east-llm", "us-east-llm-canary"]
    assert resolve_targets(design, parse_fault_spec("region_outage:kind=region,location=primary")) == ["us-east"]
    assert resolve_targets(design, parse_fault_spec("traffic_surge*3:kind=traffic_source,origin=eu-west")) \
        == ["users-eu"]
    assert resolve_targets(design, parse_fault_spec("cache_flush:*")) == ["*"]
    assert resolve_targets(design, parse_fault_spec("region_outage:eu-west")) == ["eu-west"]
    assert resolve_targets(design, parse_fault_spec("region_outage:mars")) == []


def test_a_fault_that_matches_nothing_is_reported(library):
    scenario = library.get("fraud-scoring-cpu").scenario
    follow_up = scenario.follow_up("region-down")
    faults, texts, unmatched = faults_for(Design(), follow_up)
    assert faults == [] and unmatched == ["region_outage:kind=region,location=us-east"]


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
    assert result.verdict.startswith("Struggles")


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


def test_the_capacity_estimate_works_without_the_latency_model(library):
    design = library.get("fraud-scoring-cpu").reference_design()
    fine = compiled_readout(design, 6000)
    assert fine.source.startswith("capacity estimate") and fine.p99_ms is None
    assert fine.max_utilisation < 1 and fine.lost_rate < 0.01 and fine.cost_per_hour > 0
    from inferboard.sim.faults import Fault

    worse = compiled_readout(design, 6000, [Fault("traffic_surge", "*", 4.0)])
    assert worse.max_utilisation > fine.max_utilisation


def test_a_simulator_failure_falls_back_to_the_estimate(library, monkeypatch):
    from inferboard.sim import design_sim

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(design_sim, "evaluate", broken)
    out = readout(library.get("fraud-scoring-cpu").reference_design(), 2500)
    assert out.source.startswith("capacity estimate") and "boom" in out.notes[0]
