"""The minimap: toggled by Ctrl+M and remembered, drawn from the model (a new card far away widens
it), and clicking or dragging in it moves the view there."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QColor

from inferboard.model import ops

from tests.desktop.gestures import send_mouse


def shown_minimap(window, qtbot):
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(window.minimap.isVisible)
    return window.minimap


def test_ctrl_m_shows_it_in_the_corner_and_the_choice_is_remembered(window, qtbot):
    assert not window.minimap.isVisible()
    minimap = shown_minimap(window, qtbot)
    viewport = window.view.viewport().rect()  # the minimap is a child of the viewport
    place = minimap.geometry()
    assert viewport.contains(place) and place.right() > viewport.center().x() and place.bottom() > viewport.center().y()
    bar = window.view.horizontalScrollBar()
    bar.setValue(bar.value() + 37)  # the scroll moves the viewport's children; the minimap stays put
    assert minimap.geometry() == place
    assert window.settings.value("view/minimap") == "true"
    qtbot.keyClick(window.view, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    assert not minimap.isVisible() and window.settings.value("view/minimap") == "false"


def test_cards_are_drawn_where_the_model_puts_them(window, qtbot):
    minimap = shown_minimap(window, qtbot)
    image = minimap.design_picture().toImage()
    design = window.document.design
    users = design.node("users")
    corner = minimap.to_map(QPointF(users.x + 4, users.y + 4)).toPoint()  # inside the card, off its wire
    assert image.pixelColor(corner) == QColor(window.theme_manager.theme.card_header)
    assert image.pixelColor(QPoint(3, 3)) == QColor(window.theme_manager.theme.canvas)
    before = QPointF(minimap.world.right(), minimap.world.bottom())
    window.document.execute(ops.AddNode(design.make_node("cache", 4000, 3000, node_id="far")), "Add")
    minimap.design_picture()
    assert minimap.world.contains(QPointF(4000, 3000)) and minimap.world.right() > before.x()


def test_a_click_moves_the_view_there_and_a_drag_pans_it(window, qtbot):
    minimap = shown_minimap(window, qtbot)
    window.view.reset_zoom()
    minimap.design_picture()
    gpus = window.scene.nodes["gpus"].sceneBoundingRect().center()
    at = minimap.to_map(gpus).toPoint()
    send_mouse(minimap, QEvent.Type.MouseButtonPress, at)
    send_mouse(minimap, QEvent.Type.MouseButtonRelease, at, buttons=Qt.MouseButton.NoButton)
    tolerance = 2 / minimap.scale  # a minimap pixel, rounded either way
    centre = window.view.visible_centre()
    assert abs(centre.x() - gpus.x()) <= tolerance and abs(centre.y() - gpus.y()) <= tolerance
    send_mouse(minimap, QEvent.Type.MouseButtonPress, at)  # grab the outline and drag it left
    send_mouse(minimap, QEvent.Type.MouseMove, at - QPoint(20, 0), button=Qt.MouseButton.NoButton)
    send_mouse(minimap, QEvent.Type.MouseButtonRelease, at - QPoint(20, 0), buttons=Qt.MouseButton.NoButton)
    moved = window.view.visible_centre()
    assert abs(moved.x() - (centre.x() - 20 / minimap.scale)) <= tolerance
    assert abs(moved.y() - centre.y()) <= tolerance
