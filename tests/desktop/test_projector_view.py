"""View > Projector View enlarges the whole window, not only the readouts: the side panels, the
menus, the dock tabs and the status bar take a font 1.5 times the application's, the canvas is
shown 1.5 times larger with wires and borders 1.5 times thicker, the tiles are not scaled twice,
and at 1920x1080 no headline number is cut. Turning it off restores everything."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QTabBar

from inferboard.cli import templates
from inferboard.store import read_design

from desktop.shell.main_window import PROJECTOR_SCALE
from tests.desktop.test_readouts_legible import assert_nothing_cut, evaluated


def point_size(widget) -> float:
    return widget.font().pointSizeF()


def test_projector_view_scales_the_panels_the_canvas_and_the_readouts_once(make_window, qtbot):
    window = evaluated(make_window, qtbot, read_design(templates()["starter"])[0], size=(1920, 1080))
    base = QApplication.font().pointSizeF()
    samples = {"palette": window.component_palette.tree, "inspector": window.inspector.description,
               "status": window.zoom_label, "menu": window.menuBar(), "findings": window.findings,
               "dock tabs": next(b for b in window.findChildren(QTabBar) if b.parent() is window),
               "basis": window.readouts.board.basis_label, "load test": window.readouts.load_test.load_label}
    for name, widget in samples.items():
        assert point_size(widget) == pytest.approx(base), name
    zoom = window.view.zoom()
    value_size = point_size(window.readouts.tiles["p99_ms"].value_label)
    window.actions_by_id["view.projector"].setChecked(True)
    for name, widget in samples.items():
        assert point_size(widget) == pytest.approx(base * PROJECTOR_SCALE), name
    assert window.view.zoom() == pytest.approx(zoom * PROJECTOR_SCALE)
    assert window.scene.theme.line_scale == pytest.approx(PROJECTOR_SCALE)
    assert point_size(window.readouts.tiles["p99_ms"].value_label) == pytest.approx(value_size * PROJECTOR_SCALE)
    label = window.readouts.at_label  # its fixed height follows the larger font
    assert label.height() >= label.fontMetrics().lineSpacing()
    QApplication.processEvents()
    assert window.width() == 1920 and window.height() == 1080
    qtbot.waitUntil(lambda: all(t.width() >= t.minimumSizeHint().width() for t in window.readouts.tiles.values()))
    for tile in window.readouts.tiles.values():
        assert_nothing_cut(tile, window.readouts)
    window.actions_by_id["view.projector"].setChecked(False)
    for name, widget in samples.items():
        assert point_size(widget) == pytest.approx(base), name
    assert window.view.zoom() == pytest.approx(zoom)
    assert window.scene.theme.line_scale == pytest.approx(1.0)
    assert point_size(window.readouts.tiles["p99_ms"].value_label) == pytest.approx(value_size)


def test_a_design_opened_in_projector_view_opens_at_a_zoom_legible_from_the_back(make_window, qtbot):
    from desktop.editor.canvas.view import LEGIBLE_ZOOM

    window = make_window()
    window.resize(1920, 1080)
    window.actions_by_id["view.projector"].setChecked(True)
    window.document.set_design(read_design(templates()["multi-region"])[0])
    assert window.view.zoom() >= LEGIBLE_ZOOM * PROJECTOR_SCALE - 1e-9
    window.actions_by_id["view.projector"].setChecked(False)
