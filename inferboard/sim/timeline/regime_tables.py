"""The union over a timeline stretch's fault regimes (and routing compiles) of the compiled queueing
stations and request paths, with each station's parameters per compile (:class:`RegimeTables`)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from inferboard.model.design import Design
from inferboard.sim.design.compile import Compiled
from inferboard.sim.timeline.tickqueue import StationParams

__all__ = ["STATION_PARAMS", "RegimeTables"]

#: the per-compile parameters of a station, in :class:`StationParams` order
STATION_PARAMS = ("spr", "service", "cv", "ca2", "err", "timeout", "cap", "bmax", "base", "item", "window")


class RegimeTables:
    """The union over regimes of queueing stations, with per-regime parameters, and a registry of the
    request paths met so far (a path is its queueing stations and its total fixed delay; the
    per-tick router, :mod:`tick_routing`, names them)."""

    def __init__(self, design: Design, compiled: list[Compiled], base_spr: dict[str, float]):
        order = list(nx.lexicographical_topological_sort(design.request_graph()))
        queueing = {s for c in compiled for s, st in c.network.stations.items() if not st.delay_only and s in c.plans}
        self.stations = [n for n in order if n in queueing]
        self.index = {s: i for i, s in enumerate(self.stations)}
        self.path_index: dict[tuple, int] = {}
        self.path_stations: list[tuple[int, ...]] = []
        self.path_delay: list[float] = []
        self.members: list[list[int]] = [[] for _ in self.stations]  #: per station, the paths through it
        self.params = [self._station_params(s, compiled, base_spr.get(s, 1.0)) for s in self.stations]

    def path_of(self, key: tuple) -> int:
        """The index of the path ``(sorted station indices, fixed delay)``, registering it if new."""
        found = self.path_index.get(key)
        if found is None:
            found = self.path_index[key] = len(self.path_stations)
            self.path_stations.append(key[0])
            self.path_delay.append(key[1])
            for j in set(key[0]):
                self.members[j].append(found)
        return found

    @staticmethod
    def _station_params(sid: str, compiled: list[Compiled], base_spr: float) -> dict:
        fallback = next(c.network.stations[sid] for c in compiled if sid in c.network.stations)
        rows = []
        for c in compiled:
            st, plan = c.network.stations.get(sid, fallback), c.plans.get(sid)
            spr = plan.servers / plan.replicas if plan is not None and plan.replicas > 0 else base_spr
            spr = 0.0 if plan is not None and plan.memory_fit is False else spr
            rows.append((spr, st.service_mean_s, st.service_cv, c.network.arrival_cv ** 2, st.error_rate,
                         st.timeout_s or math.inf, math.inf if st.queue_capacity is None else st.queue_capacity,
                         st.batch_max, st.batch_base_s, st.batch_item_s, st.batch_timeout_s))
        out: dict = {k: np.array(v, dtype=float) for k, v in zip(STATION_PARAMS, zip(*rows))}
        out["batching"] = fallback.is_batching
        # Regimes that leave this station alone share a signature (and the autoscaler's tables).
        out["sig"] = np.array([sorted(set(rows), key=rows.index).index(row) for row in rows])
        out["sig_regime"] = [rows.index(row) for row in sorted(set(rows), key=rows.index)]
        return out

    def station_params(self, j: int, index: np.ndarray) -> StationParams:
        """The station's parameters per element, ``index`` giving each element's regime."""
        p = self.params[j]
        batch = dict(batch_max=p["bmax"][index], batch_base_s=p["base"][index], batch_item_s=p["item"][index],
                     batch_window_s=p["window"][index]) if p["batching"] else {}
        return StationParams(*(p[k][index] for k in STATION_PARAMS[:7]), **batch)

    def capacity_per_replica(self, j: int, g: int) -> float:
        """Requests per second one replica of station ``j`` completes under compile ``g``."""
        p = self.params[j]
        per_server = p["bmax"][g] / max(p["base"][g] + p["item"][g] * p["bmax"][g], 1e-9) if p["batching"] \
            else 1.0 / max(p["service"][g], 1e-9)
        return p["spr"][g] * per_server

