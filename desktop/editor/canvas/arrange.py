"""Align, distribute, group and ungroup the selection: each builds one model op (the caller runs
it as one undo command). Worked out from the model's rectangles, like ``placement``.

A selected region moves with its members; a card that ends up in another region's rectangle joins
that region, as after a drag. Grouping puts the selected cards in a new region fitted round them;
ungrouping removes a region and leaves its members where they are."""

from __future__ import annotations

from typing import Iterable

from inferboard.model import Design, EditRefused, ops

from desktop.editor.canvas import placement, style

EDGES = ("left", "right", "top", "bottom", "centre_x", "centre_y")
#: Space between a new group's edge and the cards in it; the top leaves room for its header.
GROUP_MARGIN = 30.0
GROUP_HEADER = 40.0


def is_region(design: Design, node_id: str) -> bool:
    """Whether node ``node_id`` is a container (a region) rather than a component."""
    return design.catalog.kind(design.node(node_id).kind).container


def units(design: Design, ids: Iterable[str]) -> list[str]:
    """The selected nodes that move on their own: a member whose region is selected moves with it."""
    chosen = [i for i in ids if i in design.nodes]
    picked = set(chosen)
    return [i for i in chosen if design.node(i).region not in picked]


def edge_of(rect: placement.Rect, edge: str) -> float:
    """The coordinate of one edge ("left", "top", "centre_x", ...) of an (x, y, w, h) rectangle."""
    x, y, w, h = rect
    return {"left": x, "right": x + w, "top": y, "bottom": y + h, "centre_x": x + w / 2, "centre_y": y + h / 2}[edge]


def moves_op(design: Design, deltas: dict[str, tuple[float, float]], title: str) -> ops.Compound | None:
    """Move each unit by its delta (a region's members with it) and re-home the cards that moved
    into or out of a region; None if nothing moves."""
    positions: dict[str, tuple[float, float]] = {}
    for node_id, (dx, dy) in deltas.items():
        if abs(dx) < 1e-9 and abs(dy) < 1e-9:
            continue
        moving = [node_id] + ([m.id for m in design.members(node_id)] if is_region(design, node_id) else [])
        for moved in moving:
            node = design.node(moved)
            positions[moved] = (round(node.x + dx, 2), round(node.y + dy, 2))
    if not positions:
        return None
    return ops.Compound((ops.MoveNodes(positions), *rehome(design, positions)), title)


def rehome(design: Design, positions: dict[str, tuple[float, float]]) -> list[ops.SetRegion]:
    """SetRegion for each moved card whose centre now lies in another region (or in none)."""
    regions = []
    for node in design.nodes.values():
        if design.catalog.kind(node.kind).container:
            x, y = positions.get(node.id, (node.x, node.y))
            _x, _y, w, h = placement.node_rect(design, node)
            regions.append((node.id, (x, y, w, h)))
    out = []
    for node_id, (x, y) in positions.items():
        node = design.node(node_id)
        if is_region(design, node_id) or node.region in positions:
            continue
        _x, _y, w, h = placement.node_rect(design, node)
        home = next((rid for rid, rect in reversed(regions) if placement.contains_point(rect, x + w / 2, y + h / 2)),
                    None)
        if home != node.region:
            out.append(ops.SetRegion(node_id, home))
    return out


def align_op(design: Design, ids: Iterable[str], edge: str) -> ops.Compound | None:
    """Line the selection up on the outermost ``edge`` (left, right, top, bottom) or on the mean
    centre (centre_x, centre_y). Needs two or more units."""
    chosen = units(design, ids)
    if len(chosen) < 2:
        return None
    rects = {i: placement.node_rect(design, design.node(i)) for i in chosen}
    values = [edge_of(r, edge) for r in rects.values()]
    target = {"left": min, "top": min, "right": max, "bottom": max}.get(edge, lambda v: sum(v) / len(v))(values)
    if edge.startswith("centre"):
        target = style.snap(target, 1.0)
    horizontal = edge in ("left", "right", "centre_x")
    deltas = {i: ((target - edge_of(r, edge), 0.0) if horizontal else (0.0, target - edge_of(r, edge)))
              for i, r in rects.items()}
    return moves_op(design, deltas, f"Align {len(chosen)} components: {edge.replace('_', ' ')}")


def distribute_op(design: Design, ids: Iterable[str], axis: str) -> ops.Compound | None:
    """Equal gaps between the selection along ``axis`` ("x" or "y"); the first and last stay put.
    Needs three or more units."""
    chosen = units(design, ids)
    if len(chosen) < 3:
        return None
    at, size = (0, 2) if axis == "x" else (1, 3)
    rects = sorted(((placement.node_rect(design, design.node(i)), i) for i in chosen),
                   key=lambda pair: pair[0][at] + pair[0][size] / 2)
    first, last = rects[0][0], rects[-1][0]
    span = last[at] + last[size] - first[at]
    gap = (span - sum(r[size] for r, _ in rects)) / (len(rects) - 1)
    deltas, edge = {}, first[at]
    for rect, node_id in rects:
        shift = round(edge - rect[at], 2)
        deltas[node_id] = (shift, 0.0) if axis == "x" else (0.0, shift)
        edge += rect[size] + gap
    word = "across" if axis == "x" else "down"
    return moves_op(design, deltas, f"Distribute {len(chosen)} components {word}")


def group_op(design: Design, ids: Iterable[str], region_id: str) -> ops.Compound:
    """A new region ``region_id`` fitted round the selected cards, which become its members.
    Raises EditRefused for a selection holding a region (regions do not nest) or no card."""
    chosen = [i for i in ids if i in design.nodes]
    if any(is_region(design, i) for i in chosen):
        raise EditRefused("a region cannot be put in a group: regions do not nest")
    if not chosen:
        raise EditRefused("select the components to group first")
    x, y, w, h = placement.bounds(placement.node_rect(design, design.node(i)) for i in chosen)
    region = design.make_node("region", style.snap(x - GROUP_MARGIN), style.snap(y - GROUP_MARGIN - GROUP_HEADER),
                              node_id=region_id)
    width = style.snap(x + w + GROUP_MARGIN) - region.x
    height = style.snap(y + h + GROUP_MARGIN) - region.y
    members = [ops.SetRegion(i, region_id) for i in chosen]
    title = f"Group {len(chosen)} component{'s' if len(chosen) != 1 else ''} in {region_id}"
    return ops.Compound((ops.AddNode(region.with_changes(width=width, height=height)), *members), title)


def ungroup_op(design: Design, ids: Iterable[str]) -> ops.Compound:
    """Remove the selected regions (or the region of the selected cards); their members stay where
    they are, in no region. Raises EditRefused if there is no region to ungroup."""
    regions: list[str] = []
    for node_id in ids:
        if node_id not in design.nodes:
            continue
        region = node_id if is_region(design, node_id) else design.node(node_id).region
        if region is not None and region not in regions:
            regions.append(region)
    if not regions:
        raise EditRefused("select a region, or a component in one, to ungroup")
    steps: list[ops.Op] = []
    for region in regions:
        steps.extend(ops.SetRegion(m.id, None) for m in design.members(region))
        steps.append(ops.RemoveNode(region))
    title = f"Ungroup {', '.join(regions)}"
    return ops.Compound(tuple(steps), title)
