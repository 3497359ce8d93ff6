"""Compile a design into a queueing network: who sends how much traffic where, and what each
station is. One compiled form feeds the steady state, the timeline and the load test, so they agree.

Routing rules (documented in docs/simulator.md):
- traffic sources split the required traffic by their ``share`` (as relative weights);
- a global load balancer with the latency or geo policy sends each source's traffic to the
  children in the source's own location, else its continent, else all; ``weighted`` splits by
  capacity, ``round_robin`` evenly; with ``failover`` it skips children that cannot serve
  (region down, no replicas, model does not fit), otherwise their share is lost;
- a regional load balancer splits by capacity (least outstanding requests) and applies its rate limit;
- a cache ends the path for ``hit_ratio`` of requests after its hit latency;
- a canary router sends ``canary_share`` to its canary port;
- a fallback model below a router takes what the primaries cannot: everything above 95% of their
  capacity, or all of it when they are down; admission control sheds (or sends to a fallback, or
  degrades generation to shorter outputs) everything above its utilisation threshold;
- a dynamic batcher or request queue right before a pool makes that pool a batching or bounded station.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import networkx as nx

from inferboard.model.design import Design
from inferboard.sim.faults import Fault
from inferboard.sim.hardware import POOL_KINDS, PoolPlan, cost_of_node, plan_pool
from inferboard.sim.network import Network, Path, Station

ROUTER_KINDS = ("global_load_balancer", "regional_load_balancer", "admission_control", "canary_router", "cache",
                "request_queue", "dynamic_batcher", "traffic_source")
#: Pools a dynamic batcher in front of serves in batches (a generation pool batches continuously).
BATCHED_POOLS = ("gpu_pool", "cpu_pool")
#: Round-trip network latency between locations, seconds (illustrative public-cloud figures).
SAME_CONTINENT_RTT_S = 0.025
CROSS_RTT_S = {frozenset({"us", "eu"}): 0.08, frozenset({"us", "ap"}): 0.15, frozenset({"eu", "ap"}): 0.2}
FALLBACK_THRESHOLD = 0.95
MAX_PATHS = 4000
#: Offered load assumed when the requirements declare neither ``mean_rps`` nor ``peak_rps``.
ASSUMED_RPS = 100.0


def default_load(req) -> tuple[float, str]:
    """The offered rps to evaluate when the caller names none, and a note saying where it came from
    when it is not the declared mean (empty when it is)."""
    if req.mean_rps is not None:
        return float(req.mean_rps), ""
    if req.peak_rps is not None:
        return float(req.peak_rps), f"requirements.mean_rps is not declared: evaluated at peak_rps ({req.peak_rps:g} rps)"
    return ASSUMED_RPS, (f"no traffic figures declared (requirements.mean_rps, peak_rps): evaluated at an assumed "
                         f"{ASSUMED_RPS:g} rps")


@dataclass
class Compiled:
    network: Network
    offered_rps: float
    node_rates: dict[str, float]
    plans: dict[str, PoolPlan]
    #: node id -> the station holding its queue (pools; batchers and queues point at their pool)
    station_of: dict[str, str]
    cost_per_hour: float
    cost_items: dict[str, float]
    #: rps lost because a region or pool is down and nothing failed over (reported as errors)
    lost_rps: float
    #: rps shed on purpose before any station (rate limits, admission control)
    shed_rps: dict[str, float]
    down: set[str]
    notes: list[str] = field(default_factory=list)
    path_nodes: list[tuple[tuple[str, ...], float]] = field(default_factory=list)
    #: set when no rps was asked for and the requirements' mean was not there to use (see ``default_load``)
    load_note: str = ""


def location_of(design: Design, node_id: str) -> str | None:
    node = design.nodes[node_id]
    if node.kind == "traffic_source":
        return node.params.get("origin")
    region = design.nodes.get(node.region) if node.region else None
    return region.params.get("location") if region is not None else None


def rtt_between(a: str | None, b: str | None) -> float:
    if not a or not b or a == b:
        return 0.0
    ca, cb = a.split("-")[0], b.split("-")[0]
    if ca == cb:
        return SAME_CONTINENT_RTT_S
    return CROSS_RTT_S.get(frozenset({ca, cb}), 0.2)


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
        self.pools: list[str] = [n for n, kind in self.kind.items() if kind in POOL_KINDS]
        self.feeders: dict[tuple[str, str], str] = {}
        for pool in self.pools:
            for parent in self.parents[pool]:
                self.feeders.setdefault((pool, self.kind[parent]), parent)
        #: delay stations of balancers and caches (frozen, so compiles share them)
        self.delay_stations: dict[str, Station] = {}
        for n in self.order:
            kind, params = self.kind[n], self.params[n]
            if kind in ("global_load_balancer", "regional_load_balancer"):
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


class _Compiler:
    def __init__(self, design: Design, rps: float, faults: Sequence[Fault], replicas: Mapping[str, int] | None,
                 undetected_regions: Sequence[str] = (), structure: DesignStructure | None = None):
        self.d = design
        self.s = s = design_structure(design, structure)
        self.rps = rps
        self.faults = tuple(faults)
        self.replicas = replicas
        self.graph = s.graph
        self.notes: list[str] = []
        #: Regions that are down but not yet noticed by health checks: routers still pick them.
        self.undetected = set(undetected_regions)
        self.down_regions = {f.target for f in self.faults if f.kind == "region_outage"} | self.undetected
        self.children = s.children
        self.parents = s.parents
        self._kind = s.kind
        self._params = s.params
        self._region = s.region
        self.plans: dict[str, PoolPlan] = {}
        self._capacity: dict[str, float] = {}
        self.rolled_back: set[str] = set()
        self.faults = self.faults + self._slow_canary_faults()
        self._flushed = {f.target for f in self.faults if f.kind == "cache_flush"}

    def _slow_canary_faults(self) -> tuple[Fault, ...]:
        """A slow model version behind a canary router slows the pools on its canary port. A router
        with automatic rollback whose canary is slower than ``rollback_latency_ratio`` takes it out
        after its evaluation window, so in steady state it sends the canary nothing."""
        extra = []
        for fault in self.faults:
            if fault.kind != "slow_canary":
                continue
            for router in self.d.nodes_of_kind("canary_router"):
                if not fault.hits(router.id):
                    continue
                if router.params["auto_rollback"] and fault.amount >= float(router.params["rollback_latency_ratio"]):
                    self.rolled_back.add(router.id)
                    self.notes.append(f"'{router.id}': the slow canary (x{fault.amount:g}) is rolled back "
                                      f"automatically after {float(router.params['evaluation_window_s']):g} s")
                for child, port in self.children[router.id]:
                    if port == "canary":
                        for node_id in {child} | self.s.descendants(child):
                            if self.kind(node_id) in POOL_KINDS:
                                extra.append(Fault("slow_replica", node_id, fault.amount))
        return tuple(extra)

    # -- node properties -------------------------------------------------------------------
    def kind(self, node_id: str) -> str:
        return self._kind[node_id]

    def is_down(self, node_id: str) -> bool:
        down = self.down_regions
        if down and (self._region[node_id] in down or node_id in down):
            return True
        plan = self.plans.get(node_id)
        return plan is not None and not plan.live

    def is_undetected(self, node_id: str) -> bool:
        return bool(self.undetected) and (self._region[node_id] in self.undetected or node_id in self.undetected)

    def feeder(self, pool_id: str, kind: str) -> str | None:
        return self.s.feeders.get((pool_id, kind))

    def plan(self, node_id: str, rate: float = 0.0, degraded: int | None = None) -> PoolPlan:
        prefix = self.prefix_hit(node_id) if self._kind[node_id] == "generation_pool" else 0.0
        plan = self.s.plan(self.d, node_id, self.faults, self.replicas, rate, degraded, prefix)
        self.plans[node_id] = plan
        return plan

    def station_capacity(self, node_id: str) -> float:
        plan = self.plans[node_id]
        if not plan.live:
            return 0.0
        if plan.capacity_rps is not None:  # an LLM pool: its service time grows with the load
            return plan.capacity_rps
        batcher = self.feeder(node_id, "dynamic_batcher")
        if batcher and self._kind[node_id] in BATCHED_POOLS:
            b = int(self._params[batcher]["max_batch_size"])
            batch_s = plan.batch_base_s + plan.batch_item_s * b
            return plan.servers * b / batch_s if batch_s > 0 else math.inf
        return plan.servers / plan.service_mean_s if plan.service_mean_s > 0 else math.inf

    def capacity(self, node_id: str) -> float:
        """Requests per second the subtree below (and including) a node can complete."""
        found = self._capacity.get(node_id)
        if found is not None:
            return found
        self._capacity[node_id] = 0.0  # guards against loops (refused by the model anyway)
        kind = self._kind[node_id]
        if self.is_down(node_id):
            value = 0.0
        elif kind in POOL_KINDS:
            value = self.station_capacity(node_id)
            kids = self.s.kids[node_id]
            if kids:
                value = min(value, sum(self.capacity(c) for c in kids))
        else:
            if kind == "canary_router":
                share = 0.0 if node_id in self.rolled_back else float(self._params[node_id]["canary_share"])
                stable = sum(self.capacity(c) for c, port in self.children[node_id] if port == "stable")
                canary = sum(self.capacity(c) for c, port in self.children[node_id] if port == "canary")
                value = min(stable / (1 - share) if share < 1 else math.inf, canary / share if share > 0 else math.inf)
                if canary == 0:
                    value = stable
            else:
                value = sum(self.capacity(c) for c in self.s.split[node_id][0])
            if kind == "cache":
                hit = self.hit_ratio(node_id)
                value = value / (1 - hit) if hit < 1 else math.inf
            if kind == "regional_load_balancer" and float(self._params[node_id]["rate_limit_rps"]) > 0:
                value = min(value, float(self._params[node_id]["rate_limit_rps"]))
        self._capacity[node_id] = value
        return value

    def _flushed_cache(self, node_id: str) -> bool:
        return bool(self._flushed) and ("*" in self._flushed or node_id in self._flushed)

    def hit_ratio(self, node_id: str) -> float:
        """Share of requests a cache answers by itself. A KV-prefix cache answers none: its hits
        only shorten the prefill of generation pools below it (see ``prefix_hit``)."""
        if self._flushed_cache(node_id):
            return 0.0
        params = self._params[node_id]
        if params["cache_type"] == "kv_prefix":
            return 0.0
        return float(params["hit_ratio"])

    def prefix_hit(self, pool_id: str) -> float:
        """Hit ratio of the KV-prefix caches upstream of a generation pool (the best one)."""
        best = 0.0
        for ancestor in self.s.prefix_caches(pool_id):
            if not self._flushed_cache(ancestor):
                best = max(best, float(self._params[ancestor]["hit_ratio"]))
        return best

    def split_children(self, node_id: str) -> tuple[list[str], list[str]]:
        return self.s.split[node_id]

    # -- routing ----------------------------------------------------------------------------
    def shares(self, node_id: str, origin: str | None, rate: float) -> tuple[dict[str, float], float, float, float]:
        """Fractions of a node's traffic to each child; plus (ends here, shed, lost)."""
        kind = self._kind[node_id]
        params = self._params[node_id]
        children = self.children[node_id]
        if kind in POOL_KINDS and not children:
            return {}, 1.0, 0.0, 0.0
        primaries, fallbacks = self.s.split[node_id]
        end = shed = lost = 0.0
        out: dict[str, float] = {}
        if kind == "cache":
            end = self.hit_ratio(node_id)
        keep = 1.0 - end
        is_down = self.is_down
        if kind == "canary_router":
            share = 0.0 if node_id in self.rolled_back else float(params["canary_share"])
            stable = [c for c, p in children if p == "stable" and not is_down(c)]
            canary = [c for c, p in children if p == "canary" and not is_down(c)]
            groups = [(stable, 1 - share if canary else 1.0), (canary, share if stable else 1.0)]
            for group, weight in groups:
                for child, frac in self._even(group).items():
                    out[child] = out.get(child, 0.0) + keep * weight * frac
            if not stable and not canary:
                lost = keep
            return out, end, shed, lost
        live = [c for c in primaries if not is_down(c) or self.is_undetected(c)]
        failover = kind != "global_load_balancer" or bool(params.get("failover", True))
        candidates = live if failover else primaries
        if kind == "global_load_balancer":
            weights = self._geo_weights(candidates, origin, params["policy"])
        elif kind in ("regional_load_balancer", *POOL_KINDS):
            weights = self._by_capacity(candidates)
        else:
            weights = self._even(candidates)
        overflow = 0.0
        if kind == "admission_control":
            total_cap = sum(self.capacity(c) for c in live)
            threshold = float(params["shed_above_utilisation"]) * total_cap
            if rate * keep > threshold:
                overflow = 1.0 - threshold / (rate * keep) if rate > 0 else 0.0
        elif fallbacks:
            total_cap = sum(self.capacity(c) for c in live)
            if rate * keep > FALLBACK_THRESHOLD * total_cap:
                overflow = 1.0 - FALLBACK_THRESHOLD * total_cap / (rate * keep) if rate > 0 else 0.0
        if kind == "regional_load_balancer" and float(params["rate_limit_rps"]) > 0 and rate > 0:
            limited = max(0.0, 1.0 - float(params["rate_limit_rps"]) / rate)
            shed += keep * limited
            keep -= keep * limited
        if not candidates:
            overflow = 1.0
        spill = keep * overflow
        for child, frac in weights.items():
            portion = keep * (1 - overflow) * frac
            if is_down(child):
                lost += portion
            else:
                out[child] = out.get(child, 0.0) + portion
        if spill > 0:
            live_fallbacks = [c for c in fallbacks if not is_down(c)]
            if live_fallbacks:
                for child, frac in self._even(live_fallbacks).items():
                    out[child] = out.get(child, 0.0) + spill * frac
            elif kind == "admission_control" or not candidates and not primaries:
                shed += spill
            else:
                lost += spill
        return out, end, shed, lost

    @staticmethod
    def _even(kids: list[str]) -> dict[str, float]:
        return {c: 1.0 / len(kids) for c in kids} if kids else {}

    def _by_capacity(self, kids: list[str]) -> dict[str, float]:
        caps = {c: self.capacity(c) for c in kids}
        if self.undetected:
            for c in kids:
                if self.is_undetected(c):  # routed by the capacity it had before the outage
                    caps[c] = self._capacity_if_alive(c)
        total = sum(v for v in caps.values() if math.isfinite(v))
        if not kids or total <= 0 or any(not math.isfinite(v) for v in caps.values()):
            return self._even(kids)
        return {c: v / total for c, v in caps.items()}

    def _capacity_if_alive(self, node_id: str) -> float:
        saved, cache = self.down_regions, self._capacity
        self.down_regions, self._capacity = saved - self.undetected, {}
        try:
            return self.capacity(node_id)
        finally:
            self.down_regions, self._capacity = saved, cache

    def _geo_weights(self, kids: list[str], origin: str | None, policy: str) -> dict[str, float]:
        if policy == "round_robin" or not kids:
            return self._even(kids)
        if policy == "weighted":
            return self._by_capacity(kids)
        if origin:
            location = self.s.location
            same = [c for c in kids if location[c] == origin]
            if same:
                return self._even(same)
            continent = [c for c in kids if (location[c] or "").split("-")[0] == origin.split("-")[0]]
            if continent:
                return self._even(continent)
        return self._even(kids)


def compile_design(design: Design, rps: float | None = None, faults: Sequence[Fault] = (),
                   replicas: Mapping[str, int] | None = None, undetected_regions: Sequence[str] = (),
                   structure: DesignStructure | None = None) -> Compiled:
    """Compile ``design`` at ``rps`` offered requests per second (default: ``default_load``, the
    requirements' mean; a design without it says so in ``load_note`` and in its notes).

    ``undetected_regions`` are regions that are down (as if in a region outage) but whose failure
    the load balancers have not detected yet: routers keep sending them their usual share, which is
    lost. The timeline uses it for the health-check detection window of a region outage.

    ``structure`` (from :class:`DesignStructure`) saves redoing the rate-independent work when the
    same design revision is compiled several times; it is rebuilt if it no longer matches.
    """
    load_note = ""
    if rps is None:
        rps, load_note = default_load(design.requirements)
    rps = max(0.0, float(rps))
    c = _Compiler(design, rps, faults, replicas, undetected_regions, structure)
    if load_note:
        c.notes.append(load_note)
    s = c.s
    weights = {sid: float(s.params[sid]["share"]) for sid in s.sources}
    for fault in faults:
        if fault.kind == "traffic_surge":
            for sid in weights:
                if fault.hits(sid) or fault.target == "*":
                    weights[sid] *= fault.amount
    base_total = sum(float(s.params[sid]["share"]) for sid in s.sources) or 1.0
    source_rates = {sid: rps * w / base_total for sid, w in weights.items()}
    offered = sum(source_rates.values())
    order = s.order
    for node_id in s.pools:
        c.plan(node_id)
    # Pass 1: rates with capacity-independent routing, to size generation pools and overflow.
    rates = _propagate(c, order, source_rates)
    degraded = _degraded_pools(c, rates)
    for node_id in list(c.plans):
        c.plan(node_id, rates.get(node_id, 0.0), degraded.get(node_id))
    c._capacity.clear()
    rates = _propagate(c, order, source_rates)
    for node_id in c.plans:
        if s.kind[node_id] == "generation_pool":
            c.plan(node_id, rates.get(node_id, 0.0), degraded.get(node_id))
    c._capacity.clear()
    compiled = _build(c, source_rates, offered, order)
    compiled.load_note = load_note
    return compiled


def _propagate(c: _Compiler, order: list[str], source_rates: dict[str, float]) -> dict[str, float]:
    rates = dict.fromkeys(c.s.kind, 0.0)
    for sid, rate in source_rates.items():
        rates[sid] = rate
    kind, location = c.s.kind, c.s.location
    for node_id in order:
        rate = rates[node_id]
        if rate <= 0:
            continue
        origin = location[node_id] if kind[node_id] == "traffic_source" else None
        out, _, _, _ = c.shares(node_id, origin, rate)
        for child, frac in out.items():
            rates[child] += rate * frac
    return rates


def _degraded_pools(c: _Compiler, rates: dict[str, float]) -> dict[str, int]:
    degraded: dict[str, int] = {}
    for node_id, kind in c.s.kind.items():
        if kind != "admission_control":
            continue
        params = c.s.params[node_id]
        if params["degrade_mode"] != "shorter_max_tokens":
            continue
        below = c.s.descendants(node_id)
        cap = sum(c.capacity(k) for k, _ in c.children[node_id])
        if rates.get(node_id, 0.0) > float(params["shed_above_utilisation"]) * cap:
            for pool in below:
                if c.kind(pool) == "generation_pool":
                    degraded[pool] = int(params["degrade_max_tokens"])
    return degraded


def _station_for_pool(c: _Compiler, node_id: str) -> Station:
    plan = c.plans[node_id]
    batcher = c.feeder(node_id, "dynamic_batcher")
    queue = c.feeder(node_id, "request_queue")
    holder = batcher or queue
    capacity = timeout = None
    if holder:
        hp = c.s.params[holder]
        capacity = int(hp.get("queue_capacity", hp.get("capacity", 0))) or None
        timeout = float(hp["timeout_ms"]) / 1000
    if batcher and c.kind(node_id) in BATCHED_POOLS:
        bp = c.s.params[batcher]
        return Station(node_id, servers=plan.servers if plan.live else 0, service_mean_s=plan.service_mean_s,
                       service_cv=plan.service_cv, batch_max=int(bp["max_batch_size"]),
                       batch_base_s=plan.batch_base_s, batch_item_s=plan.batch_item_s,
                       batch_timeout_s=float(bp["max_queue_delay_ms"]) / 1000, queue_capacity=capacity,
                       timeout_s=timeout, error_rate=plan.error_rate, node_id=node_id)
    return Station(node_id, servers=plan.servers if plan.live else 0, service_mean_s=plan.service_mean_s,
                   service_cv=plan.service_cv, queue_capacity=capacity, timeout_s=timeout,
                   error_rate=plan.error_rate, node_id=node_id)


def _build(c: _Compiler, source_rates: dict[str, float], offered: float, order: list[str]) -> Compiled:
    d, s = c.d, c.s
    stations: dict[str, Station] = {}
    station_of: dict[str, str] = {}
    for node_id in order:
        kind = s.kind[node_id]
        if kind in POOL_KINDS:
            stations[node_id] = _station_for_pool(c, node_id)
            station_of[node_id] = node_id
            for feeder in ("dynamic_batcher", "request_queue"):
                holder = c.feeder(node_id, feeder)
                if holder:
                    station_of.setdefault(holder, node_id)
        elif node_id in s.delay_stations:
            stations[node_id] = s.delay_stations[node_id]
            station_of[node_id] = node_id
    paths: list[Path] = []
    path_nodes: list[tuple[tuple[str, ...], float]] = []
    shed_rps: dict[str, float] = {}
    lost = 0.0
    rates = dict.fromkeys(s.kind, 0.0)
    total = offered or 1.0
    location = s.location
    stack = [((sid,), (), rate / total, location[sid], location[sid]) for sid, rate in source_rates.items()]
    while stack:
        nodes, seq, prob, origin, here = stack.pop()
        node_id = nodes[-1]
        rates[node_id] += prob * offered
        out, end, shed, lost_here = c.shares(node_id, origin, prob * offered)
        if node_id in stations:
            seq = seq + (node_id,)
        if shed:
            shed_rps[node_id] = shed_rps.get(node_id, 0.0) + shed * prob * offered
        lost += lost_here * prob * offered
        finished = end + (1.0 if not out and not (shed or lost_here or end) else 0.0)
        if finished and seq:
            paths.append(Path(seq, prob * finished, " -> ".join(nodes)))
            path_nodes.append((nodes, prob * finished))
        elif finished:
            lost += finished * prob * offered
        for child, frac in out.items():
            child_seq = seq
            there = location[child] or here
            rtt = rtt_between(here, there)
            if rtt > 0:
                # One delay station per wire crossing locations (unique per hop, so paths never
                # share it in different orders).
                net_id = f"net:{node_id}->{child}"
                stations.setdefault(net_id, Station(net_id, fixed_delay_s=rtt, delay_only=True))
                child_seq = seq + (net_id,)
            if len(stack) + len(paths) > MAX_PATHS:
                c.notes.append(f"more than {MAX_PATHS} request paths: the rest are merged into their first branch")
                break
            stack.append((nodes + (child,), child_seq, prob * frac, origin, there))
    cv_weights = [(float(s.params[sid]["arrival_cv"]), r) for sid, r in source_rates.items()]
    arrival_cv = sum(cv * r for cv, r in cv_weights) / total if cv_weights and offered > 0 else 1.0
    paths = [p for p in paths if p.share > 0]
    share_sum = sum(p.share for p in paths)
    if share_sum > 1:
        paths = [Path(p.stations, p.share / share_sum, p.label) for p in paths]
    network = Network(stations, tuple(paths), offered, arrival_cv)
    cost_items = {}
    down_regions = c.down_regions
    for node_id, node in d.nodes.items():
        down = node.region in down_regions or node_id in down_regions
        cost_items[node_id] = cost_of_node(node, d.catalog, c.plans.get(node_id), rates.get(node_id, 0.0), down)
    down_nodes = {n for n in s.kind if c.is_down(n)}
    if not s.sources:
        c.notes.append("no traffic source: nothing is offered")
    return Compiled(network, offered, rates, c.plans, station_of, sum(cost_items.values()), cost_items, lost,
                    shed_rps, down_nodes, c.notes, path_nodes)
