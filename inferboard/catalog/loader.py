"""Loading and querying the component catalog."""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from inferboard.catalog.schema import ComponentKind, GpuTable, GpuType, ParamSpec
from inferboard.errors import InferboardError
from inferboard.paths import data_dir
from inferboard.safe_yaml import YamlFileError, load_yaml_file
from inferboard.schema_base import validation_problems

GPU_TABLE_FILE = "gpu_types.yaml"


class CatalogError(InferboardError):
    """A catalog file is missing, malformed or inconsistent."""

    exit_code = 2


class ParamValueError(ValueError):
    """A parameter value is of the wrong type or out of range."""


#: the largest whole number a parameter may hold (beyond it a float loses whole numbers, or overflows)
MAX_PARAM_INT = 2 ** 53


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _whole_number_in_range(value: Any) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_PARAM_INT:
        raise ParamValueError(f"a number of {len(str(abs(value)))} digits is too large to use")


def coerce_param(spec: ParamSpec, value: Any) -> Any:
    """Check ``value`` against ``spec`` and return it in canonical form, or raise ParamValueError."""
    _whole_number_in_range(value)
    if spec.type == "bool":
        if not isinstance(value, bool):
            raise ParamValueError(f"must be true or false, not {_brief(value)}")
        return value
    if spec.type in ("int", "float"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ParamValueError(f"must be a number, not {_brief(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ParamValueError("must be a finite number")
        if spec.type == "int":
            if isinstance(value, float):
                if not value.is_integer():
                    raise ParamValueError(f"must be a whole number, not {_brief(value)}")
                value = int(value)
        else:
            value = float(value)
        unit = f" {spec.unit}" if spec.unit else ""
        if spec.min is not None and value < spec.min:
            raise ParamValueError(f"{value:g}{unit} is below the minimum {spec.min:g}{unit}")
        if spec.max is not None and value > spec.max:
            raise ParamValueError(f"{value:g}{unit} is above the maximum {spec.max:g}{unit}")
        return value
    if spec.type == "choice":
        if value not in spec.choices:
            raise ParamValueError(f"{_brief(value)} is not one of {', '.join(spec.choices)}")
        return value
    if spec.type == "text":
        if not isinstance(value, str):
            raise ParamValueError(f"must be text, not {_brief(value)}")
        if len(value) > 2000:
            raise ParamValueError("is longer than 2000 characters")
        return value
    # schedule: a list of [hour, replicas] pairs
    if not isinstance(value, list) or len(value) > 96:
        raise ParamValueError("must be a list of at most 96 [hour, replicas] pairs")
    pairs = []
    for entry in value:
        if (not isinstance(entry, (list, tuple)) or len(entry) != 2
                or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in entry)):
            raise ParamValueError(f"entry {_brief(entry)} is not an [hour, replicas] pair")
        hour, replicas = entry
        _whole_number_in_range(hour)
        _whole_number_in_range(replicas)
        if not 0 <= hour < 24 or not 0 <= replicas <= 100_000 or float(replicas) != int(replicas):
            raise ParamValueError(f"entry {_brief(entry)}: hour must be in [0, 24) and replicas a whole number >= 0")
        pairs.append([float(hour) if not float(hour).is_integer() else int(hour), int(replicas)])
    return pairs


class Catalog:
    """The component kinds and GPU types, keyed by id."""

    def __init__(self, kinds: dict[str, ComponentKind], gpus: dict[str, GpuType]):
        self.kinds = kinds
        self.gpus = gpus
        self._by_roles: dict[tuple[str, ...], tuple[str, ...]] = {}

    def kinds_with_role(self, *roles: str) -> tuple[str, ...]:
        """The ids of the kinds having any of ``roles``, in catalog order (the one place kinds are
        grouped; remembered per catalog, whose kinds never change once loaded)."""
        found = self._by_roles.get(roles)
        if found is None:
            found = self._by_roles[roles] = tuple(kind.id for kind in self.kinds.values()
                                                  if any(role in kind.roles for role in roles))
        return found

    @classmethod
    def load(cls, folder: Path | None = None) -> "Catalog":
        """Read every component kind and GPU type from ``folder`` (the shipped catalog by default); raises
        CatalogError."""
        folder = Path(folder) if folder is not None else data_dir("components")
        kinds: dict[str, ComponentKind] = {}
        gpus: dict[str, GpuType] = {}
        files = sorted(folder.glob("*.yaml"))
        if not files:
            raise CatalogError(f"{folder}: no component files found")
        for path in files:
            try:
                raw = load_yaml_file(path)
            except YamlFileError as error:
                raise CatalogError(str(error)) from None
            try:
                if path.name == GPU_TABLE_FILE:
                    for gpu in GpuTable.model_validate(raw).gpus:
                        gpus[gpu.id] = gpu
                    continue
                kind = ComponentKind.model_validate(raw)
            except ValidationError as error:
                item = raw.get("id", "?") if isinstance(raw, dict) else "?"
                details = "; ".join(f"field '{loc}': {msg}" for loc, msg in validation_problems(error))
                raise CatalogError(f"{path}: kind '{item}': {details}") from None
            if kind.id != path.stem:
                raise CatalogError(f"{path}: kind '{kind.id}': field 'id' must equal the file name '{path.stem}'")
            kinds[kind.id] = kind
        catalog = cls(kinds, gpus)
        catalog._check_references(folder)
        return catalog

    def _check_references(self, folder: Path) -> None:
        for kind in self.kinds.values():
            for port in kind.inputs + kind.outputs:
                for other in port.accepts:
                    if other not in self.kinds:
                        raise CatalogError(
                            f"{folder / (kind.id + '.yaml')}: kind '{kind.id}': field 'ports.{port.name}.accepts': "
                            f"unknown kind '{other}'")
            spec = kind.param("gpu_type")
            if spec is not None:
                for choice in spec.choices:
                    if choice not in self.gpus:
                        raise CatalogError(
                            f"{folder / (kind.id + '.yaml')}: kind '{kind.id}': field 'params.gpu_type': "
                            f"'{choice}' is not in {GPU_TABLE_FILE}")

    def kind(self, kind_id: str) -> ComponentKind:
        """The kind called ``kind_id``; raises KeyError naming the known kinds."""
        try:
            return self.kinds[kind_id]
        except KeyError:
            raise CatalogError(f"unknown component kind '{kind_id}'") from None

    def by_category(self) -> dict[str, list[ComponentKind]]:
        """The kinds grouped by category, in catalog order."""
        groups: dict[str, list[ComponentKind]] = {}
        for kind in self.kinds.values():
            groups.setdefault(kind.category, []).append(kind)
        return groups


@lru_cache(maxsize=1)
def default_catalog() -> Catalog:
    """The catalog shipped with Inferboard (loaded once)."""
    return Catalog.load()
