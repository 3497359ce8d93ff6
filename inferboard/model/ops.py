"""Edits as values. ``Design.apply(op)`` performs one and returns its exact inverse, so an undo
command only stores the op and the inverse it got back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from inferboard.model.elements import Edge, Node
from inferboard.model.faults import PlannedFault
from inferboard.model.requirements import Requirements


@dataclass(frozen=True)
class AddNode:
    """Add ``node`` (at ``index`` in the node order, or last)."""

    node: Node
    #: Position in the design's node order; None appends.
    index: int | None = None


@dataclass(frozen=True)
class RemoveNode:
    """Removes a node and every edge attached to it; nodes inside a removed region leave it."""

    node_id: str


@dataclass(frozen=True)
class AddEdge:
    """Add ``edge`` (at ``index`` in the edge order, or last)."""

    edge: Edge
    index: int | None = None


@dataclass(frozen=True)
class RemoveEdge:
    """Remove the edge ``edge_id``."""

    edge_id: str


@dataclass(frozen=True)
class SetParams:
    """Set these parameters of node ``node_id`` (the others are kept)."""

    node_id: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class MoveNodes:
    """Move nodes to new (x, y) positions."""

    positions: Mapping[str, tuple[float, float]]


@dataclass(frozen=True)
class ResizeNode:
    """Resize node ``node_id`` (a region); None keeps its kind's default size."""

    node_id: str
    width: float | None
    height: float | None


@dataclass(frozen=True)
class SetRegion:
    """Place node ``node_id`` in ``region`` (None: outside any region)."""

    node_id: str
    region: str | None


@dataclass(frozen=True)
class SetLabel:
    """Set node ``node_id``'s label."""

    node_id: str
    label: str


@dataclass(frozen=True)
class SetRequirements:
    """Replace the design's requirements."""

    requirements: Requirements


@dataclass(frozen=True)
class SetMetadata:
    """Replaces the whole metadata mapping (title, notes, ...)."""

    metadata: Mapping[str, str]


@dataclass(frozen=True)
class SetFaults:
    """Replaces the design's planned faults (the whole list, in timeline order as given)."""

    faults: tuple[PlannedFault, ...]


@dataclass(frozen=True)
class Compound:
    """Several edits applied as one; if one fails, the ones before it are rolled back."""

    ops: tuple = field(default_factory=tuple)
    title: str = ""


Op = (AddNode | RemoveNode | AddEdge | RemoveEdge | SetParams | MoveNodes | ResizeNode | SetRegion | SetLabel
      | SetRequirements | SetMetadata | SetFaults | Compound)
