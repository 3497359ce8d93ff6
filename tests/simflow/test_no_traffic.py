"""A design that declares no traffic figures is evaluated at an assumed load, and every readout
says so: the steady state, ``simulate --json``, the timeline and the load test."""

from __future__ import annotations

import json

from inferboard.cli import main
from inferboard.model import Design, Requirements
from inferboard.sim.design.compile import ASSUMED_RPS
from inferboard.sim.loadtest.design_loadtest import run_design_load_test
from inferboard.sim.steady.design_sim import evaluate
from inferboard.sim.timeline.timeline import run_timeline
from inferboard.store import save_design


def pool_design(**requirements) -> Design:
    design = Design(requirements=Requirements(**requirements))
    design.add_node("traffic_source", node_id="src")
    design.add_node("cpu_pool", node_id="pool", params={"replicas": 4, "workers_per_replica": 4, "service_ms": 10.0})
    design.connect("src", "requests", "pool", "requests")
    return design


def test_no_traffic_figures_are_named_in_the_steady_state_and_its_json(tmp_path, capsys):
    design = pool_design(slo_p99_ms=100)
    result = evaluate(design)
    assert result.offered_rps == ASSUMED_RPS
    assert "no traffic figures declared" in result.load_note and f"{ASSUMED_RPS:g} rps" in result.load_note
    assert result.load_note in result.notes and f"note: {result.load_note}" in result.table()
    path = tmp_path / "no-traffic.json"
    save_design(design, path)
    assert main(["simulate", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["load_note"] == result.load_note and result.load_note in data["notes"]


def test_a_declared_mean_needs_no_note_and_a_lone_peak_is_named():
    assert evaluate(pool_design(mean_rps=50)).load_note == ""
    assert evaluate(pool_design(mean_rps=50), rps=80).load_note == ""
    peak_only = evaluate(pool_design(peak_rps=300))
    assert peak_only.offered_rps == 300 and "mean_rps is not declared" in peak_only.load_note


def test_the_timeline_and_the_load_test_carry_the_note_too():
    design = pool_design()
    timeline = run_timeline(design, hours=1, tick_s=300)
    assert any("no traffic figures declared" in note for note in timeline.notes)
    summary = run_design_load_test(design, 2000, seed=1)
    assert "no traffic figures declared" in summary.load_note
    assert summary.to_dict()["notes"] == [summary.load_note] and "note: no traffic" in summary.table()
