"""Condition semantics, evidence propagation, and behaviour leaves against a stand-in simulator."""

from __future__ import annotations

import subprocess
import sys
import types
from dataclasses import dataclass, field

import pytest

import inferboard.sim.steady
from inferboard.rules import check_design, explain_rule
from inferboard.rules.conditions import parse_condition
from inferboard.rules.context import DesignIndex
from inferboard.rules.leaves import evaluate
from inferboard.rules.loader import UnknownRule
from tests.core.helpers import serving_chain
from tests.rules.builders import reference, set_requirements, simple, wire


def run(condition: dict, design=None):
    design = design or serving_chain()
    return evaluate(parse_condition(condition, "when"), DesignIndex(design))


NO_SCALER = {"attached": {"kind": "gpu_pool", "to": "autoscaler", "direction": "upstream", "signal": "control"}}


def test_not_swaps_the_evidence_so_a_missing_link_names_the_node():
    plain = run(NO_SCALER)
    assert not plain.holds and plain.neg.nodes == {"gpus"}
    negated = run({"not": NO_SCALER})
    assert negated.holds and negated.pos.nodes == {"gpus"}
    assert run({"not": {"not": NO_SCALER}}).neg.nodes == {"gpus"}


def test_all_joins_the_evidence_of_its_children_and_stops_at_the_first_failure():
    both = run({"all": [{"param": {"kind": "gpu_pool", "test": {"replicas": {"ge": 1}}}},
                        {"param": {"kind": "dynamic_batcher", "test": {"max_batch_size": 16}}}]})
    assert both.holds and both.pos.nodes == {"gpus", "batcher"}
    failing = run({"all": [{"kind_count": {"kind": "cache"}}, {"not": NO_SCALER}]})
    assert not failing.holds and failing.pos.nodes == set()
    assert run({"not": {"all": [{"param": {"kind": "gpu_pool", "test": {"replicas": 99}}}, NO_SCALER]}}).pos.nodes \
        == {"gpus"}


def test_any_names_every_child_that_holds():
    result = run({"any": [{"param": {"kind": "gpu_pool", "test": {"replicas": 2}}},
                          {"param": {"kind": "dynamic_batcher", "test": {"timeout_ms": {"gt": 1}}}},
                          {"param": {"kind": "regional_load_balancer", "test": {"rate_limit_rps": 5}}}]})
    assert result.holds and result.pos.nodes == {"gpus", "batcher"}


def test_comparisons_against_requirements_and_other_parameters():
    over = {"param": {"kind": "dynamic_batcher", "test": {"max_queue_delay_ms": {"gt": {"requirement": "slo_p99_ms",
                                                                                       "times": 0.5}}}}}
    assert not run(over, set_requirements(serving_chain(), slo_p99_ms=12)).holds  # 5 ms > 6 ms is false
    design = set_requirements(serving_chain(), slo_p99_ms=8)
    assert run(over, design).holds and run(over, design).pos.nodes == {"batcher"}  # 5 ms > 4 ms
    assert not run(over).holds, "an undeclared requirement compares false"
    bounds = {"param": {"kind": "gpu_pool", "test": {"max_replicas": {"gt": {"param": "min_replicas", "times": 4}}}}}
    assert run(bounds).holds  # 8 > 1 * 4
    assert not run({"param": {"kind": "gpu_pool", "test": {"replicas": True}}}).holds, "True is not the number 2"


def test_kind_count_min_defaults_to_zero_when_only_max_is_given():
    assert run({"kind_count": {"kind": "cache", "max": 0}}).holds
    assert not run({"kind_count": {"kind": "cache"}}).holds
    too_many = run({"kind_count": {"kind": "gpu_pool", "max": 0}})
    assert not too_many.holds and too_many.neg.nodes == {"gpus"}


def test_path_through_names_the_bypassing_edges():
    result = run({"path_through": {"target": "gpu_pool", "through": "admission_control"}})
    assert not result.holds and result.neg.nodes == {"gpus"} and result.neg.edges == {"e1", "e2", "e3"}
    assert run({"path_through": {"target": "gpu_pool", "through": "dynamic_batcher"}}).holds


def test_explain_returns_every_section_and_rejects_unknown_ids():
    text = explain_rule("SCALE-002")
    for heading in ("What it checks", "Why it matters in production", "The trade-off", "Example", "How to fix"):
        assert heading in text
    with pytest.raises(UnknownRule, match="SCALE-002"):
        explain_rule("SCALE-02")


def test_findings_carry_the_explanation_and_render_the_message():
    design = reference()
    design.set_params("scaler-use1", metric="cpu_utilisation")
    finding = next(f for f in check_design(design, behaviour=False).findings if f.rule_id == "SCALE-002")
    assert finding.message.startswith("'gpu-use1', 'next-use1': scaled on CPU")
    assert finding.explanation == explain_rule("SCALE-002") and finding.severity == "major"


def test_a_structural_check_never_imports_the_simulator():
    code = ("import sys; from tests.rules.builders import reference; from inferboard.rules import check_design; "
            "check_design(reference(), behaviour=False); "
            "print(sorted(m for m in sys.modules if m.startswith('inferboard.sim')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------------- a stand-in simulator
@dataclass
class FakeNode:
    utilisation: float = 0.5
    capacity_rps: float = 100.0
    saturated: bool = False
    queue_ms: float = 0.0
    replicas: int = 2
    arrival_rps: float = 0.0
    memory_fit: bool | None = True
    down: bool = False
    shed_rps: float = 0.0


@dataclass
class FakeResult:
    offered_rps: float
    throughput_rps: float
    p95_ms: float | None = 50.0
    p99_ms: float | None = 80.0
    cost_per_hour: float = 1.0
    cost_per_1k: float | None = 0.001
    nodes: dict = field(default_factory=dict)
    bottleneck: str = ""


@dataclass(frozen=True)
class FakeFault:
    kind: str
    target: str = "*"


@pytest.fixture
def fake_sim(monkeypatch):
    """Install a stand-in ``inferboard.sim.steady.design_sim``; ``sim.answer(rps, faults)`` decides results."""
    module = types.ModuleType("inferboard.sim.steady.design_sim")
    module.calls = []
    module.Fault = FakeFault
    module.DesignStructure = lambda design: ("structure of", design)
    module.answer = lambda design, rps, faults: FakeResult(rps, rps)

    def evaluate_design(design, rps=None, faults=(), structure=None):
        assert structure == ("structure of", design)
        module.calls.append((rps, tuple(faults)))
        return module.answer(design, rps, tuple(faults))

    module.evaluate = evaluate_design
    monkeypatch.setitem(sys.modules, "inferboard.sim.steady.design_sim", module)
    monkeypatch.setattr(inferboard.sim.steady, "design_sim", module, raising=False)
    return module


def test_behaviour_rules_share_one_simulation_per_load_and_fault_set(fake_sim):
    design = simple("cpu_pool", regions=("use1", "usw2"), peak_rps=1200, mean_rps=600, budget_per_1k=1.0,
                    availability_slo=99.9)
    fake_sim.answer = lambda d, rps, faults: FakeResult(rps, rps, nodes={"cpus-use1": FakeNode(capacity_rps=900),
                                                                      "cpus-usw2": FakeNode(capacity_rps=800)})
    report = check_design(design, rubrics=["capacity_cost", "latency", "multi_region"])
    assert len(fake_sim.calls) == len(set(fake_sim.calls)) == 3
    assert set(fake_sim.calls) == {(1200.0, ()), (600.0, ()), (1200.0, (FakeFault("region_outage", "use1"),))}
    assert report.skipped == []


def test_latency_headroom_and_region_loss_findings_point_at_the_bottleneck(fake_sim):
    design = simple("cpu_pool", regions=("use1", "usw2"), peak_rps=1200, mean_rps=600, availability_slo=99.9)

    def answer(d, rps, faults):
        hot = FakeNode(utilisation=0.97, saturated=True, capacity_rps=600)
        if faults:
            return FakeResult(rps, rps * 0.6, p99_ms=5000, nodes={"cpus-usw2": hot})
        return FakeResult(rps, rps, p95_ms=400, p99_ms=900, nodes={"cpus-use1": FakeNode(0.5, 700),
                                                                    "cpus-usw2": hot})

    fake_sim.answer = answer
    found = {f.rule_id: f for f in check_design(design, rubrics=["capacity_cost", "latency", "multi_region"]).findings}
    assert found["LAT-001"].node_ids == ("cpus-usw2",) and "p99 900 ms" in found["LAT-001"].message
    assert found["COST-001"].node_ids == ("cpus-usw2",)
    assert found["REGION-003"].node_ids == ("use1", "cpus-usw2")
    assert "serves 60%" in found["REGION-003"].message


def test_spot_reclaim_and_budget_rules(fake_sim):
    design = simple("cpu_pool", {"spot_share": 0.4}, budget_per_1k=0.0005)
    fake_sim.answer = lambda d, rps, faults: FakeResult(rps, rps * (0.7 if faults else 1.0), cost_per_1k=0.002,
                                                        nodes={"cpus": FakeNode()})
    found = {f.rule_id: f for f in check_design(design, rubrics=["capacity_cost"]).findings}
    assert found["COST-004"].node_ids == ("cpus",) and "70%" in found["COST-004"].message
    assert "$0.0020" in found["COST-002"].message


def test_a_failing_simulator_skips_behaviour_rules_with_a_reason(fake_sim):
    design = simple("cpu_pool")

    def broken(d, rps, faults):
        raise ValueError("no route from traffic to any pool")

    fake_sim.answer = broken
    report = check_design(design, rubrics=["latency"])
    assert ("LAT-001", "the simulator could not evaluate this design: no route from traffic to any pool") \
        in report.skipped
    assert "LAT-001" not in {f.rule_id for f in report.findings}
    structural = check_design(design, rubrics=["latency"], behaviour=False)
    assert report.scores["latency"].applicable == structural.scores["latency"].applicable


def test_a_renamed_result_field_fails_loudly_instead_of_passing(fake_sim):
    """The rules read the simulator's typed result by attribute: a result without ``p99_ms`` (as if
    the field were renamed) raises instead of counting as within the SLO."""

    @dataclass
    class Renamed:
        offered_rps: float
        throughput_rps: float
        p95_ms: float = 10.0
        p99_latency_ms: float = 10.0
        nodes: dict = field(default_factory=dict)
        bottleneck: str = ""

    fake_sim.answer = lambda d, rps, faults: Renamed(rps, rps)
    with pytest.raises(AttributeError, match="p99_ms"):
        check_design(simple("cpu_pool"), rubrics=["latency"])


def _after_losing_use1(fake_sim, survivor: FakeNode, fallback_rps: float):
    design = simple("cpu_pool", regions=("use1", "usw2"), peak_rps=1200, mean_rps=600, availability_slo=99.9)
    design.add_node("fallback_model", 700, 340, node_id="fb", region="usw2")
    wire(design, "lb-usw2", "requests", "fb", "requests")

    def answer(d, rps, faults):
        if faults:  # everything is answered, some of it by the fallback
            return FakeResult(rps, rps, nodes={"cpus-use1": FakeNode(down=True), "cpus-usw2": survivor,
                                               "fb": FakeNode(arrival_rps=fallback_rps)})
        return FakeResult(rps, rps, nodes={"cpus-use1": FakeNode(capacity_rps=1000), "cpus-usw2": FakeNode(capacity_rps=900),
                                           "fb": FakeNode()})

    fake_sim.answer = answer
    return {f.rule_id: f for f in check_design(design, rubrics=["multi_region"]).findings}


def test_traffic_answered_by_a_fallback_is_not_counted_as_served(fake_sim):
    found = _after_losing_use1(fake_sim, FakeNode(capacity_rps=1000, arrival_rps=840), fallback_rps=360)
    assert "REGION-003" in found
    assert "the rest serves 70% at full quality while a fallback answers 30%" in found["REGION-003"].message


def test_survivors_running_hot_fail_the_n_plus_1_check(fake_sim):
    found = _after_losing_use1(fake_sim, FakeNode(capacity_rps=1000, arrival_rps=1140), fallback_rps=0)
    assert "REGION-003" in found and "runs at 114%" in found["REGION-003"].message
    found = _after_losing_use1(fake_sim, FakeNode(capacity_rps=1300, arrival_rps=1200), fallback_rps=0)
    assert "runs at 92%, above 90%" in found["REGION-003"].message
    assert "REGION-003" not in _after_losing_use1(fake_sim, FakeNode(capacity_rps=2000, arrival_rps=1200), 0)
