"""Faults the simulator can inject, and the traffic patterns it knows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

# FAULT_KINDS, kind -> (title, what target names, what magnitude means), is defined beside the
# design's planned faults so that design files are checked without the simulator.
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
        """The fault's magnitude, or its kind's default when none was given."""
        return DEFAULT_MAGNITUDE.get(self.kind, 1.0) if self.magnitude is None else self.magnitude

    def hits(self, node_id: str) -> bool:
        """Whether the fault applies to ``node_id`` (its target, or everywhere)."""
        return self.target in ("*", node_id)

    def title(self) -> str:
        """The fault kind's title."""
        return FAULT_KINDS[self.kind][0]


@dataclass(frozen=True)
class TimedFault(Fault):
    """A fault that starts at ``start_s`` and lasts ``duration_s`` seconds of a timeline."""

    start_s: float = 0.0
    duration_s: float = 3600.0

    def active(self, t: float) -> bool:
        """Whether the fault is in force at time ``t`` (seconds)."""
        return self.start_s <= t < self.start_s + self.duration_s


def timed_faults(planned: Iterable[PlannedFault]) -> tuple[TimedFault, ...]:
    """The simulator's faults for a design's planned ones (``design.faults``)."""
    return tuple(TimedFault(f.kind, f.target, f.magnitude, float(f.start_s), float(f.duration_s)) for f in planned)


#: Names a fault's target may go by in ``KIND:NAME=VALUE,...`` (the magnitude is ``magnitude=``).
TARGET_NAMES = ("target", "segment", "router", "node")


def _names_fields(text: str) -> bool:
    """Whether a target part is ``NAME=VALUE,...`` with only :data:`TARGET_NAMES` and ``magnitude``
    (a scenario's ``kind=...,location=...`` target is left for the scenario to resolve)."""
    names = [item.partition("=")[0].strip() for item in text.split(",")]
    return "=" in text and all(name in (*TARGET_NAMES, "magnitude") for name in names)


def _named_fields(text: str, magnitude: str) -> tuple[str, str]:
    """(target, magnitude) from ``segment=mobile,magnitude=0.3``."""
    target = ""
    for item in text.split(","):
        name, _, value = (part.strip() for part in item.partition("="))
        if name == "magnitude":
            magnitude = value
        else:
            target = value
    return target, magnitude


def parse_fault(text: str) -> TimedFault:
    """Parse ``KIND:TARGET@START+DURATION`` (times in seconds, or with s/m/h), magnitude as ``KIND*2``;
    the target part may name its fields instead: ``input_drift:segment=mobile,magnitude=0.3@2h+6h``."""
    def seconds(value: str) -> float:
        value = value.strip()
        scale = {"s": 1, "m": 60, "h": 3600}.get(value[-1:], None)
        number = float(value[:-1] if scale else value)
        return number * (scale or 1)

    try:
        head, _, timing = text.partition("@")
        kind_part, _, target = head.partition(":")
        kind, _, magnitude = kind_part.partition("*")
        if _names_fields(target):
            target, magnitude = _named_fields(target, magnitude)
        start, _, duration = timing.partition("+")
        return TimedFault(kind.strip(), target.strip() or "*", float(magnitude) if magnitude else None,
                          seconds(start) if start else 0.0, seconds(duration) if duration else 3600.0)
    except ValueError as error:
        raise ValueError(f"fault '{text}': {error} (expected KIND[*MAGNITUDE]:TARGET@START+DURATION, "
                         "e.g. region_outage:us-east@2h+30m or input_drift:segment=mobile,magnitude=0.3@2h+6h)") from None
