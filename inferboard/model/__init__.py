"""The design model: nodes, edges, requirements and metadata, with events and exact inverses."""

from inferboard.model.design import Design
from inferboard.model.elements import Edge, Node
from inferboard.model.errors import (ConnectionRefused, DuplicateId, EditRefused, ParamRefused, RegionRefused,
                                     UnknownEdge, UnknownNode)
from inferboard.model.requirements import Requirements

__all__ = ["Design", "Edge", "Node", "Requirements", "ConnectionRefused", "DuplicateId", "EditRefused",
           "ParamRefused", "RegionRefused", "UnknownEdge", "UnknownNode"]
