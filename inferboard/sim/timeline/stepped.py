"""What one stretch of a stepped timeline reads and writes of the state it advances
(:class:`SteppedTimeline`; :class:`timeline_state.TimelineState` is the one implementation). The
stretch's steps (:mod:`timeline_stations`, :mod:`timeline_routing`, :mod:`timeline_events`) sit below
the state that runs them, so they name it through this protocol instead of importing it."""

from __future__ import annotations

from typing import Any, Protocol, Sequence

import numpy as np

from inferboard.model.design import Design
from inferboard.sim.design.design_structure import DesignStructure
from inferboard.sim.design.faults import Fault, TimedFault
from inferboard.sim.timeline.regime_tables import RegimeTables
from inferboard.sim.timeline.tick_routing import RegimeRouter


class SteppedTimeline(Protocol):
    """A timeline advanced stretch by stretch: its ticks and offered traffic, the design in force and
    its faults, the pools with their control loops and replica tracks, the stations' carried
    backlogs, and the series, events and notes so far."""

    design: Design
    times: np.ndarray
    tick_s: float
    count: int
    base: np.ndarray  #: offered rate per tick before faults
    timed: Sequence[TimedFault]
    extra_faults: frozenset[Fault]
    entry_shed: float
    pools: list
    scalers: dict[str, Any]
    controls: dict[str, Any]
    controllers: dict[str, Any]
    tracks: dict[str, Any]
    pool_lam: dict[str, np.ndarray]
    pool_carry: dict[str, list]
    initial_ready: dict[str, float]
    pending_commands: dict[str, list]
    backlog: dict[str, float]
    lost: dict[str, np.ndarray]
    accepted: dict[str, np.ndarray]
    series: dict[str, np.ndarray]
    aux: dict[str, np.ndarray]
    events: list
    notes: set[str]
    recovery: dict[int, list]
    cost_memo: dict
    routing_facts: dict

    def tick_of(self, t: float) -> int:
        """The first tick at or after time ``t``."""

    def emit(self, t: float, kind: str, node_id: str, message: str) -> None:
        """Record an event at time ``t``."""

    def structure(self) -> DesignStructure:
        """The current design revision's structure."""

    def compiled_for(self, key) -> tuple[list[float], list]:
        """(base rates, compiles) of a fault regime under the configuration in force."""

    def router_for(self, key) -> RegimeRouter:
        """The per-tick router of a fault regime under the configuration in force."""

    def tables_for(self, compiled: list) -> RegimeTables:
        """The station tables of a stretch's compiles."""

    def metric_for(self, pool_id: str, tables: RegimeTables, j: int | None, lam: np.ndarray, lo_regime: np.ndarray,
                   k0: int, k1: int, capacity_per_replica: np.ndarray | None = None):
        """The autoscaler metric of a pool over ticks ``k0:k1``."""
