"""The outline mirrors the graph and the selection; exports are written atomically, SVG keeps text."""

from __future__ import annotations

from PySide6.QtGui import QImage

from inferboard.model import ops
from desktop.theme import DARK


def test_outline_lists_every_node_and_link_and_follows_edits(window):
    outline = window.outline
    outline.flush()
    assert outline.components.childCount() == 5 and outline.links.childCount() == 3
    assert outline.item_for(node_id="gpus").text(0).startswith("GPU pool (gpus) in use1")
    assert outline.item_for(edge_id="e2").text(0) == "lb.requests → batcher.requests"
    window.document.execute(ops.RemoveNode("batcher"), "delete")
    outline.flush()
    assert outline.components.childCount() == 4 and outline.links.childCount() == 1
    window.document.undo_stack.undo()
    outline.flush()
    assert outline.links.childCount() == 3


def test_outline_and_canvas_selection_are_the_same(window):
    outline = window.outline
    window.scene.select_ids(["gpus"], ["e1"])
    assert outline.selected_ids() == ({"gpus"}, {"e1"})
    outline.tree.clearSelection()
    outline.item_for(node_id="lb").setSelected(True)
    assert window.scene.selected_node_ids() == ["lb"] and window.inspector.node_id == "lb"
    # Enter on a component opens it in the inspector
    outline.tree.itemActivated.emit(outline.item_for(node_id="users"), 0)
    assert window.inspector.node_id == "users"
    assert window.inspector.label_edit.hasFocus() or window.inspector.isVisible()


def test_delete_from_the_outline_with_the_keyboard(window, qtbot):
    from PySide6.QtCore import Qt

    window.outline.flush()
    window.outline.tree.setFocus()
    window.outline.item_for(node_id="users").setSelected(True)
    qtbot.keyClick(window.outline.tree, Qt.Key.Key_Delete)
    assert "users" not in window.document.design.nodes
    assert window.document.undo_stack.count() == 1


def test_export_png_at_1x_and_2x_and_svg_with_text(window, tmp_path):
    one = window.export_png(1, str(tmp_path / "d.png"))
    two = window.export_png(2, str(tmp_path / "d2.png"))
    a, b = QImage(str(one)), QImage(str(two))
    assert not a.isNull() and abs(b.width() - 2 * a.width()) <= 1 and abs(b.height() - 2 * a.height()) <= 1
    svg = window.export_svg(str(tmp_path / "d.svg")).read_text(encoding="utf-8")
    assert "<svg" in svg and "<text" in svg and "GPU pool" in svg and "gpus" in svg
    assert not list(tmp_path.glob(".*.tmp"))  # written atomically: no temporary left behind
    assert window.scene.guides.isVisible()  # the scene is back to normal after exporting


def test_export_keeps_the_selection(window, tmp_path):
    window.scene.select_ids(["gpus"])
    window.export_png(1, str(tmp_path / "x.png"))
    assert window.scene.selected_node_ids() == ["gpus"]


def test_dark_theme_applies_everywhere(window):
    window.actions_by_id["view.theme_dark"].trigger()
    assert window.theme_manager.theme is DARK
    assert window.scene.theme is DARK and window.scene.nodes["gpus"].theme is DARK
    assert window.scene.backgroundBrush().color().name() == DARK.canvas
    assert window.settings.value("view/theme") == "dark"
    window.actions_by_id["view.theme_light"].trigger()
    assert not window.scene.theme.dark
