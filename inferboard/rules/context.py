"""What one check computes once about a design: kind index, wiring by signal, reachability, node
attributes (parameters plus a few derived figures), and the cache of simulator runs."""

from __future__ import annotations

import weakref
from collections import deque
from typing import Any, Callable

from inferboard.catalog.roles import kind_group
from inferboard.model.design import Design
from inferboard.model.elements import Node
from inferboard.rules.roles import POOL_ROLES, SERVING_KINDS, pool_roles, reached_by_traffic

REPLICA_POOL_KINDS = kind_group("replica_pool")
GPU_KINDS = kind_group("gpu_pool")
#: Weight memory against FP16, and the share of GPU memory usable for weights; the same figures as
#: the simulator's (inferboard/sim/design/hardware.py), restated so structural checks never import it.
PRECISION_MEMORY = {"fp32": 2.0, "fp16": 1.0, "fp8": 0.5, "int8": 0.5}
USABLE_MEMORY = 0.9
JURISDICTION = {"us-east": "us", "us-west": "us", "eu-west": "eu", "eu-central": "eu",
                "ap-southeast": "apac", "ap-northeast": "apac"}


def _gpu(index: "DesignIndex", node: Node):
    return index.design.catalog.gpus.get(node.params.get("gpu_type", ""))


def _gpu_memory(index: "DesignIndex", node: Node) -> float | None:
    gpu = _gpu(index, node)
    return None if gpu is None else gpu.memory_gb


def _mig_max(index: "DesignIndex", node: Node) -> int | None:
    gpu = _gpu(index, node)
    return None if gpu is None else gpu.mig_max_instances


def _parts(node: Node) -> int:
    return max(1, int(node.params.get("partitions", 1))) if node.params.get("partitioning", "none") != "none" else 1


def _weights(index: "DesignIndex", node: Node) -> float | None:
    size = index.requirements.model_size_gb
    return None if size is None else size * PRECISION_MEMORY.get(node.params.get("precision", "fp16"), 1.0)


def _needed(index: "DesignIndex", node: Node) -> float | None:
    weights = _weights(index, node)
    if weights is None:
        return None
    mig = node.params.get("partitioning", "none") == "mig"
    return weights if mig else weights * _parts(node)


def _available(index: "DesignIndex", node: Node) -> float | None:
    memory = _gpu_memory(index, node)
    if memory is None:
        return None
    mig = node.params.get("partitioning", "none") == "mig"
    tensor_parallel = max(1, int(node.params.get("tensor_parallel", 1)))  # one replica's weights span this many GPUs
    return (memory / _parts(node) if mig else memory) * USABLE_MEMORY * tensor_parallel


def _detection(index: "DesignIndex", node: Node) -> float | None:
    interval, threshold = node.params.get("health_check_interval_s"), node.params.get("unhealthy_threshold")
    return None if interval is None or threshold is None else float(interval) * float(threshold)


def _cold_start(index: "DesignIndex", node: Node) -> float | None:
    seconds = node.params.get("provisioning_s")
    return None if seconds is None else float(seconds) * 1000.0


#: name -> (kinds it applies to, meaning, function). Documented in docs/rules.md.
DERIVED: dict[str, tuple[tuple[str, ...], str, Callable[["DesignIndex", Node], Any]]] = {
    "gpu_memory_gb": (GPU_KINDS, "memory of one GPU of the node's GPU type (gpu_types.yaml)", _gpu_memory),
    "gpu_mig_max": (GPU_KINDS, "most MIG instances the node's GPU type supports (0 = no MIG)", _mig_max),
    "weights_gb": (GPU_KINDS, "the model's weights on this node: requirements.model_size_gb (FP16) scaled "
                   "by precision (fp32 x2, fp16 x1, fp8 and int8 x0.5); undeclared when the size is not given",
                   _weights),
    "memory_needed_gb": (GPU_KINDS, "GPU memory the model servers of one GPU need: weights_gb, times "
                         "'partitions' when time-sliced (each server loads a copy)", _needed),
    "memory_available_gb": (GPU_KINDS, "usable memory per server: 90% of the GPU, or of one MIG slice, times "
                            "tensor_parallel for an LLM replica split over several GPUs",
                            _available),
    "failover_detection_s": (("global_load_balancer",), "seconds to declare a region dead: "
                             "health_check_interval_s times unhealthy_threshold", _detection),
    "cold_start_ms": (SERVING_KINDS, "provisioning_s in milliseconds: how long a new replica takes to serve", _cold_start),
}


#: catalog -> {(kind, output port): signal}; a catalog's ports never change once loaded.
_SIGNALS: "weakref.WeakKeyDictionary[Any, dict[tuple[str, str], str]]" = weakref.WeakKeyDictionary()


class DesignIndex:
    """Read-only facts about one design, computed once per check and shared by every rule."""

    def __init__(self, design: Design):
        self.design = design
        self.nodes = design.nodes
        self.requirements = design.requirements
        #: The drift the behaviour rules play (a scenario's); empty: each rule's own.
        self.drift: tuple[str, ...] = ()
        self.order = {node_id: i for i, node_id in enumerate(design.nodes)}
        self.edge_order = {edge_id: i for i, edge_id in enumerate(design.edges)}
        self.by_kind: dict[str, list[Node]] = {}
        for node in design.nodes.values():
            self.by_kind.setdefault(node.kind, []).append(node)
        # signal -> node id -> [(neighbour id, edge id)]
        self.succ: dict[str, dict[str, list[tuple[str, str]]]] = {}
        self.pred: dict[str, dict[str, list[tuple[str, str]]]] = {}
        signal_of = self._signal_table()
        for edge in design.edges.values():
            signal = signal_of.get((design.nodes[edge.source].kind, edge.source_port), "")
            for sig in (signal, "any"):
                self.succ.setdefault(sig, {}).setdefault(edge.source, []).append((edge.target, edge.id))
                self.pred.setdefault(sig, {}).setdefault(edge.target, []).append((edge.source, edge.id))
        self._reach: dict[tuple[str, str, str], frozenset[str]] = {}
        self._attrs: dict[tuple[str, str], Any] = {}
        #: (rps, faults) -> simulator result, filled by behaviour leaves during this check.
        self.sim_cache: dict[tuple, Any] = {}
        self.sim_error: str | None = None
        #: the design's rate-independent compile, shared by this check's simulations
        self.sim_structure: Any = None
        self._roles: dict[str, str] | None = None
        self._reached: frozenset[str] | None = None
        #: the pool roles the running rule judges; pools of other roles are left out of every selection
        self.scope: frozenset[str] = frozenset(POOL_ROLES)
        self._scoped: dict[tuple[tuple[str, ...], frozenset[str]], list[Node]] = {}

    @property
    def roles(self) -> dict[str, str]:
        """Serving pool id -> its role in this design (see :mod:`inferboard.rules.roles`)."""
        if self._roles is None:
            self._roles = pool_roles(self)
        return self._roles

    def role_of(self, node: Node) -> str | None:
        """The pool role of ``node``, or None when it is not a serving pool."""
        return self.roles.get(node.id) if node.kind in SERVING_KINDS else None

    def _signal_table(self) -> dict[tuple[str, str], str]:
        catalog = self.design.catalog
        table = _SIGNALS.get(catalog)
        if table is None:
            table = {(kind.id, port.name): port.signal for kind in catalog.kinds.values() for port in kind.outputs}
            _SIGNALS[catalog] = table
        return table

    # ----------------------------------------------------------------------------- selection
    def of_kinds(self, kinds: tuple[str, ...]) -> list[Node]:
        """The nodes of ``kinds`` in design order; serving pools only when their role is in scope."""
        key = (kinds, self.scope)
        cached = self._scoped.get(key)
        if cached is not None:
            return cached
        out = [n for kind in kinds for n in self.by_kind.get(kind, [])]
        if len(kinds) > 1:
            out.sort(key=lambda n: self.order[n.id])
        if len(self.scope) < len(POOL_ROLES) and any(kind in SERVING_KINDS for kind in kinds):
            out = [n for n in out if n.kind not in SERVING_KINDS or self.roles.get(n.id, "main") in self.scope]
        self._scoped[key] = out
        return out

    def all_of_kinds(self, kinds: tuple[str, ...]) -> list[Node]:
        """The nodes of ``kinds`` whatever their role (graph walks that must see every pool)."""
        scope, self.scope = self.scope, frozenset(POOL_ROLES)
        try:
            return self.of_kinds(kinds)
        finally:
            self.scope = scope

    def attr(self, node: Node, name: str) -> Any:
        """A parameter of the node, or a derived attribute; None when it has neither."""
        if name in node.params:
            return node.params[name]
        derived = DERIVED.get(name)
        if derived is None:
            return None
        key = (node.id, name)
        if key not in self._attrs:
            self._attrs[key] = derived[2](self, node)
        return self._attrs[key]

    def region_of(self, node: Node) -> Node | None:
        """The region node ``node`` sits in, or None."""
        return self.nodes.get(node.region) if node.region else None

    # ---------------------------------------------------------------------------- wiring
    def neighbours(self, node_id: str, signal: str, direction: str) -> list[tuple[str, str]]:
        """(neighbour id, edge id) pairs one edge away. ``direction`` is upstream, downstream or
        adjacent (both)."""
        out: list[tuple[str, str]] = []
        if direction in ("downstream", "adjacent"):
            out.extend(self.succ.get(signal, {}).get(node_id, ()))
        if direction in ("upstream", "adjacent"):
            out.extend(self.pred.get(signal, {}).get(node_id, ()))
        return out

    def reachable(self, node_id: str, signal: str, direction: str) -> frozenset[str]:
        """Every node reachable from ``node_id`` along edges of ``signal`` in ``direction``."""
        key = (node_id, signal, direction)
        cached = self._reach.get(key)
        if cached is not None:
            return cached
        seen: set[str] = set()
        queue = deque([node_id])
        while queue:
            current = queue.popleft()
            for neighbour, _ in self.neighbours(current, signal, direction):
                if neighbour not in seen and neighbour != node_id:
                    seen.add(neighbour)
                    queue.append(neighbour)
        result = frozenset(seen)
        self._reach[key] = result
        return result

    def serving_pools(self) -> list[Node]:
        """Pools that can hold replicas (current or minimum above zero, or may grow)."""
        return [n for n in self.of_kinds(REPLICA_POOL_KINDS)
                if max(n.params.get("replicas", 0), n.params.get("min_replicas", 0),
                       n.params.get("max_replicas", 0)) > 0]

    def served_pools(self) -> list[Node]:
        """The serving pools (of the roles in scope) that requests from a traffic entry reach."""
        if self._reached is None:
            self._reached = reached_by_traffic(self)
        return [n for n in self.serving_pools() if n.id in self._reached]

    def sort_nodes(self, ids) -> tuple[str, ...]:
        """Node ids without repeats, in the design's order."""
        return tuple(sorted(set(ids), key=lambda i: self.order.get(i, 1 << 30)))

    def sort_edges(self, ids) -> tuple[str, ...]:
        """Edge ids without repeats, in the design's order."""
        return tuple(sorted(set(ids), key=lambda i: self.edge_order.get(i, 1 << 30)))
