"""The stepping API: stepped runs equal one run, snapshots resume exactly, actions change only the
future, and routing is evaluated per tick (a traffic pattern and the equivalent surge fault agree)."""

from __future__ import annotations

from dataclasses import astuple

import numpy as np
import pytest

from inferboard.model import Design
from inferboard.model.requirements import Requirements
from inferboard.sim.timeline import actions
from inferboard.sim.design.faults import parse_fault
from inferboard.sim.timeline.timeline import run_timeline
from inferboard.sim.timeline.timeline_state import Timeline


def scaled_design(rate_limit: float = 0.0, **req) -> Design:
    """users -> regional LB (optional rate limit) -> cache -> queue -> autoscaled CPU pool (+ fallback)."""
    defaults = dict(mean_rps=100.0, peak_rps=300.0, slo_p99_ms=200.0, availability_slo=99.9, traffic_pattern="spike")
    design = Design(requirements=Requirements(**{**defaults, **req}))
    design.add_node("traffic_source", node_id="users", params={"arrival_cv": 1.0})
    design.add_node("regional_load_balancer", node_id="gw", params={"rate_limit_rps": rate_limit})
    design.add_node("cache", node_id="cache", params={"hit_ratio": 0.25})
    design.add_node("request_queue", node_id="queue", params={"timeout_ms": 300_000, "capacity": 1_000_000})
    design.add_node("cpu_pool", node_id="pool", params={"replicas": 1, "min_replicas": 1, "max_replicas": 4,
                                                        "workers_per_replica": 4, "service_ms": 20.0,
                                                        "service_cv": 1.0, "provisioning_s": 60.0})
    design.add_node("autoscaler", node_id="hpa", params={"metric": "queue_depth", "target": 500.0, "min_replicas": 1,
                                                         "max_replicas": 4})
    design.connect("users", "requests", "gw", "requests")
    design.connect("gw", "requests", "cache", "requests")
    design.connect("cache", "requests", "queue", "requests")
    design.connect("queue", "requests", "pool", "requests")
    design.connect("hpa", "scaling", "pool", "scaling")
    return design


def same(a, b, upto: int | None = None) -> None:
    assert a.series.keys() == b.series.keys()
    for key in a.series:
        assert np.array_equal(a.series[key][:upto], b.series[key][:upto]), key


def events(result, before: float = np.inf) -> list:
    return [astuple(e) for e in result.events if e.time_s < before]


FAULTS = [parse_fault("traffic_surge*1.5:*@20m+10m"), parse_fault("cache_flush:cache@50m+5m")]


def test_stepping_in_uneven_stretches_equals_one_run():
    design = scaled_design()
    whole = run_timeline(design, hours=1.5, tick_s=10, faults=FAULTS)
    state = Timeline.start(design, faults=FAULTS, hours=1.5, tick_s=10)
    for seconds in (7, 60, 600, 13, 1800, 3600):
        state.advance(seconds)
    stepped = state.result()
    same(whole, stepped)
    assert events(whole) == events(stepped)
    assert any(e.kind == "scaled" for e in whole.events) and any(e.kind == "queue_drained" for e in whole.events)


def test_snapshot_and_resume_equal_an_uninterrupted_run():
    design = scaled_design()
    straight = Timeline.start(design, faults=FAULTS, hours=1.5, tick_s=10).advance(1500)
    straight.apply(actions.ScalePool("pool", replicas=3)).advance(600).apply(actions.ShedPriority(0.1))
    snap = straight.snapshot()
    straight.advance(4000)
    resumed = Timeline.resume(snap)
    assert resumed.now_s == snap.ticks * 10
    resumed.advance(4000)
    same(straight.result(), resumed.result())
    assert events(straight.result()) == events(resumed.result())


def test_a_live_drill_stepping_a_minute_at_a_time_equals_long_steps_with_the_same_actions():
    """Short advances simulate ticks ahead; what is read at each step, and an action taken between
    steps, are as if only the ticks asked for had been simulated."""
    design = scaled_design()
    live = Timeline.start(design, faults=FAULTS, hours=1.5, tick_s=10)
    ahead = 0
    for minute in range(1, 61):
        live.advance(60)
        if minute == 25:
            live.apply(actions.ScalePool("pool", replicas=3))
        if minute == 40:
            live.apply(actions.ShedPriority(0.1))
        ahead += live.reached > live.ticks_done  # ticks after this minute simulated already
        seen = live.result()
        assert seen.times_s.size == live.ticks_done == minute * 6
        assert all(e.time_s < live.now_s or e.kind == "action" and e.time_s == live.now_s for e in seen.events)
    assert ahead > 40
    straight = Timeline.start(design, faults=FAULTS, hours=1.5, tick_s=10).advance(1500)
    straight.apply(actions.ScalePool("pool", replicas=3)).advance(900).apply(actions.ShedPriority(0.1)).advance(1200)
    same(straight.result(), live.result())
    assert events(straight.result()) == events(live.result())
    live.advance(5400)
    straight.advance(5400)
    same(straight.result(), live.result())
    assert events(straight.result()) == events(live.result())


@pytest.mark.parametrize("action, check", [
    (actions.ScalePool("pool", replicas=4, min_replicas=4), lambda before, after: after["ready:pool"].min() == 4),
    (actions.ShedPriority(0.2), lambda before, after: np.allclose(after["shed_rate"], 0.2, atol=0.02)),
    (actions.FlushCache("cache"), lambda before, after: np.allclose(after["arrival_rps:pool"] * 0.75,
                                                                    before["arrival_rps:pool"], rtol=1e-6)),
])
def test_an_action_changes_what_follows_and_nothing_before(action, check):
    design = scaled_design(traffic_pattern="steady")
    at = 1200.0
    base = Timeline.start(design, hours=1, tick_s=10).advance(3600).result()
    acted = Timeline.start(design, hours=1, tick_s=10).advance(at).apply(action).advance(3600).result()
    k = int(at / 10)
    same(base, acted, upto=k)
    assert events(base, at) == events(acted, at)
    changed = [key for key in base.series if not np.array_equal(base.series[key][k:], acted.series[key][k:])]
    assert changed
    later = slice(k + 12, None)  # after a couple of minutes
    assert check({key: v[later] for key, v in base.series.items()}, {key: v[later] for key, v in acted.series.items()})
    assert any(e.kind == "action" and e.time_s == at for e in acted.events)


def test_scaling_out_during_a_backlog_drains_it_sooner():
    design = scaled_design(traffic_pattern="steady", mean_rps=260.0)  # 195/s reach a 200/s pool: near full
    heavy = Timeline.start(design, faults=[parse_fault("traffic_surge*1.5:*@10m+10m")], hours=1, tick_s=10)
    heavy.advance(900)
    manual = Timeline.resume(heavy.snapshot()).apply(actions.ScalePool("pool", replicas=4, min_replicas=4))
    heavy.advance(3600)
    manual.advance(3600)
    slow, fast = heavy.result().series, manual.result().series
    assert fast["backlog:pool"][90:].sum() < slow["backlog:pool"][90:].sum()
    assert fast["p99_ms"][90:].max() < slow["p99_ms"][90:].max()


def rate_limited(limit: float) -> Design:
    design = scaled_design(rate_limit=limit, mean_rps=100.0, peak_rps=300.0)
    design.set_params("hpa", max_replicas=1)
    design.set_params("pool", max_replicas=1)
    return design


def test_a_traffic_pattern_and_the_equivalent_surge_fault_give_the_same_figures():
    design = rate_limited(150.0)
    spike = run_timeline(design, hours=1, tick_s=10, pattern="spike")  # 100 -> 300 req/s at 40% for 10 min
    surge = run_timeline(design, hours=1, tick_s=10, pattern="steady",
                         faults=[parse_fault("traffic_surge*3:*@1440s+600s")])
    for key in ("offered_rps", "shed_rate", "p99_ms", "queue:pool", "arrival_rps:pool", "burn_rate"):
        assert np.allclose(spike.series[key], surge.series[key], rtol=1e-6, atol=1e-9), key


def test_a_rate_limiter_protects_the_pool_under_a_spike():
    limited = run_timeline(rate_limited(150.0), hours=1, tick_s=10, pattern="spike")
    open_door = run_timeline(rate_limited(0.0), hours=1, tick_s=10, pattern="spike")
    t = limited.times_s
    during = (t >= 1440) & (t < 2040)
    # 300 req/s meet a 150 req/s limit: half is shed at the door, 150 * 0.75 = 112.5/s reach the pool
    assert np.allclose(limited.series["shed_rate"][during], 0.5, atol=1e-6)
    assert np.allclose(limited.series["arrival_rps:pool"][during], 112.5, rtol=1e-6)
    assert limited.series["backlog:pool"].max() == 0 and limited.series["p99_ms"].max() < 200
    assert np.all(limited.series["shed_rate"][~during] == 0)  # and it does nothing at the mean rate
    # Without it the pool (200/s) gets 225/s for 10 min: a 15,000-request backlog and minutes of wait.
    assert open_door.series["backlog:pool"].max() == pytest.approx(25 * 600, rel=0.02)
    assert open_door.series["p99_ms"].max() > 60_000


def test_a_snapshot_is_not_changed_by_later_edits_of_the_design():
    design = scaled_design()
    state = Timeline.start(design, faults=FAULTS, hours=1, tick_s=10).advance(1200)
    snap = state.snapshot()
    design.set_params("pool", workers_per_replica=1)  # the user keeps editing the board
    resumed = Timeline.resume(snap).advance(3600).result()
    untouched = Timeline.start(scaled_design(), faults=FAULTS, hours=1, tick_s=10).advance(3600).result()
    same(untouched, resumed)


def test_operations_act_from_the_instant_they_are_applied():
    design = Design(requirements=Requirements(mean_rps=100.0, peak_rps=100.0, traffic_pattern="steady"))
    design.add_node("traffic_source", node_id="users", params={"arrival_cv": 1.0})
    design.add_node("regional_load_balancer", node_id="gw")
    design.add_node("cache", node_id="cache", params={"hit_ratio": 0.5})
    design.add_node("canary_router", node_id="canary", params={"canary_share": 0.2})
    design.add_node("cpu_pool", node_id="stable", params={"replicas": 2, "workers_per_replica": 4, "service_ms": 10.0})
    design.add_node("cpu_pool", node_id="new", params={"replicas": 2, "workers_per_replica": 4, "service_ms": 10.0})
    design.add_node("fallback_model", node_id="fallback", params={"replicas": 2})
    design.connect("users", "requests", "gw", "requests")
    design.connect("gw", "requests", "cache", "requests")
    design.connect("gw", "requests", "fallback", "requests")
    design.connect("cache", "requests", "canary", "requests")
    design.connect("canary", "stable", "stable", "requests")
    design.connect("canary", "canary", "new", "requests")

    def after(*steps):
        state = Timeline.start(design, hours=0.5, tick_s=10).advance(600)
        for action in steps:
            state.apply(action)
        return state.advance(1200).result().series

    base = after()
    assert base["arrival_rps:new"][-1] == pytest.approx(10.0) and base["arrival_rps:stable"][-1] == pytest.approx(40.0)
    rolled = after(actions.RollbackCanary("canary"))
    assert rolled["arrival_rps:new"][60:].max() == 0 and rolled["arrival_rps:stable"][-1] == pytest.approx(50.0)
    assert rolled["arrival_rps:new"][59] == pytest.approx(10.0)  # the tick before is as it was
    moved = after(actions.MoveTraffic("canary", 0.5))
    assert moved["arrival_rps:new"][-1] == pytest.approx(25.0)
    flushed = after(actions.FlushCache("cache"))
    assert flushed["arrival_rps:stable"][-1] == pytest.approx(80.0)
    warmed = after(actions.FlushCache("cache"), actions.WarmCache("cache"))
    assert warmed["arrival_rps:stable"][-1] == pytest.approx(40.0)
    fallen = after(actions.SwitchToFallback("gw"))
    assert fallen["arrival_rps:fallback"][-1] == pytest.approx(100.0) and fallen["arrival_rps:stable"][-1] == 0
    with pytest.raises(ValueError):
        after(actions.SwitchToFallback("cache"))


def test_a_result_read_between_short_steps_never_names_what_only_later_ticks_bring(monkeypatch):
    """A series or note that a later tick brings into being stays out of the result until that tick
    has been asked for, although short advances simulate it ahead (the drill must not hint at it)."""
    from inferboard.sim.timeline import timeline_state

    real = timeline_state.simulate_stretch

    def stretch_with_a_late_series(state, k0, k1):
        real(state, k0, k1)
        if k1 > 100:  # what tick 100 on brings: a new series and a note, as a shedding router would
            late = state.series.setdefault("router_shed:late", np.zeros(state.count))
            late[max(k0, 100):k1] = 1.0
            state.notes.add("late note")

    monkeypatch.setattr(timeline_state, "simulate_stretch", stretch_with_a_late_series)
    live = Timeline.start(scaled_design(), faults=FAULTS, hours=1.5, tick_s=10)
    for minute in range(1, 31):
        seen = live.advance(60).result()
        brought = live.ticks_done > 100
        assert ("router_shed:late" in seen.series) == brought and ("late note" in seen.notes) == brought, minute
    assert seen.series["router_shed:late"][100:].all() and not seen.series["router_shed:late"][:100].any()
