"""Building a whole design at once from loaded records, collecting every problem instead of
stopping at the first. Used by the file store; far faster than one ``apply`` per item."""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping

from inferboard.catalog import Catalog
from inferboard.errors import Problem
from inferboard.model.design import ID_PATTERN, REQUEST_SIGNAL, Design
from inferboard.model.elements import Edge, Node
from inferboard.model.errors import ConnectionRefused, EditRefused, RegionRefused
from inferboard.model.requirements import Requirements


def assemble_design(catalog: Catalog, nodes: Iterable[Mapping[str, Any]], edges: Iterable[Mapping[str, Any]],
                    requirements: Requirements, metadata: Mapping[str, str],
                    refused: set[str] | None = None) -> tuple[Design, list[Problem]]:
    """Return the design built from plain node and edge dicts, and the problems found.

    Items with problems are left out of the design, so a caller that accepts problems (a
    recovery dialog, say) still gets every sound part. The ids of the nodes left out are added to
    ``refused``; an edge naming one of them is left out without a second message of its own.
    """
    design = Design(catalog, requirements, metadata)
    problems: list[Problem] = []
    regions: list[tuple[str, str]] = []
    refused = set() if refused is None else refused
    for raw in nodes:
        node_id = raw["id"]
        item = f"node '{node_id}'"
        if node_id not in design.nodes:
            refused.add(node_id)  # until it is loaded below
        if not ID_PATTERN.match(node_id):
            problems.append(Problem(item, "id", "must be 1-64 letters, digits, '-', '_', '.' or ':'"))
            continue
        if node_id in design.nodes:
            problems.append(Problem(item, "id", "is used by another node too"))
            continue
        kind = catalog.kinds.get(raw["kind"])
        if kind is None:
            problems.append(Problem(item, "kind", f"unknown component kind '{raw['kind']}'"))
            continue
        params = kind.defaults()
        given = raw.get("params", {})
        try:
            params.update(design.checked_params(node_id, kind.id, given))
        except EditRefused:
            bad = False
            for name, value in given.items():
                try:
                    design.checked_params(node_id, kind.id, {name: value})
                except EditRefused as error:
                    problems.append(Problem(item, f"params.{name}", getattr(error, "reason", str(error))))
                    bad = True
            if bad:
                continue
        width, height = raw.get("width"), raw.get("height")
        if kind.container and (width is None or height is None):
            width, height = width or 360.0, height or 260.0
        node = Node(node_id, kind.id, params, raw.get("x", 0.0), raw.get("y", 0.0), raw.get("region"),
                    raw.get("label", ""), width, height)
        design.load_node(node)
        refused.discard(node_id)
        if node.region is not None:
            regions.append((node_id, node.region))
    for node_id, region in regions:
        try:
            design.check_region(node_id, design.nodes[node_id].kind, region)
        except RegionRefused as error:
            problems.append(Problem(f"node '{node_id}'", "region", str(error).split("field 'region': ", 1)[-1]))
            design.load_node(design.nodes[node_id].with_changes(region=None))
    problems.extend(_assemble_edges(design, edges, refused))
    return design, problems


def _assemble_edges(design: Design, edges: Iterable[Mapping[str, Any]], refused: set[str]) -> list[Problem]:
    problems: list[Problem] = []
    seen_endpoints: set[tuple[str, str, str, str]] = set()
    used_out: Counter = Counter()
    used_in: Counter = Counter()
    carries_requests = False
    for raw in edges:
        edge = Edge(raw["id"], raw["source"], raw["source_port"], raw["target"], raw["target_port"])
        item = f"edge '{edge.id}'"
        if not ID_PATTERN.match(edge.id):
            problems.append(Problem(item, "id", "must be 1-64 letters, digits, '-', '_', '.' or ':'"))
            continue
        if edge.id in design.edges:
            problems.append(Problem(item, "id", "is used by another edge too"))
            continue
        if edge.source in refused or edge.target in refused:
            continue  # its node's own problem is the one root cause reported
        for end in ("source", "target"):
            if getattr(edge, end) not in design.nodes:
                problems.append(Problem(item, end, f"names node '{getattr(edge, end)}', which does not exist"))
        if edge.source not in design.nodes or edge.target not in design.nodes:
            continue
        try:
            out_port, in_port = design.check_ports(*edge.endpoints())
            if edge.endpoints() in seen_endpoints:
                raise ConnectionRefused(f"'{edge.source}' is already wired to '{edge.target}' this way")
            design.check_capacity(edge.source, edge.source_port, out_port, used_out[edge.source, edge.source_port],
                                   edge.target, edge.target_port, in_port, used_in[edge.target, edge.target_port])
        except ConnectionRefused as error:
            problems.append(Problem(item, "", error.reason))
            continue
        seen_endpoints.add(edge.endpoints())
        used_out[edge.source, edge.source_port] += 1
        used_in[edge.target, edge.target_port] += 1
        carries_requests = carries_requests or out_port.signal == REQUEST_SIGNAL
        design.load_edge(edge)
    cycle = design.request_loop() if carries_requests else []
    if cycle:
        nodes = [cycle[0][0], *[target for _, target, _ in cycle]]
        problems.append(Problem(f"edge '{cycle[-1][2]}'", "", "requests loop back: " + " -> ".join(nodes)))
    return problems
