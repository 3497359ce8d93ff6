"""The one mutable object of the core: a design graph with requirements and metadata.

Every change goes through :meth:`Design.apply`, which validates the edit against the catalog,
performs it, announces it as an event, and returns the exact inverse edit.
"""

from __future__ import annotations

import graphlib
import itertools
import re
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping

from inferboard.catalog import Catalog, default_catalog
from inferboard.catalog.loader import ParamValueError, coerce_param
from inferboard.model import events as ev
from inferboard.model import ops
from inferboard.model.elements import Edge, Node
from inferboard.model.errors import (ConnectionRefused, DuplicateId, EditRefused, ParamRefused, RegionRefused,
                                     UnknownEdge, UnknownNode)
from inferboard.model.faults import MAX_FAULTS, PlannedFault, target_problem
from inferboard.model.requirements import Requirements

if TYPE_CHECKING:  # networkx is imported when a graph is first asked for (it is slow to import)
    import networkx as nx

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
REQUEST_SIGNAL = "requests"


class Design:
    """A serving architecture being drawn. Query it freely; change it only through ``apply``."""

    def __init__(self, catalog: Catalog | None = None, requirements: Requirements | None = None,
                 metadata: Mapping[str, str] | None = None):
        self.catalog = catalog or default_catalog()
        self.events = ev.EventHub()
        self._nodes: dict[str, Node] = {}
        self._edges: dict[str, Edge] = {}
        self._graph: "nx.MultiDiGraph | None" = None  # built on demand, dropped on structural edits
        self._requirements = requirements or Requirements()
        self._metadata: dict[str, str] = dict(metadata or {"title": "Untitled design", "notes": ""})
        self._faults: tuple[PlannedFault, ...] = ()

    # ------------------------------------------------------------------ queries
    @property
    def nodes(self) -> Mapping[str, Node]:
        """The nodes by id, in the design's order (read-only)."""
        return self._nodes

    @property
    def edges(self) -> Mapping[str, Edge]:
        """The edges by id, in the design's order (read-only)."""
        return self._edges

    @property
    def requirements(self) -> Requirements:
        """The traffic, SLO and budget the design is built for."""
        return self._requirements

    @property
    def metadata(self) -> Mapping[str, str]:
        """A copy of the design's title and notes."""
        return dict(self._metadata)

    @property
    def faults(self) -> tuple[PlannedFault, ...]:
        """The faults planned on this design's timeline."""
        return self._faults

    @property
    def graph(self) -> "nx.MultiDiGraph":
        """A read-only networkx view: nodes are node ids, edges are keyed by edge id."""
        if self._graph is None:
            # networkx is slow to import: loaded for the first graph question
            import networkx as nx

            graph = nx.MultiDiGraph()
            graph.add_nodes_from(self._nodes)
            graph.add_edges_from((e.source, e.target, e.id) for e in self._edges.values())
            self._graph = graph
        return self._graph.copy(as_view=True)

    def node(self, node_id: str) -> Node:
        """The node called ``node_id``; raises UnknownNode."""
        try:
            return self._nodes[node_id]
        except KeyError:
            raise UnknownNode(node_id) from None

    def edge(self, edge_id: str) -> Edge:
        """The edge called ``edge_id``; raises UnknownEdge."""
        try:
            return self._edges[edge_id]
        except KeyError:
            raise UnknownEdge(edge_id) from None

    def nodes_of_kind(self, *kinds: str) -> list[Node]:
        """The nodes of any of ``kinds``, in the design's order."""
        return [n for n in self._nodes.values() if n.kind in kinds]

    def edges_of(self, node_id: str) -> list[Edge]:
        """The edges to or from ``node_id``."""
        return [e for e in self._edges.values() if node_id in (e.source, e.target)]

    def members(self, region_id: str) -> list[Node]:
        """The nodes placed in region ``region_id``."""
        return [n for n in self._nodes.values() if n.region == region_id]

    def signal_of(self, edge: Edge) -> str:
        """The signal an edge carries: its source port's ("" when the kind or port is unknown)."""
        kind = self.catalog.kinds.get(self._nodes[edge.source].kind)
        port = kind.port(edge.source_port, "out") if kind else None
        return port.signal if port else ""

    def request_graph(self) -> "nx.DiGraph":
        """The request flow only: a DiGraph over node ids with an edge per request wire."""
        # networkx is slow to import: loaded for the first graph question
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(self._nodes)
        for edge in self._edges.values():
            if self.signal_of(edge) == REQUEST_SIGNAL:
                graph.add_edge(edge.source, edge.target, id=edge.id)
        return graph

    def new_node_id(self, kind: str) -> str:
        """The first free id "kind-N"."""
        for n in itertools.count(1):
            candidate = f"{kind}-{n}"
            if candidate not in self._nodes:
                return candidate
        raise AssertionError("unreachable")

    def new_edge_id(self) -> str:
        """The first free id "eN"."""
        for n in itertools.count(len(self._edges) + 1):
            candidate = f"e{n}"
            if candidate not in self._edges:
                return candidate
        raise AssertionError("unreachable")

    def __iter__(self) -> Iterator[Node]:
        return iter(self._nodes.values())

    def __len__(self) -> int:
        return len(self._nodes)

    # ---------------------------------------------------------- conveniences
    def add_node(self, kind: str, x: float = 0.0, y: float = 0.0, params: Mapping[str, Any] | None = None,
                 node_id: str | None = None, region: str | None = None, label: str = "") -> Node:
        """Add a node of ``kind`` with the catalog defaults overlaid by ``params``; returns it."""
        node = self.make_node(kind, x, y, params, node_id, region, label)
        self.apply(ops.AddNode(node))
        return self._nodes[node.id]

    def make_node(self, kind: str, x: float = 0.0, y: float = 0.0, params: Mapping[str, Any] | None = None,
                  node_id: str | None = None, region: str | None = None, label: str = "") -> Node:
        """Add a node of ``kind`` with its defaults overridden by ``params``; returns it. Raises EditRefused."""
        spec = self.catalog.kinds.get(kind)
        if spec is None:
            raise EditRefused(f"unknown component kind '{kind}'")
        merged = spec.defaults()
        merged.update(params or {})
        size = (360.0, 260.0) if spec.container else (None, None)
        return Node(node_id or self.new_node_id(kind), kind, merged, float(x), float(y), region, label, *size)

    def connect(self, source: str, source_port: str, target: str, target_port: str,
                edge_id: str | None = None) -> Edge:
        """Add a wire from ``source``'s port to ``target``'s port; returns it. Raises ConnectionRefused."""
        edge = Edge(edge_id or self.new_edge_id(), source, source_port, target, target_port)
        self.apply(ops.AddEdge(edge))
        return edge

    def remove_node(self, node_id: str) -> ops.Op:
        """Remove ``node_id`` with its edges; returns the op that puts them back."""
        return self.apply(ops.RemoveNode(node_id))

    def set_params(self, node_id: str, **params: Any) -> ops.Op:
        """Change parameters of ``node_id``; returns the op that undoes it."""
        return self.apply(ops.SetParams(node_id, params))

    # ------------------------------------------------------------- validation
    def checked_params(self, node_id: str, kind: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` checked against the kind's parameter specs (names, types, ranges); raises EditRefused."""
        spec = self.catalog.kinds.get(kind)
        if spec is None:
            raise EditRefused(f"node '{node_id}' field 'kind': unknown component kind '{kind}'")
        out = {}
        for name, value in params.items():
            param = spec.param(name)
            if param is None:
                raise ParamRefused(node_id, name, f"'{kind}' has no parameter '{name}'")
            try:
                out[name] = coerce_param(param, value)
            except ParamValueError as error:
                raise ParamRefused(node_id, name, str(error)) from None
        return out

    def check_connect(self, source: str, source_port: str, target: str, target_port: str) -> None:
        """Raise ConnectionRefused, with the reason, if this wire may not be drawn."""
        out_port, in_port = self.check_ports(source, source_port, target, target_port)
        existing = self._edges.values()
        if any(e.endpoints() == (source, source_port, target, target_port) for e in existing):
            raise ConnectionRefused(f"'{source}' is already wired to '{target}' this way")
        used_out = sum(1 for e in existing if e.source == source and e.source_port == source_port)
        used_in = sum(1 for e in existing if e.target == target and e.target_port == target_port)
        self.check_capacity(source, source_port, out_port, used_out, target, target_port, in_port, used_in)
        if out_port.signal == REQUEST_SIGNAL and self._requests_reach(target, source):
            raise ConnectionRefused(f"requests would loop: '{target}' already sends requests to '{source}'")

    def _requests_reach(self, start: str, goal: str) -> bool:
        """Whether requests flow from ``start`` to ``goal`` along request wires."""
        # networkx is slow to import: loaded for the first graph question, never before first paint
        import networkx as nx

        return nx.has_path(self.request_graph(), start, goal)

    def request_loop(self) -> list[tuple[str, str, str]]:
        """One loop of (source, target, edge id) steps along request wires, or [] when requests
        never come back to where they passed.

        Loading a design asks this before the first window is painted, so the standard library's
        topological sorter answers it (networkx takes 150-220 ms to import)."""
        senders: dict[str, set[str]] = {}
        wire_ids: dict[tuple[str, str], str] = {}
        for edge in self._edges.values():
            if self.signal_of(edge) == REQUEST_SIGNAL:
                senders.setdefault(edge.target, set()).add(edge.source)
                wire_ids.setdefault((edge.source, edge.target), edge.id)
        try:
            graphlib.TopologicalSorter(senders).prepare()
        except graphlib.CycleError as error:
            cycle = error.args[1]  # each node sends to the next; the first is repeated last
            return [(source, target, wire_ids[source, target]) for source, target in zip(cycle, cycle[1:])]
        return []

    def check_ports(self, source: str, source_port: str, target: str, target_port: str):
        """The checks that depend only on the two ends: nodes, ports, signals, accepted kinds."""
        if source not in self._nodes:
            raise ConnectionRefused(f"there is no node '{source}' to connect from")
        if target not in self._nodes:
            raise ConnectionRefused(f"there is no node '{target}' to connect to")
        if source == target:
            raise ConnectionRefused("a component cannot be wired to itself")
        src_kind = self.catalog.kind(self._nodes[source].kind)
        dst_kind = self.catalog.kind(self._nodes[target].kind)
        out_port = src_kind.port(source_port, "out")
        if out_port is None:
            raise ConnectionRefused(f"{src_kind.title} '{source}' has no output port '{source_port}'")
        in_port = dst_kind.port(target_port, "in")
        if in_port is None:
            raise ConnectionRefused(f"{dst_kind.title} '{target}' has no input port '{target_port}'")
        if out_port.signal != in_port.signal:
            raise ConnectionRefused(
                f"{src_kind.title} sends {out_port.signal} on '{source_port}', but {dst_kind.title}'s "
                f"'{target_port}' takes {in_port.signal}")
        if out_port.accepts and dst_kind.id not in out_port.accepts:
            raise ConnectionRefused(f"{src_kind.title}'s '{source_port}' connects only to "
                                    f"{self._titles(out_port.accepts)}, not to {dst_kind.title}")
        if in_port.accepts and src_kind.id not in in_port.accepts:
            raise ConnectionRefused(f"{dst_kind.title}'s '{target_port}' accepts only "
                                    f"{self._titles(in_port.accepts)}, not {src_kind.title}")
        return out_port, in_port

    def check_capacity(self, source, source_port, out_port, used_out, target, target_port, in_port, used_in):
        """Raise ConnectionRefused if either port already holds its most wires (``used_*`` counts them)."""
        for port, used, node_id, name in ((out_port, used_out, source, source_port),
                                          (in_port, used_in, target, target_port)):
            if port.max_connections is not None and used >= port.max_connections:
                title = self.catalog.kind(self._nodes[node_id].kind).title
                raise ConnectionRefused(f"{title}'s '{name}' takes at most {port.max_connections} "
                                        "wire(s) and is full")

    def _titles(self, kinds: Iterable[str]) -> str:
        return ", ".join(self.catalog.kinds[k].title if k in self.catalog.kinds else k for k in kinds)

    def check_region(self, node_id: str, kind: str, region: str | None) -> None:
        """Raise RegionRefused if a node of ``kind`` may not sit in ``region``."""
        if region is None:
            return
        if region == node_id:
            raise RegionRefused(node_id, "a region cannot contain itself")
        target = self._nodes.get(region)
        if target is None:
            raise RegionRefused(node_id, f"there is no region '{region}'")
        if not self.catalog.kind(target.kind).container:
            raise RegionRefused(node_id, f"'{region}' is a {target.kind}, not a region")
        if self.catalog.kind(kind).container:
            raise RegionRefused(node_id, "regions cannot be nested")

    # ------------------------------------------------------------------ loading
    def load_node(self, node: Node) -> None:
        """Store a node the caller has already checked (appended, or replacing the one with its id)
        with no event and no undo step: for building a whole design at once (``assemble``). Edits
        go through ``apply``."""
        self._nodes[node.id] = node
        self._graph = None

    def load_edge(self, edge: Edge) -> None:
        """Store an edge the caller has already checked, as :meth:`load_node` does a node."""
        self._edges[edge.id] = edge
        self._graph = None

    # ------------------------------------------------------------------ apply
    def apply(self, op: ops.Op) -> ops.Op:
        """Perform ``op``; announce it; return the edit that exactly undoes it."""
        handler = getattr(self, "_apply_" + type(op).__name__, None)
        if handler is None:
            raise TypeError(f"not an edit: {op!r}")
        return handler(op)

    def _apply_Compound(self, op: ops.Compound) -> ops.Op:
        inverses: list[ops.Op] = []
        try:
            for child in op.ops:
                inverses.append(self.apply(child))
        except Exception:
            for inverse in reversed(inverses):
                self.apply(inverse)
            raise
        return ops.Compound(tuple(reversed(inverses)), op.title)

    def _apply_AddNode(self, op: ops.AddNode) -> ops.Op:
        node = op.node
        if not ID_PATTERN.match(node.id):
            raise EditRefused(f"node id '{node.id[:80]}' must be 1-64 letters, digits, '-', '_', '.' or ':'")
        if node.id in self._nodes:
            raise DuplicateId("node", node.id)
        spec = self.catalog.kinds.get(node.kind)
        if spec is None:
            raise EditRefused(f"node '{node.id}' field 'kind': unknown component kind '{node.kind}'")
        missing = [p.name for p in spec.params if p.name not in node.params]
        params = spec.defaults() | dict(node.params) if missing else dict(node.params)
        node = node.with_changes(params=self.checked_params(node.id, node.kind, params))
        self.check_region(node.id, node.kind, node.region)
        index = self._insert(self._nodes, node.id, node, op.index)
        self._graph = None
        self.events.emit(ev.NodeAdded(node, index))
        return ops.RemoveNode(node.id)

    @staticmethod
    def _insert(table: dict, key: str, value: Any, index: int | None) -> int:
        """Insert into an ordered dict at ``index`` (append when None or at the end)."""
        if index is None or index >= len(table):
            table[key] = value
            return len(table) - 1
        index = max(0, index)
        items = list(table.items())
        items.insert(index, (key, value))
        table.clear()
        table.update(items)
        return index

    def _apply_RemoveNode(self, op: ops.RemoveNode) -> ops.Op:
        node = self.node(op.node_id)
        index = list(self._nodes).index(node.id)
        restore: list[ops.Op] = []
        edge_order = list(self._edges)
        for edge in self.edges_of(node.id):
            restore.append(ops.AddEdge(edge, edge_order.index(edge.id)))
        for edge in self.edges_of(node.id):
            self._remove_edge(edge)
        for member in self.members(node.id):
            restore.append(ops.SetRegion(member.id, node.id))
            self._set_region(member.id, None)
        del self._nodes[node.id]
        self._graph = None
        self.events.emit(ev.NodeRemoved(node))
        # Restore the node first, then its members and edges, edges in their original order.
        restore.sort(key=lambda o: (isinstance(o, ops.AddEdge), getattr(o, "index", 0) or 0))
        if any(f.target == node.id for f in self._faults):  # faults aimed at it go with it
            restore.append(self._apply_SetFaults(ops.SetFaults(tuple(f for f in self._faults
                                                                     if f.target != node.id))))
        return ops.Compound((ops.AddNode(node, index), *restore), f"restore {node.id}")

    def _apply_AddEdge(self, op: ops.AddEdge) -> ops.Op:
        edge = op.edge
        if not ID_PATTERN.match(edge.id):
            raise EditRefused(f"edge id '{edge.id[:80]}' must be 1-64 letters, digits, '-', '_', '.' or ':'")
        if edge.id in self._edges:
            raise DuplicateId("edge", edge.id)
        self.check_connect(*edge.endpoints())
        self._insert(self._edges, edge.id, edge, op.index)
        self._graph = None
        self.events.emit(ev.EdgeAdded(edge))
        return ops.RemoveEdge(edge.id)

    def _apply_RemoveEdge(self, op: ops.RemoveEdge) -> ops.Op:
        edge = self.edge(op.edge_id)
        index = list(self._edges).index(edge.id)
        self._remove_edge(edge)
        return ops.AddEdge(edge, index)

    def _remove_edge(self, edge: Edge) -> None:
        del self._edges[edge.id]
        self._graph = None
        self.events.emit(ev.EdgeRemoved(edge))

    def _apply_SetParams(self, op: ops.SetParams) -> ops.Op:
        node = self.node(op.node_id)
        new = self.checked_params(node.id, node.kind, op.params)
        old = {name: node.params[name] for name in new}
        changed = {k: v for k, v in new.items() if old[k] != v}
        if changed:
            self._nodes[node.id] = node.with_changes(params={**node.params, **changed})
            self.events.emit(ev.ParamsChanged(node.id, {k: old[k] for k in changed}, changed))
        return ops.SetParams(node.id, old)

    def _apply_MoveNodes(self, op: ops.MoveNodes) -> ops.Op:
        for node_id in op.positions:
            self.node(node_id)
        moves, old_positions = {}, {}
        for node_id, (x, y) in op.positions.items():
            node = self._nodes[node_id]
            old_positions[node_id] = (node.x, node.y)
            if (node.x, node.y) != (float(x), float(y)):
                moves[node_id] = ((node.x, node.y), (float(x), float(y)))
                self._nodes[node_id] = node.with_changes(x=float(x), y=float(y))
        if moves:
            self.events.emit(ev.NodesMoved(moves))
        return ops.MoveNodes(old_positions)

    def _apply_ResizeNode(self, op: ops.ResizeNode) -> ops.Op:
        node = self.node(op.node_id)
        for value in (op.width, op.height):
            if value is not None and not 20 <= value <= 100_000:
                raise EditRefused(f"node '{node.id}' field 'width/height': {value} is outside 20..100000")
        old = (node.width, node.height)
        if old != (op.width, op.height):
            self._nodes[node.id] = node.with_changes(width=op.width, height=op.height)
            self.events.emit(ev.NodeResized(node.id, old, (op.width, op.height)))
        return ops.ResizeNode(node.id, *old)

    def _apply_SetRegion(self, op: ops.SetRegion) -> ops.Op:
        node = self.node(op.node_id)
        self.check_region(node.id, node.kind, op.region)
        old = node.region
        self._set_region(node.id, op.region)
        return ops.SetRegion(node.id, old)

    def _set_region(self, node_id: str, region: str | None) -> None:
        node = self._nodes[node_id]
        if node.region != region:
            self._nodes[node_id] = node.with_changes(region=region)
            self.events.emit(ev.RegionChanged(node_id, node.region, region))

    def _apply_SetLabel(self, op: ops.SetLabel) -> ops.Op:
        node = self.node(op.node_id)
        if len(op.label) > 200:
            raise EditRefused(f"node '{node.id}' field 'label': longer than 200 characters")
        if node.label != op.label:
            self._nodes[node.id] = node.with_changes(label=op.label)
            self.events.emit(ev.LabelChanged(node.id, node.label, op.label))
        return ops.SetLabel(node.id, node.label)

    def _apply_SetRequirements(self, op: ops.SetRequirements) -> ops.Op:
        old = self._requirements
        if not isinstance(op.requirements, Requirements):
            raise EditRefused("requirements must be a Requirements record")
        if old != op.requirements:
            self._requirements = op.requirements
            self.events.emit(ev.RequirementsChanged(old, op.requirements))
        return ops.SetRequirements(old)

    def check_fault(self, fault: PlannedFault) -> None:
        """Refuse a planned fault that is malformed or names a node the design lacks (EditRefused)."""
        problem = fault.problem() if isinstance(fault, PlannedFault) else "kind: not a planned fault"
        if not problem:
            problem = target_problem(fault, self._nodes)
        if problem:
            field, _, reason = problem.partition(": ")
            raise EditRefused(f"fault '{getattr(fault, 'kind', '?')}' field '{field}': {reason}")

    def _apply_SetFaults(self, op: ops.SetFaults) -> ops.Op:
        new = tuple(op.faults)
        if len(new) > MAX_FAULTS:
            raise EditRefused(f"faults: more than {MAX_FAULTS}")
        for fault in new:
            self.check_fault(fault)
        old = self._faults
        if new != old:
            self._faults = new
            self.events.emit(ev.FaultsChanged(old, new))
        return ops.SetFaults(old)

    def _apply_SetMetadata(self, op: ops.SetMetadata) -> ops.Op:
        old = dict(self._metadata)
        new = {str(k): str(v) for k, v in op.metadata.items()}
        if any(len(v) > 10_000 for v in new.values()):
            raise EditRefused("metadata: a value is longer than 10000 characters")
        if new != old:
            self._metadata = new
            self.events.emit(ev.MetadataChanged(old, dict(new)))
        return ops.SetMetadata(old)
