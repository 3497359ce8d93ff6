"""The base class every declarative record derives from (unknown fields are refused), and the
wording of its validation errors as (field, message) for the problems a loader reports."""

from __future__ import annotations

from typing import Any, Mapping

from pydantic import BaseModel, ConfigDict, ValidationError


class StrictModel(BaseModel):
    """A pydantic model that refuses unknown fields and rejects silent type coercion of strings."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_max_length=10_000)


def problem_message(entry: Mapping[str, Any]) -> str:
    """The message of one pydantic error entry: "unknown field" for a field the record lacks."""
    return "unknown field" if entry.get("type") == "extra_forbidden" else entry.get("msg", "invalid")


def validation_problems(error: ValidationError) -> list[tuple[str, str]]:
    """(dotted field path, message) for each problem of a pydantic error."""
    return [(".".join(str(part) for part in entry.get("loc", ())), problem_message(entry)) for entry in error.errors()]
