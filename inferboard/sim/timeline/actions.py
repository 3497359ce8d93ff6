"""What a user (or an incident drill, or an interviewer's follow-up) can do to a running timeline.

Each action is applied with ``TimelineState.apply(action)`` and acts from the current tick on; what
already happened is never recomputed. Design edits make a new revision of the design (the state's
own copy; the user's design is not touched) and the routing of the following ticks is compiled
from it. Operations are kept as faults in force from now on (a failover takes a region out of
routing at once; a flushed cache answers nothing until warmed) or act on a pool's control loop
(scaling by hand) or on the traffic at the entry (shedding a priority class).

- design edits: :class:`ScalePool`, :class:`SetBatcherDelay`, :class:`MoveTraffic`;
- operations: :class:`RollbackCanary`, :class:`FailOverRegion`, :class:`RestoreRegion`,
  :class:`SwitchToFallback`, :class:`ShedPriority`, :class:`FlushCache`, :class:`WarmCache`.
"""

from __future__ import annotations

from dataclasses import dataclass

from inferboard.model.design import Design
from inferboard.sim.design.faults import Fault
from inferboard.sim.timeline.timeline_state import TimelineState
from inferboard.store.design_files import design_to_bytes, parse_design


def _edited(design: Design, node_id: str, kinds: tuple[str, ...], **params) -> Design:
    """A copy of ``design`` with ``params`` set on ``node_id`` (which must be of one of ``kinds``)."""
    node = design.nodes.get(node_id)
    if node is None or node.kind not in kinds:
        raise ValueError(f"'{node_id}' is not a {' or '.join(k.replace('_', ' ') for k in kinds)} of this design")
    copy = parse_design(design_to_bytes(design), "<timeline>", design.catalog)
    copy.set_params(node_id, **params)
    return copy


def _require(design: Design, node_id: str, kinds: tuple[str, ...]) -> None:
    node = design.nodes.get(node_id)
    if node is None or node.kind not in kinds:
        raise ValueError(f"'{node_id}' is not a {' or '.join(k.replace('_', ' ') for k in kinds)} of this design")



@dataclass(frozen=True)
class ScalePool:
    """Set a pool's replica count now (an autoscaler keeps deciding afterwards), and optionally its
    autoscaler's bounds. Routing that depends on capacity (fallback overflow, admission control,
    weights by capacity) counts the new replica count from now on."""

    target: str
    replicas: int | None = None
    min_replicas: int | None = None
    max_replicas: int | None = None

    def apply_to(self, state: TimelineState) -> None:
        """Apply the action to ``state`` from its current tick."""
        _require(state.design, self.target, state.design.catalog.kinds_with_role("model_pool"))
        scaler = state.scalers.get(self.target)
        if scaler is not None and (self.min_replicas is not None or self.max_replicas is not None):
            low = scaler.min_replicas if self.min_replicas is None else self.min_replicas
            high = scaler.max_replicas if self.max_replicas is None else self.max_replicas
            state.command_pool(self.target, ("limits", low, high))
        if self.replicas is not None:
            state.command_pool(self.target, ("scale", int(self.replicas)))
            state.plan_with_replicas(self.target, int(self.replicas))

    def describe(self) -> str:
        """The action in words, for the timeline's log."""
        parts = [] if self.replicas is None else [f"{self.replicas} replicas"]
        if self.min_replicas is not None or self.max_replicas is not None:
            parts.append(f"autoscaler bounds {self.min_replicas if self.min_replicas is not None else '-'}"
                         f"–{self.max_replicas if self.max_replicas is not None else '-'}")
        return f"{self.target} scaled: {', '.join(parts) or 'unchanged'}"


@dataclass(frozen=True)
class SetBatcherDelay:
    """Change a dynamic batcher's maximum queue delay."""

    target: str
    delay_ms: float

    def apply_to(self, state: TimelineState) -> None:
        """Apply the action to ``state`` from its current tick."""
        state.reconfigure(_edited(state.design, self.target, ("dynamic_batcher",), max_queue_delay_ms=self.delay_ms))

    def describe(self) -> str:
        """The action in words, for the timeline's log."""
        return f"{self.target}: batching delay now {self.delay_ms:g} ms"


@dataclass(frozen=True)
class MoveTraffic:
    """Move traffic: a traffic source's share of all traffic, or a canary router's canary share."""

    target: str
    share: float

    def apply_to(self, state: TimelineState) -> None:
        """Apply the action to ``state`` from its current tick."""
        node = state.design.nodes.get(self.target)
        name = "canary_share" if node is not None and node.kind == "canary_router" else "share"
        movers = state.design.catalog.kinds_with_role("traffic_entry", "canary")
        state.reconfigure(_edited(state.design, self.target, movers, **{name: float(self.share)}))

    def describe(self) -> str:
        """The action in words, for the timeline's log."""
        return f"{self.target}: traffic share now {self.share:g}"


@dataclass(frozen=True)
class RollbackCanary:
    """Take the canary out: its router sends it nothing from now on."""

    target: str

    def apply_to(self, state: TimelineState) -> None:
        """Apply the action to ``state`` from its current tick."""
        state.reconfigure(_edited(state.design, self.target, ("canary_router",), canary_share=0.0))

    def describe(self) -> str:
        """The action in words, for the timeline's log."""
        return f"canary of {self.target} rolled back"


@dataclass(frozen=True)
class FailOverRegion:
    """Send a region's traffic elsewhere now (as if health checks had marked it down)."""

    target: str

    def apply_to(self, state: TimelineState) -> None:
        """Apply the action to ``state`` from its current tick."""
        _require(state.design, self.target, ("region",))
        state.reconfigure(add_faults=[Fault("region_outage", self.target)])

    def describe(self) -> str:
        """The action in words, for the timeline's log."""
        return f"traffic failed over away from {self.target}"


@dataclass(frozen=True)
class RestoreRegion:
    """Undo a :class:`FailOverRegion`."""

    target: str

    def apply_to(self, state: TimelineState) -> None:
        """Apply the action to ``state`` from its current tick."""
        state.reconfigure(remove_faults=[Fault("region_outage", self.target)])

    def describe(self) -> str:
        """The action in words, for the timeline's log."""
        return f"{self.target} takes traffic again"


@dataclass(frozen=True)
class SwitchToFallback:
    """Serve everything a router sends to its primaries from its fallback model instead."""

    target: str

    def apply_to(self, state: TimelineState) -> None:
        """Apply the action to ``state`` from its current tick."""
        structure = state.structure()
        if self.target not in structure.kind:
            raise ValueError(f"'{self.target}' is not a node of this design")
        primaries, fallbacks = structure.split[self.target]
        if not fallbacks:
            raise ValueError(f"'{self.target}' has no fallback model below it")
        state.reconfigure(add_faults=[Fault("region_outage", child) for child in primaries])

    def describe(self) -> str:
        """The action in words, for the timeline's log."""
        return f"{self.target} serves from its fallback model"


@dataclass(frozen=True)
class ShedPriority:
    """Shed a priority class: ``share`` of all traffic is refused at the entry (0 ends it)."""

    share: float
    target: str = ""

    def apply_to(self, state: TimelineState) -> None:
        """Apply the action to ``state`` from its current tick."""
        if not 0.0 <= self.share <= 1.0:
            raise ValueError("the shed share must be between 0 and 1")
        state.entry_shed = float(self.share)

    def describe(self) -> str:
        """The action in words, for the timeline's log."""
        return f"shedding {self.share:.0%} of traffic (lowest priority)" if self.share else "no longer shedding"


@dataclass(frozen=True)
class FlushCache:
    """Empty a cache: it answers nothing until warmed."""

    target: str

    def apply_to(self, state: TimelineState) -> None:
        """Apply the action to ``state`` from its current tick."""
        _require(state.design, self.target, ("cache",))
        state.reconfigure(add_faults=[Fault("cache_flush", self.target)])

    def describe(self) -> str:
        """The action in words, for the timeline's log."""
        return f"{self.target} flushed"


@dataclass(frozen=True)
class WarmCache:
    """Warm a flushed cache: its configured hit ratio applies again."""

    target: str

    def apply_to(self, state: TimelineState) -> None:
        """Apply the action to ``state`` from its current tick."""
        _require(state.design, self.target, ("cache",))
        state.reconfigure(remove_faults=[Fault("cache_flush", self.target)])

    def describe(self) -> str:
        """The action in words, for the timeline's log."""
        return f"{self.target} warmed: hit ratio back to its configured value"
