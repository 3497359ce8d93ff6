"""Text people read says things in words: plot ticks without float noise, faults and shedding in
plain words, Paste only when something was copied, the explanation pane emptied when the finding it
explained is gone, and the fault table's controls whole."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QApplication

from inferboard.model import PlannedFault, ops
from inferboard.store import save_design

from desktop.readouts.plots import TidyAxis
from tests.core.helpers import serving_chain


def test_axis_ticks_carry_no_float_noise(qapp):
    axis = TidyAxis("left")
    assert axis.tickStrings([97.5000000000002, 97.5], 1.0, 1e-13) == ["97.50", "97.50"]
    assert axis.tickStrings([0.0, 2500.0, 5000.0], 1.0, 2500.0) == ["0", "2,500", "5,000"]
    assert axis.tickStrings([0.1, 0.2], 1.0, 0.1) == ["0.1", "0.2"]


def test_a_fault_everywhere_and_an_unwired_source_are_said_in_words(tmp_path, capsys):
    from inferboard.cli import main

    design = serving_chain()
    design.apply(ops.SetFaults((PlannedFault("traffic_surge", "*", start_s=3600, duration_s=7200, magnitude=2.0),)))
    design.add_node("traffic_source", -600, 400, node_id="stray")
    path = tmp_path / "surge.json"
    save_design(design, path)
    assert main(["simulate", str(path), "--timeline", "--tick", "600", "--json"]) == 0
    events = json.loads(capsys.readouterr().out)["timeline"]["events"]
    started = next(e["message"] for e in events if e["kind"] == "fault_started")
    assert "everywhere for 2 h" in started and "*" not in started and "7200" not in started
    stray = [e["message"] for e in events if e["node_id"] == "stray" and e["kind"] == "shedding_started"]
    assert stray and all("nothing is wired after it" in m and "admission" not in m for m in stray)


def test_paste_needs_something_copied(window):
    QApplication.clipboard().clear()
    paste = window.actions_by_id["edit.paste"]
    assert not paste.isEnabled()
    window.scene.select_ids(["gpus"])
    window.copy()
    assert paste.isEnabled()
    QApplication.clipboard().clear()
    assert not paste.isEnabled()


def test_the_explanation_pane_empties_with_a_new_design(window):
    from inferboard.model import Design
    from inferboard.practice.grading import score_design

    from desktop.findings.dock import FINDING_ROLE
    from tests.desktop.gestures import demo_design

    panel = window.findings
    panel.show_report(score_design(demo_design(), None, behaviour=False))
    on_a_node = next(i for i in panel.finding_items() if i.data(0, FINDING_ROLE).node_ids)
    panel.tree.setCurrentItem(on_a_node)
    assert panel.detail.toPlainText()
    panel.show_report(score_design(Design(), None, behaviour=False))
    assert panel.current_finding() is None and panel.detail.toPlainText() == ""


def test_the_fault_tables_controls_are_whole(window):
    editor = window.edit_faults()
    editor.add_fault()
    table = editor.table
    for column in range(table.columnCount()):
        widget = table.cellWidget(0, column)
        assert table.columnWidth(column) >= widget.sizeHint().width(), column
    editor.close()


def test_a_cards_badge_says_how_many_replicas_are_ready_at_the_playhead():
    from types import SimpleNamespace

    from desktop.readouts.moment import build_moment
    from desktop.readouts.readings import PLAYHEAD, Reading
    from tests.desktop.gestures import demo_design

    design = demo_design()
    configured = design.nodes["gpus"].params["replicas"]
    series = {"utilisation:gpus": [0.5, 0.8], "replicas:gpus": [configured] * 2, "ready:gpus": [configured, 1]}
    timeline = SimpleNamespace(series=series)

    def badge(index):
        reading = Reading(PLAYHEAD, {}, None, "at 00:00", "", time_s=0.0, index=index, source=timeline)
        return build_moment(design, reading).badges["gpus"][0][0]

    assert "ready" not in badge(0)
    assert badge(1).endswith(f"1 of {configured:g} ready")


def test_an_opened_design_is_fitted_again_when_the_canvas_settles(window, qtbot):
    """The window manager and the docks resize the canvas after the first paint: the design opened
    is fitted to the canvas's new size, until someone zooms, scrolls or edits."""
    from tests.desktop.gestures import demo_design

    window.document.set_design(demo_design())
    view = window.view
    fits = []
    fit = view.fit_for_reading
    view.fit_for_reading = lambda: fits.append(view.viewport().size()) or fit()
    window.resize(window.width() - 400, window.height())  # as the window manager settling it would
    qtbot.waitUntil(lambda: bool(fits) and fits[-1] == view.viewport().size())
    view.scale(2, 2)
    zoomed = view.zoom()
    window.resize(window.width() + 300, window.height())
    before = len(fits)
    for _ in range(3):
        QApplication.processEvents()
    assert view.zoom() == zoomed and len(fits) == before  # the user's zoom is kept
