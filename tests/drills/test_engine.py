"""The drill engine: planting, the clock, recorded actions, visibility and replay."""

import numpy as np
import pytest

from inferboard.drills.engine import DrillError, DrillSession, replay
from inferboard.drills.library import get_drill
from inferboard.drills.views import Dashboard, Unavailable
from tests.drills.conftest import without_observability as _without_observability


def test_the_candidate_is_told_when_the_first_alert_fires_after_the_cause(drill_design):
    drill = get_drill("slow-canary-version")
    session = DrillSession(drill, drill_design, seed=3)
    assert session.notice.startswith(("paged", "a ticket opened"))
    assert drill.cause_start_min * 60 < session.notice_s < drill.cause_start_min * 60 + 20 * 60
    assert session.now_s == pytest.approx(session.notice_s, abs=drill.tick_s)


def test_actions_are_recorded_at_simulated_time_and_the_clock_pauses(drill_design):
    session = DrillSession(get_drill("slow-canary-version"), drill_design, seed=0)
    start = session.now_s
    session.pause()
    session.tick(10.0)
    assert session.now_s == start
    session.resume()
    session.tick(10.0)  # 10 wall seconds at 60x: ten simulated minutes
    assert session.now_s == pytest.approx(start + 600.0, abs=session.timeline.tick_s)
    session.check_changes()
    assert session.actions[-1].verb == "check_changes" and session.actions[-1].t_s == session.now_s


def test_an_impossible_mitigation_is_refused_and_not_recorded(drill_design):
    session = DrillSession(get_drill("slow-canary-version"), drill_design)
    with pytest.raises(DrillError):
        session.apply_mitigation("fail_over", "{pool}")
    assert session.actions == []


def test_a_design_without_metrics_hides_dashboards_and_the_breakdown(drill_design):
    drill = get_drill("slow-canary-version")
    full = DrillSession(drill, drill_design)
    assert isinstance(full.open_dashboard("breakdown"), Dashboard)
    blind = DrillSession(drill, _without_observability(drill_design))
    shown = blind.open_dashboard("breakdown")
    assert isinstance(shown, Unavailable) and "metrics collector" in shown.reason
    assert blind.actions[-1].outcome == "missing"
    assert not blind.view().notifications
    assert blind.notice.startswith("a customer")
    assert blind.notice_s > full.notice_s
    missing = blind.result().missing
    assert missing[0].cost_min == pytest.approx((blind.notice_s - full.notice_s) / 60, abs=1.0)


def test_replaying_the_recorded_actions_gives_the_same_result(drill_design):
    drill = get_drill("slow-canary-version")
    session = DrillSession(drill, drill_design, seed=5)
    session.state_symptom("p99 up in eu-west", scope="eu-west since minute 10")
    session.wait(2)
    session.check_changes()
    session.apply_mitigation("rollback_canary", "{canary}")
    session.wait(10)
    session.name_root_cause("the canary build 2.14 is slow and auto-rollback was paused")
    session.finish()
    first = session.result().to_dict()
    again = replay(drill, drill_design, 5, [a.to_dict() for a in session.actions], finish_at=session.finished_at)
    assert again.result().to_dict() == first
    assert np.array_equal(again.series()["p99_ms"], session.series()["p99_ms"])


def test_the_breakdown_shows_the_slow_canary_pool_taking_longer_per_request(drill_design):
    session = DrillSession(get_drill("slow-canary-version"), drill_design)
    shown = session.open_dashboard("breakdown")
    canary, stable = session.roles["canary_pool"], session.roles["pool"]
    assert shown.panels[canary]["time spent (ms)"][-1] > 2 * shown.panels[stable]["time spent (ms)"][-1]
    before = shown.times_min < get_drill("slow-canary-version").cause_start_min
    assert shown.panels[canary]["time spent (ms)"][before].max() < 1.5 * shown.panels[stable]["time spent (ms)"][-1]


def test_the_clock_cannot_be_paused_in_an_interview(drill_design):
    session = DrillSession(get_drill("slow-canary-version"), drill_design, mode="interview")
    assert session.pause() is False and not session.paused
    start = session.now_s
    session.tick(1.0)
    assert session.now_s > start


def test_the_mitigation_picker_offers_only_what_the_design_allows(drill_design, starter_design):
    rich = DrillSession(get_drill("slow-canary-version"), drill_design).mitigation_targets()
    assert rich["rollback_canary"] == ["eu-west-canary", "us-east-canary"]
    assert "eu-west-gw" in rich["switch_to_fallback"] and rich["retrain"] == [""]
    drill = get_drill("batcher-config-change")
    plain = DrillSession(drill, starter_design).mitigation_targets()
    assert "rollback_canary" not in plain and "retrain" not in plain and "switch_to_fallback" not in plain
    assert plain["set_batcher_delay"] == ["batcher"]


def test_each_value_a_picker_offers_is_accepted_and_values_outside_its_range_are_refused(drill_design):
    from inferboard.drills.mitigate import VALUE_SPECS

    session = DrillSession(get_drill("slow-canary-version"), drill_design)
    targets = session.mitigation_targets()
    assert set(VALUE_SPECS) == {"scale_out", "shed", "set_batcher_delay", "move_traffic"}
    for action, spec in VALUE_SPECS.items():
        target = targets[action][0]
        session.apply_mitigation(action, target, spec.default)
        session.apply_mitigation(action, target, spec.high)
        with pytest.raises(DrillError):
            session.apply_mitigation(action, target, spec.high + spec.step)
        if spec.low_open:
            with pytest.raises(DrillError):
                session.apply_mitigation(action, target, spec.low)
    assert [a.args["action"] for a in session.actions].count("shed") == 2


def test_a_view_limited_to_some_dashboards_still_names_every_view_the_design_lacks(drill_design):
    session = DrillSession(get_drill("slow-canary-version"), drill_design)
    full = session.view()
    only = session.view(dashboards=["system"])
    assert set(only.dashboards) == {"system"}
    assert np.array_equal(only.dashboards["system"].panels["Latency (ms)"]["p99"],
                          full.dashboards["system"].panels["Latency (ms)"]["p99"])
    assert only.notifications == full.notifications and only.changes == full.changes
    blind = DrillSession(get_drill("slow-canary-version"), _without_observability(drill_design))
    shown = blind.view(dashboards=[])
    assert set(shown.dashboards) == {"system", "breakdown", "model", "segments", "business"}
    assert all(isinstance(d, Unavailable) and d.reason for d in shown.dashboards.values())
