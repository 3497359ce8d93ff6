"""The immutable pieces of a design: nodes and edges."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping


def _freeze(params: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType({k: (list(v) if isinstance(v, list) else v) for k, v in params.items()})


@dataclass(frozen=True, eq=True)
class Node:
    """A component placed on the canvas. ``region`` is the id of the region node it sits in."""

    id: str
    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)
    x: float = 0.0
    y: float = 0.0
    region: str | None = None
    label: str = ""
    #: Size of a container (region) node; None for ordinary nodes.
    width: float | None = None
    height: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", _freeze(self.params))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Node):
            return NotImplemented
        return (self.id, self.kind, dict(self.params), self.x, self.y, self.region, self.label,
                self.width, self.height) == (other.id, other.kind, dict(other.params), other.x, other.y,
                                             other.region, other.label, other.width, other.height)

    __hash__ = None  # type: ignore[assignment]

    def with_changes(self, **changes: Any) -> "Node":
        """A copy of the node with ``changes`` applied."""
        return replace(self, **changes)

    def param(self, name: str, default: Any = None) -> Any:
        """Parameter ``name``, or ``default`` when unset."""
        return self.params.get(name, default)


@dataclass(frozen=True)
class Edge:
    """A wire from an output port of one node to an input port of another."""

    id: str
    source: str
    source_port: str
    target: str
    target_port: str

    def endpoints(self) -> tuple[str, str, str, str]:
        """(source node, source port, target node, target port)."""
        return (self.source, self.source_port, self.target, self.target_port)
