"""Where new things go: the free spot nearest a wanted position, so an added component or a
pasted group never lands on top of existing cards. Plain rectangles (x, y, width, height) taken
from the model, so the search is independent of what the scene has drawn yet."""

from __future__ import annotations

import math
from typing import Iterable, Iterator

from inferboard.model import Design, Node

from desktop.editor.canvas import style
from desktop.editor.canvas.node_item import card_size

Rect = tuple[float, float, float, float]
#: Clear space kept around a placed card, so wires and ports stay readable.
MARGIN = 30.0
STEP = 2 * style.GRID
MAX_RINGS = 400


def node_rect(design: Design, node: Node) -> Rect:
    """A node's (x, y, w, h) on the canvas: a region's own size, a card's size from its kind and parameters."""
    kind = design.catalog.kind(node.kind)
    if kind.container:
        return node.x, node.y, node.width or 360.0, node.height or 260.0
    return (node.x, node.y, *card_size(kind, node.params))


def obstacles(design: Design, container: bool, exclude: Iterable[str] = ()) -> list[Rect]:
    """What a new item must not overlap: a card avoids other cards (it may sit inside a region);
    a region avoids everything."""
    skip = set(exclude)
    out = []
    for node in design.nodes.values():
        if node.id in skip:
            continue
        if container or not design.catalog.kind(node.kind).container:
            out.append(node_rect(design, node))
    return out


def overlaps(a: Rect, b: Rect, margin: float = MARGIN) -> bool:
    """Whether two rectangles come closer than ``margin``."""
    return (a[0] < b[0] + b[2] + margin and b[0] < a[0] + a[2] + margin
            and a[1] < b[1] + b[3] + margin and b[1] < a[1] + a[3] + margin)


def _rings(step: float) -> Iterator[list[tuple[float, float]]]:
    """Offsets ring by ring (squares of growing size), each ring nearest first."""
    yield [(0.0, 0.0)]
    for k in range(1, MAX_RINGS):
        ring = [(i * step, j * step) for i in range(-k, k + 1) for j in range(-k, k + 1)
                if max(abs(i), abs(j)) == k]
        ring.sort(key=lambda d: math.hypot(*d))
        yield ring


def free_position(width: float, height: float, want_x: float, want_y: float, taken: list[Rect],
                  step: float = STEP) -> tuple[float, float]:
    """The top-left corner nearest (``want_x``, ``want_y``), on the grid, where a ``width`` x
    ``height`` rectangle overlaps none of ``taken`` (keeping ``MARGIN`` clear)."""
    x0, y0 = style.snap(want_x), style.snap(want_y)
    for ring in _rings(step):
        for dx, dy in ring:
            rect = (x0 + dx, y0 + dy, width, height)
            if not any(overlaps(rect, other) for other in taken):
                return rect[0], rect[1]
    return x0, y0


def bounds(rects: Iterable[Rect]) -> Rect:
    """The smallest rectangle holding all of ``rects``."""
    rects = list(rects)
    left = min(r[0] for r in rects)
    top = min(r[1] for r in rects)
    right = max(r[0] + r[2] for r in rects)
    bottom = max(r[1] + r[3] for r in rects)
    return left, top, right - left, bottom - top


def contains_point(rect: Rect, x: float, y: float) -> bool:
    """Whether (x, y) lies in ``rect`` (edges included)."""
    return rect[0] <= x <= rect[0] + rect[2] and rect[1] <= y <= rect[1] + rect[3]
