"""The cost per hour of a timeline, tick by tick: each compile's fixed and per-request charges, and
each pool's on-demand and spot replicas at their prices (spot replicas reclaimed cost nothing)."""

from __future__ import annotations

import numpy as np

from inferboard.model.design import Design
from inferboard.sim.design.hardware import plan_pool


def _pool_prices(design: Design, node) -> tuple[float, float]:
    """(on-demand, spot) price per replica per hour, from the hardware plan."""
    return tuple(plan_pool(node.with_changes(params={**dict(node.params), "replicas": 1, "spot_share": share}),
                           design.catalog, design.requirements, ()).price_per_hour for share in (0.0, 1.0))


def cost_series(design, pools, compiled, keys, regime, offered, tracks, timed, times,
                memo: dict | None = None) -> np.ndarray:
    """Cost per hour per tick; ``keys[regime[i]]`` is tick i's fault regime, ``compiled[regime[i]]`` its
    compile. ``memo`` keeps per-compile and per-pool figures across the stretches of a stepped run."""
    memo = {} if memo is None else memo
    static, per_request, down = [], [], []
    for c, key in zip(compiled, keys):
        found = memo.get(("compile", id(c)))
        if found is not None:
            static.append(found[0])
            per_request.append(found[1])
            down.append(found[2])
            continue
        dead = {f.target for f in key[0] if f.kind == "region_outage"} | set(key[1])
        fixed = variable = 0.0
        for node_id, item in c.cost_items.items():
            node = design.nodes[node_id]
            if node.region in dead or node_id in dead:
                continue
            charge = design.catalog.kind(node.kind).cost.per_million_requests * c.node_rates.get(node_id, 0.0) * 3.6e-3
            fixed += item - charge - (c.plans[node_id].price_per_hour if node_id in c.plans else 0.0)
            variable += charge / c.offered_rps if c.offered_rps > 0 else 0.0
        static.append(fixed)
        per_request.append(variable)
        down.append([p.region in dead or p.id in dead for p in pools])
        memo[("compile", id(c))] = (fixed, variable, down[-1], c)  # the compile kept alive with its id
    total = np.array(static)[regime] + np.array(per_request)[regime] * offered
    down = np.array(down, dtype=bool).reshape(len(compiled), len(pools))[regime]
    for k, p in enumerate(pools):
        prices = memo.get(("pool", p.id))
        if prices is None:
            prices = memo[("pool", p.id)] = _pool_prices(design, p)
        on_demand, spot_price = prices
        n = tracks[p.id].replicas
        reclaimed = np.zeros(times.size, dtype=bool)
        for f in timed:
            if f.kind == "spot_reclaimed" and f.hits(p.id):
                reclaimed |= (times >= f.start_s) & (times < f.start_s + f.duration_s)
        spot = np.where(reclaimed, 0.0, np.round(n * float(p.params.get("spot_share", 0.0))))
        total = total + np.where(down[:, k], 0.0, (n - spot) * on_demand + spot * spot_price)
    return total

