"""Faults the simulator can inject, and the traffic patterns it knows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

# kind -> (title, what target names, what magnitude means): defined beside the design's planned
# faults so that design files are checked without the simulator; re-exported here.
from inferboard.model.faults import FAULT_KINDS, PlannedFault

DEFAULT_MAGNITUDE = {"slow_canary": 3.0, "slow_replica": 2.0, "failing_replica": 0.2, "dependency_errors": 0.1,
                     "traffic_surge": 2.0, "gpu_shortage": 1.0}


@dataclass(frozen=True)
class Fault:
    """A fault in force during a steady-state evaluation."""

    kind: str
    target: str = "*"
    magnitude: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault '{self.kind}'; known: {', '.join(FAULT_KINDS)}")

    @property
    def amount(self) -> float:
        return DEFAULT_MAGNITUDE.get(self.kind, 1.0) if self.magnitude is None else self.magnitude

    def hits(self, node_id: str) -> bool:
        return self.target in ("*", node_id)

    def title(self) -> str:
        return FAULT_KINDS[self.kind][0]


@dataclass(frozen=True)
class TimedFault(Fault):
    """A fault that starts at ``start_s`` and lasts ``duration_s`` seconds of a timeline."""

    start_s: float = 0.0
    duration_s: float = 3600.0

    def active(self, t: float) -> bool:
        return self.start_s <= t < self.start_s + self.duration_s


def timed_faults(planned: Iterable[PlannedFault]) -> tuple[TimedFault, ...]:
    """The simulator's faults for a design's planned ones (``design.faults``)."""
    return tuple(TimedFault(f.kind, f.target, f.magnitude, float(f.start_s), float(f.duration_s)) for f in planned)


def parse_fault(text: str) -> TimedFault:
    """Parse ``KIND:TARGET@START+DURATION`` (times in seconds, or with s/m/h), magnitude as ``KIND*2``."""
    def seconds(value: str) -> float:
        value = value.strip()
        scale = {"s": 1, "m": 60, "h": 3600}.get(value[-1:], None)
        number = float(value[:-1] if scale else value)
        return number * (scale or 1)

    try:
        head, _, timing = text.partition("@")
        kind_part, _, target = head.partition(":")
        kind, _, magnitude = kind_part.partition("*")
        start, _, duration = timing.partition("+")
        return TimedFault(kind.strip(), target.strip() or "*", float(magnitude) if magnitude else None,
                          seconds(start) if start else 0.0, seconds(duration) if duration else 3600.0)
    except ValueError as error:
        raise ValueError(f"fault '{text}': {error} (expected KIND[*MAGNITUDE]:TARGET@START+DURATION, "
                         "e.g. region_outage:us-east@2h+30m)") from None
