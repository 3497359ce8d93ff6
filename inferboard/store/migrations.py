"""Migrations from older design file versions to the current one, one step per version.

Version 0 was the pre-release draft format: node positions were ``"pos": [x, y]`` and edges were
``{"id", "from": "node.port", "to": "node.port"}``. Version 1 LLM generation pools carried
``prefill_tokens_per_s`` (prompt tokens per second on an H100, scaled by relative speed); version 2
derives prefill from FLOPs with ``prefill_efficiency`` instead, so the old figure is dropped (the
new parameters take their catalog defaults). Version 2 had no planned faults (the app chose them
anew each session); version 3 adds ``faults``. Version 4 spells utilisation one way everywhere:
the admission controller's ``shed_above_utilization`` becomes ``shed_above_utilisation`` and the
autoscaler metrics ``gpu_utilization`` / ``cpu_utilization`` become ``gpu_utilisation`` /
``cpu_utilisation``. Each step takes and returns a plain dict.
"""

from __future__ import annotations

from typing import Any, Callable

from inferboard.store.records import CURRENT_VERSION

Migration = Callable[[dict[str, Any]], dict[str, Any]]


class MigrationError(ValueError):
    """A file could not be brought up to the current version; ``item`` and ``field`` say where."""

    def __init__(self, message: str, field: str = "version", item: str = ""):
        super().__init__(message)
        self.message, self.field, self.item = message, field, item


_JSON_TYPES = {dict: "an object", list: "a list", str: "text", bool: "true/false", int: "a number",
               float: "a number", type(None): "null"}


def _v0_entries(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """A version-0 file's ``nodes`` or ``edges``, checked to be a list of objects before use."""
    entries = data.get(key, [])
    if not isinstance(entries, list):
        raise MigrationError(f"expected a list of objects, not {_JSON_TYPES.get(type(entries), 'a value')}", key)
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise MigrationError(f"entry #{number} is {_JSON_TYPES.get(type(entry), 'a value')}, not an object", key)
    return entries


def _v0_item(label: str, entry: dict[str, Any]) -> str:
    return f"{label} '{str(entry.get('id', '?'))[:64]}'"


def _v0_to_v1(data: dict[str, Any]) -> dict[str, Any]:
    out = dict(data)
    nodes = []
    for node in _v0_entries(data, "nodes"):
        node = dict(node)
        if "pos" in node:
            pos = node.pop("pos")
            if not (isinstance(pos, list) and len(pos) == 2):
                raise MigrationError("expected [x, y]", "pos", _v0_item("node", node))
            node["x"], node["y"] = pos
        nodes.append(node)
    edges = []
    for edge in _v0_entries(data, "edges"):
        edge = dict(edge)
        for end, (node_key, port_key) in (("from", ("source", "source_port")), ("to", ("target", "target_port"))):
            if end in edge:
                value = edge.pop(end)
                if not isinstance(value, str) or "." not in value:
                    raise MigrationError("expected 'node.port'", end, _v0_item("edge", edge))
                edge[node_key], edge[port_key] = value.rsplit(".", 1)
        edges.append(edge)
    out["nodes"], out["edges"], out["version"] = nodes, edges, 1
    return out


def _drop_prefill_rate(node: Any) -> Any:
    params = node.get("params") if isinstance(node, dict) else None
    if not (isinstance(params, dict) and node.get("kind") == "generation_pool" and "prefill_tokens_per_s" in params):
        return node
    return {**node, "params": {k: v for k, v in params.items() if k != "prefill_tokens_per_s"}}


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    out = {**data, "version": 2}
    if isinstance(data.get("nodes"), list):  # anything else is reported by validation afterwards
        out["nodes"] = [_drop_prefill_rate(node) for node in data["nodes"]]
    return out


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """Version 3 adds ``faults``; an older file has none planned."""
    return {**data, "faults": data.get("faults", []), "version": 3}


#: version 3 parameter names and choice values -> version 4's, per kind
RENAMED_PARAMS_V4 = {"admission_control": {"shed_above_utilization": "shed_above_utilisation"}}
RENAMED_CHOICES_V4 = {("autoscaler", "metric"): {"gpu_utilization": "gpu_utilisation",
                                                 "cpu_utilization": "cpu_utilisation"}}


def _respell_utilisation(node: Any) -> Any:
    params = node.get("params") if isinstance(node, dict) else None
    kind = node.get("kind") if isinstance(node, dict) else None
    if not isinstance(params, dict) or not isinstance(kind, str):
        return node  # anything malformed is reported by validation afterwards
    renamed = RENAMED_PARAMS_V4.get(kind, {})
    params = {renamed.get(name, name): value for name, value in params.items()}
    for (choice_kind, name), values in RENAMED_CHOICES_V4.items():
        if kind == choice_kind and isinstance(params.get(name), str):
            params[name] = values.get(params[name], params[name])
    return {**node, "params": params}


def _v3_to_v4(data: dict[str, Any]) -> dict[str, Any]:
    out = {**data, "version": 4}
    if isinstance(data.get("nodes"), list):  # anything else is reported by validation afterwards
        out["nodes"] = [_respell_utilisation(node) for node in data["nodes"]]
    return out


#: version N -> the function that turns a version-N dict into a version N+1 dict
MIGRATIONS: dict[int, Migration] = {0: _v0_to_v1, 1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4}


def migrate(data: dict[str, Any], migrations: dict[int, Migration] | None = None,
            current: int = CURRENT_VERSION) -> dict[str, Any]:
    """Apply migration steps until ``data`` is at version ``current``."""
    steps = MIGRATIONS if migrations is None else migrations
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise MigrationError("must be a whole number")
    if version > current:
        raise MigrationError(f"version {version} was written by a newer Inferboard "
                             f"(this one reads up to {current})")
    while version < current:
        step = steps.get(version)
        if step is None:
            raise MigrationError(f"no migration from version {version}")
        data = step(data)
        if data.get("version") != version + 1:
            raise MigrationError(f"migration from version {version} did not produce version {version + 1}")
        version += 1
    return data
