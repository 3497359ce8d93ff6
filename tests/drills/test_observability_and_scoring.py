"""What the design lets the candidate see, the drift detector inside a drill, and scores traced to actions."""

import json
from statistics import NormalDist

import pytest

from inferboard.drills.engine import DrillSession
from inferboard.drills.library import get_drill
from inferboard.store.design_files import design_to_bytes, parse_design


def edited(design, **params_by_node):
    raw = json.loads(design_to_bytes(design))
    for node in raw["nodes"]:
        node["params"].update(params_by_node.get(node["kind"], {}))
    return parse_design(json.dumps(raw).encode(), "<test>", design.catalog)


@pytest.mark.parametrize("window_h", [4.0, 8.0])
def test_detection_delay_in_a_drill_follows_the_detectors_window(drill_design, window_h):
    design = edited(drill_design, drift_detector={"test": "ks", "threshold": 0.2, "window_hours": window_h})
    base = get_drill("input-drift-one-segment")
    plant = base.plant.model_copy(update={"drift": [base.plant.drift[0].model_copy(update={"segment": "*"})]})
    drill = base.model_copy(update={"plant": plant})
    session = DrillSession(drill, design, seed=1)
    session.advance_to(start := drill.plant.drift[0].at_min * 60 + 2 * window_h * 3600)
    fired = [t for t, kind, _ in session.quality_events if kind == "drift_detected"]
    assert fired, "the detector never fired"
    # by hand: KS after a step shift d grows as f (2 Phi(d/2) - 1) with f the drifted share of the window
    expected = window_h * 3600 * 0.2 / (2 * NormalDist().cdf(drill.plant.drift[0].shift_sd / 2) - 1)
    delay = fired[0] - drill.plant.drift[0].at_min * 60
    assert delay == pytest.approx(expected, rel=0.3, abs=900)
    assert start > fired[0]


def test_without_model_metrics_the_accuracy_views_and_drift_detection_are_gone(drill_design):
    design = edited(drill_design, metrics_collector={"model_metrics": False, "business_metrics": False})
    session = DrillSession(get_drill("bad-retrained-model"), design)
    view = session.view()
    assert {"model", "segments", "business"} <= {name for name, shown in view.dashboards.items()
                                                 if not hasattr(shown, "panels")}
    assert session.quality.detectors == []
    assert session.notice.startswith("a customer")  # nothing alerts on accuracy
    assert any("model" in m.what for m in session.result().missing)


def test_alert_grouping_and_burn_rate_rules_follow_the_alerting_config(drill_design):
    drill = get_drill("regional-outage")
    grouped = DrillSession(drill, drill_design)
    grouped.wait(30)
    loose = DrillSession(drill, edited(drill_design, alerting={"grouping": False, "dedup_window_s": 300.0}))
    loose.wait(30)
    assert len(grouped.view().notifications) == 1
    assert len(grouped.view().notifications[0].alerts) >= 2  # fast and slow burn in one notification
    assert len(loose.view().notifications) > 5  # every rule on its own, repeated each dedup window
    fixed = DrillSession(drill, edited(drill_design, alerting={"burn_rate_alerts": False}))
    assert fixed.notice.startswith("paged: errors and shedding above 1%")


def test_the_breakdown_covers_only_instrumented_components(drill_design):
    raw = json.loads(design_to_bytes(drill_design))
    raw["edges"] = [e for e in raw["edges"] if not (e["source"] == "eu-west-features" and e["target"] == "metrics")]
    design = parse_design(json.dumps(raw).encode(), "<test>", drill_design.catalog)
    shown = DrillSession(get_drill("slow-feature-dependency"), design).open_dashboard("breakdown")
    assert "eu-west-features" not in shown.panels and "eu-west-gpus" in shown.panels
    assert "eu-west-features" in shown.notes[0]


def test_scores_come_from_the_recorded_actions(drill_design):
    drill = get_drill("slow-canary-version")

    def play(order):
        session = DrillSession(drill, drill_design, seed=0)
        for verb, args in order:
            session.perform(verb, args)
        session.finish()
        return session, {line.criterion: line for line in session.result().lines}

    mitigate = ("apply_mitigation", {"action": "rollback_canary", "target": "{canary}"})
    cause = ("name_root_cause", {"text": "the canary build 2.14 is slower"})
    good, g = play([("check_changes", {}), mitigate, ("wait", {"minutes": 5}), cause])
    slow, s = play([cause, ("wait", {"minutes": 45}), mitigate])
    assert g["mitigation_first"].points == 10 and s["mitigation_first"].points == 0
    assert g["time_to_mitigate"].points == 25 and s["time_to_mitigate"].points < 10
    assert s["changes_early"].points == 0 and s["changes_early"].action_index is None
    for session, lines in ((good, g), (slow, s)):
        for line in lines.values():
            if line.action_index is not None:
                assert line.t_min == pytest.approx((session.actions[line.action_index].t_s - session.notice_s) / 60,
                                                   abs=0.01) or line.criterion in ("error_budget", "customer_impact")
    assert g["time_to_mitigate"].action_index == 1
    assert good.actions[1].verb == "apply_mitigation" and good.actions[1].outcome == "fixes"
    assert good.result().percent > slow.result().percent
