"""What a timeline returns: its series per tick and the events an on-call engineer sees
(:class:`TimelineResult`), with every value made finite and non-negative (:func:`finite`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

MAX_VALUE = 1e15


@dataclass(frozen=True)
class TimelineEvent:
    """One event on the timeline: when, what kind, on which node, and its message."""

    time_s: float
    kind: str
    node_id: str
    message: str

    def to_dict(self) -> dict:
        """The event as plain values for JSON."""
        return {"time_s": float(self.time_s) if math.isfinite(self.time_s) else 0.0, "kind": self.kind,
                "node_id": self.node_id, "message": self.message}


@dataclass
class TimelineResult:
    """A timeline's tick times, its named series (one value per tick), events and notes."""

    times_s: np.ndarray
    series: dict[str, np.ndarray]
    events: list[TimelineEvent]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """Plain lists and finite floats, ready for JSON."""
        return {"times_s": finite(self.times_s).tolist(),
                "series": {k: finite(v).tolist() for k, v in self.series.items()},
                "events": [e.to_dict() for e in self.events], "notes": list(self.notes)}


def finite(values: np.ndarray, high: float = MAX_VALUE) -> np.ndarray:
    """No NaN or infinity, nothing negative, nothing above ``high``; denormal dust becomes 0."""
    out = np.clip(np.asarray(values, dtype=float), 0.0, high)  # infinities to the bounds; NaN stays NaN
    out[~(out >= 1e-200)] = 0.0  # NaN, dust and zero
    return out
