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

    def add(self, other: "Evidence") -> None:
        self.nodes |= other.nodes
        self.edges |= other.edges
        self.details.extend(d for d in other.details if d not in self.details)


@dataclass(slots=True)
class Result:
    """A condition's verdict with the evidence for each side (``not`` swaps them)."""

    holds: bool
    pos: Evidence = field(default_factory=Evidence)
    neg: Evidence = field(default_factory=Evidence)


def evidence(nodes=(), edges=(), details=()) -> Evidence:
    """Evidence made of node ids, edge ids and detail sentences."""
    return Evidence(set(nodes), set(edges), list(details))
