"""yEd-style snap lines: while a node is dragged, its edges and centre snap to those of the other
nodes, and it snaps to equal spacing beside its neighbours. Pure geometry on QRectF."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QLineF, QRectF


@dataclass
class SnapResult:
    """How far a snap moves the dragged cards, and on which axes it snapped."""

    dx: float = 0.0
    dy: float = 0.0
    snapped_x: bool = False
    snapped_y: bool = False
    guides: list[QLineF] = field(default_factory=list)


class _Axis:
    """Reads a rect along one axis (``lo``/``hi``) and across it (``cross_lo``/``cross_hi``)."""

    def __init__(self, horizontal: bool):
        self.horizontal = horizontal

    def lo(self, r: QRectF) -> float:
        return r.left() if self.horizontal else r.top()

    def hi(self, r: QRectF) -> float:
        return r.right() if self.horizontal else r.bottom()

    def cross_lo(self, r: QRectF) -> float:
        return r.top() if self.horizontal else r.left()

    def cross_hi(self, r: QRectF) -> float:
        return r.bottom() if self.horizontal else r.right()

    def marks(self, r: QRectF) -> tuple[float, float, float]:
        return self.lo(r), (self.lo(r) + self.hi(r)) / 2, self.hi(r)

    def line(self, along_a: float, along_b: float, across: float) -> QLineF:
        if self.horizontal:
            return QLineF(along_a, across, along_b, across)
        return QLineF(across, along_a, across, along_b)


X, Y = _Axis(True), _Axis(False)


def _alignment_shift(axis: _Axis, moving: QRectF, others: list[QRectF], tolerance: float) -> float | None:
    best = None
    for other in others:
        for mine in axis.marks(moving):
            for theirs in axis.marks(other):
                shift = theirs - mine
                if abs(shift) <= tolerance and (best is None or abs(shift) < abs(best)):
                    best = shift
    return best


def _spacing_options(axis: _Axis, moving: QRectF, others: list[QRectF]) -> list[tuple[float, list[tuple]]]:
    """Shifts that give equal spacing, each with the gaps (as (start, end) pairs, after the shift)
    that it makes equal: centred between two neighbours, or repeating a neighbour pair's gap."""
    band = [r for r in others if axis.cross_lo(r) < axis.cross_hi(moving) and axis.cross_hi(r) > axis.cross_lo(moving)]
    lo, hi = axis.lo(moving), axis.hi(moving)
    size, centre = hi - lo, (lo + hi) / 2
    before = sorted((r for r in band if axis.hi(r) <= centre), key=axis.hi)
    after = sorted((r for r in band if axis.lo(r) >= centre), key=axis.lo)
    options = []
    if before and after:
        left, right = before[-1], after[0]
        start = (axis.hi(left) + axis.lo(right) - size) / 2
        if start >= axis.hi(left):
            options.append((start - lo, [(axis.hi(left), start), (start + size, axis.lo(right))]))
    if len(before) >= 2:
        near, far = before[-1], before[-2]
        gap = axis.lo(near) - axis.hi(far)
        if gap > 0:
            start = axis.hi(near) + gap
            options.append((start - lo, [(axis.hi(far), axis.lo(near)), (axis.hi(near), start)]))
    if len(after) >= 2:
        near, far = after[0], after[1]
        gap = axis.lo(far) - axis.hi(near)
        if gap > 0:
            end = axis.lo(near) - gap
            options.append((end - hi, [(end, axis.lo(near)), (axis.hi(near), axis.lo(far))]))
    return options


def _axis_snap(axis: _Axis, moving: QRectF, others: list[QRectF], tolerance: float):
    """(shift, spacing gaps or None) for one axis, or None when nothing is within tolerance."""
    align = _alignment_shift(axis, moving, others, tolerance)
    spacing = [o for o in _spacing_options(axis, moving, others) if abs(o[0]) <= tolerance]
    best_space = min(spacing, key=lambda o: abs(o[0])) if spacing else None
    if align is not None and (best_space is None or abs(align) <= abs(best_space[0])):
        return align, None
    if best_space is not None:
        return best_space
    return None


def snap_rect(moving: QRectF, others: list[QRectF], tolerance: float) -> SnapResult:
    """How far to shift ``moving`` so it lines up with ``others``, and the guides to draw."""
    result = SnapResult()
    near = [r for r in others if r.intersects(moving.adjusted(-1500, -1500, 1500, 1500))]
    if not near:
        return result
    gaps_x = gaps_y = None
    snapped = _axis_snap(X, moving, near, tolerance)
    if snapped is not None:
        (result.dx, gaps_x), result.snapped_x = snapped, True
    snapped = _axis_snap(Y, moving, near, tolerance)
    if snapped is not None:
        (result.dy, gaps_y), result.snapped_y = snapped, True
    final = moving.translated(result.dx, result.dy)
    result.guides = _alignment_guides(final, near)
    for axis, gaps in ((X, gaps_x), (Y, gaps_y)):
        if gaps:
            across = (axis.cross_lo(final) + axis.cross_hi(final)) / 2
            result.guides.extend(axis.line(a, b, across) for a, b in gaps)
    return result


def _alignment_guides(final: QRectF, others: list[QRectF]) -> list[QLineF]:
    """A line through every edge or centre ``final`` shares with another rect."""
    lines: list[QLineF] = []
    for axis, cross in ((X, Y), (Y, X)):
        for mine in axis.marks(final):
            hits = [r for r in others if any(abs(mine - t) < 0.5 for t in axis.marks(r))]
            if hits:
                start = min([cross.lo(final), *(cross.lo(r) for r in hits)]) - 8
                end = max([cross.hi(final), *(cross.hi(r) for r in hits)]) + 8
                lines.append(cross.line(start, end, mine))
    return lines
