"""Trust labels: each headline number says how it was obtained and the error stated for that
method, in ``simulate --json`` and from ``inferboard.sim.explain.trust`` for the window."""

from __future__ import annotations

import json

from inferboard.model import Design, Requirements
from inferboard.sim.steady.design_sim import evaluate
from inferboard.sim.explain.trust import (APPROXIMATION, EXACT, FLUID, TABLE, node_trust, station_method, steady_trust,
                                  timeline_trust)


def one_pool(kind: str, **params) -> Design:
    design = Design(requirements=Requirements(mean_rps=50, peak_rps=80, slo_p99_ms=300))
    design.add_node("traffic_source", 0, 0, node_id="users")
    design.add_node(kind, 300, 0, params, node_id="pool")
    design.connect("users", "requests", "pool", "requests")
    return design


def test_station_models_map_to_methods():
    assert station_method("M/M/8") == EXACT and station_method("delay") == EXACT
    assert station_method("M/G/36") == APPROXIMATION
    assert station_method("batch B=16 ×3") == TABLE


def test_an_exponential_pool_is_exact_and_a_general_one_an_approximation():
    exact = evaluate(one_pool("cpu_pool", replicas=4, service_ms=10.0, service_cv=1.0))
    assert {s.model.split("/")[1] for s in exact.network.stations.values() if s.model != "delay"} == {"M"}
    trust = steady_trust(exact)
    assert trust["p99_ms"].method == EXACT and trust["cost_per_hour"].method == EXACT
    general = evaluate(one_pool("cpu_pool", replicas=4, service_ms=10.0, service_cv=0.4))
    assert steady_trust(general)["p99_ms"].method == APPROXIMATION
    assert "10%" in steady_trust(general)["p99_ms"].error
    assert node_trust(general, "pool").method == APPROXIMATION and node_trust(general, "nowhere") is None


def test_simulate_json_carries_a_trust_label_for_every_headline_number(capsys):
    from inferboard.cli import main, templates

    assert main(["simulate", str(templates()["starter"]), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    trust = data["trust"]
    assert set(trust) == {"p50_ms", "p95_ms", "p99_ms", "throughput_rps", "shed_rate", "error_rate",
                          "cost_per_hour", "cost_per_1k"}
    assert trust["p99_ms"]["method"] == TABLE  # the starter batches on its GPU pool
    assert trust["p99_ms"]["title"] == "table with stated error" and "5%" in trust["p99_ms"]["error"]
    assert all(entry["error"] for entry in trust.values())


def test_timeline_figures_are_the_fluid_models():
    trust = timeline_trust()
    assert trust["p99_ms"].method == FLUID and trust["cost_per_hour"].method == EXACT
    assert trust["p99_ms"].text().startswith("Per-tick fluid approximation: ")
