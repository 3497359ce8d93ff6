"""Faults planned on a design's timeline: which failure, where, when and for how long. They are
part of the design (saved with it, edited with undo); the simulator turns them into its own
timed faults when it plays the day."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

class FaultKind(NamedTuple):
    """One failure the simulator can inject: its title, what ``target`` names and what ``magnitude``
    means (in words), the catalog roles of the nodes it can hit, whether ``*`` (everywhere) is
    allowed, whether it aims at a traffic segment rather than a node, and whether it changes the
    model's quality (played by the quality model) rather than the serving system."""

    title: str
    target: str
    magnitude: str
    target_roles: tuple[str, ...]
    everywhere: bool
    on_segment: bool = False
    quality: bool = False


#: The traffic segments the quality model splits requests into: (id, name shown).
SEGMENTS: tuple[tuple[str, str], ...] = (("web", "Web"), ("mobile", "Mobile app"), ("new-users", "New users"))


#: kind -> FaultKind. The simulator's vocabulary; it lives here so that a design file can be
#: checked without loading the simulator.
FAULT_KINDS: dict[str, FaultKind] = {
    "region_outage": FaultKind("Region outage", "a region node", "unused", ("region",), False),
    "gpu_shortage": FaultKind("GPU shortage", "a GPU pool, or * for every GPU pool", "replicas that can be had (cap)",
                              ("gpu_pool",), True),
    "spot_reclaimed": FaultKind("Spot capacity reclaimed", "a pool, or * for every pool",
                                "unused: all spot replicas go", ("serving_pool",), True),
    "slow_canary": FaultKind("Slow model version in the canary", "a canary router, or *", "service-time multiplier",
                             ("canary",), True),
    "slow_replica": FaultKind("Slow replicas", "a pool", "service-time multiplier", ("serving_pool",), False),
    "failing_replica": FaultKind("Failing replicas", "a pool", "added error rate (0-1)", ("serving_pool",), False),
    "cache_flush": FaultKind("Cache flush", "a cache, or *", "unused: hit ratio drops to 0", ("cache",), True),
    "dependency_errors": FaultKind("Dependency error burst", "any serving node, or *", "added error rate (0-1)",
                                   ("can_fail",), True),
    "traffic_surge": FaultKind("Traffic surge", "* (all traffic) or a traffic source", "traffic multiplier",
                               ("traffic_entry",), True),
    "input_drift": FaultKind("Input drift", "a traffic segment (web, mobile, new-users) or * for all",
                             "share of the segment's requests from outside the training data (0-1)", (), True,
                             on_segment=True, quality=True),
    "concept_drift": FaultKind("Concept drift", "a traffic segment (web, mobile, new-users) or * for all",
                               "share of the segment's requests whose right answer changed (0-1)", (), True,
                               on_segment=True, quality=True),
    "bad_model": FaultKind("Bad model version", "a canary router (it reaches the canary), or * (a bad retrain "
                           "reaches every model pool)", "accuracy the version loses, percentage points",
                           ("canary",), True, quality=True),
}


#: A quality fault in ``--fault`` form (``input_drift*0.3:*@2h+46h``), as rules and scenarios state one.
DRIFT_SPEC = r"^(input_drift|concept_drift|bad_model)(\*[0-9.]+)?:[A-Za-z0-9_.*-]+@[0-9.]+[smh]?(\+[0-9.]+[smh]?)?$"


def is_quality_fault(kind: str) -> bool:
    """Whether a fault of ``kind`` changes model quality (drift, a bad version) rather than the system."""
    return kind in FAULT_KINDS and FAULT_KINDS[kind].quality


def target_problem(fault: "PlannedFault", node_ids) -> str:
    """'' when ``fault`` aims at something that exists (a node of ``node_ids``, a segment, ``*``),
    else 'target: reason'."""
    if fault.target == "*":
        return ""
    if fault.kind in FAULT_KINDS and FAULT_KINDS[fault.kind].on_segment:
        ids = [s for s, _ in SEGMENTS]
        return "" if fault.target in ids else f"target: '{fault.target}' is not a segment (one of {', '.join(ids)}, *)"
    return "" if fault.target in node_ids else f"target: names node '{fault.target}', which does not exist"



def fault_targets(design, kind: str) -> list[tuple[str, str]]:
    """(node id or ``*``, name shown) a fault of ``kind`` can hit in ``design``: the nodes whose kind
    has one of the fault's target roles in the design's catalog, after ``*`` (everywhere) where the
    fault allows it or where the design has no such node. A fault on a segment lists the segments."""
    if FAULT_KINDS[kind].on_segment:
        return [("*", "Every segment"), *SEGMENTS]
    kinds = design.catalog.kinds_with_role(*FAULT_KINDS[kind].target_roles)
    out = [(n.id, n.label or n.id) for n in design.nodes.values() if n.kind in kinds]
    if FAULT_KINDS[kind].everywhere or not out:
        out.insert(0, ("*", "Everywhere"))
    return out


#: The longest fault and the latest start a design may plan (a simulated week).
MAX_SECONDS = 7 * 24 * 3600.0
MAX_FAULTS = 100


class FaultRefused(ValueError):
    """A planned fault that cannot be kept; the message names the field."""


@dataclass(frozen=True)
class PlannedFault:
    """One fault on the design's timeline. ``target`` is a node id or ``*``; ``magnitude`` None
    means the simulator's default for the kind."""

    kind: str
    target: str = "*"
    start_s: float = 0.0
    duration_s: float = 3600.0
    magnitude: float | None = None

    def title(self) -> str:
        """The fault kind's title ("Region outage"), or the kind itself when unknown."""
        return FAULT_KINDS[self.kind].title if self.kind in FAULT_KINDS else self.kind

    def end_s(self) -> float:
        """When the fault ends, in seconds into the day."""
        return self.start_s + self.duration_s

    def problem(self) -> str:
        """'' if the fault is well formed, else 'field: reason'."""
        if self.kind not in FAULT_KINDS:
            return f"kind: unknown fault '{self.kind}' (known: {', '.join(FAULT_KINDS)})"
        if not self.target or len(self.target) > 64:
            return "target: must be a node id or *"
        for name in ("start_s", "duration_s"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                return f"{name}: must be a number"
        if not 0 <= self.start_s <= MAX_SECONDS:
            return f"start_s: {self.start_s:g} s is outside 0..{MAX_SECONDS:g} s"
        if not 0 < self.duration_s <= MAX_SECONDS:
            return f"duration_s: {self.duration_s:g} s is outside (0, {MAX_SECONDS:g}] s"
        if self.magnitude is not None and (not isinstance(self.magnitude, (int, float))
                                           or not math.isfinite(self.magnitude) or self.magnitude < 0):
            return "magnitude: must be a number of 0 or more"
        if self.magnitude is not None and FAULT_KINDS[self.kind].on_segment and self.magnitude > 1:
            return f"magnitude: {self.magnitude:g} is a share of requests and must be at most 1"
        if self.magnitude is not None and self.kind == "bad_model" and self.magnitude > 100:
            return f"magnitude: {self.magnitude:g} percentage points is more than 100"
        return ""


def clock(seconds: float) -> str:
    """'02:30' for 9000 s; days add '+1d'."""
    minutes = int(round(seconds / 60))
    days, minutes = divmod(minutes, 24 * 60)
    text = f"{minutes // 60:02d}:{minutes % 60:02d}"
    return f"{text} +{days}d" if days else text


def describe(fault: PlannedFault, target_name: str | None = None) -> str:
    """'Region outage on us-east, 10:00-12:00' in words a person reads."""
    where = "everywhere" if fault.target == "*" else f"on {target_name or fault.target}"
    return f"{fault.title()} {where}, {clock(fault.start_s)}–{clock(fault.end_s())}"
