"""The autoscaler's metric (utilisation, queue depth, p95 latency) of a pool with r ready replicas at
any tick: per (r, parameter signature) a table of the tick model over the load, interpolated at
the tick's arrival rate (:class:`MetricTable`)."""

from __future__ import annotations

from bisect import bisect_right

import numpy as np

from inferboard.sim.timeline.regime_tables import RegimeTables
from inferboard.sim.timeline.tickqueue import station_state

__all__ = ["R_BLOCK", "MetricTable"]

R_BLOCK = 16  #: replica counts per metric-table block


class MetricTable:
    """The autoscaler's metric with r ready replicas at any tick: per (r, parameter signature) a table
    over the load, dense around saturation, interpolated at the tick's arrival rate; cheap enough to
    ask at every sync of the control loop. ``sig`` is the station's signature per tick."""

    GRID = np.unique(np.concatenate([np.linspace(0, 0.8, 17), np.linspace(0.8, 1.2, 81), [1.5, 2, 3, 5, 10, 30, 100]]))

    def __init__(self, metric: str, lam: np.ndarray, sig: np.ndarray, tables: RegimeTables, j: int | None,
                 low: int = 0, high: int = 1 << 30, shared: tuple[dict, list] | None = None):
        self.metric, self.lam, self.sig, self.tables, self.j = metric, lam, sig, tables, j
        self.low, self.high = low, high  #: replica counts the autoscaler can reach
        #: ``shared``: a cache kept across stretches of a stepped timeline, and per signature its
        #: parameter row (the cache's key, as signatures are numbered anew in each stretch)
        store, self.rows = shared if shared is not None else ({}, None)
        self.cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = store.setdefault("arrays", {})
        self.lists: dict[tuple, tuple[list, list]] = store.setdefault("lists", {})
        self.lam_l, self.sig_l = lam.tolist(), sig.tolist()
        self.changes = (np.flatnonzero(np.diff(sig)) + 1).tolist()

    def _name(self, key: int):
        return key if self.rows is None else self.rows[key]

    def table(self, r: int, key: int) -> tuple[np.ndarray, np.ndarray]:
        name = self._name(key)
        found = self.cache.get((r, name))
        if found is None:  # a block of R_BLOCK replica counts in one vectorised call
            g = self.tables.params[self.j]["sig_regime"][key]
            if self.tables.params[self.j]["batching"]:  # batch tables are built per server count: just r
                counts = np.array([float(r)])
            else:
                counts = np.arange((r // R_BLOCK) * R_BLOCK, (r // R_BLOCK + 1) * R_BLOCK, dtype=float)
                counts = counts[(counts >= min(r, self.low)) & (counts <= max(r, self.high))]
            replicas = np.repeat(counts, self.GRID.size)
            capacity = np.maximum(replicas * self.tables.capacity_per_replica(self.j, g), 1e-9)
            lam = np.tile(self.GRID, counts.size) * capacity
            state = station_state(lam, replicas, self.tables.station_params(self.j, np.full(lam.size, g)))
            values = state.queue if self.metric == "queue_depth" else (
                state.p95_s() * 1000.0 if self.metric == "latency_p95" else state.busy)
            for k, count in enumerate(counts.astype(int)):
                part = slice(k * self.GRID.size, (k + 1) * self.GRID.size)
                self.cache[(int(count), name)] = (lam[part], values[part])
            found = self.cache[(r, name)]
        return found

    def __call__(self, r: int, lo: int, hi: int) -> np.ndarray | list[float]:
        if self.metric == "rps" or self.j is None:
            return self.lam[lo:hi]
        if hi - lo == 1:  # one tick (a sync of the control loop): plain Python interpolation
            return [self.value_at(r, lo, self.lam_l[lo])]
        lam, sig = self.lam[lo:hi], self.sig[lo:hi]
        if hi - lo == 0:
            return lam
        if bisect_right(self.changes, lo) == bisect_right(self.changes, hi - 1):  # one signature throughout
            return np.interp(lam, *self.table(r, self.sig_l[lo]))
        out = np.empty(hi - lo)
        for g in np.unique(sig):
            mask = sig == g
            out[mask] = np.interp(lam[mask], *self.table(r, int(g)))
        return out

    def value_at(self, r: int, tick: int, x: float) -> float:
        """The metric with ``r`` ready replicas at load ``x`` under tick ``tick``'s parameters."""
        key = (r, self._name(self.sig_l[tick]))
        found = self.lists.get(key)
        if found is None:
            found = self.lists[key] = tuple(v.tolist() for v in self.table(r, self.sig_l[tick]))
        grid, values = found
        k = min(max(bisect_right(grid, x), 1), len(grid) - 1)
        share = min(max((x - grid[k - 1]) / (grid[k] - grid[k - 1]), 0.0), 1.0) if grid[k] > grid[k - 1] else 0.0
        return values[k - 1] + share * (values[k] - values[k - 1])

