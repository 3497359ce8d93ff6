"""Readouts people can read from the back of a room: no number cut at 1366x768, plots with titled
axes, legends and limits named beside them, classroom interaction defaults, and the canvas showing
the simulated moment (a region down, a failing component, the failover path, badges at the playhead)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from inferboard import humanize
from inferboard.cli import templates
from inferboard.store import read_design

from desktop.readouts.readings import Reading, STEADY

WAIT_MS = 30_000


def evaluated(make_window, qtbot, design, size=None):
    window = make_window(design, evaluate=True)
    if size is not None:
        window.resize(*size)
        window.default_dock_sizes()
    qtbot.waitUntil(lambda: not window.evaluator.busy() and window.readouts.timeline is not None
                    and window.readouts.plots is not None, timeout=WAIT_MS)
    QApplication.processEvents()
    return window


def fits(tile, panel) -> bool:
    try:
        assert_nothing_cut(tile, panel)
    except AssertionError:
        return False
    return True


def assert_nothing_cut(tile, panel) -> None:
    for name, label in tile.lines().items():
        text = label.text()
        room = label.contentsRect().width()
        assert label.fontMetrics().horizontalAdvance(text) <= room, (tile.key, name, text, room)
    top_left = tile.mapTo(panel, QPoint(0, 0))
    assert panel.rect().contains(top_left) and panel.rect().contains(top_left + QPoint(tile.width() - 1,
                                                                                        tile.height() - 1)), tile.key


def test_no_headline_number_is_cut_at_1366x768(make_window, qtbot):
    design = read_design(templates()["multi-region"])[0]
    window = evaluated(make_window, qtbot, design, size=(1366, 768))
    assert window.width() == 1366 and window.height() == 768
    panel = window.readouts
    assert panel.isVisible() and panel.tabs.isVisible() and panel.tabs.width() > 500  # room for the plots
    for tile in panel.tiles.values():
        assert tile.isVisible()
        assert tile.value_label.text() != humanize.DASH
        assert_nothing_cut(tile, panel)
    # The widest figures the formats can produce fit as well.
    widest = Reading(STEADY, {"p50_ms": 60_023.0, "p95_ms": 999.0, "p99_ms": 3.6e6, "throughput_rps": 12_345.0,
                              "shed_rate": 0.4667, "error_rate": 0.0123, "cost_per_hour": 1234.5,
                              "cost_per_1k": 0.00043}, 12_345.0, "steady, peak", "widest")
    panel.board.show_reading(widest, window.document.design.requirements, panel.theme)
    qtbot.waitUntil(lambda: all(fits(tile, panel) for tile in panel.tiles.values()), timeout=3000)
    assert panel.tiles["p50_ms"].value_label.text() == "60 s"
    assert panel.tiles["cost_per_hour"].value_label.text() == "$1.2k/h"
    for tile in panel.tiles.values():
        assert_nothing_cut(tile, panel)


def test_the_projector_view_enlarges_the_figures_and_still_fits(make_window, qtbot):
    design = read_design(templates()["starter"])[0]
    window = evaluated(make_window, qtbot, design, size=(1600, 1000))
    tile = window.readouts.tiles["p99_ms"]
    normal = tile.value_label.font().pointSizeF()
    window.actions_by_id["view.projector"].setChecked(True)
    assert tile.value_label.font().pointSizeF() >= normal * 1.4
    qtbot.waitUntil(lambda: all(fits(each, window.readouts) for each in window.readouts.tiles.values()), timeout=3000)
    window.actions_by_id["view.projector"].setChecked(False)
    assert tile.value_label.font().pointSizeF() == pytest.approx(normal)


def test_plots_have_titled_axes_legends_and_limits_beside_them(make_window, qtbot):
    design = read_design(templates()["multi-region"])[0]
    window = evaluated(make_window, qtbot, design)
    plots = window.readouts.plots
    for plot in plots.plots():
        item = plot.getPlotItem()
        # The Quality tab's upper plots share the time axis of the one under them, titled there.
        assert item.getAxis("left").labelText and (item.getAxis("bottom").labelText or not plot.x_title), \
            plot.objectName()
        assert not item.autoBtn.isVisible()  # no stray auto-range "A" button
        assert not item.menuEnabled()
    names = [getattr(label, "full_text", label.text) for _sample, label in plots.utilisation.legend.items]
    pools = [n for n in design.nodes.values() if f"utilisation:{n.id}" in window.readouts.timeline.series]
    assert len(pools) > 1 and len(names) == len(set(names)) == len(pools)  # one entry per pool, told apart
    assert all(any((pool.label or pool.id) in name for name in names) for pool in pools)  # by its label
    assert {"p50", "p95", "p99"} <= {label.text for _s, label in plots.latency.legend.items}
    right = plots.latency.getPlotItem().getAxis("right")
    slo = design.requirements.slo_p99_ms
    assert (slo, f"p99 SLO {humanize.duration_ms(slo)}") in right._tickLevels[0]  # named beside the plot
    assert plots.latency.getPlotItem().getAxis("bottom").labelText == "Simulated time of day"
    assert plots.quality.business.getPlotItem().getAxis("bottom").labelText == "Simulated time of day"


def _wheel(widget, modifiers):
    centre = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0), QPoint(0, 240),
                        Qt.MouseButton.NoButton, modifiers, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget.viewport(), event)


def test_the_wheel_zooms_a_plot_only_with_ctrl(make_window, qtbot):
    window = evaluated(make_window, qtbot, read_design(templates()["starter"])[0])
    plot = window.readouts.plots.throughput
    window.readouts.tabs.setCurrentWidget(plot)
    qtbot.waitUntil(plot.isVisible)
    before = plot.getPlotItem().viewRange()[0]
    _wheel(plot, Qt.KeyboardModifier.NoModifier)
    assert plot.getPlotItem().viewRange()[0] == pytest.approx(before)
    _wheel(plot, Qt.KeyboardModifier.ControlModifier)
    after = plot.getPlotItem().viewRange()[0]
    assert after[1] - after[0] < before[1] - before[0]


def test_the_canvas_shows_the_moment_under_the_playhead(make_window, qtbot):
    design = read_design(templates()["multi-region"])[0]
    window = evaluated(make_window, qtbot, design)
    readouts, scene = window.readouts, window.scene
    first = readouts.timeline
    readouts.fault_plan.add_fault("region_outage", "us-east", start_s=11 * 3600, duration_s=2 * 3600)
    pool = "eu-west-gpus"
    readouts.fault_plan.add_fault("failing_replica", pool, start_s=11 * 3600, duration_s=2 * 3600)
    qtbot.waitUntil(lambda: readouts.timeline is not first and not window.evaluator.busy(), timeout=WAIT_MS)
    timeline = readouts.timeline
    inside = int(np.searchsorted(timeline.times_s, 12 * 3600))
    readouts.playback.scrub.setValue(inside)
    region = scene.nodes["us-east"]
    assert region.down_label and region.down_label.startswith("DOWN")
    assert "failed over" in region.down_label  # the global balancer moved the traffic
    in_region = [n.id for n in design.nodes.values() if n.region == "us-east"]
    assert in_region and all(scene.nodes[n].dimmed for n in in_region)
    assert "failing" in (scene.nodes[pool].alert or "").lower()
    glb_to_eu = [e.id for e in design.edges.values() if e.source == "glb" and design.nodes[e.target].region == "eu-west"]
    assert glb_to_eu and set(glb_to_eu) <= scene.moment.failover_edges
    assert len(scene.failover_overlays) == len(scene.moment.failover_edges)
    u = float(timeline.series[f"utilisation:{pool}"][inside])
    assert scene.nodes[pool].badge[0].startswith(f"{humanize.share(u)} busy")
    p99 = humanize.duration_ms(float(timeline.series["p99_ms"][inside]))
    assert scene.nodes["users-us"].badge[0] == f"p99 {p99}" == f"p99 {readouts.tiles['p99_ms'].value_label.text()}"
    after = int(np.searchsorted(timeline.times_s, 15 * 3600))
    readouts.playback.scrub.setValue(after)
    assert region.down_label is None and not any(scene.nodes[n].dimmed for n in in_region)
    assert scene.nodes[pool].alert is None and not scene.failover_overlays


def test_long_texts_do_not_grow_the_docks_or_shrink_the_canvas(make_window, qtbot):
    from inferboard.model import ops

    window = evaluated(make_window, qtbot, read_design(templates()["starter"])[0], size=(1366, 768))
    qtbot.wait(50)
    canvas = window.view.size()
    docks = {name: dock.size() for name, dock in window.docks.items() if dock.isVisible()}
    long = " ".join(["a long sentence that goes on"] * 30)
    readouts = window.readouts
    readouts.fault_plan.add_fault("traffic_surge", "*", start_s=3600, duration_s=3600)
    for _ in range(6):
        readouts.fault_plan.add_fault("traffic_surge", "*", start_s=7200, duration_s=600)
    readouts.at_label.setText(long)
    readouts.load_test.load_label.setText(long)
    readouts.load_test.load_label.show()
    readouts.show_failed("timeline", long)
    window.document.execute(ops.SetLabel("gpus", long[:200]), "label")
    window.scene.select_ids(["gpus"])
    qtbot.wait(50)
    QApplication.processEvents()
    assert window.view.size() == canvas
    assert {name: dock.size() for name, dock in window.docks.items() if dock.isVisible()} == docks


def test_time_labels_thin_out_on_a_narrow_plot_instead_of_overlapping(make_window, qtbot):
    from PySide6.QtGui import QFontMetrics

    from desktop.readouts.plots import TICK_GAP_PX

    window = evaluated(make_window, qtbot, read_design(templates()["starter"])[0], size=(1600, 1000))
    plots = window.readouts.plots
    plot = plots.latency
    window.readouts.tabs.setCurrentIndex(window.readouts.tabs.indexOf(plot))

    def labels():
        major = plot.getPlotItem().getAxis("bottom")._tickLevels[0]
        return [text for _value, text in major]

    def room_per_label() -> float:
        return plot.getPlotItem().vb.width() / max(1, len(labels()))

    axis = plot.getPlotItem().getAxis("bottom")
    needed = QFontMetrics(axis.style.get("tickFont") or plot.font()).horizontalAdvance("24:00") + TICK_GAP_PX
    qtbot.waitUntil(lambda: room_per_label() >= needed)
    wide = len(labels())
    window.readouts.tabs.setMaximumWidth(300)  # about the plots' least width, as beside the interview console
    qtbot.waitUntil(lambda: plot.getPlotItem().vb.width() < 200)
    qtbot.waitUntil(lambda: room_per_label() >= needed)
    assert 2 <= len(labels()) < wide


def test_legends_sit_above_the_plot_area_and_never_cover_it(make_window, qtbot):
    """At a laptop's plot size no legend covers the plotted area: the entries sit in a row above it,
    long names shortened (still told apart) and those beyond the row summed up as "+N more"; the
    plot's tooltip names every line."""
    design = read_design(templates()["multi-region"])[0]
    window = evaluated(make_window, qtbot, design)
    plots = window.readouts.plots
    for plot in plots.timeline_plots:
        plot.resize(585, 128)
        plot.show()
        qtbot.waitUntil(lambda p=plot: p.width() == 585)
        plot.fit_legend()
        QApplication.processEvents()
        legend = plot.legend
        box = plot.getPlotItem().vb.sceneBoundingRect()
        if legend.items and legend.isVisible():
            for part in [item for pair in legend.items for item in pair if item.isVisible()]:
                assert not part.sceneBoundingRect().intersects(box), (plot.objectName(), part.sceneBoundingRect(), box)
            shown = [label.text for _s, label in legend.items if label.isVisible()]
            assert len(set(shown)) == len(shown), shown  # shortened, still told apart
            if legend.shown < len(legend.items):
                assert shown[-1] == f"+{len(legend.items) - legend.shown} more", shown
    names = plots.utilisation.toolTip()
    assert names.startswith("Lines: ") and all(label.full_text in names for _s, label in plots.utilisation.legend.items)
