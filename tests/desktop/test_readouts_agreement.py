"""One source of truth per figure: the tiles, the line under them, the plots' cursor and
``inferboard simulate --json`` say the same for the same design and moment, and each tile names
its basis. The overloaded pool's figures are checked against queueing arithmetic done here."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest

from inferboard import humanize
from inferboard.cli import main, templates
from inferboard.store import read_design

from desktop.readouts.readings import HEADLINE, PEAK, PLAYHEAD, STEADY

WAIT_MS = 30_000


def edited_example(tmp_path, name: str, requirements: dict, params_by_kind: dict):
    """An example design file with some requirements and some components' parameters changed."""
    raw = json.loads(templates()[name].read_text())
    raw["requirements"].update(requirements)
    for node in raw["nodes"]:
        node["params"].update(params_by_kind.get(node["kind"], {}))
    path = tmp_path / f"{name}-edited.json"
    path.write_text(json.dumps(raw))
    return read_design(path)[0], path


def overloaded_cpu_pool(tmp_path):
    """The CPU example with its scorers pinned at 4 replicas x 4 workers x 12 ms, offered 2,500 req/s."""
    return edited_example(tmp_path, "cpu-small", {"mean_rps": 2500.0, "peak_rps": 2500.0, "traffic_pattern": "steady"},
                          {"cpu_pool": {"replicas": 4, "min_replicas": 4, "max_replicas": 4, "workers_per_replica": 4,
                                        "service_ms": 12.0},
                           "autoscaler": {"min_replicas": 4, "max_replicas": 4}})


def simulate_json(path, *extra) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["simulate", str(path), "--json", *extra]) == 0
    return json.loads(out.getvalue())


def evaluated(make_window, qtbot, design):
    window = make_window(design, evaluate=True)
    qtbot.waitUntil(lambda: not window.evaluator.busy() and window.readouts.timeline is not None
                    and window.readouts.steady is not None and window.readouts.plots is not None, timeout=WAIT_MS)
    return window


def tile_value(window, key) -> str:
    return window.readouts.tiles[key].value_label.text()


def test_tiles_status_line_plots_and_cli_agree_at_the_playhead(make_window, qtbot, tmp_path):
    design, path = overloaded_cpu_pool(tmp_path)
    window = evaluated(make_window, qtbot, design)
    readouts = window.readouts
    assert readouts.mode == PLAYHEAD
    index = len(readouts.timeline.times_s) // 2 + 7
    readouts.playback.scrub.setValue(index)
    cli = simulate_json(path, "--timeline")["timeline"]
    t = cli["times_s"][index]
    # Queueing arithmetic: 4 replicas x 4 workers, 12 ms each, serve 16 / 0.012 = 1,333 req/s of 2,500.
    capacity = 4 * 4 / 0.012
    assert cli["series"]["throughput_rps"][index] == pytest.approx(capacity, rel=1e-6)
    assert cli["series"]["shed_rate"][index] == pytest.approx(1 - capacity / 2500.0, rel=1e-6)
    for key in HEADLINE[:-1]:
        expected = humanize.figure(key, cli["series"][key][index])
        assert tile_value(window, key) == expected, key
        assert humanize.clock(t) in readouts.tiles[key].detail_label.text()  # each tile names its basis
    assert tile_value(window, "shed_rate") == "46.7%"
    assert tile_value(window, "throughput_rps") == "1,333 req/s"
    served = cli["series"]["throughput_rps"][index]
    assert tile_value(window, "cost_per_1k") == humanize.money(cli["series"]["cost_per_hour"][index]
                                                               / (served * 3600) * 1000)
    status = readouts.at_label.text()
    assert status.startswith(f"At {humanize.clock(t)} on the timeline")
    for key, word in (("throughput_rps", "served"), ("p99_ms", "p99"), ("shed_rate", "shed"),
                      ("cost_per_hour", "cost")):
        assert f"{word} {tile_value(window, key)}" in status
    pool = next(n.id for n in design.nodes.values() if n.kind == "cpu_pool")
    assert window.scene.nodes[pool].alert == "Saturated: cannot keep up"  # the canvas marks the bottleneck
    assert window.scene.nodes[pool].badge[0].startswith("100% busy")
    plots = readouts.plots
    assert all(cursor.value() == pytest.approx(t / 3600.0) for cursor in plots.cursors)
    for key in ("p99_ms", "throughput_rps", "shed_rate", "cost_per_hour"):
        xs, ys = plots.curves[key].xData, plots.curves[key].yData  # the data, not the downsampled view
        at_cursor = float(np.interp(t / 3600.0, xs, ys))
        scale = 100.0 if key == "shed_rate" else 1.0
        assert at_cursor == pytest.approx(cli["series"][key][index] * scale, rel=1e-9), key


def test_steady_state_tiles_agree_with_simulate_json(make_window, qtbot, tmp_path):
    design, path = overloaded_cpu_pool(tmp_path)
    window = evaluated(make_window, qtbot, design)
    readouts = window.readouts
    readouts.board.basis_combo.setCurrentIndex(readouts.board.basis_combo.findData(STEADY))
    readouts.board.basis_combo.activated.emit(readouts.board.basis_combo.currentIndex())
    assert readouts.mode == STEADY
    cli = simulate_json(path)
    for key in HEADLINE:
        expected = cli[key] + (cli["timeout_rate"] if key == "shed_rate" else 0.0)  # shed or timed out
        assert tile_value(window, key) == humanize.figure(key, expected), key
        assert "steady, mean" in readouts.tiles[key].detail_label.text()
    # What the saturated pool cannot drain times out: the Shed tile counts it, as the timeline does.
    assert cli["shed_rate"] + cli["timeout_rate"] == pytest.approx(1 - (4 * 4 / 0.012) / 2500.0, rel=1e-6)
    assert tile_value(window, "shed_rate") == "46.7%"
    assert readouts.at_label.text().startswith("Steady state at the mean rate:")
    assert "mean rate" in readouts.board.basis_label.text()


def test_the_traffic_pattern_and_the_playhead_move_the_tiles(make_window, qtbot, tmp_path):
    design, _path = edited_example(tmp_path, "starter", {}, {"gpu_pool": {"gpu_type": "h100", "replicas": 4}})
    window = evaluated(make_window, qtbot, design)
    readouts = window.readouts
    timeline = readouts.timeline
    busiest = int(np.argmax(timeline.series["offered_rps"]))
    assert readouts.playback.scrub.value() == busiest  # the playhead starts at the busiest moment
    cost_at = float(timeline.series["cost_per_hour"][busiest])
    assert tile_value(window, "cost_per_hour") == humanize.money_per_hour(cost_at)
    # The tile shows the autoscaled cost the cost plot shows, not the 4 configured H100s.
    assert cost_at < readouts.steady.cost_per_hour
    xs, ys = readouts.plots.curves["cost_per_hour"].xData, readouts.plots.curves["cost_per_hour"].yData
    assert float(np.interp(readouts.plots.cursors[0].value(), xs, ys)) == pytest.approx(cost_at)
    before = tile_value(window, "throughput_rps")
    assert before == humanize.rate(design.requirements.peak_rps)
    readouts.pattern.setCurrentIndex(readouts.pattern.findData("steady"))
    readouts.pattern.activated.emit(readouts.pattern.currentIndex())
    qtbot.waitUntil(lambda: readouts.timeline is not timeline and not window.evaluator.busy(), timeout=WAIT_MS)
    assert tile_value(window, "throughput_rps") == humanize.rate(design.requirements.mean_rps) != before
    assert "steady traffic" in readouts.board.basis_label.text()


def test_the_load_test_line_names_its_basis_interval_and_the_difference(make_window, qtbot):
    from types import SimpleNamespace

    from tests.desktop.gestures import demo_design

    window = evaluated(make_window, qtbot, demo_design())
    summary = SimpleNamespace(n_requests=1_000_000, offered_rps=200.0, p50_ms=10.0, p95_ms=20.0, p99_ms=26.3,
                              ci_ms={"p50": (9.9, 10.1), "p95": (19.5, 20.5), "p99": (25.8, 26.9)},
                              histogram_edges_ms=np.array([0, 10, 20, 30.0]), histogram_counts=np.array([5, 3, 1]),
                              served=999_000, shed=1000, timed_out=0, errors=0, cancelled=False, load_note="",
                              warnings=["p99 ±2%: run 4M requests for ±1%"])
    window.readouts.show_load_result(summary)
    line = window.readouts.load_test.load_label.text()
    assert line.startswith("Load test, 1M requests at 200 req/s")
    assert "p99 26 ms (95% interval 26 ms–27 ms)" in line and line.endswith("run 4M requests for ±1%")
    assert f"steady-state p99 at the same rate and replicas is {humanize.duration_ms(window.readouts.steady.p99_ms)}" \
        in line
    bands = window.readouts.plots.histogram_bands
    assert bands["p99_ms"].isVisible() and bands["p99_ms"].getRegion() == pytest.approx((25.8, 26.9))


def choose_basis(readouts, mode) -> None:
    combo = readouts.board.basis_combo
    combo.setCurrentIndex(combo.findData(mode))
    combo.activated.emit(combo.currentIndex())


def test_the_steady_state_at_peak_agrees_with_simulate_peak_and_says_so(make_window, qtbot, tmp_path):
    design, path = edited_example(tmp_path, "starter", {}, {})
    assert design.requirements.peak_rps > design.requirements.mean_rps
    window = evaluated(make_window, qtbot, design)
    readouts = window.readouts
    qtbot.waitUntil(lambda: readouts.steady_peak is not None, timeout=WAIT_MS)
    choose_basis(readouts, PEAK)
    assert readouts.mode == PEAK and readouts.reading.mode == PEAK
    cli = simulate_json(path, "--peak")
    for key in HEADLINE:
        expected = cli[key] + (cli["timeout_rate"] if key == "shed_rate" else 0.0)
        assert tile_value(window, key) == humanize.figure(key, expected), key
        assert "steady, peak" in readouts.tiles[key].detail_label.text()
    assert readouts.reading.offered_rps == pytest.approx(design.requirements.peak_rps)
    assert readouts.at_label.text().startswith("Steady state at peak:")
    assert "peak rate" in readouts.board.basis_label.text() and "--peak" in readouts.board.basis_label.text()
    choose_basis(readouts, STEADY)  # and back: the mean rate's figures, which differ
    assert tile_value(window, "throughput_rps") == humanize.rate(simulate_json(path)["throughput_rps"])
    assert tile_value(window, "throughput_rps") != humanize.rate(cli["throughput_rps"])


def test_the_load_test_runs_at_the_rate_of_the_figures_shown(make_window, qtbot, tmp_path):
    design, _path = edited_example(tmp_path, "starter", {}, {})
    window = evaluated(make_window, qtbot, design)
    readouts = window.readouts
    qtbot.waitUntil(lambda: readouts.steady_peak is not None, timeout=WAIT_MS)
    asked = []

    def fake(design, n, seed, report, cancel, rps=None):
        asked.append(rps)
        from types import SimpleNamespace

        offered = rps if rps is not None else design.requirements.mean_rps
        return SimpleNamespace(n_requests=n, offered_rps=offered, p50_ms=10.0, p95_ms=20.0, p99_ms=30.0, ci_ms={},
                               histogram_edges_ms=np.array([0, 10, 20, 30, 40.0]),
                               histogram_counts=np.array([5, 10, 3, 1]), served=n, shed=0, timed_out=0, errors=0,
                               cancelled=False, load_note="", warnings=[])

    window.load_runner.runner = fake
    readouts.playback.scrub.setValue(readouts.playback.scrub.maximum() // 3)  # the playhead somewhere off the busiest tick
    at_playhead = readouts.reading.offered_rps
    assert readouts.reading.mode == PLAYHEAD and at_playhead != pytest.approx(design.requirements.mean_rps)
    assert window.run_load_test(2000)
    qtbot.waitUntil(lambda: readouts.load_summary is not None, timeout=WAIT_MS)
    assert asked == [pytest.approx(at_playhead)]
    line = readouts.load_test.load_label.text()
    assert f"at {humanize.rate(at_playhead)} (the playhead's rate)" in line and "need not agree" in line
    choose_basis(readouts, PEAK)
    readouts.load_summary = None
    assert window.run_load_test(2000)
    qtbot.waitUntil(lambda: readouts.load_summary is not None, timeout=WAIT_MS)
    assert asked[-1] == pytest.approx(design.requirements.peak_rps)
    line = readouts.load_test.load_label.text()
    assert "(the peak rate)" in line and "steady-state p99 at the same rate" in line
    choose_basis(readouts, STEADY)
    readouts.load_summary = None
    assert window.run_load_test(2000)
    qtbot.waitUntil(lambda: readouts.load_summary is not None, timeout=WAIT_MS)
    assert asked[-1] is None and "(the mean rate)" in readouts.load_test.load_label.text()
