"""Routing and the pools' control loops of one timeline stretch, run together.

Routing depends on the replicas that are ready (a load balancer weighs its pools by the capacity
they have, a fallback takes what is above 95% of the primaries' capacity, admission control sheds
above its share of it), and the replicas depend on the load routing sends each pool (the
autoscalers read it). The rule that breaks the circle: routing in tick ``i`` counts the replicas
that were ready at the end of tick ``i - 1`` (a replica starts receiving traffic the tick after it
is ready, as a load balancer learns of it by its next health check or endpoint update). A pool
with no replica ready is counted as one: its requests wait there for the cold start.

:func:`drive_pools` runs the control loops over the stretch. Pools whose routing reads no changing
capacity run over the whole stretch at once. The others form coupling groups (everything below one
load balancer that splits by capacity, one fallback or one admission control), each run chunk by
chunk: a chunk is routed with the replicas as they stand at its start; the pools that routing
reads and whose replicas can change run first, each stopping at every change of its ready count
(:attr:`autoscaling.PoolController.stop_when_ready_changes`); the chunk is then routed again from
the next tick with the new count, and it ends where what any pool of the group receives differs.
With two or more such pools in a group, a pool that ran past a cut made by a later one goes back
to the chunk's start (:meth:`autoscaling.PoolController.restore`) and runs again up to the cut.
Every tick is so routed with exactly the replicas ready before it, as if the loops ran one tick
at a time; chunks double while nothing changes, so quiet hours cost little. A change of ready
count is not routed again at all where every split that reads capacities does so through an
overflow threshold (a fallback, an admission control) and no tick of the rest of the chunk is over
it, with the capacities before or after: the rates are then the same (:func:`_thresholds_hold`).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from inferboard.sim.design.design_structure import DesignStructure
from inferboard.sim.design.routing import pool_station_capacity
from inferboard.sim.timeline.tick_routing import TickPaths
from inferboard.sim.timeline.stepped import SteppedTimeline

__all__ = ["StretchRouting", "capacity_sensitive_pools", "coupling_groups", "drive_pools"]

FIRST_CHUNK = 32  #: ticks in the first chunk of a stretch whose routing follows the replicas
LARGEST_CHUNK = 4096


def _deciders(s: DesignStructure) -> list[str]:
    """Nodes whose split reads capacities: a split by capacity between two or more children, a
    fallback overflow, an admission control."""
    found = []
    for n, kind in s.kind.items():
        primaries, fallbacks = s.split[n]
        by_capacity = (kind in s.capacity_split_kinds or kind == "global_load_balancer"
                       and s.params[n]["policy"] == "weighted") and len(primaries) > 1
        if by_capacity or fallbacks or kind == "admission_control":
            found.append(n)
    return found


def _pools_below(s: DesignStructure, nodes) -> set[str]:
    return {x for k in nodes for x in {k} | s.descendants(k) if s.kind[x] in s.serving_kinds}


def capacity_sensitive_pools(s: DesignStructure) -> set[str]:
    """Pools whose capacity some routing decision reads (those below a decider's primaries)."""
    return set().union(*(_pools_below(s, s.split[n][0]) for n in _deciders(s)))


def coupling_groups(s: DesignStructure) -> list[set[str]]:
    """Pools whose arrival rates depend on each other's replicas: everything below one decider goes
    together (it reads the capacity of some and moves the traffic of all), and groups that share a
    pool merge."""
    groups: list[set[str]] = []
    for n in _deciders(s):
        group = _pools_below(s, s.kids[n])
        for other in [g for g in groups if g & group]:
            group |= other
            groups.remove(other)
        groups.append(group)
    return groups


class _Facts:
    """What routing per tick needs to know of a design revision, found once: the capacity-sensitive
    pools, the coupling groups and the nodes upstream of each group."""

    def __init__(self, s: DesignStructure, pool_ids: list[str]):
        sensitive = capacity_sensitive_pools(s)
        self.sensitive = [pid for pid in pool_ids if pid in sensitive]
        self.groups = coupling_groups(s)
        self.upstream: dict[frozenset, set[str]] = {}
        self.per_replica: dict[tuple, float] = {}  #: (id of a compile, pool) -> capacity per replica
        self.compiles: dict[int, object] = {}  #: keeps the compiles named above alive

    def nodes_upstream(self, s: DesignStructure, pools: set[str]) -> set[str]:
        key = frozenset(pools)
        found = self.upstream.get(key)
        if found is None:
            found = set(pools)  # and every node with a path to one of them: one walk back per pool
            for pid in pools:
                if pid in s.graph:
                    found |= nx.ancestors(s.graph, pid)
            self.upstream[key] = found
        return found


def _facts(state: SteppedTimeline, s: DesignStructure, pool_ids: list[str]) -> _Facts:
    memo = state.routing_facts
    found = memo.get(id(s))
    if found is None or found[0] is not s:
        found = memo[id(s)] = (s, _Facts(s, pool_ids))
    return found[1]


class StretchRouting:
    """Routing over the ticks ``k0:k1`` of a stepped timeline: per tick its regime's
    :class:`tick_routing.RegimeRouter`, the base rate it sees and each pool's capacity per ready
    replica (between the two compiles around the tick's rate)."""

    def __init__(self, state: SteppedTimeline, k0: int, k1: int, compiled: list, lo: np.ndarray, hi: np.ndarray,
                 alpha: np.ndarray, regime: np.ndarray, keys: list, base: np.ndarray):
        self.state, self.k0, self.k1 = state, k0, k1
        self.base = base
        self.routers = [state.router_for(key) for key in keys]
        #: per fault regime met in the stretch, its ticks (counted from ``k0``)
        self.regime_ticks = [(r, idx) for r in range(len(keys)) if (idx := np.flatnonzero(regime == r)).size]
        self.regime_ticks_of = dict(self.regime_ticks)
        self._static_flows: dict[int, tuple[dict, dict]] = {}
        s = self.structure = state.structure()
        self.pool_ids = [p.id for p in state.pools]
        facts = self.facts = _facts(state, s, self.pool_ids)
        known = facts.per_replica
        blend = bool(np.any(alpha > 0))
        per_replica = {}
        for pid in self.pool_ids:
            values = []
            for c in compiled:
                value = known.get((id(c), pid))
                if value is None:
                    plan = c.plans.get(pid)
                    value = known[(id(c), pid)] = (pool_station_capacity(s, plan) / plan.replicas
                                                   if plan is not None and plan.replicas > 0 else 0.0)
                    facts.compiles[id(c)] = c
                values.append(value)
            values = np.array(values, dtype=float)
            if blend:
                with np.errstate(invalid="ignore"):
                    per_replica[pid] = np.where(alpha > 0, values[lo] * (1 - alpha) + values[hi] * alpha, values[lo])
            else:
                per_replica[pid] = values[lo]
        self.per_replica = per_replica
        self.sensitive = facts.sensitive
        self.groups_of_pools = facts.groups
        self._kept: dict[tuple, tuple[dict, dict]] = {}  #: splits of the whole stretch, by regime
        #: what the last :meth:`pool_rates` routed: (router, ticks, capacities, rates of every node
        #: routed, and a dict for the ticks over a threshold then, by node, found when first asked)
        self.last_basis: list[tuple] = []

    def ready_for_routing(self, pid: str, a: int, b: int) -> np.ndarray:
        """Replicas routing counts in ticks ``a:b``: those ready at the end of the tick before (at
        least one), from the pool's track as it stands."""
        ready = self.state.tracks[pid].ready
        if a > 0:
            return np.maximum(ready[a - 1:b - 1], 1.0)
        else:
            out = np.concatenate(([self.state.initial_ready[pid]], ready[:b - 1])) if b > 0 else np.zeros(0)
        return np.maximum(out, 1.0)

    def _capacities(self, a: int, b: int, idx: np.ndarray, only: set | None = None) -> dict[str, np.ndarray]:
        """Each pool's capacity per tick (of those in ``only``, which holds every pool a decision on
        the way to them reads): capacity per replica x the replicas routing counts."""
        whole = idx.size == b - a  # then idx is a - k0 .. b - k0: slices, not copies
        pick = slice(a - self.k0, b - self.k0) if whole else idx
        local = None if whole else idx - (a - self.k0)
        out = {}
        for pid in self.pool_ids:
            if only is None or pid in only:
                ready = self.ready_for_routing(pid, a, b)
                out[pid] = self.per_replica[pid][pick] * (ready if whole else ready[local])
        return out

    def _chunk(self, a: int, b: int):
        """(router, tick indices within the stretch, which of its regime's ticks they are) of the
        regimes met in ticks ``a:b``."""
        lo, hi = a - self.k0, b - self.k0
        for r, idx in self.regime_ticks:
            where = slice(int(np.searchsorted(idx, lo)), int(np.searchsorted(idx, hi)))
            part = idx[where]
            if part.size:
                yield r, part, where

    def _static(self, r: int) -> tuple[dict, dict]:
        """The regime ``r``'s :meth:`tick_routing.RegimeRouter.static_flows` over its ticks of the stretch."""
        found = self._static_flows.get(r)
        if found is None:
            found = self._static_flows[r] = self.routers[r].static_flows(self.base[self.regime_ticks_of[r]])
        return found

    def upstream(self, pools: set[str]) -> set[str]:
        """The pools and every node that sends them traffic."""
        return self.facts.nodes_upstream(self.structure, pools)

    def pool_rates(self, a: int, b: int, pools: list[str] | None = None, only: set | None = None) -> dict:
        """Each pool's (or each of ``pools``') arrival rate in ticks ``a:b`` with the replicas as the
        tracks stand; ``only``: the nodes to route (closed under ancestors, see :meth:`upstream`)."""
        pool_ids = self.pool_ids if pools is None else pools
        out = {pid: np.zeros(b - a) for pid in pool_ids}
        whole = a == self.k0 and b == self.k1 and only is None
        self.last_basis = basis = []
        for r, idx, where in self._chunk(a, b):
            router = self.routers[r]
            capacities = self._capacities(a, b, idx, only)
            if whole:  # the splits serve :meth:`paths` too if no replica routing reads changes meanwhile
                rates, splits = router.rates_and_splits(self.base[idx], capacities)
                self._kept[id(router), idx.size] = ({pid: capacities[pid] for pid in self.sensitive}, splits)
            else:  # the nodes fed by the base rate alone are routed once a stretch
                rates = router.rates(self.base[idx], capacities, only,
                                     (self._static(r), where) if router.static else None)
            basis.append((router, idx, capacities, rates, {}))
            local = idx - (a - self.k0)
            for pid in pool_ids:
                found = rates.get(pid)
                if found is not None:
                    out[pid][local] = found
        return out

    def paths(self, tables, notes: set) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """Over the whole stretch: path weights (paths x ticks, in ``tables``' path numbering, which
        grows with new paths), the share lost and each router's shed share."""
        n = self.k1 - self.k0
        found: list[tuple[np.ndarray, TickPaths]] = []
        for r, idx, _ in self._chunk(self.k0, self.k1):
            router = self.routers[r]
            capacities = self._capacities(self.k0, self.k1, idx)
            kept = self._kept.get((id(router), idx.size))
            splits = kept[1] if kept is not None and all(
                np.array_equal(kept[0][pid], capacities[pid]) for pid in self.sensitive) else None
            tick_paths = router.paths(self.base[idx], capacities, tables.index, notes, splits)
            for key in tick_paths.weights:
                tables.path_of(key)
            found.append((idx, tick_paths))
        weights = np.zeros((len(tables.path_stations), n))
        lost = np.zeros(n)
        shed: dict[str, np.ndarray] = {}
        for idx, tick_paths in found:
            for key, values in tick_paths.weights.items():
                weights[tables.path_index[key], idx] = values
            lost[idx] = tick_paths.lost
            for node_id, values in tick_paths.shed.items():
                shed.setdefault(node_id, np.zeros(n))[idx] = values
        return weights, lost, shed


def _varies(state: SteppedTimeline, pid: str, k0: int, k1: int) -> bool:
    """Whether a pool's ready replicas may change during ticks ``k0:k1``."""
    if state.scalers[pid] is not None or state.pending_commands.get(pid):
        return True
    track = state.tracks[pid]
    if k0 > 0 and track.replicas[k0 - 1] != track.ready[k0 - 1]:
        return True
    return any(k0 <= t < k1 for t in state.controllers[pid].plan.fault_ticks)


def _thresholds_hold(routing: StretchRouting, basis: list, start: int, b: int, only: set) -> bool:
    """Whether routing ticks ``start:b`` again with the tracks as they stand is sure to give the
    rates ``basis`` gave (:attr:`StretchRouting.last_basis` of the routing behind them): every node
    routed that reads capacities does so through an overflow threshold, and no tick is over it with
    the capacities either before or now (its rate, all above it being unchanged, is the same)."""
    lo, hi = start - routing.k0, b - routing.k0
    key = frozenset(only)
    for router, idx, before, rates, over in basis:
        inside = slice(int(np.searchsorted(idx, lo)), int(np.searchsorted(idx, hi)))  # idx is sorted
        if inside.start >= inside.stop:
            continue
        readers = router.threshold_readers(key)
        if readers is None:
            return False
        if not readers:
            continue
        now = None
        for node_id in readers:
            rate = rates.get(node_id)
            if rate is None:
                return False
            was = over.get(node_id)
            if was is None:
                was = over[node_id] = router.over_threshold(node_id, rate, before)
            if was[inside].any():
                return False
            if now is None:
                now = routing._capacities(start, b, idx[inside], only)
            if router.over_threshold(node_id, rate[inside], now).any():
                return False
    return True


def _differs(routing: StretchRouting, a: int, b: int, used: dict[str, np.ndarray], start: int, only: set,
             basis: list | None = None) -> tuple[int, tuple | None]:
    """The first tick of ``start:b`` whose pool rates, routed with the tracks as they stand, differ
    from ``used`` (which starts at tick ``a``; ``basis``: the routing behind it); ``b`` when none does.
    With it, the routing done to find it, if any: (its first tick, last tick + 1, rates, basis)."""
    if start >= b:
        return b, None
    if basis is not None and _thresholds_hold(routing, basis, start, b, only):
        return b, None  # no threshold crossed: routing again would give the same rates
    now = routing.pool_rates(start, b, list(used), only)
    differ = np.zeros(b - start, dtype=bool)
    for pid, values in used.items():
        part = values[start - a:b - a]
        differ |= np.abs(now[pid] - part) > 1e-9 * np.maximum(np.abs(part), 1.0)
    return (start + int(np.argmax(differ)) if differ.any() else b), (start, b, now, routing.last_basis)


def drive_pools(state: SteppedTimeline, routing: StretchRouting, loops, commanded: set[str]) -> None:
    """Run every pool's control loop over the stretch (see the module docstring). ``loops`` runs
    them (:class:`timeline_stations.PoolLoops`); ``commanded``: pools with a command at the first tick."""
    k0, k1 = routing.k0, routing.k1
    coupled = [g for g in routing.groups_of_pools
               if any(pid in g and _varies(state, pid, k0, k1) for pid in routing.sensitive)]
    alone = [pid for pid in routing.pool_ids if not any(pid in g for g in coupled)]
    # every group's first chunk and the pools alone are routed with the replicas held as they stand
    # at the stretch's start, so one routing of the whole design serves them all
    first = min(k1, k0 + FIRST_CHUNK) if coupled else k1
    start = routing.pool_rates(k0, first) if coupled or alone else {}
    basis = routing.last_basis
    if alone:
        rates = start if first == k1 else routing.pool_rates(k0, k1, alone)
        for pid in alone:
            loops.run(pid, k0, k1, rates[pid])
    for group in coupled:
        _drive_group(state, routing, [pid for pid in routing.pool_ids if pid in group], loops, commanded,
                     (first, start, basis))


def _drive_group(state: SteppedTimeline, routing: StretchRouting, pools: list[str], loops, commanded: set[str],
                 start: tuple[int, dict]) -> None:
    """One coupling group's control loops, chunk by chunk (module docstring). In a chunk the pools
    whose ready count can change and that routing reads run first, each stopping at every change
    of its ready count; routing is then evaluated again from the next tick, and where it differs
    the chunk ends there. Pools that ran past a chunk cut short by a later one go back to the
    chunk's start and run again (only when two or more such pools share the group)."""
    k0, k1 = routing.k0, routing.k1
    only = routing.upstream(set(pools))
    varying = [pid for pid in routing.sensitive if pid in pools and _varies(state, pid, k0, k1)]
    # pools whose count cannot change in the stretch: nothing they do depends on the chunks, so
    # they run once, over the rates the chunks gave them
    still = {pid: np.zeros(k1 - k0) for pid in pools if pid not in varying and not _varies(state, pid, k0, k1)}
    rest = [pid for pid in pools if pid not in varying and pid not in still]
    a, size, carried = k0, FIRST_CHUNK, None
    while a < k1:
        # a command changes replicas at the stretch's first tick: routing sees it from the next one
        b = min(k1, a + (1 if a == k0 and commanded & set(pools) else size))
        if carried is not None:  # the routing that ended the last chunk holds on from here
            first, b, rates, basis = carried
            used = {pid: rates[pid][a - first:] for pid in pools}
        elif a == k0 and b <= start[0]:  # routed already, with the same replicas
            used, basis = {pid: start[1][pid][:b - a] for pid in pools}, start[2]
        else:
            used, basis = routing.pool_rates(a, b, pools, only), routing.last_basis
        saved = {pid: (state.controllers[pid].save(), list(state.pool_carry[pid])) for pid in varying} \
            if len(varying) > 1 else {}
        events = len(state.events)
        end, routed = b, None
        for pid in varying:
            controller = state.controllers[pid]
            controller.stop_when_ready_changes = True
            try:
                loops.run(pid, a, end, used[pid][:end - a])
                while controller.limit < end:  # its ready count changed in tick limit - 1
                    end, found = _differs(routing, a, end, used, controller.limit, only, basis)
                    if found is not None:
                        routed = (found, {p: float(state.tracks[p].ready[found[0] - 1]) for p in varying})
                    if controller.limit < end:
                        loops.resume(pid, end)
            finally:
                controller.stop_when_ready_changes = False
        carried = _still_routed(state, routed, end, b)
        cut = [pid for pid in varying if state.controllers[pid].limit > end]
        if cut:  # an earlier pool ran past where a later one ended the chunk: run it again
            _go_back(state, cut, saved, events)
            for pid in cut:
                loops.run(pid, a, end, used[pid][:end - a])
        for pid in rest:
            loops.run(pid, a, end, used[pid][:end - a])
        for pid, lam in still.items():
            lam[a - k0:end - k0] = used[pid][:end - a]
        a, size = end, (min(2 * size, LARGEST_CHUNK) if end == b else max(FIRST_CHUNK, size // 2))
    for pid, lam in still.items():
        loops.run(pid, k0, k1, lam)


def _still_routed(state: SteppedTimeline, routed: tuple | None, end: int, b: int) -> tuple | None:
    """The routing that cut a chunk at ``end`` (``routed``: it and the ready counts it saw), when it
    still holds from ``end`` on: it reaches past ``end`` and no ready count changed since it was
    done (routing from ``end`` again would give the same rates)."""
    if routed is None or end >= b or len(routed[1]) != 1:
        return None
    found, ready = routed
    if found[1] <= end or any(state.tracks[p].ready[end - 1] != n for p, n in ready.items()):
        return None
    return found


def _go_back(state: SteppedTimeline, pools: list[str], saved: dict, events: int) -> None:
    """Put pools' control loops back to where ``saved`` found them (and drop the events since)."""
    for pid in pools:
        controller_state, carry = saved[pid]
        state.controls[pid] = state.controllers[pid].restore(controller_state)
        state.pool_carry[pid][:] = carry
    state.events[:] = [e for e in state.events[:events]] + [e for e in state.events[events:]
                                                            if e[2].node_id not in pools]
