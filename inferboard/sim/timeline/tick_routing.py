"""Routing per tick, vectorised over ticks: the same rules as :class:`routing.Routing` (and so as the
steady state's compile), evaluated with each tick's offered rate and each pool's capacity in that
tick, so load-balancer weights by capacity, fallback overflow, admission control and rate limits
follow the replicas that are ready, tick by tick.

A :class:`RegimeRouter` holds what does not change within a fault regime (which nodes are down or
not yet detected down, cache hit ratios, rolled-back canaries, source weights under a traffic
surge); :meth:`RegimeRouter.rates` gives every node's rate per tick (what the pools' control loops
read) and :meth:`RegimeRouter.paths` the request paths' shares per tick, keyed like
:class:`regime_tables.RegimeTables` (the queueing stations on the path and its fixed delay), plus
what is lost and what each router sheds. A path's share is the product of the splits along it;
every router splits with its total rate, whatever the origin of the traffic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from inferboard.sim.design.compile import rtt_between
from inferboard.sim.design.routing import FALLBACK_THRESHOLD, Routing, place

__all__ = ["RegimeRouter", "TickPaths"]

#: request paths followed at most per regime (the compile's limit; the rest counts as unrouted)
MAX_PATHS = 4000


@dataclass
class _Split:
    """How one node splits its traffic in every tick: (child, fraction) pairs, and the fractions
    that end there (cache hits, a pool's completions), are shed, or are lost."""

    out: list[tuple[str, np.ndarray | float]]
    end: np.ndarray | float
    shed: np.ndarray | float
    lost: np.ndarray | float
    finished: np.ndarray | float  #: share of the node's traffic whose path ends at the node

    def __post_init__(self) -> None:
        # which parts are anything but zero, found once (a split is read for every path through it)
        self.sheds, self.loses, self.ends = _nonzero(self.shed), _nonzero(self.lost), _nonzero(self.finished)
        self.onward = [(child, frac) for child, frac in self.out if _nonzero(frac)]


@dataclass
class TickPaths:
    """Per tick: each path's share of the offered traffic (by path key), the share lost (dead regions,
    nowhere to go) and the share each router sheds."""

    weights: dict[tuple, np.ndarray]
    lost: np.ndarray
    shed: dict[str, np.ndarray]


def _nonzero(x) -> bool:
    """Whether a share (a float or an array over ticks) is anything but zero."""
    if x.__class__ is float:
        return x != 0.0
    return bool(x.any()) if isinstance(x, np.ndarray) else bool(np.any(x))


def _total(values: list):
    """``sum(values)`` without adding the first one to 0 (the same value, one array operation less)."""
    if len(values) == 1:
        return values[0]
    return sum(values)


def _even(kids: list[str]) -> dict[str, float]:
    return {c: 1.0 / len(kids) for c in kids} if kids else {}


class RegimeRouter:
    """Per-tick routing of one fault regime (see the module docstring). ``routing`` is the regime's
    :class:`routing.Routing` (its faults, undetected regions and pool plans)."""

    def __init__(self, routing: Routing) -> None:
        self.c = c = routing
        s = c.s
        self.s = s
        surge = {sid: float(s.params[sid]["share"]) for sid in s.sources}
        for fault in c.faults:
            if fault.kind == "traffic_surge":
                for sid in surge:
                    if fault.hits(sid) or fault.target == "*":
                        surge[sid] *= fault.amount
        base_total = sum(float(s.params[sid]["share"]) for sid in s.sources) or 1.0
        #: each source's rate per unit of base rate
        self.source_share = {sid: w / base_total for sid, w in surge.items()}
        self.offered_ratio = sum(self.source_share.values())
        self.alive_regions = c.down_regions - c.undetected
        #: global load balancers whose split depends on the origin of the traffic
        self.by_origin = {n for n, kind in s.kind.items() if kind == "global_load_balancer"
                          and s.params[n]["policy"] not in ("round_robin", "weighted")}
        #: splits that depend on neither the rate nor any capacity, by (node, origin), made once
        self._fixed: dict[tuple, _Split] = {}
        self._readers: dict = {}  #: :meth:`threshold_readers`, by set of nodes
        self.static = self._static_nodes()

    # -- capacity ---------------------------------------------------------------------------
    def _down(self, node_id: str, regions: set) -> bool:
        if regions and (self.s.region[node_id] in regions or node_id in regions):
            return True
        plan = self.c.plans.get(node_id)
        return plan is not None and not plan.live

    def _capacity(self, node_id: str, pools: dict[str, np.ndarray], memo: dict, regions: set):
        """Requests per second the subtree below a node completes in each tick (as
        :meth:`Routing.capacity`, with each pool's capacity from ``pools``)."""
        found = memo.get(node_id)
        if found is not None:
            return found
        memo[node_id] = 0.0  # guards against loops
        s, c = self.s, self.c
        kind = s.kind[node_id]
        cap = self._capacity
        if self._down(node_id, regions):
            value = 0.0
        elif kind in s.serving_kinds:
            value = pools[node_id]
            if s.kids[node_id]:
                value = np.minimum(value, _total([cap(k, pools, memo, regions) for k in s.kids[node_id]]))
        else:
            if kind == "canary_router":
                share = 0.0 if node_id in c.rolled_back else float(s.params[node_id]["canary_share"])
                stable = _total([cap(k, pools, memo, regions) for k, port in s.children[node_id] if port == "stable"])
                canary = _total([cap(k, pools, memo, regions) for k, port in s.children[node_id] if port == "canary"])
                # divisors are positive numbers: nothing to warn of
                value = np.minimum(np.divide(stable, 1 - share) if share < 1 else math.inf,
                                   np.divide(canary, share) if share > 0 else math.inf)
                value = np.where(np.asarray(canary) == 0, stable, value)
            else:
                value = _total([cap(k, pools, memo, regions) for k in s.split[node_id][0]])
            if kind == "cache":
                hit = c.hit_ratio(node_id)
                value = np.divide(value, 1 - hit) if hit < 1 else math.inf
            if kind == "regional_load_balancer" and float(s.params[node_id]["rate_limit_rps"]) > 0:
                value = np.minimum(value, float(s.params[node_id]["rate_limit_rps"]))
        memo[node_id] = value
        return value

    def _by_capacity(self, kids: list[str], pools: dict, memos: tuple[dict, dict]) -> dict[str, np.ndarray | float]:
        if not kids:
            return {}
        if len(kids) == 1:
            return {kids[0]: 1.0}
        caps = {}
        for k in kids:
            if self.c.is_undetected(k):  # routed by the capacity it had before the outage
                caps[k] = self._capacity(k, pools, memos[1], self.alive_regions)
            else:
                caps[k] = self._capacity(k, pools, memos[0], self.c.down_regions)
        arrays = [np.asarray(v, dtype=float) for v in caps.values()]
        finite = [np.isfinite(a) for a in arrays]
        total = sum(np.where(f, a, 0.0) for a, f in zip(arrays, finite))
        even = (total <= 0) | ~np.logical_and.reduce(np.broadcast_arrays(*finite))
        safe = np.where(even, 1.0, total)
        return {k: np.where(even, 1.0 / len(kids), np.where(f, a, 0.0) / safe)
                for k, a, f in zip(kids, arrays, finite)}

    # -- one node's split -----------------------------------------------------------------------
    def varies(self, node_id: str) -> bool:
        """Whether a node's split depends on its rate or on some capacity."""
        s, c = self.s, self.c
        kind, (primaries, fallbacks) = s.kind[node_id], s.split[node_id]
        if fallbacks or kind == "admission_control":
            return True
        if kind == "regional_load_balancer" and float(s.params[node_id]["rate_limit_rps"]) > 0:
            return True
        by_capacity = kind in s.capacity_split_kinds or (
            kind == "global_load_balancer" and s.params[node_id]["policy"] == "weighted")
        live = [k for k in primaries if not c.is_down(k) or c.is_undetected(k)]
        return by_capacity and len(live if kind != "global_load_balancer" else primaries) > 1

    def reads_capacity(self, node_id: str) -> str | None:
        """How a node's split reads the pools' capacities: ``"weights"`` (a split by capacity
        between two or more candidates), ``"threshold"`` (only through a fallback's or an admission
        control's overflow threshold), or None (it does not)."""
        s, c = self.s, self.c
        kind, params = s.kind[node_id], s.params[node_id]
        if kind in s.serving_kinds and not s.children[node_id] or kind == "canary_router":
            return None
        primaries, fallbacks = s.split[node_id]
        live = [k for k in primaries if not c.is_down(k) or c.is_undetected(k)]
        failover = kind != "global_load_balancer" or bool(params.get("failover", True))
        candidates = live if failover else primaries
        weighted = kind in s.capacity_split_kinds or (
            kind == "global_load_balancer" and params["policy"] == "weighted")
        if weighted and len(candidates) > 1:
            return "weights"
        return "threshold" if candidates and (kind == "admission_control" or fallbacks) else None

    def threshold_readers(self, nodes: frozenset | None) -> list[str] | None:
        """The nodes (of ``nodes``; None: all) whose split reads capacities, all through an overflow
        threshold; None when some split is by capacity weights. Found once per set of nodes."""
        found = self._readers.get(nodes, False)
        if found is False:
            kinds = {n: self.reads_capacity(n) for n in (self.s.order if nodes is None else nodes)}
            found = None if "weights" in kinds.values() else [n for n, how in kinds.items() if how]
            self._readers[nodes] = found
        return found

    def over_threshold(self, node_id: str, rate: np.ndarray, pools: dict[str, np.ndarray]) -> np.ndarray:
        """The ticks in which a node that reads capacities through its overflow threshold (see
        :meth:`reads_capacity`) sends something over it, at ``rate`` with ``pools``."""
        s, c = self.s, self.c
        kind = s.kind[node_id]
        level = float(s.params[node_id]["shed_above_utilisation"]) if kind == "admission_control" else FALLBACK_THRESHOLD
        live = [k for k in s.split[node_id][0] if not c.is_down(k) or c.is_undetected(k)]
        memo: dict = {}
        threshold = level * _total([self._capacity(k, pools, memo, c.down_regions) for k in live])
        x = rate * (1.0 - c.hit_ratio(node_id) if kind == "cache" else 1.0)
        return (x > threshold) & (rate > 0)

    def _split(self, node_id: str, origin, rate: np.ndarray, pools: dict, memos) -> _Split:
        """:meth:`Routing.shares` for every tick at once."""
        c, s = self.c, self.s
        kind, params, children = s.kind[node_id], s.params[node_id], s.children[node_id]
        if kind in s.serving_kinds and not children:
            return _Split([], 1.0, 0.0, 0.0, 1.0)
        primaries, fallbacks = s.split[node_id]
        end = c.hit_ratio(node_id) if kind == "cache" else 0.0
        keep = 1.0 - end
        shed = lost = 0.0
        out: dict[str, np.ndarray | float] = {}
        down = c.is_down
        if kind == "canary_router":
            share = 0.0 if node_id in c.rolled_back else float(params["canary_share"])
            stable = [k for k, p in children if p == "stable" and not down(k)]
            canary = [k for k, p in children if p == "canary" and not down(k)]
            for group, weight in ((stable, 1 - share if canary else 1.0), (canary, share if stable else 1.0)):
                for child, frac in _even(group).items():
                    out[child] = out.get(child, 0.0) + keep * weight * frac
            if not stable and not canary:
                lost = keep
            return self._finish(out, end, shed, lost)
        live = [k for k in primaries if not down(k) or c.is_undetected(k)]
        failover = kind != "global_load_balancer" or bool(params.get("failover", True))
        candidates = live if failover else primaries
        if kind == "global_load_balancer":
            policy = params["policy"]
            weights = (self._by_capacity(candidates, pools, memos) if policy == "weighted"
                       else c.geo_weights(candidates, origin, policy))
        elif kind in s.capacity_split_kinds:
            weights = self._by_capacity(candidates, pools, memos)
        else:
            weights = _even(candidates)
        overflow: np.ndarray | float = 0.0
        if kind == "admission_control" or fallbacks:
            level = float(params["shed_above_utilisation"]) if kind == "admission_control" else FALLBACK_THRESHOLD
            threshold = level * _total([self._capacity(k, pools, memos[0], c.down_regions) for k in live])
            x = rate * keep
            with np.errstate(divide="ignore", invalid="ignore"):
                overflow = np.where((x > threshold) & (rate > 0), 1.0 - np.divide(threshold, x), 0.0)
        if kind == "regional_load_balancer" and float(params["rate_limit_rps"]) > 0:
            with np.errstate(divide="ignore", invalid="ignore"):
                limited = np.where(rate > 0, np.maximum(0.0, 1.0 - float(params["rate_limit_rps"]) / rate), 0.0)
            shed = shed + keep * limited
            keep = keep - keep * limited
        if not candidates:
            overflow = 1.0
        more_shed, more_lost = place(out, weights, keep * (1 - overflow), keep * overflow, kind, fallbacks,
                                     bool(candidates), bool(primaries), down)
        shed, lost = shed + more_shed, lost + more_lost
        return self._finish(out, end, shed, lost)

    @staticmethod
    def _finish(out: dict, end, shed, lost) -> _Split:
        """A node that sends nothing on, sheds and loses nothing and ends nothing ends everything."""
        pairs = list(out.items())
        if pairs:
            sends = sum(np.asarray(f, dtype=float) for _, f in pairs)
            nothing = (sends == 0) & (np.asarray(shed) == 0) & (np.asarray(lost) == 0) & (np.asarray(end) == 0)
            finished = end + np.where(nothing, 1.0, 0.0)
        else:
            nothing = (np.asarray(shed) == 0) & (np.asarray(lost) == 0) & (np.asarray(end) == 0)
            finished = end + np.where(nothing, 1.0, 0.0)
        return _Split(pairs, end, shed, lost, finished)

    # -- whole design ---------------------------------------------------------------------------
    def _static_nodes(self) -> set[str]:
        """Nodes whose rate follows the base rate alone: the sources and what only they feed through
        splits that read neither the rate nor any capacity. Empty when a node is fed by both such a
        node and another (its inflows would then be added in another order)."""
        s = self.s
        parents: dict[str, set[str]] = {n: set() for n in s.order}
        for n in s.order:
            for child in s.kids[n]:
                parents.setdefault(child, set()).add(n)
        static: set[str] = set()
        for n in s.order:
            if not self.varies(n) and parents[n] <= static:
                static.add(n)
        mixed = any(0 < len(parents[n] & static) < len(parents[n]) for n in s.order if n not in static)
        return set() if mixed else static

    def static_flows(self, base: np.ndarray) -> tuple[dict, dict]:
        """The rates of the :attr:`static` nodes and the flows they send on, per origin, at ``base``
        (computed once for many :meth:`rates` calls on parts of ``base``)."""
        s, flows, rates = self.s, self._source_flows(base), {}
        for node_id in s.order:
            per = flows.get(node_id)
            if node_id not in self.static or not per:
                continue
            total = rates[node_id] = _total(list(per.values()))
            self._send(node_id, per, total, flows, {}, ({}, {}), None, None)
        return rates, {n: per for n, per in flows.items() if n not in self.static}

    def _source_flows(self, base: np.ndarray) -> dict[str, dict]:
        flows: dict[str, dict] = {}
        location = self.s.location
        for sid, share in self.source_share.items():
            per = flows.setdefault(sid, {})
            per[location[sid]] = per.get(location[sid], 0.0) + base * share
        return flows

    def _send(self, node_id: str, per: dict, total, flows: dict, splits: dict, memos, pools, only) -> None:
        """Split a node's traffic (per origin) on to its children's flows."""
        for origin, rate in per.items():
            key = (node_id, origin if node_id in self.by_origin else None)
            split = splits.get(key)
            if split is None:
                split = self._fixed.get(key)
                if split is None:
                    split = self._split(node_id, key[1], total, pools, memos)
                    if not self.varies(node_id):
                        self._fixed[key] = split
                splits[key] = split
            for child, frac in split.onward:
                if only is not None and child not in only:  # not asked for, nor anything below it
                    continue
                into = flows.setdefault(child, {})
                before = into.get(origin)
                into[origin] = rate * frac if before is None else before + rate * frac

    def _splits(self, base: np.ndarray, pools: dict[str, np.ndarray], only: set | None = None,
                static: tuple | None = None):
        """Every node's total rate per tick and its split per origin (origin only where it matters);
        with ``only``, just those nodes (a set closed under ancestors); ``static``: the
        :meth:`static_flows` of a longer base and the part of it ``base`` is (then the splits of
        the static nodes are left out)."""
        s = self.s
        memos: tuple[dict, dict] = ({}, {})
        rates: dict[str, np.ndarray] = {}
        splits: dict[tuple, _Split] = {}
        if static is None:
            flows, skip = self._source_flows(base), ()
        else:
            (static_rates, sent), part = static
            skip = self.static
            flows = {n: {o: v[part] for o, v in per.items()} for n, per in sent.items() if only is None or n in only}
            rates.update((n, v[part]) for n, v in static_rates.items() if only is None or n in only)
        for node_id in s.order:
            per = flows.get(node_id)
            if not per or node_id in skip or only is not None and node_id not in only:
                continue
            total = rates[node_id] = _total(list(per.values()))
            self._send(node_id, per, total, flows, splits, memos, pools, only)
        return rates, splits

    def rates(self, base: np.ndarray, pools: dict[str, np.ndarray], only: set | None = None,
              static: tuple | None = None) -> dict[str, np.ndarray]:
        """Every reached node's arrival rate per tick (``base``: the traffic pattern's rate); with
        ``only`` (a set of nodes closed under ancestors), just those; ``static``: see :meth:`_splits`."""
        return self._splits(base, pools, only, static)[0]

    def rates_and_splits(self, base: np.ndarray, pools: dict[str, np.ndarray]) -> tuple[dict, dict]:
        """:meth:`rates` of every node, and the splits behind them (for :meth:`paths` with the same inputs)."""
        return self._splits(base, pools)

    def paths(self, base: np.ndarray, pools: dict[str, np.ndarray], station_index: dict[str, int],
              notes: set | None = None, splits: dict | None = None) -> TickPaths:
        """The request paths' shares of the offered traffic per tick (see :class:`TickPaths`);
        ``station_index`` numbers the queueing stations as the path keys do."""
        s = self.s
        n = np.asarray(base).size
        if splits is None:
            _, splits = self._splits(base, pools)
        location, delays = s.location, s.delay_stations
        weights: dict[tuple, np.ndarray] = {}
        lost = np.zeros(n)
        shed: dict[str, np.ndarray] = {}
        ratio = self.offered_ratio or 1.0
        stack = [(sid, location[sid], location[sid], np.full(n, share / ratio), False, (), 0.0)
                 for sid, share in self.source_share.items() if share > 0]
        followed = 0
        while stack:
            node_id, origin, here, w, seen, queue, delay = stack.pop()
            followed += 1
            if node_id in station_index:
                queue, seen = queue + (station_index[node_id],), True
            elif node_id in delays:
                delay, seen = delay + delays[node_id].fixed_delay_s, True
            split = splits.get((node_id, origin if node_id in self.by_origin else None))
            if split is None:  # reached by no traffic in any tick
                continue
            if split.sheds:
                shed[node_id] = shed.get(node_id, 0.0) + w * split.shed
            if split.loses:
                lost = lost + w * split.lost
            if split.ends:
                if seen:
                    key = (tuple(sorted(queue)), round(delay, 9))
                    weights[key] = weights.get(key, 0.0) + w * split.finished
                else:
                    lost = lost + w * split.finished
            for child, frac in split.onward:
                share = w * frac
                if not share.any():
                    continue
                if followed + len(stack) > MAX_PATHS:
                    if notes is not None:
                        notes.add(f"more than {MAX_PATHS} request paths: the rest are counted as unrouted")
                    break
                there = location[child] or here
                rtt = rtt_between(here, there)
                stack.append((child, origin, there, share, seen or rtt > 0, queue, delay + rtt))
        def full(v):
            return v if isinstance(v, np.ndarray) and v.shape == (n,) else np.broadcast_to(v, (n,)).astype(float)

        return TickPaths({k: full(v) for k, v in weights.items()}, full(lost), {k: full(v) for k, v in shed.items()})
