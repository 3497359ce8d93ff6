"""The compiled form of a design that every simulator layer works on: stations and request paths.

A *station* is one place where requests spend time: a replica pool (c parallel servers), a
dynamic batcher in front of a pool (a batch-service station), a bounded queue, or a pure delay
(a load-balancer hop, a cache hit). A *path* is the sequence of stations one class of requests
visits, with the share of all arrivals that takes it. Paths must agree with one topological order
of the stations (requests never loop back), which lets the load test process stations in order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import networkx as nx


@dataclass(frozen=True)
class Station:
    """One queueing station.

    ``servers`` parallel servers each take a request for a service time with mean
    ``service_mean_s`` and coefficient of variation ``service_cv`` (0 deterministic, 1
    exponential; the load test draws gamma-distributed times). With ``batch_max`` > 1 the station
    serves batches: a batch of b takes ``batch_base_s + batch_item_s * b`` and is dispatched when it
    reaches ``batch_max`` or its oldest request has waited ``batch_timeout_s`` (Triton's max queue
    delay), whichever comes first, and only when a server is free. ``queue_capacity`` bounds the
    waiting room (arrivals that find it full are shed); a request that waits longer than
    ``timeout_s`` before its service starts leaves as timed out; ``error_rate`` of the served
    requests fail. ``delay_only`` stations never queue: they add ``fixed_delay_s`` to every request.
    """

    id: str
    servers: int = 1
    service_mean_s: float = 0.0
    service_cv: float = 1.0
    batch_max: int = 1
    batch_base_s: float = 0.0
    batch_item_s: float = 0.0
    batch_timeout_s: float = 0.0
    queue_capacity: int | None = None
    timeout_s: float | None = None
    error_rate: float = 0.0
    fixed_delay_s: float = 0.0
    delay_only: bool = False
    #: The design node this station stands for (for results keyed by node id).
    node_id: str = ""

    def __post_init__(self) -> None:
        numbers = (self.service_mean_s, self.service_cv, self.batch_base_s, self.batch_item_s,
                   self.batch_timeout_s, self.error_rate, self.fixed_delay_s)
        if any(not math.isfinite(v) or v < 0 for v in numbers):
            raise ValueError(f"station '{self.id}': times, CV and error rate must be finite and >= 0")
        if self.servers < 0 or self.batch_max < 1:
            raise ValueError(f"station '{self.id}': servers must be >= 0 and batch_max >= 1")
        if self.error_rate > 1:
            raise ValueError(f"station '{self.id}': error_rate must be at most 1")
        if self.queue_capacity is not None and self.queue_capacity < 0:
            raise ValueError(f"station '{self.id}': queue_capacity must be >= 0")
        if self.timeout_s is not None and (not math.isfinite(self.timeout_s) or self.timeout_s <= 0):
            raise ValueError(f"station '{self.id}': timeout_s must be > 0")

    @property
    def is_batching(self) -> bool:
        """Whether the station serves in batches (a batch size over 1, not a pure delay)."""
        return self.batch_max > 1 and not self.delay_only

    def batch_time(self, b: float) -> float:
        """Service time of a batch of ``b`` requests."""
        return self.batch_base_s + self.batch_item_s * b

    @property
    def capacity_rps(self) -> float:
        """Most requests per second the station can complete."""
        if self.delay_only:
            return math.inf
        if self.servers <= 0:
            return 0.0
        if self.is_batching:
            t = self.batch_time(self.batch_max)
            return math.inf if t <= 0 else self.servers * self.batch_max / t
        return math.inf if self.service_mean_s <= 0 else self.servers / self.service_mean_s


@dataclass(frozen=True)
class Path:
    """A route through the network and the share of all arrivals that takes it."""

    stations: tuple[str, ...]
    share: float
    #: What the path stands for, e.g. "users -> gw -> cache hit" (for explanations).
    label: str = ""

    def __post_init__(self) -> None:
        if not math.isfinite(self.share) or self.share < 0:
            raise ValueError("a path's share must be finite and >= 0")


@dataclass(frozen=True)
class Network:
    """The compiled queueing network: its stations, the request paths through them with their shares, and
    the arrival stream."""
    stations: dict[str, Station]
    paths: tuple[Path, ...]
    arrival_rate: float
    arrival_cv: float = 1.0
    #: Fraction of arrivals that no path serves (shed before any station), e.g. no capacity wired.
    unrouted_share: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        if not math.isfinite(self.arrival_rate) or self.arrival_rate < 0:
            raise ValueError("arrival_rate must be finite and >= 0")
        if not math.isfinite(self.arrival_cv) or self.arrival_cv < 0:
            raise ValueError("arrival_cv must be finite and >= 0")
        total = sum(p.share for p in self.paths)
        if total > 1 + 1e-9:
            raise ValueError(f"path shares add up to {total:.6f}, more than 1")
        for path in self.paths:
            for station_id in path.stations:
                if station_id not in self.stations:
                    raise ValueError(f"path '{path.label}' names unknown station '{station_id}'")
        object.__setattr__(self, "unrouted_share", max(0.0, 1.0 - total))
        self.topological_order()  # raises on loops

    def topological_order(self) -> list[str]:
        """Stations in an order every path respects; raises ValueError if paths loop."""
        graph = nx.DiGraph()
        graph.add_nodes_from(self.stations)
        for path in self.paths:
            if len(set(path.stations)) != len(path.stations):
                raise ValueError(f"path '{path.label}' visits a station twice")
            graph.add_edges_from(zip(path.stations, path.stations[1:]))
        try:
            return list(nx.lexicographical_topological_sort(graph))
        except nx.NetworkXUnfeasible:
            raise ValueError("paths loop: no station order agrees with all of them") from None

    def station_rates(self) -> dict[str, float]:
        """Offered arrival rate at each station, before any losses upstream."""
        rates = {station_id: 0.0 for station_id in self.stations}
        for path in self.paths:
            for station_id in path.stations:
                rates[station_id] += path.share * self.arrival_rate
        return rates
