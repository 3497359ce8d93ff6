"""The role each serving pool plays in a design, read from the graph and the catalog's kind roles.

- ``fallback``: a kind the catalog marks ``fallback`` (a stand-in that serves what the primary cannot);
- ``canary`` / ``shadow``: a pool that user traffic reaches only through the candidate port of a
  ``canary`` kind (a canary router), ``shadow`` when that router mirrors instead of splitting;
- ``batch``: a pool fed from a ``work_queue`` kind (a request queue) that no user traffic reaches:
  offline work drained from a queue;
- ``main``: every other pool, including one that is drawn but not wired: an unwired pool is judged as
  the main pool it should be, so leaving it unwired earns nothing.

Rules state which roles they judge (``roles:`` in a rule file); pools of other roles are invisible to
that rule's selectors, so a 5% canary never draws "no autoscaler" meant for the main pool.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Literal, Mapping, Protocol

from inferboard.catalog.roles import kind_group

PoolRole = Literal["main", "canary", "shadow", "fallback", "batch"]
POOL_ROLES: tuple[str, ...] = ("main", "canary", "shadow", "fallback", "batch")
SERVING_KINDS = kind_group("serving_pool")
FALLBACK_KINDS = kind_group("fallback")
CANARY_KINDS = kind_group("canary")
ENTRY_KINDS = kind_group("traffic_entry")
QUEUE_KINDS = kind_group("work_queue")
#: The canary router's port that carries the candidate's traffic.
CANDIDATE_PORT = "canary"


class DesignGraph(Protocol):
    """What the roles read of a design's index (:class:`context.DesignIndex` is one): its design,
    nodes, request successors, nodes by kind and reachability."""

    design: Any
    nodes: Mapping[str, Any]
    succ: Mapping[str, Mapping[str, list[tuple[str, str]]]]

    def of_kinds(self, kinds: tuple[str, ...]) -> list:
        """The design's nodes of any of ``kinds``."""

    def reachable(self, node_id: str, signal: str, direction: str) -> frozenset[str]:
        """Every node reachable from ``node_id`` along edges of ``signal`` in ``direction``."""


def _reached_from_entries(index: DesignGraph, through_candidates: bool) -> set[str]:
    """Node ids user traffic reaches along request edges; with ``through_candidates`` False, edges
    leaving a canary router's candidate port are not followed."""
    edges = index.design.edges
    seen: set[str] = set()
    queue = deque(n.id for n in index.of_kinds(ENTRY_KINDS))
    seen.update(queue)
    while queue:
        current = queue.popleft()
        for nxt, edge_id in index.succ.get("requests", {}).get(current, ()):
            if nxt in seen:
                continue
            if not through_candidates and index.nodes[current].kind in CANARY_KINDS \
                    and edges[edge_id].source_port == CANDIDATE_PORT:
                continue
            seen.add(nxt)
            queue.append(nxt)
    return seen


def _candidate_router(index: DesignGraph, node_id: str) -> str | None:
    """The canary router whose candidate port leads (along requests) to ``node_id``."""
    for router in index.of_kinds(tuple(CANARY_KINDS)):
        for nxt, edge_id in index.succ.get("requests", {}).get(router.id, ()):
            if index.design.edges[edge_id].source_port != CANDIDATE_PORT:
                continue
            if nxt == node_id or node_id in index.reachable(nxt, "requests", "downstream"):
                return router.id
    return None


def reached_by_traffic(index: DesignGraph) -> frozenset[str]:
    """Node ids that requests from some traffic entry reach, through any port."""
    return frozenset(_reached_from_entries(index, through_candidates=True))


def pool_roles(index: DesignGraph) -> dict[str, str]:
    """Serving pool id -> its role (one of :data:`POOL_ROLES`)."""
    pools = [n for n in index.nodes.values() if n.kind in SERVING_KINDS]
    if not pools:
        return {}
    main_path = _reached_from_entries(index, through_candidates=False)
    any_path = _reached_from_entries(index, through_candidates=True)
    out: dict[str, str] = {}
    for pool in pools:
        if pool.kind in FALLBACK_KINDS:
            out[pool.id] = "fallback"
        elif pool.id in main_path:
            out[pool.id] = "main"
        elif pool.id in any_path:
            router = _candidate_router(index, pool.id)
            shadow = router is not None and bool(index.nodes[router].params.get("shadow"))
            out[pool.id] = "shadow" if shadow else "canary"
        elif any(index.nodes[n].kind in QUEUE_KINDS for n in index.reachable(pool.id, "requests", "upstream")):
            out[pool.id] = "batch"
        else:
            out[pool.id] = "main"
    return out
