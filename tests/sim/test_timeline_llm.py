"""LLM pools in the timeline read the steady state's FLOPs/HBM replica model: utilisation is the
served rate over the capacity (not KV-slot occupancy), and time to first token and per output token
follow the load tick by tick."""

from __future__ import annotations

import numpy as np
import pytest

from inferboard.model import Design, Requirements
from inferboard.sim.steady.design_sim import evaluate
from inferboard.sim.timeline.timeline import run_timeline


def llm_design(rate: float, replicas: int = 2) -> Design:
    design = Design(requirements=Requirements(workload="generative", model_size_gb=14.0, prompt_tokens=1000,
                                              output_tokens=200, slo_ttft_ms=500, mean_rps=rate, peak_rps=rate,
                                              traffic_pattern="steady"))
    design.add_node("traffic_source", node_id="src")
    design.add_node("generation_pool", node_id="llm", params={"replicas": replicas, "gpu_type": "h100"})
    design.connect("src", "requests", "llm", "requests")
    return design


@pytest.mark.parametrize("share", [0.3, 0.8])
def test_a_steady_tick_has_the_steady_states_utilisation_ttft_and_tpot(share):
    probe = evaluate(llm_design(1.0), 1.0).compiled.plans["llm"]
    rate = share * probe.capacity_rps  # the capacity does not depend on the rate
    steady = evaluate(llm_design(rate), rate)
    node = steady.nodes["llm"]
    s = run_timeline(llm_design(rate), hours=0.1, tick_s=60).series
    assert s["utilisation:llm"][-1] == pytest.approx(share, abs=1e-6)
    assert node.utilisation == pytest.approx(share, abs=1e-6)
    assert s["ttft_ms:llm"][-1] == pytest.approx(node.ttft_ms, rel=0.02)
    assert s["tpot_ms:llm"][-1] == pytest.approx(node.tpot_ms, rel=0.01)


def test_ttft_grows_with_the_load_and_utilisation_is_full_above_capacity(tmp_path):
    design = llm_design(1.0)
    cap = evaluate(design, 1.0).compiled.plans["llm"].capacity_rps
    trace = tmp_path / "trace.csv"
    trace.write_text(f"time_s,rps\n0,{0.2 * cap}\n600,{1.3 * cap}\n900,{0.2 * cap}\n1800,{0.2 * cap}\n")
    result = run_timeline(design, hours=0.5, tick_s=10, replay_csv=trace)
    s, t = result.series, result.times_s
    quiet, surge = t < 600, (t >= 620) & (t < 900)
    assert np.all(s["utilisation:llm"][quiet] == pytest.approx(0.2, abs=1e-6))
    assert np.all(s["utilisation:llm"][surge] == 1.0)
    assert s["ttft_ms:llm"][surge].min() > 1.5 * s["ttft_ms:llm"][quiet].max()  # prefill queue and steps
    assert np.all(s["tpot_ms:llm"][surge] >= s["tpot_ms:llm"][quiet].max())


def test_the_design_load_test_reports_the_same_llm_utilisation():
    from inferboard.sim.loadtest.design_loadtest import run_design_load_test

    probe = evaluate(llm_design(1.0), 1.0).compiled.plans["llm"]
    rate = 0.5 * probe.capacity_rps
    lt = run_design_load_test(llm_design(rate), 20_000, seed=2)
    # served rate over the capacity, within the sampling error of 20,000 Poisson arrivals
    assert lt.nodes["llm"]["utilisation"] == pytest.approx(0.5, rel=0.03)


def test_a_backlog_builds_against_the_flops_capacity_not_the_kv_slots(tmp_path):
    """A surge to 130% of the replica model's capacity over a mean at half of it: the queue grows by
    (λ − capacity)·dt each tick, capped by the clients' patience (30 s, no queue time-out), and
    drains after. The KV slots at the mean's service time complete about 3.5× the capacity, so
    counting them (as the timeline did) hid the surge's queue."""
    cap = evaluate(llm_design(1.0), 1.0).compiled.plans["llm"].capacity_rps
    design = llm_design(0.5 * cap)
    plan = evaluate(design, 0.5 * cap).compiled.plans["llm"]
    assert plan.servers / plan.service_mean_s > 3 * cap, "slots at the mean's service time: far above capacity"
    trace = tmp_path / "trace.csv"
    trace.write_text(f"time_s,rps\n0,{0.5 * cap}\n600,{1.3 * cap}\n900,{0.5 * cap}\n1800,{0.5 * cap}\n")
    dt = 10.0
    result = run_timeline(design, hours=0.5, tick_s=dt, replay_csv=trace)
    s = result.series
    lam = s["arrival_rps:llm"]
    expected, b = [], 0.0
    for x in lam:  # the fluid queue with abandonment, worked here
        expected.append(b)
        b = min(max(0.0, b + (x - cap) * dt), cap * 30.0)
    np.testing.assert_allclose(s["backlog:llm"], expected, rtol=1e-9, atol=1e-6)
    assert max(expected) == pytest.approx(cap * 30.0)  # the surge filled the clients' patience
    surge = (result.times_s >= 620) & (result.times_s < 900)
    assert np.all(s["utilisation:llm"][surge] == 1.0) and s["shed_rate"][surge].max() > 0.2
    assert s["backlog:llm"][-1] == 0.0  # drained after the surge
