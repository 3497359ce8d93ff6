"""Orthogonal wire routes: out of the output port to the right, into the input port from the left,
with vertical runs placed in free channels between cards, and a detour above or below both cards
when the target sits to the left of the source (no U-turn through the cards themselves).

Plain (x, y) tuples and (x, y, width, height) rectangles, so routes are testable on their own."""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

Point = tuple[float, float]
Rect = tuple[float, float, float, float]
#: Straight run out of a port before the first bend.
STUB = 18.0
#: Clearance between a wire and a card it passes.
CLEAR = 14.0
CHANNEL_STEP = 10.0


def _crosses(a: Point, b: Point, rect: Rect, pad: float = 4.0) -> bool:
    """Whether the axis-parallel segment a-b passes through ``rect`` (shrunk by ``pad``)."""
    left, top = rect[0] + pad, rect[1] + pad
    right, bottom = rect[0] + rect[2] - pad, rect[1] + rect[3] - pad
    if a[1] == b[1]:  # horizontal
        lo, hi = sorted((a[0], b[0]))
        return top < a[1] < bottom and lo < right and hi > left
    lo, hi = sorted((a[1], b[1]))
    return left < a[0] < right and lo < bottom and hi > top


def crossings(points: Sequence[Point], rects: Iterable[Rect], pad: float = 4.0) -> int:
    """Segments through cards; a negative ``pad`` also counts passing closer than -pad."""
    rects = list(rects)
    return sum(1 for a, b in zip(points, points[1:]) for r in rects if _crosses(a, b, r, pad))


def crossings_each(routes: Sequence[Sequence[Point]], rects: Sequence[Rect], pad: float = 4.0) -> np.ndarray:
    """``crossings`` of every route at once (a route's count at its index), the same test as
    ``_crosses`` done on arrays: a drag routes a hundred wires a frame, each weighing hundreds of
    candidate routes against every card near it."""
    owners = [i for i, pts in enumerate(routes) for _ in range(len(pts) - 1)]
    if not owners or not rects:
        return np.zeros(len(routes), dtype=np.int64)
    a = np.array([p for pts in routes for p in pts[:-1]], dtype=float)
    b = np.array([p for pts in routes for p in pts[1:]], dtype=float)
    boxes = np.asarray(rects, dtype=float)
    left, top = boxes[:, 0] + pad, boxes[:, 1] + pad
    right, bottom = boxes[:, 0] + boxes[:, 2] - pad, boxes[:, 1] + boxes[:, 3] - pad
    horizontal = (a[:, 1] == b[:, 1])[:, None]
    x, y = a[:, 0:1], a[:, 1:2]
    lo_x, hi_x = np.minimum(a[:, 0], b[:, 0])[:, None], np.maximum(a[:, 0], b[:, 0])[:, None]
    lo_y, hi_y = np.minimum(a[:, 1], b[:, 1])[:, None], np.maximum(a[:, 1], b[:, 1])[:, None]
    across = (top < y) & (y < bottom) & (lo_x < right) & (hi_x > left)
    down = (left < x) & (x < right) & (lo_y < bottom) & (hi_y > top)
    per_segment = np.where(horizontal, across, down).sum(axis=1)
    return np.bincount(np.asarray(owners), weights=per_segment, minlength=len(routes)).astype(np.int64)


def length(points: Sequence[Point]) -> float:
    """The length of a path of horizontal and vertical segments."""
    return sum(abs(b[0] - a[0]) + abs(b[1] - a[1]) for a, b in zip(points, points[1:]))


def _simplify(points: list[Point]) -> list[Point]:
    out: list[Point] = []
    for p in points:
        if out and abs(out[-1][0] - p[0]) < 1e-6 and abs(out[-1][1] - p[1]) < 1e-6:
            continue
        if len(out) >= 2 and ((out[-2][0] == out[-1][0] == p[0]) or (out[-2][1] == out[-1][1] == p[1])):
            out[-1] = p
            continue
        out.append(p)
    return out


def route(start: Point, end: Point, source: Rect, target: Rect, others: Iterable[Rect] = ()) -> list[Point]:
    """The corner points of a wire from ``start`` (an output port on ``source``'s right edge) to
    ``end`` (an input port on ``target``'s left edge), avoiding ``others`` where it can."""
    others = list(others)
    if abs(start[1] - end[1]) < 0.5 and end[0] > start[0]:
        straight = [start, end]
        if crossings(straight, others) == 0:
            return straight
    candidates: list[list[Point]] = []
    low, high = start[0] + STUB, end[0] - STUB
    if high >= low:  # forwards: one vertical run in the freest channel, nearest the middle first
        middle = (low + high) / 2
        steps = int((high - low) / CHANNEL_STEP)
        channels = low + np.arange(steps + 1) * CHANNEL_STEP
        xs = channels[np.argsort(np.abs(channels - middle), kind="stable")[:80]].tolist()
        for x in xs or [middle]:
            candidates.append([start, (x, start[1]), (x, end[1]), end])
        found = _first_clear(candidates, source, target, others)
        if found is not None:  # all forward routes are as long, and a way round is never shorter
            return _simplify(found)
    # round above or below: out a short way, along a free horizontal channel, and in from the
    # left (the only way when the target is behind the source, or a card blocks every channel)
    outs = [start[0] + d for d in (6.0, 12.0, STUB)]
    ins = [end[0] - d for d in (6.0, 12.0, STUB)]
    span_lo, span_hi = min(outs + ins), max(outs + ins)
    blockers = [source, target, *[r for r in others if r[0] < span_hi and r[0] + r[2] > span_lo]]
    levels = [min(source[1], target[1]) - CLEAR, max(source[1] + source[3], target[1] + target[3]) + CLEAR,
              min(r[1] for r in blockers) - CLEAR, max(r[1] + r[3] for r in blockers) + CLEAR]
    levels += [y for r in blockers for y in (r[1] - CLEAR, r[1] + r[3] + CLEAR)]
    for y in dict.fromkeys(levels):
        for out_x in outs:
            for in_x in ins:
                candidates.append([start, (out_x, start[1]), (out_x, y), (in_x, y), (in_x, end[1]), end])

    # The shortest route that crosses no card (among equals the earlier, nearer the middle, wins);
    # when every route crosses something, the one crossing fewest.
    ordered = sorted(candidates, key=length)
    found = _first_clear(ordered, source, target, others)
    if found is not None:
        return _simplify(found)
    hits = _hits(ordered, source, target, others)
    return _simplify(min(zip(hits.tolist(), ordered), key=lambda item: item[0] * 1e6 + length(item[1]))[1])


def _hits(routes: Sequence[Sequence[Point]], source: Rect, target: Rect, others: Sequence[Rect]) -> np.ndarray:
    """Per route, the cards it passes too close to plus its crossings of its own two cards."""
    return crossings_each(routes, others, -CLEAR / 2) + crossings_each(routes, (source, target), 2.0)


#: How many candidate routes are tried one by one before the rest are weighed together on arrays:
#: the first is usually clear, and a drag routes dozens of wires a frame.
TRIED_ONE_BY_ONE = 4


def _clear(points: Sequence[Point], source: Rect, target: Rect, others: Sequence[Rect]) -> bool:
    """Whether the route passes no card too closely and crosses neither of its own two (``_hits`` is 0)."""
    for a, b in zip(points, points[1:]):
        if any(_crosses(a, b, r, -CLEAR / 2) for r in others) or \
                _crosses(a, b, source, 2.0) or _crosses(a, b, target, 2.0):
            return False
    return True


def _first_clear(routes: Sequence[Sequence[Point]], source: Rect, target: Rect,
                 others: Sequence[Rect]) -> Sequence[Point] | None:
    """The first route whose ``_hits`` is 0 (None when there is none): the first few tried one by
    one, the rest together."""
    for points in routes[:TRIED_ONE_BY_ONE]:
        if _clear(points, source, target, others):
            return points
    rest = routes[TRIED_ONE_BY_ONE:]
    if rest:
        clear = np.flatnonzero(_hits(rest, source, target, others) == 0)
        if clear.size:
            return rest[int(clear[0])]
    return None
