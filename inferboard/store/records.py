"""The design file format, version 3, as pydantic records (the JSON Schema is generated from these).
Version 3 added the planned ``faults``."""

from __future__ import annotations

from typing import Literal, Union

from pydantic import Field, field_validator

from inferboard.model.faults import FAULT_KINDS, MAX_FAULTS, MAX_SECONDS
from inferboard.model.requirements import Requirements
from inferboard.schema_base import StrictModel

FORMAT_NAME = "inferboard-design"
CURRENT_VERSION = 4

Id = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
Coordinate = Field(default=0.0, ge=-1_000_000, le=1_000_000, allow_inf_nan=False)
ParamValue = Union[bool, int, float, str, list[list[float]]]


class NodeRecord(StrictModel):
    """A node as stored in a design file."""

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
    """An edge as stored in a design file."""

    id: str = Id
    source: str = Field(min_length=1, max_length=64)
    source_port: str = Field(min_length=1, max_length=64)
    target: str = Field(min_length=1, max_length=64)
    target_port: str = Field(min_length=1, max_length=64)


class Metadata(StrictModel):
    """The design's title and notes as stored in a design file."""

    title: str = Field(default="Untitled design", max_length=200)
    notes: str = Field(default="", max_length=10_000)


class FaultRecord(StrictModel):
    """A fault planned on the design's timeline: ``kind`` on ``target`` (a node id or ``*``) from
    ``start_s`` for ``duration_s`` seconds; ``magnitude`` absent means the kind's default."""

    kind: str = Field(min_length=1, max_length=64)
    target: str = Field(default="*", min_length=1, max_length=64)
    start_s: float = Field(ge=0, le=MAX_SECONDS, allow_inf_nan=False)
    duration_s: float = Field(gt=0, le=MAX_SECONDS, allow_inf_nan=False)
    magnitude: float | None = Field(default=None, ge=0, le=1_000_000, allow_inf_nan=False)

    @field_validator("kind")
    @classmethod
    def known_kind(cls, value: str) -> str:
        """Refuse a fault kind the simulator does not know, naming those it does."""
        if value not in FAULT_KINDS:
            raise ValueError(f"unknown fault '{value}' (known: {', '.join(FAULT_KINDS)})")
        return value


class DesignRecord(StrictModel):
    """A design file: ``format`` and ``version`` first, then the design."""

    format: Literal["inferboard-design"]
    version: Literal[4]
    metadata: Metadata = Metadata()
    requirements: Requirements = Requirements()
    nodes: list[NodeRecord] = Field(default_factory=list, max_length=10_000)
    edges: list[EdgeRecord] = Field(default_factory=list, max_length=40_000)
    faults: list[FaultRecord] = Field(default_factory=list, max_length=MAX_FAULTS)
