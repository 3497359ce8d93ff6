"""How far to trust each headline number: the method that gave it and the error the project states
for that method (measured in the tests; docs/simulator.md gives the sources). The readouts show it
on hover and ``inferboard simulate --json`` prints it under ``trust``.

The methods: an exact closed form (the model's own answer, nothing approximated beyond its
assumptions), a closed-form approximation, a table solved by replications with a stated error, and
the timeline's per-tick fluid approximation. The load test's figures carry their own 95% intervals."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterable

EXACT, APPROXIMATION, TABLE, FLUID = "exact", "approximation", "table", "fluid"
ESTIMATE = "estimate"
#: Worst last: a figure composed from several stations is as trustworthy as its weakest part.
ORDER = (EXACT, APPROXIMATION, TABLE, ESTIMATE)
TITLES = {EXACT: "exact closed form", APPROXIMATION: "closed-form approximation",
          TABLE: "table with stated error", FLUID: "per-tick fluid approximation",
          ESTIMATE: "estimated table"}
HEADLINE = ("p50_ms", "p95_ms", "p99_ms", "throughput_rps", "shed_rate", "error_rate", "cost_per_hour", "cost_per_1k")


@dataclass(frozen=True)
class Trust:
    """``method`` (one of the constants above), its title, and the stated error in words."""

    method: str
    error: str

    @property
    def title(self) -> str:
        """The method's title, as the readouts show it."""
        return TITLES[self.method]

    def text(self) -> str:
        """One line for a tooltip: "Table with stated error: p99 within 5% ..."."""
        return f"{self.title[0].upper()}{self.title[1:]}: {self.error}"

    def to_dict(self) -> dict[str, str]:
        """The trust record as plain strings for JSON, with the method's title."""
        return {**asdict(self), "title": self.title}


STATION_ERRORS = {
    EXACT: "exact for the model's assumptions (Poisson arrivals, exponential or fixed service)",
    APPROXIMATION: "within about 10% of the load test up to 90% utilisation (Allen–Cunneen, G/G/c)",
    TABLE: "within 5% of the load test up to 90% of capacity, 10% above (dynamic batcher table)",
    ESTIMATE: "directional: a batcher with a batch limit in the hundreds is read off a smaller batcher's table, "
              "scaled (no stated error; the load test gives its own intervals)",
}
FLOWS = Trust(EXACT, "flow balance: exact given each station's capacity")
COST = Trust(EXACT, "exact: the catalog's prices times the replicas running")
TIMELINE = Trust(FLUID, "within about 15% of the load test at each moment; within a tick a backlog is a rate, "
                        "not a clump of requests")


def station_method(model: str) -> str:
    """The method behind one station's figures, from its model name ("M/M/8", "batch B=16 ×3")."""
    if model.startswith("batch"):
        return ESTIMATE if model.endswith("(estimated table)") else TABLE
    if model == "delay" or model.startswith("M/M/") or model == "M/D/1":
        return EXACT
    return APPROXIMATION


def worst(methods: Iterable[str]) -> str:
    """The least trusted of ``methods`` (exact when there is none)."""
    return max(methods, key=ORDER.index, default=EXACT)


def steady_trust(result) -> dict[str, Trust]:
    """Trust of each headline figure of a steady-state ``DesignResult``: the latencies and the shed
    share are as good as the weakest station, the flows are exact given the capacities, the cost
    is exact."""
    stations = result.network.stations.values() if result.network is not None else ()
    method = worst(station_method(s.model) for s in stations)
    latency = Trust(method, STATION_ERRORS[method])
    out = {key: latency for key in ("p50_ms", "p95_ms", "p99_ms", "shed_rate")}
    out.update(throughput_rps=FLOWS, error_rate=FLOWS, cost_per_hour=COST, cost_per_1k=COST)
    return out


def timeline_trust() -> dict[str, Trust]:
    """Every headline figure read off the timeline is the fluid model's, the cost excepted."""
    return {key: (COST if key.startswith("cost") else TIMELINE) for key in HEADLINE}


def node_trust(result, node_id: str) -> Trust | None:
    """Trust of one component's steady-state figures (utilisation, queueing): its station's method;
    None for a component that is no station."""
    compiled, network = getattr(result, "compiled", None), getattr(result, "network", None)
    station_id = compiled.station_of.get(node_id) if compiled is not None else None
    station = network.stations.get(station_id) if network is not None and station_id else None
    if station is None:
        return None
    method = station_method(station.model)
    return Trust(method, STATION_ERRORS[method])
