"""Model quality on the design's own timeline: drift and bad-model faults, the series and the
detector's alert, against hand computations."""

import math

import numpy as np
import pytest

from inferboard.model.faults import PlannedFault, fault_targets, target_problem
from inferboard.paths import data_dir
from inferboard.sim.design.faults import TimedFault, parse_fault
from inferboard.sim.quality.quality import DRIFTED_LOSS_PP, LABEL_DELAY_S, measures_quality, quality_timeline
from inferboard.store import read_design

DAY = np.arange(0.0, 24 * 3600.0, 60.0)


@pytest.fixture(scope="module")
def design():
    return read_design(data_dir("assets") / "drills" / "designs" / "ranker-drill.json")[0]


def stable_only(design, n=DAY.size):
    """Timeline series where the first stable pool serves everything at a healthy latency."""
    pools = [n_.id for n_ in design.nodes.values() if n_.kind == "gpu_pool" and "canary" not in n_.id]
    out = {f"arrival_rps:{p}": np.full(n, 1000.0 if p == pools[0] else 0.0) for p in pools}
    out.update(p95_ms=np.full(n, 10.0), error_rate=np.zeros(n), shed_rate=np.zeros(n))
    return out


def test_the_fault_text_names_its_fields():
    fault = parse_fault("input_drift:segment=mobile,magnitude=0.3@2h+6h")
    assert fault == TimedFault("input_drift", "mobile", 0.3, 7200.0, 21600.0)
    assert parse_fault("concept_drift*0.5:web@1h+2h") == TimedFault("concept_drift", "web", 0.5, 3600.0, 7200.0)
    with pytest.raises(ValueError, match="magnitude"):
        parse_fault("input_drift:segment=web,magnitude=lots@1h")
    assert parse_fault("gpu_shortage*2:kind=gpu_pool@1h").target == "kind=gpu_pool"  # a scenario's own target


def test_drift_faults_aim_at_segments_and_refuse_a_share_above_one(design):
    assert [t for t, _ in fault_targets(design, "input_drift")] == ["*", "web", "mobile", "new-users"]
    assert target_problem(PlannedFault("input_drift", "tablets"), design.nodes).startswith("target:")
    assert target_problem(PlannedFault("input_drift", "mobile"), design.nodes) == ""
    assert PlannedFault("concept_drift", "web", magnitude=1.5).problem().startswith("magnitude:")
    assert PlannedFault("bad_model", "*", magnitude=200).problem().startswith("magnitude:")


def test_accuracy_follows_a_hand_computation_through_an_input_drift(design):
    target = design.requirements.accuracy_target_pct
    share = 0.4
    fault = TimedFault("input_drift", "mobile", share, 2 * 3600.0, 4 * 3600.0)
    series, _ = quality_timeline(design, [fault], DAY, stable_only(design))
    # by hand: the three segments sit 2.5 points above the target on average, the mobile segment
    # (35% of traffic) loses share x 25 points while the drift lasts, nothing before or after
    healthy = target + 2.5
    during = healthy - 0.35 * share * DRIFTED_LOSS_PP
    acc = series["accuracy_pct"]
    assert acc[DAY < 2 * 3600] == pytest.approx(healthy, abs=1e-6)
    assert acc[(DAY >= 2 * 3600) & (DAY < 6 * 3600)] == pytest.approx(during, abs=1e-6)
    assert acc[DAY >= 6 * 3600] == pytest.approx(healthy, abs=1e-6)
    # labels arrive half an hour late: the labelled series is the same one shifted by the delay
    labelled = series["accuracy_labelled_pct"]
    assert labelled[np.searchsorted(DAY, 2 * 3600 + LABEL_DELAY_S - 60)] == pytest.approx(healthy)
    assert labelled[np.searchsorted(DAY, 2 * 3600 + LABEL_DELAY_S)] == pytest.approx(during)
    # the burn of the accuracy budget: errors made over errors the target allows
    burn = series["accuracy_burn"][np.searchsorted(DAY, 3 * 3600)]
    assert burn == pytest.approx((100 - during) / (100 - target))


def test_a_bad_model_in_the_canary_costs_its_share_of_traffic(design):
    pools = stable_only(design)
    canary = next(n.id for n in design.nodes.values() if n.kind == "gpu_pool" and "canary" in n.id)
    router = next(n.id for n in design.nodes.values() if n.kind == "canary_router")
    pools = {k: v * 0.9 for k, v in pools.items()} | {f"arrival_rps:{canary}": np.full(DAY.size, 100.0)}
    pools.update(p95_ms=np.full(DAY.size, 10.0), error_rate=np.zeros(DAY.size), shed_rate=np.zeros(DAY.size))
    fault = TimedFault("bad_model", router, 8.0, 3600.0, 3600.0)
    series, events = quality_timeline(design, [fault], DAY, pools)
    acc = series["accuracy_pct"]
    assert acc[np.searchsorted(DAY, 1.5 * 3600)] == pytest.approx(acc[0] - 0.1 * 8.0)  # 10% served x 8 points
    assert acc[np.searchsorted(DAY, 2.5 * 3600)] == pytest.approx(acc[0])  # rolled back when it ends
    assert [e[1] for e in events if e[1].startswith("fault_")] == ["fault_started", "fault_ended"]


def test_a_ks_detector_alerts_at_the_delay_its_window_implies(design):
    from inferboard.model.ops import SetParams

    copy = read_design(data_dir("assets") / "drills" / "designs" / "ranker-drill.json")[0]
    detector = next(n.id for n in copy.nodes.values() if n.kind == "drift_detector")
    copy.apply(SetParams(detector, {"test": "ks", "window_hours": 4.0, "threshold": 0.1, "drift_type": "input"}))
    fault = TimedFault("input_drift", "*", 0.5, 3600.0, 20 * 3600.0)
    _, events = quality_timeline(copy, [fault], DAY, stable_only(copy))
    alert = next(e for e in events if e[1] in ("drift_alert", "drift_unheard"))
    # expected KS after a share f of the window drifted: f x m x (2 Phi(d/2) - 1), d = 3 sd, m = 0.5
    full = 0.5 * math.erf(1.5 / math.sqrt(2))
    expected = 3600.0 + 4 * 3600.0 * 0.1 / full
    assert abs(alert[0] - expected) <= 1800.0  # sampling noise and the 15-minute evaluation step
    assert alert[2] == detector


def test_a_detector_wired_to_no_alerting_is_heard_by_nobody(design):
    from inferboard.model.ops import RemoveEdge

    copy = read_design(data_dir("assets") / "drills" / "designs" / "ranker-drill.json")[0]
    detector = next(n.id for n in copy.nodes.values() if n.kind == "drift_detector")
    for edge in [e for e in copy.edges.values() if e.source == detector and copy.nodes[e.target].kind == "alerting"]:
        copy.apply(RemoveEdge(edge.id))
    fault = TimedFault("input_drift", "*", 1.0, 0.0, 24 * 3600.0)
    _, events = quality_timeline(copy, [fault], DAY, stable_only(copy))
    assert any(e[1] == "drift_unheard" and "reaches nobody" in e[3] for e in events)
    assert not any(e[1] == "drift_alert" for e in events)


def test_a_design_with_nothing_to_measure_gets_no_quality_series_until_a_drift_is_planned():
    from inferboard.sim.timeline.timeline import run_timeline

    plain = read_design(data_dir("assets") / "examples" / "starter.json")[0]
    assert not measures_quality(plain, ())
    assert "accuracy_pct" not in run_timeline(plain, hours=2, tick_s=300).series
    drifted = run_timeline(plain, hours=2, tick_s=300, faults=[parse_fault("input_drift:segment=web,magnitude=1@1h+1h")])
    assert drifted.series["accuracy_pct"][-1] < drifted.series["accuracy_pct"][0]
    assert any(e.kind == "fault_started" and "Input drift" in e.message for e in drifted.events)


def test_the_declared_business_metric_follows_accuracy_by_hand():
    from inferboard.model.ops import SetRequirements

    design = read_design(data_dir("assets") / "drills" / "designs" / "ranker-drill.json")[0]
    design.apply(SetRequirements(design.requirements.model_copy(update={"business_metric": "click_through",
                                                                        "business_base_pct": 12.0})))
    fault = TimedFault("input_drift", "mobile", 0.4, 2 * 3600.0, 4 * 3600.0)
    series, _ = quality_timeline(design, [fault], DAY, stable_only(design))
    assert "conversion_pct" not in series
    metric = series["click_through_pct"]
    assert metric[0] == pytest.approx(12.0)  # healthy, p95 under its SLO, nothing lost
    # by hand: 3% of the base per accuracy point; the drift costs 0.35 x 0.4 x 25 = 3.5 points
    assert metric[np.searchsorted(DAY, 3 * 3600)] == pytest.approx(12.0 * (1 - 0.03 * 3.5))
