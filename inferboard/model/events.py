"""Small events the design announces after every change. Names are past-tense verbs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from inferboard.model.elements import Edge, Node
from inferboard.model.faults import PlannedFault
from inferboard.model.requirements import Requirements


@dataclass(frozen=True)
class NodeAdded:
    """A node was added at position ``index`` of the design's order."""

    node: Node
    index: int


@dataclass(frozen=True)
class NodeRemoved:
    """A node was removed."""

    node: Node


@dataclass(frozen=True)
class EdgeAdded:
    """An edge was added."""

    edge: Edge


@dataclass(frozen=True)
class EdgeRemoved:
    """An edge was removed."""

    edge: Edge


@dataclass(frozen=True)
class ParamsChanged:
    """Parameters of a node changed (only those changed, before and after)."""

    node_id: str
    old: Mapping[str, Any]
    new: Mapping[str, Any]


@dataclass(frozen=True)
class NodesMoved:
    """Nodes moved, each from its old to its new position."""

    #: node id -> ((old x, old y), (new x, new y))
    moves: Mapping[str, tuple[tuple[float, float], tuple[float, float]]]


@dataclass(frozen=True)
class NodeResized:
    """A node (a region) changed size."""

    node_id: str
    old: tuple[float | None, float | None]
    new: tuple[float | None, float | None]


@dataclass(frozen=True)
class RegionChanged:
    """A node moved into, out of or between regions."""

    node_id: str
    old: str | None
    new: str | None


@dataclass(frozen=True)
class LabelChanged:
    """A node's label changed."""

    node_id: str
    old: str
    new: str


@dataclass(frozen=True)
class RequirementsChanged:
    """The design's requirements changed."""

    old: Requirements
    new: Requirements


@dataclass(frozen=True)
class MetadataChanged:
    """The design's title or notes changed."""

    old: Mapping[str, str]
    new: Mapping[str, str]


@dataclass(frozen=True)
class FaultsChanged:
    """The design's planned faults changed."""

    old: tuple[PlannedFault, ...]
    new: tuple[PlannedFault, ...]


DesignEvent = (NodeAdded | NodeRemoved | EdgeAdded | EdgeRemoved | ParamsChanged | NodesMoved | NodeResized
               | RegionChanged | LabelChanged | RequirementsChanged | MetadataChanged | FaultsChanged)

#: Events that change the graph's structure (evaluators recompile on these).
STRUCTURAL_EVENTS = (NodeAdded, NodeRemoved, EdgeAdded, EdgeRemoved, RegionChanged)

Listener = Callable[[Any], None]


class EventHub:
    """Subscribe, unsubscribe and emit. Listeners are called in the order they subscribed."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener`` with every event from now on (once, however often subscribed)."""
        if listener not in self._listeners:
            self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        """Stop calling ``listener``."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def emit(self, event: Any) -> None:
        """Call every listener with ``event``, in the order they subscribed."""
        for listener in list(self._listeners):
            listener(event)
