"""How a compiled design's traffic is split: node by node, the share each child receives, what a
cache answers, what is shed or lost, and the capacity of every subtree (for splitting by capacity,
fallbacks and admission control)."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from inferboard.model.design import Design
from inferboard.sim.design.design_structure import DesignStructure, design_structure
from inferboard.sim.design.faults import Fault
from inferboard.sim.design.hardware import PoolPlan

#: Share of their capacity the primaries below a router fill before a fallback model takes the rest.
FALLBACK_THRESHOLD = 0.95


class Routing:
    """One compile's view of the design under its faults and replica overrides: which nodes are
    down, every pool's plan, the capacity of every subtree, and how each node splits its traffic
    (the routing rules in ``compile``'s docstring)."""

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
                            if self.kind(node_id) in self.s.serving_kinds:
                                extra.append(Fault("slow_replica", node_id, fault.amount))
        return tuple(extra)

    # -- node properties -------------------------------------------------------------------
    def kind(self, node_id: str) -> str:
        """The kind of ``node_id``."""
        return self._kind[node_id]

    def is_down(self, node_id: str) -> bool:
        """Whether ``node_id`` serves nothing: its region is out, or its pool has no live server."""
        down = self.down_regions
        if down and (self._region[node_id] in down or node_id in down):
            return True
        plan = self.plans.get(node_id)
        return plan is not None and not plan.live

    def is_undetected(self, node_id: str) -> bool:
        """Whether ``node_id`` is down in a region the load balancers have not yet marked dead."""
        return bool(self.undetected) and (self._region[node_id] in self.undetected or node_id in self.undetected)

    def feeder(self, pool_id: str, kind: str) -> str | None:
        """The node of ``kind`` (a batcher or a queue) feeding ``pool_id``, if any."""
        return self.s.feeders.get((pool_id, kind))

    def plan(self, node_id: str, rate: float = 0.0, degraded: int | None = None) -> PoolPlan:
        """Plan the pool ``node_id`` at ``rate`` (and a degraded token budget) and remember the plan."""
        prefix = self.prefix_hit(node_id) if self._kind[node_id] == "generation_pool" else 0.0
        plan = self.s.plan(self.d, node_id, self.faults, self.replicas, rate, degraded, prefix)
        self.plans[node_id] = plan
        return plan

    def station_capacity(self, node_id: str) -> float:
        """Requests per second the pool's station completes, from its remembered plan."""
        return pool_station_capacity(self.s, self.plans[node_id])

    def capacity(self, node_id: str) -> float:
        """Requests per second the subtree below (and including) a node can complete."""
        found = self._capacity.get(node_id)
        if found is not None:
            return found
        self._capacity[node_id] = 0.0  # guards against loops (refused by the model anyway)
        kind = self._kind[node_id]
        if self.is_down(node_id):
            value = 0.0
        elif kind in self.s.serving_kinds:
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

    def forget_capacities(self) -> None:
        """Drop the remembered subtree capacities (after the pools' plans have changed)."""
        self._capacity.clear()

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
        """The node's children split into primaries and fallbacks."""
        return self.s.split[node_id]

    # -- routing ----------------------------------------------------------------------------
    def shares(self, node_id: str, origin: str | None, rate: float) -> tuple[dict[str, float], float, float, float]:
        """Fractions of a node's traffic to each child; plus (ends here, shed, lost)."""
        kind = self._kind[node_id]
        params = self._params[node_id]
        children = self.children[node_id]
        if kind in self.s.serving_kinds and not children:
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
            weights = self.geo_weights(candidates, origin, params["policy"])
        elif kind in self.s.capacity_split_kinds:
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
        more_shed, more_lost = place(out, weights, keep * (1 - overflow), keep * overflow, kind, fallbacks,
                                     bool(candidates), bool(primaries), is_down)
        return out, end, shed + more_shed, lost + more_lost

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

    def geo_weights(self, kids: list[str], origin: str | None, policy: str) -> dict[str, float]:
        """A global load balancer's split over ``kids`` by its policy: even, by capacity, or nearest the
        traffic's ``origin``."""
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


def place(out: dict, weights: Mapping[str, float], kept, spill, kind: str, fallbacks: Sequence[str],
          has_candidates: bool, has_primaries: bool, is_down) -> tuple:
    """Send a router's traffic on: ``kept`` (its share that stays with the primaries) split by
    ``weights``, what would go to a child that is down counted as lost; ``spill`` (its overflow)
    to the live fallbacks evenly, else shed (admission control, or a router with nowhere to send)
    or lost. Adds to ``out`` (child -> share) and returns (shed, lost). The shares are floats, or
    arrays over ticks (:mod:`tick_routing`); a float spill of zero reaches no fallback."""
    shed = lost = 0.0
    for child, frac in weights.items():
        portion = kept * frac
        if is_down(child):
            lost = lost + portion
        else:
            out[child] = out.get(child, 0.0) + portion
    if isinstance(spill, float) and spill <= 0 or not (fallbacks or kind == "admission_control" or not has_candidates):
        return shed, lost
    live_fallbacks = [c for c in fallbacks if not is_down(c)]
    if live_fallbacks:
        frac = 1.0 / len(live_fallbacks)
        for child in live_fallbacks:
            out[child] = out.get(child, 0.0) + spill * frac
    elif kind == "admission_control" or not has_candidates and not has_primaries:
        shed = shed + spill
    else:
        lost = lost + spill
    return shed, lost


def pool_station_capacity(s: DesignStructure, plan: PoolPlan) -> float:
    """Requests per second a pool's station completes at most with the replicas of ``plan``."""
    if not plan.live:
        return 0.0
    if plan.capacity_rps is not None:  # an LLM pool: its service time grows with the load
        return plan.capacity_rps
    batcher = s.feeders.get((plan.node_id, "dynamic_batcher"))
    if batcher and s.kind[plan.node_id] in s.batched_kinds:
        b = int(s.params[batcher]["max_batch_size"])
        batch_s = plan.batch_base_s + plan.batch_item_s * b
        return plan.servers * b / batch_s if batch_s > 0 else math.inf
    return plan.servers / plan.service_mean_s if plan.service_mean_s > 0 else math.inf


def propagate_rates(c: Routing, order: list[str], source_rates: dict[str, float]) -> dict[str, float]:
    """Every node's total rate. Traffic is carried per origin (the location of the source it came
    from), since a geo or latency-routed global load balancer splits each origin's traffic its own
    way; every router splits with its total rate, as its rate limit, fallback overflow and
    admission threshold act on all the traffic it receives, whatever its origin."""
    location = c.s.location
    flows: dict[str, dict] = {}
    for sid, rate in source_rates.items():
        per = flows.setdefault(sid, {})
        per[location[sid]] = per.get(location[sid], 0.0) + rate
    rates = dict.fromkeys(c.s.kind, 0.0)
    for node_id in order:
        per = flows.get(node_id)
        if not per:
            continue
        total = rates[node_id] = sum(per.values())
        if total <= 0:
            continue
        for origin, rate in per.items():
            out, _, _, _ = c.shares(node_id, origin, total)
            for child, frac in out.items():
                into = flows.setdefault(child, {})
                into[origin] = into.get(origin, 0.0) + rate * frac
    return rates


def degraded_pools(c: Routing, rates: dict[str, float]) -> dict[str, int]:
    """The generation pools below an admission control that shortens answers under load, each with
    the shorter token budget, where that control's rate in ``rates`` is past its threshold."""
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
