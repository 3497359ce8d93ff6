"""What the steady-state solver (``analytic.solve``) returns: per station, per path and end to end.
Every number in ``to_dict()`` is finite."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from functools import cached_property

from inferboard.sim.explain import explain
from inferboard.sim.queues import latency_dist as ld, sojourn as sj


def _clean(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else 0.0
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


class _Result:
    @classmethod
    def build(cls, **values):
        """Build without the frozen-dataclass ``__init__`` (one ``object.__setattr__`` per field is
        the slowest part of a 200-station solve); every field must be given."""
        obj = object.__new__(cls)
        obj.__dict__.update(values)
        return obj

    @classmethod
    def adopt(cls, values: dict):
        """``build`` taking ownership of ``values`` (a fresh dict with every field) as the instance dict."""
        obj = object.__new__(cls)
        object.__setattr__(obj, "__dict__", values)
        return obj

    def to_dict(self) -> dict:
        out = {f.name: _clean(getattr(self, f.name)) for f in fields(self) if not f.name.startswith("_")}
        out["figures"] = {k: fig.to_dict() for k, fig in getattr(self, "figures", {}).items()}
        return out


@dataclass(frozen=True, eq=False)
class StationResult(_Result):
    """One station in steady state. Rates in requests/s, times in seconds, fractions in [0, 1]."""

    id: str
    node_id: str
    model: str
    servers: int
    arrival_rps: float
    served_rps: float
    capacity_rps: float
    capacity_unlimited: bool
    utilisation: float  #: busy fraction of the servers (carried load)
    offered_load: float  #: arrival rate / capacity (may exceed 1)
    p_wait: float  #: P(a served request waited)
    mean_wait_s: float  #: served requests' mean time before service (batching + queueing)
    mean_service_s: float
    mean_sojourn_s: float
    batching_wait_s: float
    queue_wait_s: float
    mean_batch: float
    shed_rps: float
    timeout_rps: float
    error_rps: float
    backlog_growth_rps: float
    arrival_scv: float
    departure_scv: float
    saturated: bool
    latency_capped: bool
    _info: dict = field(default_factory=dict, repr=False)

    @cached_property
    def figures(self) -> dict[str, explain.Figure]:
        """The station's figures with how each was computed."""
        return explain.station_figures(self, self._info)

    @property
    def sojourn_spec(self) -> sj.SojournSpec:
        """How the station's sojourn time is distributed (its wait and its service)."""
        return self._info["sojourn_spec"]


@dataclass(frozen=True, eq=False)
class PathResult(_Result):
    """One request path's result: its stations, share, offered and served rates, and mean latency."""
    label: str
    stations: tuple[str, ...]
    share: float
    offered_rps: float
    served_rps: float
    mean_s: float


@dataclass(frozen=True, eq=False)
class NetworkResult(_Result):
    """End-to-end steady state. ``*_rate`` fields are fractions of the offered rate."""

    offered_rps: float
    throughput_rps: float
    shed_rps: float
    timeout_rps: float
    error_rps: float
    backlog_growth_rps: float
    shed_rate: float
    timeout_rate: float
    error_rate: float
    mean_s: float
    p50_s: float
    p95_s: float
    p99_s: float
    p999_s: float
    saturated: bool
    latency_capped: bool
    bottleneck: str
    bin_width_s: float
    bins: int
    stations: dict[str, StationResult]
    paths: tuple[PathResult, ...]
    _grid: object = field(default=None, repr=False)
    _rows: object = field(default=None, repr=False)
    _row_of: dict = field(default_factory=dict, repr=False)
    _shifts: list = field(default_factory=list, repr=False)
    _row_index: object = field(default=None, repr=False)  #: station row -> row of ``_rows`` (equal rows shared)
    _max_sojourn: list = field(default_factory=list, repr=False)  #: per station row, its largest sojourn

    @cached_property
    def figures(self) -> dict[str, explain.Figure]:
        """The end-to-end figures with how each was computed."""
        return explain.network_figures(self)

    def to_dict(self) -> dict:
        """The result as plain values for JSON, stations and paths included."""
        out = super().to_dict()
        out["stations"] = {k: s.to_dict() for k, s in self.stations.items()}
        out["paths"] = [p.to_dict() for p in self.paths]
        return out

    def station_quantiles(self, station_id: str, ps=(0.5, 0.95, 0.99)) -> list[float]:
        """Sojourn-time quantiles (seconds) of one station's served requests, from its distribution."""
        row = self._row_of.get(station_id)
        if row is None or self._grid is None:
            s = self.stations[station_id]
            return [s.mean_sojourn_s for _ in ps]
        grid = self._grid
        shift = self._shifts[row]
        top = self._max_sojourn[row] if self._max_sojourn else math.inf
        return [min(shift + x, top) for x in ld.percentiles(grid, ld.to_pmf(grid, self._rows[self._row_index[row]]), ps)]

