"""The workshop windows: the grading dialog (progress, cancel, the cohort it keeps) and the cohort
view (sorting, the distribution plots, common findings, two designs side by side, sessions)."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
import json

from PySide6.QtCore import QItemSelectionModel, Qt

from inferboard.practice.library import ScenarioLibrary
from inferboard.workshop import reports
from inferboard.workshop.cohorts import CohortStore, compare_runs
from inferboard.workshop.grading import grade_submissions
from inferboard.workshop.submissions import Submission
from tests.workshop.conftest import EXPECTED, GOOD, MIDDLE, SCENARIO, WEAK, room  # noqa: F401 (fixture)


@pytest.fixture(scope="module")
def library():
    return ScenarioLibrary().load()


@pytest.fixture
def store(tmp_path):
    with CohortStore(tmp_path / "cohorts") as opened:
        yield opened


def _dialog(qtbot, library, store, paths, jobs=1):
    from desktop.workshop.grading_dialog import GradeSubmissionsDialog

    dialog = GradeSubmissionsDialog(library, store, scenario_id=SCENARIO, jobs=jobs)
    qtbot.addWidget(dialog)
    dialog.add_paths(paths)
    dialog.show()
    return dialog


def test_the_dialog_grades_a_room_with_progress_and_keeps_a_cohort(qtbot, library, store, room):  # noqa: F811
    dialog = _dialog(qtbot, library, store, [room])
    seen = []
    dialog.progress.valueChanged.connect(seen.append)
    with qtbot.waitSignal(dialog.graded, timeout=120_000) as signal:
        assert dialog.start()
        assert not dialog.grade_button.isEnabled() and dialog.cancel_button.isEnabled()
    run, cohort_id = signal.args
    assert len(run.results) == len(EXPECTED) and not run.cancelled
    assert dialog.progress.value() == dialog.progress.maximum() == len(EXPECTED)
    assert len(set(seen)) > 3 and max(seen) == len(EXPECTED), "the bar moved as submissions were graded"
    assert f"{len(run.graded)} graded, {len(run.errors)} not graded" in dialog.status.text()
    assert [c["id"] for c in store.cohorts()] == [cohort_id]
    assert store.load(cohort_id).to_dict() == run.to_dict()
    assert dialog.open_button.isEnabled()
    window = dialog.open_cohort()
    qtbot.addWidget(window)
    assert window.table.rowCount() == len(EXPECTED)
    window.close()
    dialog.close()


def test_cancel_stops_the_grading_and_keeps_what_was_graded(qtbot, library, store, tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    for n in range(40):
        (folder / f"learner-{n:02d}.json").write_bytes(GOOD.read_bytes())
    dialog = _dialog(qtbot, library, store, [folder])
    with qtbot.waitSignal(dialog.graded, timeout=120_000) as signal:
        dialog.start()
        qtbot.waitUntil(lambda: dialog.progress.value() >= 2, timeout=60_000)
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
        assert not dialog.cancel_button.isEnabled()
    run, _ = signal.args
    assert run.cancelled and 2 <= len(run.results) < 40
    assert dialog.status.text().startswith("Cancelled")
    assert store.load(store.cohorts()[0]["id"]).cancelled
    dialog.close()


@pytest.mark.slow
def test_the_dialog_runs_the_process_pool_from_its_worker_thread(qtbot, library, store, tmp_path):
    folder = tmp_path / "pair"
    folder.mkdir()
    (folder / "a.json").write_bytes(GOOD.read_bytes())
    (folder / "b.json").write_bytes(WEAK.read_bytes())
    (folder / "c.json").write_bytes(MIDDLE.read_bytes())
    dialog = _dialog(qtbot, library, store, [folder], jobs=2)
    with qtbot.waitSignal(dialog.graded, timeout=180_000) as signal:
        dialog.start()
    run, _ = signal.args
    assert run.jobs == 2 and len(run.graded) == 3
    one = grade_submissions(library.get(SCENARIO).scenario, library.get(SCENARIO).reference_bytes,
                            [Submission(str(folder / n), (folder / n).read_bytes()) for n in ("a.json", "b.json",
                                                                                              "c.json")], jobs=1)
    assert [r.overall for r in run.results] == [r.overall for r in one.results]
    dialog.close()


# ------------------------------------------------------------------------------ the cohort view
def _run(library, files, broken=True):
    entry = library.get(SCENARIO)
    subs = [Submission(f"{n}-{path.stem}.json", path.read_bytes()) for n, path in enumerate(files)]
    if broken:
        subs.append(Submission("zz-broken.json", b"{"))
    return grade_submissions(entry.scenario, entry.reference_bytes, subs, jobs=1)


@pytest.fixture
def cohort(qtbot, library, store):
    from desktop.workshop.cohort_view import CohortWindow

    run = _run(library, [WEAK, GOOD, MIDDLE])
    cohort_id = store.save(run, "Morning")
    window = CohortWindow(store, cohort_id=cohort_id)
    qtbot.addWidget(window)
    window.show()
    yield window, run, cohort_id
    window.close()


def _column(window, title):
    headers = [window.table.horizontalHeaderItem(c).text() for c in range(window.table.columnCount())]
    return headers.index(title)


def _texts(window, column):
    return [window.table.item(r, column).text() for r in range(window.table.rowCount())]


def test_the_table_sorts_by_number_and_keeps_errors_last(cohort):
    window, run, _ = cohort
    overall = _column(window, "Overall")
    assert window.table.rowCount() == 4
    expected = sorted((r.overall for r in run.graded), reverse=True)
    assert _texts(window, overall)[:3] == [f"{v:.1f}" for v in expected] and _texts(window, overall)[3] == "—"
    window.table.sortItems(overall, Qt.SortOrder.AscendingOrder)
    texts = _texts(window, overall)
    assert texts[0] == "—" and texts[1:] == [f"{v:.1f}" for v in sorted(expected)]
    assert "100.0" in texts and texts.index("100.0") == 3, "numbers, not text: 100 sorts above 55"
    name = _column(window, "Submission")
    window.table.horizontalHeader().sectionClicked.emit(name)
    window.table.sortItems(name, Qt.SortOrder.AscendingOrder)
    assert _texts(window, name) == sorted(r.name for r in run.results)
    problem = _column(window, "Problem")
    broken_row = _texts(window, name).index("zz-broken.json")
    assert "not valid JSON" in window.table.item(broken_row, problem).text()


def test_a_distribution_is_plotted_per_rubric(cohort):
    window, run, _ = cohort
    plots = window.plots
    assert list(plots.plots) == ["overall", *(name for name, _, _ in run.rubrics)]
    assert plots.bars["overall"] == reports.histogram([r.overall for r in run.graded])
    assert sum(plots.bars["overall"]) == len(run.graded) == 3
    for name, _, _ in run.rubrics:
        scored = [r.rubrics[name] for r in run.graded if r.rubrics.get(name) is not None]
        assert sum(plots.bars[name]) == len(scored)
        drawn = [item for item in plots.plots[name].items if isinstance(item, pg.BarGraphItem)]
        assert len(drawn) == 1 and sum(drawn[0].opts["height"]) == len(scored), name


def test_the_most_common_findings_come_first(cohort):
    window, run, _ = cohort
    ranked = reports.common_findings(run.results, limit=25)
    table = window.findings
    assert table.rowCount() == len(ranked) > 0
    first_rule, _, count, _ = ranked[0]
    assert table.item(0, 0).text() == first_rule and table.item(0, 2).text() == str(count)
    counts = [int(table.item(r, 2).text()) for r in range(table.rowCount())]
    assert counts == sorted(counts, reverse=True)


def test_two_designs_side_by_side_show_their_differences(cohort):
    window, run, _ = cohort
    good = next(r for r in run.graded if r.name.endswith("reference.json"))
    weak = next(r for r in run.graded if r.name.endswith("starter.json"))
    name = _column(window, "Submission")
    window.table.clearSelection()
    selection = window.table.selectionModel()
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    for row in range(window.table.rowCount()):
        if window.table.item(row, name).text() in (good.name, weak.name):
            selection.select(window.table.model().index(row, 0), flags)
    assert window.compare_selected()
    assert window.tabs.currentWidget() is window.side
    a, b = window.side.chosen()
    assert {a.name, b.name} == {good.name, weak.name}
    figures = {window.side.figures.item(r, 0).text(): (window.side.figures.item(r, 1).text(),
                                                       window.side.figures.item(r, 2).text())
               for r in range(window.side.figures.rowCount())}
    assert figures["Overall"] == (f"{a.overall:.1f}", f"{b.overall:.1f}")
    assert figures["Components"] == (str(a.nodes), str(b.nodes))
    assert figures["Served after a region loss"][0] == f"{a.figures['region_loss_served_pct']:.1f}"
    lines = [window.side.differences.item(r).text() for r in range(window.side.differences.count())]
    nodes_a = {n["id"]: n["kind"] for n in json.loads(a.design)["nodes"]}
    nodes_b = {n["id"]: n["kind"] for n in json.loads(b.design)["nodes"]}
    only_a = [i for i in nodes_a if i not in nodes_b]
    assert only_a, "the reference and the starter differ"
    for node_id in only_a:
        assert f"Only in A: {node_id} ({nodes_a[node_id].replace('_', ' ')})" in lines
    assert window.side.picture_a.renderer().isValid() and window.side.picture_b.renderer().isValid()


def test_a_cohort_is_reopened_and_compared_with_an_earlier_session(qtbot, library, store, cohort):
    window, run, first_id = cohort
    later = _run(library, [GOOD, GOOD, MIDDLE], broken=False)
    later_id = store.save(later, "Afternoon")
    window.reload(later_id)
    assert window.run.to_dict() == later.to_dict()
    index = window.compare.findData(first_id)
    assert index > 0
    window.compare.setCurrentIndex(index)
    comparison = compare_runs(store.load(first_id), later)
    cells = {window.sessions.item(r, 0).text(): window.sessions.item(r, 3).text()
             for r in range(window.sessions.rowCount())}
    assert cells["Mean Overall"] == f"{comparison.rubrics[0].delta:+.0f} points"
    assert window.plots.compared["overall"] == reports.histogram([r.overall for r in run.graded])


def test_exports_from_the_view_are_the_reports(cohort, tmp_path):
    window, run, _ = cohort
    csv_path = window.export("csv", str(tmp_path / "room.csv"))
    html_path = window.export("html", str(tmp_path / "room.html"))
    assert csv_path.read_text() == reports.csv_text(window.run)
    assert html_path.read_text() == reports.report_html(window.run)


def test_the_workshop_menu_opens_both_windows(make_window):
    main = make_window()
    assert {"workshop.grade", "workshop.cohorts"} <= {a.objectName() for a in main.actions()}
    dialog = main.grade_submissions()
    cohorts = main.open_cohorts()
    assert dialog.isVisible() and cohorts.isVisible()
    dialog.close()
    cohorts.close()
