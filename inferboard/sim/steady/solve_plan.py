"""The structure of a network the steady-state solver walks: the station order every path respects,
the paths through each station grouped by predecessor, and the per-path row layout of the latency
mixture. Computed once per :class:`~inferboard.sim.design.network.Network` object and remembered."""

from __future__ import annotations

import heapq
import weakref

import numpy as np

from inferboard.sim.design.network import Network
from inferboard.sim.steady.station_models import station_category


def station_order(net: Network) -> list[str]:
    """``net.topological_order()`` without building a graph: the lexicographically smallest order
    every path respects (Kahn's algorithm with a heap, as networkx's lexicographical sort; that
    order is unique). The Network has already refused loops and repeated stations."""
    succ: dict[str, set[str]] = {s: set() for s in net.stations}
    for path in net.paths:
        for a, b in zip(path.stations, path.stations[1:]):
            succ[a].add(b)
    indegree = dict.fromkeys(net.stations, 0)
    for children in succ.values():
        for b in children:
            indegree[b] += 1
    ready = [s for s, d in indegree.items() if d == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        node = heapq.heappop(ready)
        order.append(node)
        for child in succ[node]:
            indegree[child] -= 1
            if indegree[child] == 0:
                heapq.heappush(ready, child)
    if len(order) != len(indegree):  # unreachable for a valid Network; keep its error
        return net.topological_order()
    return order


class SolvePlan:
    """What solve() needs about a network's structure, computed once per Network object."""

    def __init__(self, net: Network) -> None:
        self.order = station_order(net)
        self.position = {sid: i for i, sid in enumerate(self.order)}
        self.visits: dict[str, list[tuple[int, str | None]]] = {s: [] for s in net.stations}
        for k, path in enumerate(net.paths):
            prev = None
            for sid in path.stations:
                self.visits[sid].append((k, prev))
                prev = sid
        #: per station in order: (id, paths through it, [(predecessor or None, paths from it)], category)
        self.steps: list[tuple[str, list[int], list[tuple[str | None, list[int]]], str]] = []
        for sid in self.order:
            groups: dict[str | None, list[int]] = {}
            for k, prev in self.visits[sid]:
                groups.setdefault(prev, []).append(k)
            self.steps.append((sid, [k for k, _ in self.visits[sid]], list(groups.items()),
                               station_category(net.stations[sid])))
        #: served paths -> (stations on them in order, station -> row, path x hop matrix of rows padded
        #: with len(stations)); see ``_assemble``
        self.layouts: dict[tuple[int, ...], tuple[list[str], dict[str, int], np.ndarray]] = {}

    def layout(self, net: Network, served: tuple[int, ...]) -> tuple[list[str], dict[str, int], np.ndarray]:
        """For the served paths ``served``: the stations on them in solve order, each one's row, and per
        path its rows padded to the longest path (remembered)."""
        found = self.layouts.get(served)
        if found is None:
            on_path = sorted({s for k in served for s in net.paths[k].stations}, key=self.position.__getitem__)
            row_of = {s: i for i, s in enumerate(on_path)}
            longest = max(len(net.paths[k].stations) for k in served)
            pad = np.full((len(served), longest), len(on_path), dtype=np.int64)
            for j, k in enumerate(served):
                stations = net.paths[k].stations
                pad[j, :len(stations)] = [row_of[s] for s in stations]
            found = (on_path, row_of, pad)
            if len(self.layouts) > 16:
                self.layouts.clear()
            self.layouts[served] = found
        return found


_PLANS: dict[int, tuple[weakref.ref, SolvePlan]] = {}


def plan_for(net: Network) -> SolvePlan:
    """The solve plan of ``net``, remembered per network object while it lives."""
    hit = _PLANS.get(id(net))
    if hit is not None and hit[0]() is net:
        return hit[1]
    plan = SolvePlan(net)
    for key in [k for k, (ref, _) in _PLANS.items() if ref() is None] if len(_PLANS) > 256 else ():
        del _PLANS[key]
    _PLANS[id(net)] = (weakref.ref(net), plan)
    return plan

