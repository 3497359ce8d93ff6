"""The readouts' Quality tab: accuracy per segment against the target, each detector's statistic
against its threshold and the business metric, the playhead on them; and the pools' quality badges."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from PySide6.QtWidgets import QTabWidget

from inferboard.paths import data_dir
from inferboard.sim.design.faults import parse_fault
from inferboard.sim.timeline.timeline import run_timeline
from inferboard.store import read_design

from desktop.readouts.moment import build_moment
from desktop.readouts.plots import TimelinePlots
from desktop.readouts.quality_plot import NOTHING_TO_MEASURE
from desktop.readouts.readings import PLAYHEAD, Reading


def drifted_day():
    design = read_design(data_dir("assets") / "examples" / "multi-region.json")[0]
    fault = parse_fault("input_drift:segment=mobile,magnitude=0.5@2h+6h")
    return design, run_timeline(design, hours=12, tick_s=600, faults=[fault])


def test_the_quality_tab_draws_accuracy_drift_and_business_with_their_limits(qtbot):
    design, timeline = drifted_day()
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    plots = TimelinePlots(tabs)
    plots.show_timeline(timeline, {}, design)
    titles = [tabs.tabText(i) for i in range(tabs.count())]
    assert "Quality" in titles
    quality = plots.quality
    assert quality.empty.isHidden() and not quality.accuracy.isHidden()
    mobile = quality.segment_curves["mobile"].getData()[1]
    assert np.allclose(mobile, timeline.series["accuracy_pct:mobile"])
    assert mobile.min() < mobile[0]  # the drift shows
    assert quality.target_line.value() == design.requirements.accuracy_target_pct
    assert [line.value() for line in quality.threshold_lines] == [0.2]  # the detector's threshold
    assert np.allclose(quality.detector_curves["drift"].getData()[1], timeline.series["drift_stat:drift"])
    assert np.allclose(quality.business_curve.getData()[1], timeline.series["conversion_pct"])
    plots.set_cursor(4 * 3600.0)  # the playhead reaches the quality plots too
    quality_cursors = [c for c in plots.cursors if c.getViewBox() in
                       [p.getPlotItem().vb for p in quality.plots()]]
    assert len(quality_cursors) == 3 and all(c.value() == 4.0 for c in quality_cursors)


def test_a_day_with_nothing_to_measure_says_so(qtbot):
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    plots = TimelinePlots(tabs)
    times = np.arange(0.0, 3600.0, 600.0)
    plain = SimpleNamespace(times_s=times, series={"p99_ms": np.ones(times.size)}, events=[])
    plots.show_timeline(plain, {}, None)
    assert not plots.quality.empty.isHidden() and plots.quality.accuracy.isHidden()
    assert plots.quality.empty.text() == NOTHING_TO_MEASURE


def test_a_pools_badge_carries_its_models_accuracy_against_the_target():
    design, timeline = drifted_day()
    target = design.requirements.accuracy_target_pct
    pool = "us-east-gpus"
    healthy, drifted = 0, int(np.searchsorted(timeline.times_s, 4 * 3600))

    def badge(index):
        reading = Reading(PLAYHEAD, {}, None, "", "", float(timeline.times_s[index]), index, source=timeline)
        return build_moment(design, reading).badges[pool]

    (text, _level), tip = badge(healthy)
    assert f"acc {timeline.series[f'model_accuracy_pct:{pool}'][healthy]:.1f}%" in text
    assert f"{target:g}% target" in tip
    (text, level), _tip = badge(drifted)
    # mobile (35% of requests) loses 0.5 x 25 points: 4.4 points overall, more than a point under the target
    assert timeline.series[f"model_accuracy_pct:{pool}"][drifted] < target - 1.0
    assert level == "bad"
