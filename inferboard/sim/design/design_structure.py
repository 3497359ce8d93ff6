"""The part of compiling a design that depends neither on the offered rate nor on faults: the
request graph and every node's kind, parameters, neighbours and location (``DesignStructure``),
built once per design revision and shared by its compiles."""

from __future__ import annotations

from typing import Mapping

import networkx as nx

from inferboard.model.design import Design
from inferboard.sim.design.faults import Fault
from inferboard.sim.design.hardware import PoolPlan, plan_pool
from inferboard.sim.design.network import Station


def location_of(design: Design, node_id: str) -> str | None:
    """Where a node runs: a traffic source's origin, else its region's location (None when unplaced)."""
    node = design.nodes[node_id]
    if node.kind == "traffic_source":
        return node.params.get("origin")
    region = design.nodes.get(node.region) if node.region else None
    return region.params.get("location") if region is not None else None


def _revision(design: Design) -> tuple:
    """What a compile of ``design`` depends on. Nodes, edges, requirements and the catalog are
    immutable objects that every edit replaces, so their identities name the design's revision."""
    return (tuple(design.nodes.values()), tuple(design.edges.values()), design.requirements, design.catalog)


#: Pool plans a structure remembers before it starts over (many fault sets or rates in one session).
_PLAN_MEMO_LIMIT = 4096


class DesignStructure:
    """The part of compiling a design that depends neither on the offered rate nor on faults or
    replica overrides: the request graph and its topological order; every node's kind, parameters,
    children (with ports), parents, fallbacks, feeders and location; reachability sets; the delay
    stations of load balancers and caches; and a memo of pool plans by their inputs.

    Build it once per design revision and pass it to every :func:`compile_design` of that revision
    (the rule engine does so for the three simulations of one check; the timeline for its fault
    regimes). It holds no reference to mutable state: :meth:`matches` compares the identities of the
    design's immutable nodes, edges, requirements and catalog with the ones it was built from, and
    ``compile_design`` rebuilds it when they differ, so a stale structure is never used.
    """

    def __init__(self, design: Design) -> None:
        self._revision = _revision(design)
        nodes = design.nodes
        roles = design.catalog.kinds_with_role
        #: kind groups of the design's own catalog (``roles:`` in components/*.yaml)
        self.serving_kinds = frozenset(roles("serving_pool"))
        self.batched_kinds = frozenset(roles("batched_pool"))
        self.capacity_split_kinds = frozenset(roles("serving_pool", "capacity_split"))
        self.load_balancer_kinds = frozenset(roles("load_balancer"))
        self.feeder_kinds: tuple[str, ...] = roles("pool_feeder")
        self.graph = design.request_graph()
        self.order: list[str] = list(nx.topological_sort(self.graph))
        self.kind: dict[str, str] = {n: node.kind for n, node in nodes.items()}
        self.params = {n: node.params for n, node in nodes.items()}
        self.region: dict[str, str | None] = {n: node.region for n, node in nodes.items()}
        self.location: dict[str, str | None] = {n: location_of(design, n) for n in nodes}
        self.children: dict[str, list[tuple[str, str]]] = {n: [] for n in nodes}
        for edge in design.edges.values():
            if design.signal_of(edge) == "requests":
                self.children[edge.source].append((edge.target, edge.source_port))
        self.parents: dict[str, list[str]] = {n: list(self.graph.predecessors(n)) for n in nodes}
        self.kids: dict[str, list[str]] = {n: [c for c, _ in kids] for n, kids in self.children.items()}
        self.split: dict[str, tuple[list[str], list[str]]] = {}
        for n, kids in self.kids.items():
            fallbacks = [c for c in kids if self.kind[c] == "fallback_model" and self.kind[n] != "fallback_model"]
            self.split[n] = ([c for c in kids if c not in fallbacks], fallbacks)
        self.sources: list[str] = [n for n, kind in self.kind.items() if kind == "traffic_source"]
        self.pools: list[str] = [n for n, kind in self.kind.items() if kind in self.serving_kinds]
        self.feeders: dict[tuple[str, str], str] = {}
        for pool in self.pools:
            for parent in self.parents[pool]:
                self.feeders.setdefault((pool, self.kind[parent]), parent)
        #: delay stations of balancers and caches (frozen, so compiles share them)
        self.delay_stations: dict[str, Station] = {}
        for n in self.order:
            kind, params = self.kind[n], self.params[n]
            if kind in self.load_balancer_kinds:
                self.delay_stations[n] = Station(n, fixed_delay_s=float(params["added_latency_ms"]) / 1000,
                                                 delay_only=True, node_id=n)
            elif kind == "cache":
                self.delay_stations[n] = Station(n, fixed_delay_s=float(params["hit_latency_ms"]) / 1000,
                                                 delay_only=True, node_id=n)
        self._descendants: dict[str, set[str]] = {}
        self._prefix_caches: dict[str, list[str]] = {}
        self._plans: dict[tuple, PoolPlan] = {}

    def matches(self, design: Design) -> bool:
        """Whether this structure was built from ``design`` as it is now."""
        now = _revision(design)
        mine = self._revision
        return (now[2] is mine[2] and now[3] is mine[3] and len(now[0]) == len(mine[0])
                and len(now[1]) == len(mine[1]) and all(a is b for a, b in zip(now[0], mine[0]))
                and all(a is b for a, b in zip(now[1], mine[1])))

    def descendants(self, node_id: str) -> set[str]:
        """Every node requests can reach from ``node_id`` (remembered)."""
        found = self._descendants.get(node_id)
        if found is None:
            found = self._descendants[node_id] = nx.descendants(self.graph, node_id)
        return found

    def prefix_caches(self, pool_id: str) -> list[str]:
        """KV-prefix caches upstream of a pool."""
        found = self._prefix_caches.get(pool_id)
        if found is None:
            found = self._prefix_caches[pool_id] = [
                a for a in nx.ancestors(self.graph, pool_id)
                if self.kind[a] == "cache" and self.params[a]["cache_type"] == "kv_prefix"]
        return found

    def plan(self, design: Design, node_id: str, faults: tuple[Fault, ...], replicas: Mapping[str, int] | None,
             rate: float, degraded: int | None, prefix: float) -> PoolPlan:
        """``hardware.plan_pool``, remembered by its inputs (only generation pools depend on the rate,
        the degraded output length and the prefix-cache hit ratio). Plans are not changed after."""
        override = replicas.get(node_id) if replicas else None
        if self.kind[node_id] == "generation_pool":
            key = (node_id, faults, override, rate, degraded, prefix)
        else:
            key = (node_id, faults, override)
        plan = self._plans.get(key)
        if plan is None:
            if len(self._plans) >= _PLAN_MEMO_LIMIT:
                self._plans.clear()
            plan = self._plans[key] = plan_pool(design.nodes[node_id], design.catalog, design.requirements,
                                                faults, replicas, rate, degraded, prefix)
        return plan


def design_structure(design: Design, structure: DesignStructure | None = None) -> DesignStructure:
    """``structure`` if it still describes ``design``, else a new one."""
    if structure is not None and structure.matches(design):
        return structure
    return DesignStructure(design)
