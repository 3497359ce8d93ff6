"""What evaluating a condition gives: the verdict and the evidence on each side. Shared by the
structural leaves (:mod:`leaves`) and the behaviour leaves (:mod:`behaviour`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Evidence:
    """What makes a condition hold or fail: node ids, edge ids and short detail sentences."""

    nodes: set[str] = field(default_factory=set)
    edges: set[str] = field(default_factory=set)
    details: list[str] = field(default_factory=list)
    #: For a measured miss: the worst measured figure over its target (1.2 = 20% over); None otherwise.
    ratio: float | None = None

    def add(self, other: "Evidence") -> None:
        """Take in ``other``'s nodes, edges and details (details once each)."""
        self.nodes |= other.nodes
        self.edges |= other.edges
        self.details.extend(d for d in other.details if d not in self.details)
        if other.ratio is not None:
            self.ratio = other.ratio if self.ratio is None else max(self.ratio, other.ratio)


@dataclass(slots=True)
class Result:
    """A condition's verdict with the evidence for each side (``not`` swaps them)."""

    holds: bool
    pos: Evidence = field(default_factory=Evidence)
    neg: Evidence = field(default_factory=Evidence)


def evidence(nodes=(), edges=(), details=(), ratio: float | None = None) -> Evidence:
    """Evidence made of node ids, edge ids, detail sentences and, for a measured miss, its size."""
    return Evidence(set(nodes), set(edges), list(details), ratio)
