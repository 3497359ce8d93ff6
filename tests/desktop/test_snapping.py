"""yEd-style snap lines: edges and centres align; equal spacing; suspended while a modifier is held."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt

from desktop.editor.canvas.snapping import snap_rect
from tests.desktop.gestures import drag, header_of


def test_left_edges_and_centres_align_within_tolerance(qapp):
    result = snap_rect(QRectF(104, 300, 100, 50), [QRectF(100, 0, 100, 50)], 8)
    assert result.dx == -4 and result.snapped_x and not result.snapped_y
    assert any(g.x1() == g.x2() == 100 for g in result.guides)
    result = snap_rect(QRectF(0, 131, 60, 40), [QRectF(300, 100, 100, 100)], 8)
    assert result.dy == -1  # centre 151 -> 150


def test_equal_spacing_between_and_beside_neighbours(qapp):
    row = [QRectF(0, 0, 50, 50), QRectF(100, 0, 50, 50)]
    result = snap_rect(QRectF(203, 10, 50, 50), row, 8)  # gap 50 repeated: x -> 200
    assert result.dx == -3
    between = snap_rect(QRectF(0, 200, 40, 40), [QRectF(0, 0, 40, 40), QRectF(0, 300, 40, 40)], 8)
    assert not between.snapped_y  # centred would be at 150: too far
    between = snap_rect(QRectF(0, 147, 40, 40), [QRectF(0, 0, 40, 40), QRectF(0, 300, 40, 40)], 8)
    assert between.dy == 3 and between.snapped_y


def test_nothing_near_means_no_snap(qapp):
    result = snap_rect(QRectF(1000, 1000, 10, 10), [QRectF(0, 0, 10, 10)], 8)
    assert (result.dx, result.dy, result.guides) == (0, 0, [])


def test_dragging_snaps_to_a_neighbour_unless_a_modifier_is_held(window):
    design = window.document.design
    window.actions_by_id["view.snap_grid"].setChecked(False)
    lb_y = design.node("lb").y
    users = header_of(window, "users")
    drag(window.view, users, users + QPointF(0, lb_y - design.node("users").y + 3))
    assert design.node("users").y == lb_y  # snapped onto the load balancer's top edge
    drag(window.view, header_of(window, "users"), header_of(window, "users") + QPointF(0, 23),
         modifiers=Qt.KeyboardModifier.AltModifier)
    assert abs(design.node("users").y - (lb_y + 23)) < 0.6  # free move: no snapping at all
    assert window.scene.guides.path().isEmpty()  # guides are cleared after the drag
