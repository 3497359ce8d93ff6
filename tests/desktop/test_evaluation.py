"""Live evaluation: findings follow edits and select their nodes when clicked; the readouts change
after an edit; stale results are dropped; the load test reports progress and can be cancelled."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest

from inferboard.model import ops
from inferboard.sim.steady.design_sim import evaluate

from desktop.editor.document import DesignDocument
from desktop.shell.evaluation import EvalSettings, Evaluator
from tests.desktop.gestures import demo_design
from tests.fakes import FakeClock

WAIT_MS = 20_000



def test_findings_appear_and_clicking_one_selects_and_highlights_its_nodes(make_window, qtbot):
    window = make_window(demo_design(), evaluate=True)
    panel = window.findings
    qtbot.waitUntil(lambda: any(i.data(0, Qt.ItemDataRole.UserRole + 1).node_ids for i in panel.finding_items()),
                    timeout=WAIT_MS)
    item = next(i for i in panel.finding_items() if i.data(0, Qt.ItemDataRole.UserRole + 1).node_ids)
    finding = item.data(0, Qt.ItemDataRole.UserRole + 1)
    panel.tree.scrollToItem(item)
    QTest.mouseClick(panel.tree.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     panel.tree.visualItemRect(item).center())
    expected = [n for n in window.document.design.nodes if n in finding.node_ids]
    assert window.scene.selected_node_ids() == expected
    assert all(window.scene.nodes[n].highlighted for n in expected)
    assert finding.title in panel.detail.toPlainText()
    assert panel.summary.text()  # overall score and grade


def test_findings_update_as_the_user_edits(make_window, qtbot):
    window = make_window(demo_design(), evaluate=True)
    # the full report (the structural one comes first, with fewer findings)
    qtbot.waitUntil(lambda: window.findings.report is not None and not window.evaluator.busy()
                    and window.findings.report is window.evaluator.latest.get("report"), timeout=WAIT_MS)

    def fired():
        return {f.rule_id for f in window.findings.report.findings}

    before = fired()
    window.scene.select_ids(["gpus"])
    window.actions_by_id["edit.delete"].trigger()  # no model server left: different findings
    qtbot.waitUntil(lambda: fired() != before, timeout=WAIT_MS)
    window.document.undo_stack.undo()
    qtbot.waitUntil(lambda: fired() == before, timeout=WAIT_MS)


def test_readouts_and_badges_change_after_an_edit(make_window, qtbot):
    window = make_window(demo_design(), evaluate=True)
    qtbot.waitUntil(lambda: window.scene.nodes["gpus"].badge is not None, timeout=WAIT_MS)
    badge = window.scene.nodes["gpus"].badge
    p99_tile = window.readouts.tiles["p99_ms"].text()
    assert "p99" in p99_tile and "—" not in p99_tile
    assert window.readouts.tiles["p99_ms"].toolTip()  # shows its working
    window.scene.select_ids(["gpus"])
    assert "Utilisation" in window.inspector.live.text()
    replicas = window.document.design.node("gpus").params["replicas"]
    window.inspector.editors["replicas"].edit.setText(str(replicas * 4))
    window.inspector.editors["replicas"].edit.editingFinished.emit()
    qtbot.waitUntil(lambda: window.scene.nodes["gpus"].badge != badge, timeout=WAIT_MS)
    window.readouts.show_working("p99_ms")
    working = window.readouts.working
    words = working.browser.toPlainText()
    assert "99 in 100 requests" in words and "bins=" not in words  # plain words, the notation hidden
    working.details.setChecked(True)
    assert "bins=" in working.browser.toPlainText()  # the simulator's notation behind the toggle


def test_a_design_without_traffic_figures_says_so_in_the_readouts(make_window, qtbot):
    design = demo_design()
    design.apply(ops.SetRequirements(design.requirements.model_copy(update={"mean_rps": None, "peak_rps": None})))
    window = make_window(design, evaluate=True)
    status = window.readouts.status
    qtbot.waitUntil(lambda: "no traffic figures declared" in status.text(), timeout=WAIT_MS)
    assert status.isVisible() and "assumed 100 rps" in status.text()
    window.document.execute(ops.SetRequirements(design.requirements.model_copy(update={"mean_rps": 200.0})),
                            "traffic")
    qtbot.waitUntil(lambda: not status.isVisible(), timeout=WAIT_MS)


def test_timeline_plots_play_scrub_and_faults(make_window, qtbot):
    window = make_window(demo_design(), evaluate=True)
    readouts = window.readouts
    qtbot.waitUntil(lambda: readouts.timeline is not None and readouts.plots is not None, timeout=WAIT_MS)
    first = readouts.timeline
    assert readouts.playback.scrub.maximum() == len(first.times_s) - 1
    readouts.playback.scrub.setValue(readouts.playback.scrub.maximum() // 2)
    assert readouts.at_label.text().startswith("At 1")
    readouts.playback.set_playing(True)
    start = readouts.playback.scrub.value()
    qtbot.waitUntil(lambda: readouts.playback.scrub.value() > start, timeout=5000)
    readouts.playback.set_playing(False)
    readouts.fault_plan.add_fault("traffic_surge", "*", start_s=6 * 3600, duration_s=3600)
    qtbot.waitUntil(lambda: readouts.timeline is not first and bool(window.evaluator.settings.faults),
                    timeout=WAIT_MS)
    surge = readouts.timeline
    tick = int(np.searchsorted(surge.times_s, 6.5 * 3600))
    assert surge.series["offered_rps"][tick] > first.series["offered_rps"][tick] * 1.5
    assert window.readouts.plots.fault_regions
    readouts.pattern.setCurrentIndex(readouts.pattern.findData("spike"))
    readouts.pattern.activated.emit(readouts.pattern.currentIndex())
    assert window.evaluator.settings.pattern == "spike"


def test_stale_results_are_dropped(make_window, qtbot):
    window = make_window(demo_design(), evaluate=True)
    seen = []
    started = threading.Event()

    def slow_step(design, settings: EvalSettings):
        started.set()
        time.sleep(0.3)
        return evaluate(design)

    window.evaluator.steady_ready.connect(seen.append)
    window.evaluator.steps = (("steady", slow_step),)
    qtbot.waitUntil(lambda: not window.evaluator.busy(), timeout=WAIT_MS)
    seen.clear()
    started.clear()
    window.document.execute(ops.SetParams("gpus", {"replicas": 3}), "three")
    qtbot.waitUntil(started.is_set, timeout=WAIT_MS)
    window.document.execute(ops.SetParams("gpus", {"replicas": 5}), "five")  # while the worker runs
    qtbot.waitUntil(lambda: not window.evaluator.busy() and bool(seen), timeout=WAIT_MS)
    # the result for 3 replicas arrived late and was dropped; 5 may come twice (on an estimated
    # batching table first, then exactly once the table is built)
    assert {result.nodes["gpus"].replicas for result in seen} == {5}
    assert len(seen) <= 2


def test_evaluation_never_blocks_the_gui_thread(make_window, qtbot):
    window = make_window(demo_design(), evaluate=True)

    started, release = threading.Event(), threading.Event()

    def blocked(design, settings):
        started.set()
        release.wait(30)
        return None

    window.evaluator.steps = (("probe", blocked),)
    window.document.execute(ops.SetLabel("gpus", "x"), "label")
    qtbot.waitUntil(started.is_set, timeout=WAIT_MS)
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(window.evaluator.busy()))
    timer.start(5)
    try:  # the GUI thread's event loop keeps turning while the worker is held
        qtbot.waitUntil(lambda: len(ticks) >= 5, timeout=WAIT_MS)
    finally:
        timer.stop()
        release.set()
    assert all(ticks[:5])  # all of that happened while the evaluation was still running
    qtbot.waitUntil(lambda: not window.evaluator.busy(), timeout=WAIT_MS)


class FakeSummary(SimpleNamespace):
    pass


def test_load_test_progress_and_cancel_with_the_real_simulator(make_window, qtbot):
    window = make_window(demo_design())
    readouts = window.readouts
    results = []
    window.load_runner.finished.connect(results.append)
    window.readouts.load_test.requests.setValue(5_000_000)  # long enough that cancel always comes first
    readouts.load_test.run_button.click()
    assert readouts.load_test.progress.isVisible() and readouts.load_test.cancel_button.isVisible()
    assert not readouts.load_test.run_button.isEnabled()
    qtbot.waitUntil(lambda: readouts.load_test.progress.value() > 0, timeout=WAIT_MS)
    readouts.load_test.cancel_button.click()
    qtbot.waitUntil(lambda: bool(results), timeout=WAIT_MS)
    assert results[0].cancelled
    assert not readouts.load_test.progress.isVisible() and readouts.load_test.run_button.isEnabled()


def test_load_test_shows_the_histogram(make_window, qtbot):
    window = make_window(demo_design())
    progress = []

    def fake(design, n, seed, report, cancel, rps=None):
        for i in range(5):
            report(i + 1, 5)
            progress.append(i)
        return FakeSummary(p50_ms=10.0, p95_ms=20.0, p99_ms=30.0, histogram_edges_ms=np.array([0, 10, 20, 30, 40.0]),
                           histogram_counts=np.array([5, 10, 3, 1]), served=19, shed=0, timed_out=0, errors=0,
                           cancelled=False, load_note="", n_requests=19, offered_rps=200.0, ci_ms={}, warnings=[])

    window.load_runner.runner = fake
    values = []
    window.load_runner.progress.connect(values.append)
    assert window.run_load_test(1000)
    qtbot.waitUntil(lambda: window.readouts.load_summary is not None, timeout=WAIT_MS)
    assert values[-1] == 1.0 and len(progress) == 5
    plots = window.readouts.ensure_plots()
    assert list(plots.bars.opts["height"]) == [5, 10, 3, 1]
    assert plots.histogram_lines["p99_ms"].value() == 30.0
    assert "p99 30 ms" in window.readouts.load_test.load_label.text()


def test_fault_menu_offers_each_fault_on_the_nodes_it_can_hit(window):
    from PySide6.QtWidgets import QMenu

    from desktop.readouts.fault_menu import fill_fault_menu

    chosen = []
    menu = QMenu()
    fill_fault_menu(menu, window.document.design, lambda kind, target: chosen.append((kind, target)))
    submenus = {a.text(): a.menu() for a in menu.actions() if a.menu()}
    outage = next(m for title, m in submenus.items() if "outage" in title.lower())
    entries = [a.text() for a in outage.actions()]
    assert "use1" in entries
    next(a for a in outage.actions() if a.text() == "use1").trigger()
    assert chosen == [("region_outage", "use1")]
    menu.deleteLater()


def test_the_debounce_tells_a_burst_from_a_quiet_spell_by_its_clock(qtbot):
    clock = FakeClock(1e9)
    evaluator = Evaluator(DesignDocument(demo_design()), auto=False, clock=clock)
    evaluator.steps = ()
    evaluator.schedule()  # the first edit after a quiet spell: at once
    assert evaluator.timer.isActive() and evaluator.timer.interval() == 0
    qtbot.waitUntil(lambda: not evaluator.busy(), timeout=WAIT_MS)
    for _ in range(9):  # edits 20 ms apart restart the wait, however long they really took
        clock.advance(0.020)
        evaluator.schedule()
        assert evaluator.timer.isActive() and evaluator.timer.interval() == evaluator.debounce_ms
    clock.advance(evaluator.debounce_ms / 1000 + 0.001)  # a quiet spell: the next edit goes at once
    evaluator.schedule()
    assert evaluator.timer.interval() == 0
    qtbot.waitUntil(lambda: not evaluator.busy(), timeout=WAIT_MS)


def test_a_burst_of_edits_is_evaluated_at_its_start_and_once_at_its_end(make_window, qtbot):
    window = make_window(demo_design(), evaluate=True)
    evaluator = window.evaluator
    runs = []

    def probe(design, settings):
        runs.append(design.node("gpus").params["replicas"])

    qtbot.waitUntil(lambda: not evaluator.busy(), timeout=WAIT_MS)
    evaluator.steps = (("probe", probe),)
    evaluator.clock = clock = FakeClock(1e9)
    window.document.execute(ops.SetParams("gpus", {"replicas": 1}), "burst")
    qtbot.waitUntil(lambda: runs == [1], timeout=WAIT_MS)  # the first edit is evaluated at once
    for replicas in range(2, 11):  # nine more edits, 20 ms apart on the evaluator's clock
        clock.advance(0.020)
        window.document.execute(ops.SetParams("gpus", {"replicas": replicas}), "burst")
    qtbot.waitUntil(lambda: not evaluator.busy() and runs[-1] == 10, timeout=WAIT_MS)
    assert runs == [1, 10]  # not once per edit: once more at the burst's end


def two_replica_window(make_window, monkeypatch, tmp_path):
    """A window on the demo design with its batched pool on 2 replicas, not evaluated yet, and no
    batching table held or kept (a folder of the test's own)."""
    from inferboard.sim.batching import batching

    monkeypatch.setenv(batching.CACHE_DIR_ENV, str(tmp_path))
    batching._table.cache_clear()
    batching._READY.clear()
    design = demo_design()
    design.apply(ops.SetParams("gpus", {"replicas": 2}))
    return make_window(design, evaluate=False)


def test_the_next_replica_count_finds_its_batching_table_built(make_window, qtbot, monkeypatch, tmp_path):
    """Once an evaluation is done the app builds the batching tables of one replica more and one
    fewer on the batched pool, on a thread of its own; the edit to one more then builds nothing."""
    from inferboard.sim.batching import batching

    window = two_replica_window(make_window, monkeypatch, tmp_path)
    evaluator = window.evaluator
    evaluator.prefetch_tables = True
    steady = []
    evaluator.steady_ready.connect(steady.append)
    evaluator.schedule(immediate=True)
    qtbot.waitUntil(lambda: bool(steady) and not evaluator.busy(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not evaluator.prefetching(), timeout=WAIT_MS)
    used = {key for key in batching._READY if key[0] == 2}
    assert used, "the evaluation solved the batched pool on 2 servers"
    params = next(iter(used))[1]
    assert batching.table_ready(3, params) and batching.table_ready(1, params)

    def never(*_args):
        raise AssertionError("the table of the next replica count was built by the edit")

    monkeypatch.setattr(batching, "simulate_table", never)
    steady.clear()
    failures = []
    evaluator.failed.connect(lambda step, message: failures.append((step, message)))
    window.document.execute(ops.SetParams("gpus", {"replicas": 3}), "one more")
    evaluator.schedule(immediate=True)
    qtbot.waitUntil(lambda: bool(steady) and not evaluator.busy(), timeout=WAIT_MS)
    assert failures == []  # no step (steady, peak, rules, timeline) had to build a table
    assert steady[-1].nodes["gpus"].replicas == 3 and steady[-1].p99_ms > 0
    evaluator.prefetch_tables = False
    qtbot.waitUntil(lambda: not evaluator.prefetching(), timeout=WAIT_MS)
    batching._table.cache_clear()


@pytest.mark.slow
def test_a_replica_count_without_its_table_shows_an_estimate_then_the_exact_figures(make_window, qtbot, monkeypatch,
                                                                                     tmp_path):
    """The edit's readouts come at once from a table estimated from the one at hand, marked as an
    estimate; the exact table is built on a thread of its own and the figures are then replaced by
    the exact ones (the same as evaluating the design afresh), the mark gone."""
    from inferboard.sim.batching import batching

    window = two_replica_window(make_window, monkeypatch, tmp_path)
    evaluator = window.evaluator
    shown, marks = [], []
    evaluator.steady_ready.connect(lambda result: shown.append(("steady" in evaluator.estimated_steps, result)))
    timelines = []
    evaluator.timeline_ready.connect(lambda _result: timelines.append("steady" in evaluator.estimated_steps))
    evaluator.estimate_changed.connect(lambda on: marks.append((on, window.readouts.estimate_label.isVisibleTo(
        window.readouts))))
    evaluator.schedule(immediate=True)
    qtbot.waitUntil(lambda: bool(shown) and not evaluator.busy(), timeout=WAIT_MS)
    assert [estimated for estimated, _ in shown] == [False]  # nothing at hand to estimate from: built
    shown.clear()
    timelines.clear()
    window.document.execute(ops.SetParams("gpus", {"replicas": 4}), "two more")
    evaluator.schedule(immediate=True)
    qtbot.waitUntil(lambda: len(shown) >= 2 and not evaluator.busy(), timeout=WAIT_MS)
    assert [estimated for estimated, _ in shown] == [True, False]
    assert timelines == [False]  # the timeline waits for the exact table: once, with the exact figures
    assert marks == [(True, True), (False, False)]
    estimate, exact = shown[0][1], shown[-1][1]
    assert estimate.nodes["gpus"].replicas == exact.nodes["gpus"].replicas == 4
    fresh = evaluate(window.document.design)
    assert exact.p99_ms == pytest.approx(fresh.p99_ms, rel=1e-9)
    assert estimate.p99_ms == pytest.approx(exact.p99_ms, rel=0.3) and estimate.p99_ms != exact.p99_ms
    batching._table.cache_clear()
    batching._READY.clear()


def test_the_first_evaluation_waits_for_the_first_paint(qtbot, data_folder):
    """The window is painted before anything loads the simulator: its first evaluation starts once
    the window has been painted, and then runs as usual."""
    from desktop.shell.main_window import MainWindow

    window = MainWindow(data_folder, evaluate=True, restore_layout=False, theme_mode="light")
    started, steady = [], []
    window.evaluator.busy_changed.connect(lambda busy: busy and started.append(window._first_paint.done))
    window.evaluator.steady_ready.connect(steady.append)
    try:
        window.document.set_design(demo_design())
        window.show()
        assert window.evaluator.busy() and not started  # due, and waiting for the paint
        qtbot.waitUntil(lambda: bool(steady) and not window.evaluator.busy(), timeout=WAIT_MS)
        assert started and all(started)  # every evaluation began after the first paint
    finally:
        window.files.ask_unsaved = lambda: "discard"
        window.close()
        window.deleteLater()


def test_moving_cards_shows_the_last_figures_again_without_evaluating(make_window, qtbot):
    """Where a card sits changes no finding or figure: a move hands the last evaluation's results on
    at once (the findings are not left saying "simulating"), and no job starts. An edit to a
    parameter evaluates again, and so does a change of settings on the same design; a move after
    that shows the new settings' figures again."""
    window = make_window(demo_design(), evaluate=True)
    evaluator = window.evaluator
    qtbot.waitUntil(lambda: not evaluator.busy() and window.findings.report is evaluator.latest.get("report")
                    and "timeline" in evaluator.latest, timeout=WAIT_MS)
    started = []
    original = evaluator.pool.start
    evaluator.pool.start = lambda job: (started.append(job), original(job))[-1]
    before = dict(evaluator.latest)
    shown = []
    evaluator.report_ready.connect(shown.append)
    x, y = window.document.design.node("gpus").x, window.document.design.node("gpus").y
    window.document.execute(ops.MoveNodes({"gpus": (x + 40.0, y + 25.0)}), "Move gpus")
    qtbot.waitUntil(lambda: len(shown) == 1, timeout=WAIT_MS)
    assert started == []
    assert shown[0] is before["report"] and evaluator.latest == before
    assert not window.findings.pending_behaviour and not evaluator.busy()

    replicas = window.document.design.node("gpus").params["replicas"]
    window.document.execute(ops.SetParams("gpus", {"replicas": replicas + 1}), "More replicas")
    qtbot.waitUntil(lambda: bool(started) and not evaluator.busy() and not evaluator.building_tables()
                    and evaluator.latest.get("report") is not before["report"], timeout=WAIT_MS)

    jobs = len(started)
    evaluator.set_settings(hours=12.0)
    qtbot.waitUntil(lambda: len(started) > jobs and not evaluator.busy(), timeout=WAIT_MS)
    jobs = len(started)
    timeline = evaluator.latest["timeline"]
    window.document.execute(ops.MoveNodes({"gpus": (x, y)}), "Move gpus back")
    qtbot.waitUntil(lambda: not window.findings.pending_behaviour, timeout=WAIT_MS)
    assert len(started) == jobs and evaluator.latest["timeline"] is timeline


def test_a_design_back_as_it_was_after_a_cut_evaluation_is_evaluated_again(make_window, qtbot):
    """An edit whose evaluation is cut short by an undo leaves some of its results in place: the
    design back as it was is evaluated again, not shown with those results."""
    from desktop.shell.evaluation import STEPS

    window = make_window(demo_design(), evaluate=True)
    evaluator = window.evaluator
    qtbot.waitUntil(lambda: not evaluator.busy() and "timeline" in evaluator.latest, timeout=WAIT_MS)
    reached, release = threading.Event(), threading.Event()

    def held_peak(design, settings):
        reached.set()
        release.wait(30)
        return None

    evaluator.steps = (STEPS[0], ("steady_peak", held_peak), *STEPS[2:])
    before = evaluator.latest["steady"]
    window.document.execute(ops.SetParams("lb", {"added_latency_ms": 40.0}), "slower balancer")
    qtbot.waitUntil(lambda: reached.is_set() and evaluator.latest["steady"] is not before, timeout=WAIT_MS)
    edited = evaluator.latest["steady"]
    assert not evaluator.estimated_steps  # no new batching table: the edit's figures are exact
    window.document.undo_stack.undo()
    release.set()
    qtbot.waitUntil(lambda: not evaluator.busy() and evaluator.latest["steady"] is not edited, timeout=WAIT_MS)
    assert evaluator.latest["steady"].p99_ms == pytest.approx(before.p99_ms)
