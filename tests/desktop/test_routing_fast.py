"""The wire router counts crossings on arrays (a drag routes a hundred wires a frame); it must pick
exactly the route the plain one-at-a-time count picks. The reference below is that count written
out on its own, over random layouts of cards."""

from __future__ import annotations

import random

import numpy as np

from desktop.editor.canvas import routing
from desktop.editor.canvas.routing import CLEAR, crossings_each, route


def crosses(a, b, rect, pad):
    left, top, right, bottom = rect[0] + pad, rect[1] + pad, rect[0] + rect[2] - pad, rect[1] + rect[3] - pad
    if a[1] == b[1]:
        lo, hi = min(a[0], b[0]), max(a[0], b[0])
        return top < a[1] < bottom and lo < right and hi > left
    lo, hi = min(a[1], b[1]), max(a[1], b[1])
    return left < a[0] < right and lo < bottom and hi > top


def count(points, rects, pad):
    return sum(1 for a, b in zip(points, points[1:]) for r in rects if crosses(a, b, r, pad))


def layout(rng: random.Random):
    cards = []
    for _ in range(rng.randint(2, 40)):
        cards.append((rng.randrange(0, 2000, 10), rng.randrange(0, 1200, 10), rng.choice((150, 170, 190)),
                      rng.choice((60, 72, 90))))
    source, target = rng.sample(cards, 2)
    start = (source[0] + source[2] + 4, source[1] + rng.choice((20, 36, 52)))
    end = (target[0] - 6, target[1] + rng.choice((20, 36, 52)))
    others = [c for c in cards if c not in (source, target)]
    return start, end, source, target, others


def test_the_array_count_matches_the_plain_count_segment_by_segment():
    rng = random.Random(7)
    for _ in range(300):
        start, end, source, target, others = layout(rng)
        routes = [[start, (x, start[1]), (x, end[1]), end] for x in range(int(start[0]), int(end[0]) + 200, 37)]
        routes.append([start, (start[0] + 6, start[1]), (start[0] + 6, -50), (end[0] - 6, -50), (end[0] - 6, end[1]),
                       end])
        for pad in (-CLEAR / 2, 2.0, 4.0):
            assert crossings_each(routes, others, pad).tolist() == [count(r, others, pad) for r in routes]


def test_the_router_picks_the_route_the_plain_count_picks(monkeypatch):
    rng = random.Random(11)
    cases = [layout(rng) for _ in range(150)]
    fast = [route(*case) for case in cases]

    def plain(routes, rects, pad=4.0):
        rects = list(rects)
        return np.array([count(pts, rects, pad) for pts in routes], dtype=np.int64)

    monkeypatch.setattr(routing, "crossings_each", plain)  # same candidates and choice, counted one by one
    assert fast == [route(*case) for case in cases]


def test_no_cards_and_no_routes_count_nothing():
    assert crossings_each([], [(0, 0, 10, 10)]).tolist() == []
    assert crossings_each([[(0, 0), (5, 0)]], []).tolist() == [0]


def test_a_clear_forward_route_is_taken_without_weighing_the_ways_round(monkeypatch):
    """A way round is never shorter than a forward route, so when one forward route crosses no card
    the router looks only at the forward ones (at most 81), and the route has one vertical run."""
    looked_at = []
    first_clear = routing._first_clear

    def counting(routes, *rest):
        looked_at.append(len(routes))
        return first_clear(routes, *rest)

    monkeypatch.setattr(routing, "_first_clear", counting)
    source, target = (0, 0, 170, 72), (600, 300, 170, 72)
    points = route((174, 36), (594, 336), source, target, [(300, 600, 170, 72)])
    assert len(points) == 4 and points[1][0] == points[2][0]
    assert len(looked_at) == 1 and looked_at[0] <= 81


def test_the_first_clear_route_is_found_one_by_one_or_on_arrays_alike():
    """Routes tried one by one and routes weighed together on arrays agree on which is the first
    clear one, wherever in the list it stands."""
    source, target = (0, 0, 100, 60), (400, 0, 100, 60)
    blocker = (200, -100, 20, 400)
    blocked = [[(104, 30), (150 + i, 30), (150 + i, 30), (394, 30)] for i in range(12)]
    free = [[(104, 30), (104, -200), (394, -200), (394, 30)]]
    for at in range(len(blocked) + 1):
        routes = blocked[:at] + free + blocked[at:]
        assert routing._first_clear(routes, source, target, [blocker]) is routes[at]
    assert routing._first_clear(blocked, source, target, [blocker]) is None
