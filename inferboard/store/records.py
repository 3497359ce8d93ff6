"""The design file format, version 2, as pydantic records (the JSON Schema is generated from these)."""

from __future__ import annotations

from typing import Literal, Union

from pydantic import Field

from inferboard.model.requirements import Requirements
from inferboard.schema_base import StrictModel

FORMAT_NAME = "inferboard-design"
CURRENT_VERSION = 2

Id = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
Coordinate = Field(default=0.0, ge=-1_000_000, le=1_000_000, allow_inf_nan=False)
ParamValue = Union[bool, int, float, str, list[list[float]]]


class NodeRecord(StrictModel):
    id: str = Id
    kind: str = Field(min_length=1, max_length=64)
    label: str = Field(default="", max_length=200)
    x: float = Coordinate
    y: float = Coordinate
    region: str | None = Field(default=None, max_length=64)
    width: float | None = Field(default=None, ge=20, le=100_000)
    height: float | None = Field(default=None, ge=20, le=100_000)
    params: dict[str, ParamValue] = Field(default_factory=dict, max_length=64)


class EdgeRecord(StrictModel):
    id: str = Id
    source: str = Field(min_length=1, max_length=64)
    source_port: str = Field(min_length=1, max_length=64)
    target: str = Field(min_length=1, max_length=64)
    target_port: str = Field(min_length=1, max_length=64)


class Metadata(StrictModel):
    title: str = Field(default="Untitled design", max_length=200)
    notes: str = Field(default="", max_length=10_000)


class DesignRecord(StrictModel):
    """A design file: ``format`` and ``version`` first, then the design."""

    format: Literal["inferboard-design"]
    version: Literal[2]
    metadata: Metadata = Metadata()
    requirements: Requirements = Requirements()
    nodes: list[NodeRecord] = Field(default_factory=list, max_length=10_000)
    edges: list[EdgeRecord] = Field(default_factory=list, max_length=40_000)
