"""Every number in the window says how far to trust it: the tiles on hover, the cards' badges, and
the selected component's figures in the inspector."""

from __future__ import annotations

import html

from inferboard.sim.steady.design_sim import evaluate
from inferboard.sim.explain.trust import TABLE, steady_trust


def test_tiles_badges_and_inspector_carry_the_trust_label(window, qtbot):
    result = evaluate(window.document.design)
    expected = steady_trust(result)
    assert expected["p99_ms"].method == TABLE  # the demo design batches on its GPU pool
    window.evaluator.latest["steady"] = result
    window.presenter.on_steady(result)
    tiles = window.readouts.tiles
    for key, tile in tiles.items():
        assert tile.trust == expected[key].text()
        assert html.escape(expected[key].error) in tile.toolTip() and tile.accessibleDescription() == tile.trust
    gpus = window.scene.nodes["gpus"]
    assert "table with stated error" in gpus.badge_tip.lower()
    users = window.scene.nodes["users"]  # the traffic source's p99 badge
    assert html.escape(expected["p99_ms"].error) in users.badge_tip
    window.scene.select_ids(["gpus"])
    assert html.escape(expected["p99_ms"].error) in window.inspector.live.text()
