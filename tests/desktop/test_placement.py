"""New components and pasted groups land in free space: never on top of a card already there
(checked on the drawn cards' rectangles, not on the placement code's own arithmetic)."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF


def card_rects(window, ids=None):
    """Scene rectangles of the drawn component cards (regions are containers: cards may sit in them)."""
    design = window.document.design
    return {node_id: item.sceneBoundingRect() for node_id, item in window.scene.nodes.items()
            if (ids is None or node_id in ids) and not design.catalog.kind(design.node(node_id).kind).container}


def overlapping_pairs(rects):
    names = sorted(rects)
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if rects[a].intersects(rects[b])]


def test_added_components_land_in_free_space_near_the_view_centre(window):
    window.view.centerOn(window.scene.nodes["batcher"].sceneBoundingRect().center())  # aim at a busy spot
    centre = window.view.visible_centre()
    for _ in range(6):
        window.component_palette.kind_activated.emit("gpu_pool")
    added = [f"gpu_pool-{n}" for n in range(1, 7)]
    assert set(added) <= set(window.document.design.nodes)
    assert overlapping_pairs(card_rects(window)) == []
    for node_id in added:
        middle = window.scene.nodes[node_id].sceneBoundingRect().center()
        assert math.hypot(middle.x() - centre.x(), middle.y() - centre.y()) < 800, node_id
    assert window.document.undo_stack.count() == 6


def test_a_card_added_into_an_empty_spot_stays_at_the_centre(make_window):
    window = make_window()
    centre = window.view.visible_centre()
    window.component_palette.kind_activated.emit("cache")
    middle = window.scene.nodes["cache-1"].sceneBoundingRect().center()
    assert math.hypot(middle.x() - centre.x(), middle.y() - centre.y()) < 60


def test_paste_and_duplicate_go_to_a_free_spot_not_onto_other_cards(window):
    design = window.document.design
    window.scene.select_ids(["batcher", "gpus"])
    window.actions_by_id["edit.copy"].trigger()
    for _ in range(3):
        window.actions_by_id["edit.paste"].trigger()
    window.scene.select_ids(["lb"])
    window.actions_by_id["edit.duplicate"].trigger()
    assert {"dynamic_batcher-3", "gpu_pool-3", "regional_load_balancer-1"} <= set(design.nodes)
    assert overlapping_pairs(card_rects(window)) == []
    # each pasted pair keeps its shape and stays near the original
    for n in (1, 2, 3):
        batcher, gpus = design.node(f"dynamic_batcher-{n}"), design.node(f"gpu_pool-{n}")
        assert (gpus.x - batcher.x, gpus.y - batcher.y) == (250, 0)
        assert math.hypot(batcher.x - 290, batcher.y - 60) < 900
    assert window.document.undo_stack.count() == 4


def test_a_pasted_member_joins_the_region_it_lands_in_or_none(window):
    design = window.document.design
    window.scene.select_ids(["gpus"])
    window.actions_by_id["edit.duplicate"].trigger()
    copy = design.node("gpu_pool-1")
    region = window.scene.nodes["use1"].sceneBoundingRect()
    inside = region.contains(QPointF(copy.x + 88, copy.y + 20))
    assert copy.region == ("use1" if inside else None)


def test_the_multi_region_example_opens_legible_with_its_entry_in_view(make_window, qtbot):
    from desktop.editor.canvas.node_item import NodeItem
    from desktop.shell.templates import templates

    window = make_window()
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.view.viewport().width() > 600)
    assert window.files.open(templates()["multi-region"])
    zoom = window.view.zoom()
    visible = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    # card text: the smallest card font, in screen pixels at this zoom
    smallest_pt = 7.5
    assert smallest_pt * window.logicalDpiY() / 72 * zoom >= 8.0
    for entry in ("users-us", "glb"):
        assert visible.contains(window.scene.nodes[entry].sceneBoundingRect()), entry
    assert isinstance(window.scene.nodes["users-us"], NodeItem)
    # Fit Everything still shows it all, smaller
    window.actions_by_id["view.fit_all"].trigger()
    visible = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    assert visible.contains(window.scene.nodes_rect())
