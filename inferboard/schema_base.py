"""The base class every declarative record derives from: unknown fields are refused."""

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    """A pydantic model that refuses unknown fields and rejects silent type coercion of strings."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_max_length=10_000)
