"""Keep a mirror of a design up to date with small edits instead of rebuilding it.

The interviewer's mirror receives the candidate's whole design after each edit. Replacing its
copy redraws every component (about half a second for 100 components); ``edits_between`` finds
the few model edits that turn the mirror's copy into the new design, so only what changed is
redrawn. ``follow`` applies them and checks the result equals the new design, or says it could
not (the caller then replaces the design as before).
"""

from __future__ import annotations

from inferboard.errors import InferboardError
from inferboard.model import Design, ops
from inferboard.store.design_files import design_to_dict


def edits_between(old: Design, new: Design) -> list[ops.Op]:
    """Edits that turn ``old`` into ``new``: removals first, then changes, then additions."""
    out: list[ops.Op] = []
    for edge_id, edge in old.edges.items():
        if new.edges.get(edge_id) != edge:
            out.append(ops.RemoveEdge(edge_id))
    replaced = {i for i, n in old.nodes.items() if i in new.nodes and new.nodes[i].kind != n.kind}
    for node_id in old.nodes:
        if node_id not in new.nodes or node_id in replaced:
            out.append(ops.RemoveNode(node_id))
    order = list(new.nodes)
    added = [i for i in order if i not in old.nodes or i in replaced]
    regions = {n.region for n in new.nodes.values() if n.region}
    for node_id in sorted(added, key=lambda i: (i not in regions, order.index(i))):
        out.append(ops.AddNode(new.nodes[node_id], order.index(node_id)))
    positions = {}
    for node_id, node in new.nodes.items():
        before = old.nodes.get(node_id)
        if before is None or node_id in replaced:
            continue
        if dict(before.params) != dict(node.params):
            out.append(ops.SetParams(node_id, dict(node.params)))
        if (before.x, before.y) != (node.x, node.y):
            positions[node_id] = (node.x, node.y)
        if (before.width, before.height) != (node.width, node.height):
            out.append(ops.ResizeNode(node_id, node.width, node.height))
        if before.region != node.region:
            out.append(ops.SetRegion(node_id, node.region))
        if before.label != node.label:
            out.append(ops.SetLabel(node_id, node.label))
    if positions:
        out.append(ops.MoveNodes(positions))
    edge_order = list(new.edges)
    for edge_id, edge in new.edges.items():
        if old.edges.get(edge_id) != edge:
            out.append(ops.AddEdge(edge, edge_order.index(edge_id)))
    if old.requirements != new.requirements:
        out.append(ops.SetRequirements(new.requirements))
    if dict(old.metadata) != dict(new.metadata):
        out.append(ops.SetMetadata(dict(new.metadata)))
    return out


def follow(mirror: Design, new: Design, max_edits: int = 200) -> bool:
    """Bring ``mirror`` to ``new`` by small edits; False when that was not possible (or not
    worth it): ``mirror`` may then be half-way and must be replaced by the caller."""
    edits = edits_between(mirror, new)
    if len(edits) > max_edits:
        return False
    try:
        for edit in edits:
            mirror.apply(edit)
    except (InferboardError, KeyError, ValueError):
        return False
    return design_to_dict(mirror) == design_to_dict(new)
