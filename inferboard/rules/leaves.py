"""Evaluation of conditions: the combinators and the structural leaves.

Every condition returns a :class:`Result`: whether it holds, the evidence that makes it hold
(``pos``) and the evidence that makes it fail (``neg``); evidence is node ids, edge ids and short
detail sentences. ``not`` swaps the two sides; ``all`` and ``any`` join the evidence of the
children that decide the verdict. A rule's finding names the ``pos`` evidence of its ``when``.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any, Callable

from inferboard.model.elements import Node
from inferboard.rules import behaviour
from inferboard.rules import conditions as c
from inferboard.rules.context import JURISDICTION, DesignIndex
from inferboard.rules.results import Evidence, Result, evidence
from inferboard.rules.schema import requirement_figures


# ------------------------------------------------------------------------------------ comparisons
def resolve(operand: Any, index: DesignIndex, node: Node | None) -> Any:
    """``operand`` with a reference replaced by the value it names (a requirement or a node's attribute)."""
    if not isinstance(operand, c.Ref):
        return operand
    if operand.requirement is not None:
        for name in operand.requirement_names():
            value = getattr(index.requirements, name)  # names are checked against Requirements on load
            if value is not None:
                return value * operand.times if _is_number(value) else value
        return None
    value = index.attr(node, operand.param) if node is not None else None
    return value * operand.times if _is_number(value) else value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


#: id(comparison) -> (comparison, op, operand). Holding the comparison keeps its id from being reused;
#: pydantic private-attribute access is too slow for the per-edit budget.
_COMPILED: dict[int, tuple[c.Comparison, str, Any]] = {}


def _compiled(comparison: c.Comparison) -> tuple[c.Comparison, str, Any]:
    entry = _COMPILED.get(id(comparison))
    if entry is None or entry[0] is not comparison:
        entry = (comparison, comparison.op, comparison.operand)
        _COMPILED[id(comparison)] = entry
    return entry


def compare(value: Any, comparison: c.Comparison, index: DesignIndex, node: Node | None) -> bool:
    """Apply one comparison; anything undeclared or of the wrong type compares false."""
    if value is None:
        return False
    _, op, operand = _compiled(comparison)
    if op in ("in", "not_in"):
        return (value in operand) == (op == "in")
    other = resolve(operand, index, node)
    if other is None:
        return False
    if op == "eq":
        return value == other and isinstance(value, bool) == isinstance(other, bool)
    if op == "ne":
        return value != other
    if not (_is_number(value) and _is_number(other)):
        return False
    return {"lt": value < other, "le": value <= other, "gt": value > other, "ge": value >= other}[op]


def matches(node: Node, where: c.Where, index: DesignIndex) -> bool:
    """Whether ``node`` passes every test of ``where``."""
    return all(compare(index.attr(node, name), test, index, node) for name, test in where.items())


def select(index: DesignIndex, kinds: tuple[str, ...], where: c.Where, region_where: c.Where) -> list[Node]:
    """The nodes of ``kinds`` passing ``where`` whose region passes ``region_where``."""
    nodes = index.of_kinds(kinds)
    if where:
        nodes = [n for n in nodes if matches(n, where, index)]
    if region_where:
        out = []
        for n in nodes:
            region = index.region_of(n)
            if region is not None and matches(region, region_where, index):
                out.append(n)
        nodes = out
    return nodes


def _kinds(value: str | list[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


# ------------------------------------------------------------------------------------ combinators
def evaluate(condition: Any, index: DesignIndex) -> Result:
    """Evaluate a condition against the design."""
    return EVALUATORS[condition.type](condition, index)


def _all(cond: c.AllOf, index: DesignIndex) -> Result:
    result = Result(True)
    for child in cond.of:
        sub = evaluate(child, index)
        if not sub.holds:
            # ``all`` stops at the first child that fails; that child's evidence explains why.
            return Result(False, Evidence(), sub.neg)
        result.pos.add(sub.pos)
    return result


def _any(cond: c.AnyOf, index: DesignIndex) -> Result:
    result = Result(False)
    for child in cond.of:
        sub = evaluate(child, index)
        if sub.holds:
            result.holds = True
            result.pos.add(sub.pos)
        else:
            result.neg.add(sub.neg)
    if result.holds:
        result.neg = Evidence()
    return result


def _not(cond: c.NotOf, index: DesignIndex) -> Result:
    sub = evaluate(cond.of, index)
    return Result(not sub.holds, sub.neg, sub.pos)


# ------------------------------------------------------------------------------- structural leaves
def _kind_count(leaf: c.KindCount, index: DesignIndex) -> Result:
    nodes = select(index, leaf.kinds(), leaf.where, leaf.region_where)
    count = len(nodes)
    ids = [n.id for n in nodes]
    upper = math.inf if leaf.max is None else leaf.max
    detail = f"{count} {'/'.join(leaf.kinds())} node(s)" if count else f"no {' or '.join(leaf.kinds())} in the design"
    if leaf.lower <= count <= upper:
        return Result(True, evidence(ids, details=[detail]))
    return Result(False, neg=evidence(ids if count > upper else (), details=[detail]))


def _param(leaf: c.Param, index: DesignIndex) -> Result:
    nodes = select(index, leaf.kinds(), leaf.where, leaf.region_where)
    hits = [n.id for n in nodes if matches(n, leaf.test, index)]
    if hits:
        return Result(True, evidence(hits))
    return Result(False, neg=evidence(n.id for n in nodes))


def _partners(leaf: c.Attached, node: Node, index: DesignIndex) -> tuple[bool, list[str]]:
    to_kinds = leaf.to_kinds()

    def fits(other_id: str) -> bool:
        other = index.nodes[other_id]
        return other.kind in to_kinds and (not leaf.to_where or matches(other, leaf.to_where, index))

    if leaf.reach == "direct":
        edges = [edge for other, edge in index.neighbours(node.id, leaf.signal, leaf.direction) if fits(other)]
        return bool(edges), edges
    directions = ("upstream", "downstream") if leaf.direction == "adjacent" else (leaf.direction,)
    return any(fits(o) for d in directions for o in index.reachable(node.id, leaf.signal, d)), []


def _attached(leaf: c.Attached, index: DesignIndex) -> Result:
    nodes = select(index, leaf.kinds(), leaf.where, leaf.region_where)
    linked, lonely, edges = [], [], []
    for node in nodes:
        ok, via = _partners(leaf, node, index)
        (linked if ok else lonely).append(node.id)
        edges.extend(via)
    if leaf.type == "linked":
        return Result(True, evidence(linked, edges)) if linked else Result(False, neg=evidence(lonely))
    if lonely:
        return Result(False, neg=evidence(lonely))
    return Result(True, evidence(linked, edges))


def _path_through(leaf: c.PathThrough, index: DesignIndex) -> Result:
    through = set(_kinds(leaf.through))
    target_kinds = _kinds(leaf.target)
    succ = index.succ.get("requests", {})
    parent: dict[str, tuple[str, str] | None] = {}
    queue: deque[str] = deque()
    for source in index.of_kinds(_kinds(leaf.source)):
        parent[source.id] = None
        queue.append(source.id)
    while queue:
        current = queue.popleft()
        for nxt, edge in succ.get(current, ()):
            if nxt in parent or index.nodes[nxt].kind in through:
                continue
            parent[nxt] = (current, edge)
            queue.append(nxt)
    targets = [n for n in index.of_kinds(target_kinds) if not leaf.target_where or matches(n, leaf.target_where, index)]
    reached = {n for source in index.of_kinds(_kinds(leaf.source))
               for n in index.reachable(source.id, "requests", "downstream")}
    bypassed, edges, details = [], [], []
    for target in targets:
        if target.id not in reached:  # no request path at all: nothing shows the path is guarded
            bypassed.append(target.id)
            details.append(f"no request path reaches '{target.id}'")
        elif parent.get(target.id) is not None:
            bypassed.append(target.id)
            step = parent[target.id]
            while step is not None:
                edges.append(step[1])
                step = parent[step[0]]
    if bypassed:
        return Result(False, neg=evidence(bypassed, edges, details))
    return Result(True, evidence(t.id for t in targets))


def _serving_regions(leaf: c.ServingRegions, index: DesignIndex) -> Result:
    pools = index.serving_pools()
    regions: list[str] = []
    for pool in pools:
        region = index.region_of(pool)
        if region is None or (leaf.role == "active" and region.params.get("role") == "passive"):
            continue
        if region.id not in regions:
            regions.append(region.id)
    detail = f"{len(regions)} region(s) hold serving capacity"
    if len(regions) >= leaf.min:
        return Result(True, evidence(regions, details=[detail]))
    blame = regions or [p.id for p in pools if p.region is None]
    return Result(False, neg=evidence(blame, details=[_single_place(index, pools, regions)]))


def _single_place(index: DesignIndex, pools: list[Node], regions: list[str]) -> str:
    """What depending on one place costs, in the requirements' own terms."""
    req = index.requirements
    if not pools:
        where = "nothing serves the traffic yet, so there is no second region to fail over to"
    elif regions:
        where = f"all serving capacity sits in region '{regions[0]}'"
    else:
        where = "all serving capacity sits in one place (no region holds it)"
    figures = requirement_figures(req)
    load = req.peak_rps or req.mean_rps
    if load is not None:
        where += f": one regional outage stops all {load:,.0f} req/s"
    if req.availability_slo is not None:
        where += f", while {figures['availability']} allows only {figures['downtime']} of downtime"
    return where


def _artifacts_delivered(leaf: c.ArtifactsDelivered, index: DesignIndex) -> Result:
    pools = index.serving_pools()
    placed_regions = {p.region for p in pools if p.region}
    missing, edges = [], []
    for pool in pools:
        sources = [(index.nodes[o], e) for o, e in index.neighbours(pool.id, "artifacts", "upstream")]
        ok = any(reg.params.get("replicate_to_regions") or reg.region == pool.region
                 or (reg.region is None and len(placed_regions) <= 1) for reg, _ in sources)
        if not ok:
            missing.append(pool.id)
            edges.extend(e for _, e in sources)
    if missing:
        return Result(False, neg=evidence(missing, edges, [f"{len(missing)} pool(s) get no local model artifacts"]))
    return Result(True, evidence(p.id for p in pools))


def _regions_allowed(leaf: c.RegionsAllowed, index: DesignIndex) -> Result:
    allowed = index.requirements.allowed_regions
    regions = index.of_kinds(("region",))
    if not allowed:
        return Result(True)
    bad = [r for r in regions if r.params.get("location") not in allowed]
    if bad:
        details = [f"region '{r.id}' is in {r.params.get('location')}" for r in bad]
        return Result(False, neg=evidence((r.id for r in bad), details=details))
    return Result(True, evidence(r.id for r in regions))


def _residency_respected(leaf: c.ResidencyRespected, index: DesignIndex) -> Result:
    bad_nodes, bad_edges, details = [], [], []
    for source in index.of_kinds(("traffic_source",)):
        home = JURISDICTION.get(source.params.get("origin", ""), "")
        reached = index.reachable(source.id, "requests", "downstream")
        for node_id in [n for n in index.nodes if n in reached]:  # the design's order, the same in every run
            region = index.region_of(index.nodes[node_id])
            if region is None or region.params.get("residency", "none") in (home, "none"):
                continue
            for prev, edge in index.neighbours(node_id, "requests", "upstream"):
                if (prev in reached or prev == source.id) and index.nodes[prev].region != region.id:
                    bad_edges.append(edge)
            if region.id not in bad_nodes:
                details.append(f"'{source.id}' ({home}) reaches region '{region.id}' "
                               f"(residency {region.params.get('residency')})")
                bad_nodes.append(region.id)
            if source.id not in bad_nodes:
                bad_nodes.append(source.id)
    if bad_nodes:
        return Result(False, neg=evidence(bad_nodes, bad_edges, details))
    return Result(True)


def _requirement(leaf: c.Requirement, index: DesignIndex) -> Result:
    req = index.requirements
    declared = [(name, getattr(req, name)) for name in leaf.names()  # names checked on load
                if getattr(req, name) is not None and getattr(req, name) != []]
    if not declared:
        return Result(False, neg=evidence(details=[f"{' / '.join(leaf.names())} not declared"]))
    if leaf.is_ is None:
        return Result(True)
    name, value = declared[0]
    return Result(True) if compare(value, leaf.is_, index, None) else Result(False)


def _behaviour(leaf: Any, index: DesignIndex) -> Result:
    return behaviour.evaluate_leaf(leaf, index)


EVALUATORS: dict[str, Callable[[Any, DesignIndex], Result]] = {
    "all": _all, "any": _any, "not": _not,
    "kind_count": _kind_count, "param": _param, "attached": _attached, "linked": _attached,
    "path_through": _path_through, "serving_regions": _serving_regions,
    "artifacts_delivered": _artifacts_delivered, "regions_allowed": _regions_allowed,
    "residency_respected": _residency_respected, "requirement": _requirement,
    **{name: _behaviour for name in c.BEHAVIOUR_LEAVES},
}
