"""The batching tables an edit is likely to need next, so they can be built while the user looks at
the figures (the desktop does so after each evaluation, on a thread of its own).

A batching station's table costs about a second of CPU and depends on its server count, so the
usual next edit, one replica more or fewer on a batched pool, would otherwise wait that second for
its readouts. From the stations an evaluation solved (:func:`batching.recording`) this names the
same stations with one replica more, then one fewer: the parameters stay, the server count moves by
the pool's servers per replica (MIG slices or time-sliced shares count as servers).
"""

from __future__ import annotations

from typing import Iterable

from inferboard.model.design import Design
from inferboard.sim.batching.batching import BatchParams, table_ready
from inferboard.sim.design.hardware import plan_pool

__all__ = ["likely_next_tables"]

def _servers_per_replica(design: Design) -> dict[int, set[int]]:
    """Per current server count, the servers-per-replica steps of the batched pools that have it."""
    found: dict[int, set[int]] = {}
    batchers = {e.target for e in design.edges.values()
                if design.nodes[e.source].kind == "dynamic_batcher" and design.signal_of(e) == "requests"}
    batched = design.catalog.kinds_with_role("batched_pool")  # as the compile makes batching stations
    for node in design.nodes.values():
        if node.kind not in batched or node.id not in batchers:
            continue
        now = plan_pool(node, design.catalog, design.requirements, ())
        one = plan_pool(node, design.catalog, design.requirements, (), {node.id: 1})
        if now.servers > 0 and one.servers > 0:
            found.setdefault(int(now.servers), set()).add(int(one.servers))
    return found


def likely_next_tables(design: Design, used: Iterable[tuple[int, BatchParams]]) -> list[tuple[int, BatchParams]]:
    """``(servers, params)`` of the tables one replica more, then one fewer, on each batched pool
    would need, leaving out those already at hand. ``used``: the stations an evaluation of
    ``design`` solved."""
    steps = _servers_per_replica(design)
    up, down = [], []
    for servers, params in sorted(used, key=lambda key: (key[0], repr(key[1]))):
        for step in sorted(steps.get(int(servers), ())):
            up.append((servers + step, params))
            if servers - step >= 1:
                down.append((servers - step, params))
    out: list[tuple[int, BatchParams]] = []
    for key in up + down:
        if key not in out and not table_ready(*key):
            out.append(key)
    return out
