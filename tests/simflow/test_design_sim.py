"""Whole-design steady state: conservation, cost by hand, theory on a plain pool, and robustness."""

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inferboard.catalog import default_catalog
from inferboard.cli import main, templates
from inferboard.model import Design, Requirements
from inferboard.model.errors import ConnectionRefused
from inferboard.model.faults import FAULT_KINDS
from inferboard.sim.design.faults import Fault
from inferboard.sim.steady.design_sim import evaluate
from inferboard.store import read_design
from tests.sim.oracles import erlang_c


def plain_pool(replicas=2, workers=4, service_ms=20.0, rps=300.0):
    design = Design(requirements=Requirements(mean_rps=rps, peak_rps=rps))
    design.add_node("traffic_source", node_id="src")
    design.add_node("cpu_pool", node_id="pool", params={"replicas": replicas, "workers_per_replica": workers,
                                                        "service_ms": service_ms, "service_cv": 1.0})
    design.connect("src", "requests", "pool", "requests")
    return design


def test_plain_cpu_pool_matches_erlang_c():
    design = plain_pool()
    result = evaluate(design)
    c, mu, lam = 8, 50.0, 300.0
    wait = erlang_c(c, lam / mu) / (c * mu - lam)
    assert result.nodes["pool"].queue_ms == pytest.approx(wait * 1000, rel=0.01)
    assert result.nodes["pool"].utilisation == pytest.approx(lam / (c * mu), rel=1e-6)
    assert result.mean_ms == pytest.approx((wait + 1 / mu) * 1000, rel=0.01)


def test_conservation_and_cost_by_hand():
    design = plain_pool(rps=1000.0)  # capacity 400 rps, unbounded queue
    result = evaluate(design)
    served = result.throughput_rps
    assert served + (result.shed_rate + result.error_rate + result.timeout_rate) * result.offered_rps == \
        pytest.approx(result.offered_rps, rel=1e-9)
    assert result.nodes["pool"].saturated
    per_replica = default_catalog().kind("cpu_pool").cost.per_replica_per_hour
    assert result.cost_per_hour == pytest.approx(2 * per_replica)
    assert result.cost_per_1k == pytest.approx(result.cost_per_hour / (served * 3600) * 1000)


def test_multi_region_outage_keeps_serving_through_the_survivor():
    design, _ = read_design(templates()["multi-region"])
    normal = evaluate(design, 5000)
    outage = evaluate(design, 5000, [Fault("region_outage", "us-east")])
    # Every request the two regions served now reaches eu-west: its gateway and its pools take the sum.
    both = {part: sum(normal.nodes[f"{region}-{part}"].arrival_rps for region in ("us-east", "eu-west"))
            for part in ("gw", "gpus", "canary-gpus")}
    for part, rate in both.items():
        assert outage.nodes[f"eu-west-{part}"].arrival_rps == pytest.approx(rate, rel=1e-9)
        assert outage.nodes[f"us-east-{part}"].arrival_rps == 0
    assert outage.error_rate == 0
    assert outage.p50_ms > normal.p50_ms + 50  # US users now cross the Atlantic
    design.set_params("glb", failover=False)
    broken = evaluate(design, 5000, [Fault("region_outage", "us-east")])
    assert broken.error_rate == pytest.approx(0.6, abs=0.01)


def test_every_number_explains_itself():
    design, _ = read_design(templates()["starter"])
    result = evaluate(design)
    texts = result.explanations()
    assert "Erlang" in texts["nodes.gpus.queue_ms"] or "batch" in texts["nodes.gpus.queue_ms"]
    assert "convol" in texts["p99_ms"]
    assert "$/h" in texts["cost_per_hour"] and "gpus" in texts["cost_per_hour"]


def test_cli_simulate_json_has_the_contract_fields(capsys):
    code = main(["simulate", str(templates()["starter"]), "--json", "--peak"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    for key in ("p50_ms", "p95_ms", "p99_ms", "throughput_rps", "shed_rate", "error_rate", "cost_per_hour",
                "cost_per_1k", "nodes"):
        assert key in data
    assert data["offered_rps"] == 800
    for key in ("arrival_rps", "utilisation", "replicas", "queue_ms"):
        assert key in data["nodes"]["gpus"]


KINDS = ["regional_load_balancer", "global_load_balancer", "cache", "dynamic_batcher", "request_queue",
         "admission_control", "gpu_pool", "cpu_pool", "feature_service", "fallback_model", "generation_pool"]


def random_params(draw, kind):
    spec = default_catalog().kind(kind)
    params = {}
    for p in spec.params:
        if p.type == "int" and draw(st.booleans()):
            params[p.name] = draw(st.integers(int(p.min or 0), int(min(p.max or 64, 64))))
        elif p.type == "float" and draw(st.booleans()):
            params[p.name] = draw(st.floats(p.min or 0.0, min(p.max or 1e4, 1e4), allow_nan=False))
        elif p.type == "choice":
            params[p.name] = draw(st.sampled_from(p.choices))
    return params


@st.composite
def random_designs(draw):
    design = Design(requirements=Requirements(
        mean_rps=draw(st.floats(0, 20000)), model_size_gb=draw(st.one_of(st.none(), st.floats(0.01, 200))),
        workload=draw(st.sampled_from(["fixed", "generative"]))))
    design.add_node("region", node_id="r1", params={"location": "us-east"})
    design.add_node("region", node_id="r2", params={"location": "eu-west"})
    design.add_node("traffic_source", node_id="src", params={"origin": draw(st.sampled_from(["us-east", "eu-west"]))})
    ids = ["src"]
    for i in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(KINDS))
        node = design.add_node(kind, node_id=f"n{i}", params=random_params(draw, kind),
                               region=draw(st.sampled_from([None, "r1", "r2"])))
        for parent in draw(st.lists(st.sampled_from(ids), min_size=1, max_size=2, unique=True)):
            try:
                design.connect(parent, "requests", node.id, "requests")
            except ConnectionRefused:
                pass  # a wire the model refuses (ports, loops) is simply not drawn
        ids.append(node.id)
    return design


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_designs(), st.lists(st.tuples(st.sampled_from(sorted(FAULT_KINDS)), st.sampled_from(["*", "r1", "n0"])),
                                  max_size=2))
def test_random_designs_never_give_nan_infinity_or_exceptions(design, faults):
    result = evaluate(design, None, [Fault(kind, target) for kind, target in faults])
    json.dumps(result.to_dict(), allow_nan=False)  # raises on NaN or infinity
    for rate in (result.shed_rate, result.error_rate, result.timeout_rate):
        assert 0.0 <= rate <= 1.0
    total = result.throughput_rps + (result.shed_rate + result.error_rate + result.timeout_rate) * result.offered_rps
    assert math.isclose(total, result.offered_rps, rel_tol=1e-6, abs_tol=1e-6)


def test_load_test_of_a_tandem_design_agrees_with_the_steady_state():
    from inferboard.sim.loadtest.design_loadtest import run_design_load_test

    design = Design(requirements=Requirements(mean_rps=300, peak_rps=300))
    design.add_node("traffic_source", node_id="src")
    design.add_node("feature_service", node_id="features", params={"replicas": 1, "workers_per_replica": 4,
                                                                    "service_ms": 10.0, "service_cv": 1.0})
    design.add_node("cpu_pool", node_id="scorers", params={"replicas": 2, "workers_per_replica": 4,
                                                            "service_ms": 20.0, "service_cv": 1.0})
    design.connect("src", "requests", "features", "requests")
    design.connect("features", "requests", "scorers", "requests")
    analytic = evaluate(design)
    seen = []
    simulated = run_design_load_test(design, 400_000, seed=7, progress=seen.append)
    assert seen[-1] == 1.0 and not simulated.cancelled
    for key in ("mean_ms", "p50_ms", "p95_ms", "p99_ms"):
        assert getattr(simulated, key) == pytest.approx(getattr(analytic, key), rel=0.05), key
    assert simulated.nodes["scorers"]["utilisation"] == pytest.approx(analytic.nodes["scorers"].utilisation, rel=0.03)
    assert simulated.served + simulated.shed + simulated.timed_out + simulated.errors == 400_000


def test_cli_load_test(capsys):
    code = main(["simulate", str(templates()["cpu-small"]), "--load-test", "20000", "--seed", "3", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["served"] > 19000 and data["p99_ms"] > data["p50_ms"] > 0
