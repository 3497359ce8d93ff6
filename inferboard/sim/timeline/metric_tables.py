"""The autoscaler's metric (utilisation, queue depth, p95 latency) of a pool with r ready replicas at
any tick: per (r, parameter signature) a table of the tick model over the load, interpolated at
the tick's arrival rate (:class:`MetricTable`)."""

from __future__ import annotations

from bisect import bisect_right

import numpy as np

from inferboard.sim.timeline.fluid import station_capacity, station_patience
from inferboard.sim.timeline.regime_tables import RegimeTables
from inferboard.sim.timeline.tickqueue import station_state

__all__ = ["R_BLOCK", "BacklogMetric", "MetricTable", "station_limits"]

R_BLOCK = 16  #: replica counts per metric-table block
SHORT = 16  #: ticks a backlog check covers in plain Python rather than with arrays


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
        self.lam_min = float(lam.min()) if lam.size else 0.0  #: the lightest load this run brings

    def _name(self, key: int):
        return key if self.rows is None else self.rows[key]

    def table(self, r: int, key: int, lightest: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The metric table for ``r`` ready replicas under the regime ``key``: loads and metric values
        (built a block of replica counts at a time, remembered). A batching pool's table starts just
        below the lightest load read (``lightest``, else this run's): it is extended when a later
        read or run needs lighter loads."""
        name = self._name(key)
        found = self.cache.get((r, name))
        g = self.tables.params[self.j]["sig_regime"][key]
        if self.tables.params[self.j]["batching"]:  # batch tables are built per server count: just r
            need = self.lam_min if lightest is None else min(lightest, self.lam_min)
            if found is None or (need < found[0][0] and found[0].size < self.GRID.size):
                found = self.cache[(r, name)] = self._build(np.array([float(r)]), g, self._first_load(r, g, need))[0]
                self.lists.pop((r, name), None)
        elif found is None:  # a block of R_BLOCK replica counts in one vectorised call
            counts = np.arange((r // R_BLOCK) * R_BLOCK, (r // R_BLOCK + 1) * R_BLOCK, dtype=float)
            counts = counts[(counts >= min(r, self.low)) & (counts <= max(r, self.high))]
            for count, built in zip(counts.astype(int), self._build(counts, g, 0)):
                self.cache[(int(count), name)] = built
            found = self.cache[(r, name)]
        return found

    def _first_load(self, r: int, g: int, lightest: float) -> int:
        """The grid index a batching pool's table starts at with ``r`` replicas: the grid load below
        the one under ``lightest`` requests/s (for queue depth 90% of capacity at most, which the
        backlog's queue depth reads). Loads below it are never read, and a batching table below
        saturation costs a batch-model table to build, so a pool that is always over capacity needs none."""
        share = lightest / max(r * self.tables.capacity_per_replica(self.j, g), 1e-9)
        if self.metric == "queue_depth":
            share = min(share, 0.9)
        return int(min(max(np.searchsorted(self.GRID, share, side="right") - 2, 0), self.GRID.size - 2))

    def _build(self, counts: np.ndarray, g: int, start: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per replica count in ``counts``, the loads ``GRID[start:]`` (requests/s) and the metric at them."""
        grid = self.GRID[start:]
        replicas = np.repeat(counts, grid.size)
        capacity = np.maximum(replicas * self.tables.capacity_per_replica(self.j, g), 1e-9)
        lam = np.tile(grid, counts.size) * capacity
        state = station_state(lam, replicas, self.tables.station_params(self.j, np.full(lam.size, g)))
        values = state.queue if self.metric == "queue_depth" else (
            state.p95_s() * 1000.0 if self.metric == "latency_p95" else state.busy)
        return [(lam[k * grid.size:(k + 1) * grid.size], values[k * grid.size:(k + 1) * grid.size])
                for k in range(counts.size)]

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
        if found is None or (x < found[0][0] and len(found[0]) < self.GRID.size):  # built, or reaching x
            found = self.lists[key] = tuple(v.tolist() for v in self.table(r, self.sig_l[tick], x))
        grid, values = found
        k = min(max(bisect_right(grid, x), 1), len(grid) - 1)
        share = min(max((x - grid[k - 1]) / (grid[k] - grid[k - 1]), 0.0), 1.0) if grid[k] > grid[k - 1] else 0.0
        return values[k - 1] + share * (values[k] - values[k - 1])


class BacklogMetric:
    """The autoscaler's metric for one pool, backlog included: the steady metric table at the
    tick's load plus the fluid backlog the pool carries, tracked forward with the ready replicas
    decided so far. Queue depth adds the backlog (the steady part then at 90% load at most);
    utilisation is 1 while a backlog exists; latency adds the backlog's wait. Ticks are absolute;
    ``offset`` is the first tick of the stretch."""

    def __init__(self, table: MetricTable, metric: str, offset: int, lam: np.ndarray, capacity_per_replica,
                 patience_s, room, dt: float, ready: np.ndarray, carry: list):
        self.table, self.metric, self.offset, self.lam, self.dt = table, metric, offset, lam, dt
        self.cap_r, self.patience, self.room, self.ready, self.carry = (capacity_per_replica, patience_s, room,
                                                                        ready, carry)

    def __getattr__(self, name: str):  # per-tick lists, made the first time a backlog needs them
        if name in ("lam_l", "cap_l", "pat_l", "room_l"):
            self.lam_l, self.cap_l = self.lam.tolist(), self.cap_r.tolist()
            self.pat_l, self.room_l = self.patience.tolist(), self.room.tolist()
            return getattr(self, name)
        raise AttributeError(name)

    def _step(self, b: float, i: int, r: float) -> float:
        """The backlog after relative tick ``i`` with ``r`` ready replicas."""
        x = b + (self.lam_l[i] - self.cap_l[i] * r) * self.dt
        return 0.0 if x <= 0 else min(x, self.cap_l[i] * r * self.pat_l[i], self.room_l[i])

    def advance_to(self, tick: int) -> None:
        """Commit the backlog up to ``tick`` (exclusive) with the replica track as decided. Called at
        the end of every stretch too, so the next stretch starts from the backlog at its first tick
        (a stepped run then reads the same metric as one run over the whole horizon)."""
        k, b = self.carry
        if tick <= k:
            return
        lo, hi = max(k, self.offset) - self.offset, tick - self.offset
        if b <= 0 and not self._forming(lo, hi):
            self.carry[:] = [tick, 0.0]
            return
        ready = self.ready[lo + self.offset:hi + self.offset].tolist()
        for i in range(lo, hi):
            b = self._step(b, i, ready[i - lo])
        self.carry[:] = [tick, b]

    def _forming(self, lo: int, hi: int) -> bool:
        """Whether a backlog forms in relative ticks ``lo:hi`` with the ready replicas as decided."""
        ready = self.ready[lo + self.offset:hi + self.offset]
        if hi - lo > SHORT:
            return bool(np.any(self.lam[lo:hi] > self.cap_r[lo:hi] * ready))
        lam, cap = self.table.lam_l, self.cap_r[lo:hi].tolist()  # a few ticks: plain Python is cheaper
        return any(lam[lo + i] > cap[i] * r for i, r in enumerate(ready.tolist()))

    def at(self, r: int, tick: int) -> float:
        """The metric at the one tick ``tick`` (a sync of the control loop): ``self(r, tick, tick + 1)[0]``
        read without arrays."""
        table, i = self.table, tick - self.offset
        x = table.lam_l[i]
        if self.metric == "rps":
            return x
        value = table.value_at(r, i, x)
        self.advance_to(tick)
        b, cap = self.carry[1], float(self.cap_r[i])
        if b > 0 or x > cap * r:  # a backlog, or one forming: the fluid view
            if self.metric == "queue_depth":
                return b + table.value_at(r, i, min(x, 0.9 * cap * r))
            if self.metric == "latency_p95":
                return value + b / max(cap * r, 1e-12) * 1000.0
            return 1.0
        return value

    def __call__(self, r: int, lo: int, hi: int):
        values = self.table(r, lo - self.offset, hi - self.offset)
        if self.metric == "rps":
            return values
        self.advance_to(lo)
        b = self.carry[1]
        i0, i1 = lo - self.offset, hi - self.offset
        if b <= 0 and not np.any(self.lam[i0:i1] > self.cap_r[i0:i1] * r):
            return values
        out = np.array(values, dtype=float)
        for i in range(i0, i1):
            if b > 0 or self.lam_l[i] > self.cap_l[i] * r:  # a backlog, or one forming: the fluid view
                if self.metric == "queue_depth":
                    out[i - i0] = b + self.table.value_at(r, i, min(self.lam_l[i], 0.9 * self.cap_l[i] * r))
                elif self.metric == "latency_p95":
                    out[i - i0] += b / max(self.cap_l[i] * r, 1e-12) * 1000.0
                else:
                    out[i - i0] = 1.0
            b = self._step(b, i, r)
        return out


def station_limits(tables: RegimeTables, j: int, lo_regime: np.ndarray,
                   capacity_per_replica: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per tick, what one replica of station ``j`` completes per second, the requests' patience and
    the waiting room (``lo_regime``: each tick's compile), as the autoscaler's backlog reads them."""
    sp = tables.station_params(j, lo_regime)
    cap_r = station_capacity(np.ones(lo_regime.size), sp) if capacity_per_replica is None else capacity_per_replica
    return cap_r, station_patience(cap_r, sp), np.broadcast_to(sp.queue_capacity, cap_r.shape).astype(float)
