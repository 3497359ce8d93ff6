"""Typed errors for refused edits."""

from __future__ import annotations

from inferboard.errors import InferboardError


class EditRefused(InferboardError):
    """An edit was refused; the design is unchanged."""


class UnknownNode(EditRefused):
    """An edit named a node the design does not have."""

    def __init__(self, node_id: str):
        self.node_id = node_id
        super().__init__(f"there is no node '{node_id}'")


class UnknownEdge(EditRefused):
    """An edit named an edge the design does not have."""

    def __init__(self, edge_id: str):
        self.edge_id = edge_id
        super().__init__(f"there is no edge '{edge_id}'")


class DuplicateId(EditRefused):
    """An edit would add a node or edge under an id already taken."""

    def __init__(self, what: str, item_id: str):
        self.item_id = item_id
        super().__init__(f"a {what} with id '{item_id}' already exists")


class ParamRefused(EditRefused):
    """A parameter value is unknown, of the wrong type or out of range."""

    def __init__(self, node_id: str, param: str, reason: str):
        self.node_id = node_id
        self.param = param
        self.reason = reason
        super().__init__(f"node '{node_id}' field 'params.{param}': {reason}")


class RegionRefused(EditRefused):
    """A node cannot be placed in (or taken out of) the region asked for; says why."""

    def __init__(self, node_id: str, reason: str):
        self.node_id = node_id
        super().__init__(f"node '{node_id}' field 'region': {reason}")


class ConnectionRefused(EditRefused):
    """A wire was refused. ``reason`` says why in words a user understands."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)
