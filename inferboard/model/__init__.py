"""The design model: nodes, edges, requirements, metadata and planned faults, with events and exact
inverses."""

from inferboard.model.design import Design
from inferboard.model.elements import Edge, Node
from inferboard.model.errors import (ConnectionRefused, DuplicateId, EditRefused, ParamRefused, RegionRefused,
                                     UnknownEdge, UnknownNode)
from inferboard.model.faults import PlannedFault
from inferboard.model.requirements import Requirements

__all__ = ["Design", "Edge", "Node", "PlannedFault", "Requirements", "ConnectionRefused", "DuplicateId", "EditRefused",
           "ParamRefused", "RegionRefused", "UnknownEdge", "UnknownNode"]
