"""Reading and writing design files (JSON), with limits, migrations and clear errors."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from inferboard import safe_read
from inferboard.catalog import Catalog, default_catalog
from inferboard.errors import Problem, ValidationFailed
from inferboard.model.assemble import assemble_design
from inferboard.model.design import Design
from inferboard.model.faults import PlannedFault, target_problem
from inferboard.model.ops import SetFaults
from inferboard.safe_read import FileRefused, read_bounded
from inferboard.schema_base import problem_message
from inferboard.store.atomic import FileStamp, atomic_write
from inferboard.store.migrations import MigrationError, migrate
from inferboard.store.records import CURRENT_VERSION, FORMAT_NAME, DesignRecord

MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_NODES = 10_000
MAX_EDGES = 40_000
MAX_DEPTH = 24


class DesignFileError(ValidationFailed):
    """A design file cannot be used. ``problems`` names the item and field of each fault."""


def _fail(source: str, message: str, item: str = "", field: str = "") -> DesignFileError:
    return DesignFileError(source, [Problem(item, field, message)])


def parse_json(data: bytes, source: str) -> dict[str, Any]:
    """Decode and strictly parse a design file's bytes into a dict, or raise DesignFileError."""
    if len(data) > MAX_FILE_BYTES:
        raise _fail(source, f"{len(data)} bytes is larger than the {MAX_FILE_BYTES}-byte limit for design files")
    if not data.strip():
        raise _fail(source, "the file is empty")
    try:
        raw = safe_read.parse_json(data, source, MAX_DEPTH)
    except FileRefused as refusal:
        raise _fail(source, refusal.message) from None
    if not isinstance(raw, dict):
        raise _fail(source, "a design file must hold a JSON object")
    return raw


def _item_name(raw: dict[str, Any], loc: tuple) -> tuple[str, str]:
    """Name the item (node or edge by id) and the field for a pydantic error location."""
    if len(loc) >= 2 and loc[0] in ("nodes", "edges") and isinstance(loc[1], int):
        entries = raw.get(loc[0])
        entry = entries[loc[1]] if isinstance(entries, list) and loc[1] < len(entries) else None
        label = "node" if loc[0] == "nodes" else "edge"
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            item = f"{label} '{entry['id'][:64]}'"
        else:
            item = f"{label} #{loc[1] + 1}"
        return item, ".".join(str(p) for p in loc[2:])
    if len(loc) >= 2 and loc[0] == "faults" and isinstance(loc[1], int):
        return f"fault #{loc[1] + 1}", ".".join(str(p) for p in loc[2:])
    if loc and loc[0] in ("requirements", "metadata"):
        return str(loc[0]), ".".join(str(p) for p in loc[1:])
    return "", ".".join(str(p) for p in loc)


def record_from_dict(raw: dict[str, Any], source: str) -> DesignRecord:
    """Check format, migrate older versions, enforce counts, and validate the records."""
    if raw.get("format") != FORMAT_NAME:
        raise _fail(source, f"not an Inferboard design (expected \"format\": \"{FORMAT_NAME}\")", field="format")
    try:
        raw = migrate(raw)
    except MigrationError as error:
        raise _fail(source, error.message, error.item, error.field) from None
    for key, limit in (("nodes", MAX_NODES), ("edges", MAX_EDGES)):
        entries = raw.get(key)
        if isinstance(entries, list) and len(entries) > limit:
            raise _fail(source, f"{len(entries)} {key} is more than the limit of {limit}", field=key)
    try:
        return DesignRecord.model_validate(raw)
    except ValidationError as error:
        problems = []
        for item in error.errors():
            loc = tuple(item.get("loc", ()))
            # The params union reports one line per alternative; keep the first per location.
            if len(loc) >= 5 and loc[2] == "params":
                loc = loc[:4]
            name, field = _item_name(raw, loc)
            problem = Problem(name, field, problem_message(item))
            if problem not in problems:
                problems.append(problem)
        raise DesignFileError(source, problems) from None


def design_from_record(record: DesignRecord, source: str, catalog: Catalog | None = None) -> Design:
    """Assemble a validated record into a Design, or raise DesignFileError with one line per root cause."""
    refused: set[str] = set()
    design, problems = assemble_design(
        catalog or default_catalog(),
        (n.model_dump() for n in record.nodes),
        (e.model_dump() for e in record.edges),
        record.requirements,
        record.metadata.model_dump(),
        refused,
    )
    faults = []
    for number, raw in enumerate(record.faults, 1):
        fault = PlannedFault(raw.kind, raw.target, raw.start_s, raw.duration_s, raw.magnitude)
        if fault.target in refused:
            continue  # the node's own problem is already reported
        problem = target_problem(fault, design.nodes)
        if problem:
            problems.append(Problem(f"fault #{number}", "target", problem.partition(": ")[2]))
        else:
            faults.append(fault)
    if problems:
        raise DesignFileError(source, problems)
    if faults:
        design.apply(SetFaults(tuple(faults)))
    return design


def parse_design(data: bytes, source: str = "<design>", catalog: Catalog | None = None) -> Design:
    """Parse a design file's bytes into a Design, or raise DesignFileError naming what is wrong."""
    return design_from_record(record_from_dict(parse_json(data, source), source), source, catalog)


def read_design(path: Path | str, catalog: Catalog | None = None) -> tuple[Design, FileStamp]:
    """Read a design file; return the design and the stamp to pass back to ``save_design``."""
    path = Path(path)
    source = str(path)
    try:
        data = read_bounded(path, MAX_FILE_BYTES)
    except FileRefused as refusal:
        raise _fail(source, refusal.message) from None
    return parse_design(data, source, catalog), FileStamp.of_bytes(path, data)


def design_to_dict(design: Design) -> dict[str, Any]:
    """The canonical file form of a design: same design, same bytes."""
    nodes = []
    for node in design.nodes.values():
        kind = design.catalog.kinds[node.kind]
        entry: dict[str, Any] = {"id": node.id, "kind": node.kind}
        if node.label:
            entry["label"] = node.label
        entry["x"], entry["y"] = _number(node.x), _number(node.y)
        if node.region is not None:
            entry["region"] = node.region
        if node.width is not None:
            entry["width"], entry["height"] = _number(node.width), _number(node.height)
        entry["params"] = {spec.name: node.params[spec.name] for spec in kind.params if spec.name in node.params}
        nodes.append(entry)
    edges = [{"id": e.id, "source": e.source, "source_port": e.source_port, "target": e.target,
              "target_port": e.target_port} for e in design.edges.values()]
    metadata = design.metadata
    return {
        "format": FORMAT_NAME,
        "version": CURRENT_VERSION,
        "metadata": {"title": metadata.get("title", "Untitled design"), "notes": metadata.get("notes", "")},
        "requirements": design.requirements.model_dump(mode="json", exclude_defaults=True),
        "nodes": nodes,
        "edges": edges,
        "faults": [_fault_entry(f) for f in design.faults],
    }


def _fault_entry(fault: PlannedFault) -> dict[str, Any]:
    entry: dict[str, Any] = {"kind": fault.kind, "target": fault.target, "start_s": _number(fault.start_s),
                             "duration_s": _number(fault.duration_s)}
    if fault.magnitude is not None:
        entry["magnitude"] = _number(fault.magnitude)
    return entry


def _number(value: float | None) -> float | int | None:
    if value is None or not math.isfinite(value):
        return value
    return int(value) if float(value).is_integer() else round(value, 3)


def design_to_bytes(design: Design) -> bytes:
    """The design as the UTF-8 JSON text of a design file."""
    return (json.dumps(design_to_dict(design), indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def save_design(design: Design, path: Path | str, expected: FileStamp | None = None) -> FileStamp:
    """Save atomically, keeping the previous file as ``.bak``; refuse if the file changed since
    ``expected`` was read. Returns the new stamp."""
    return atomic_write(Path(path), design_to_bytes(design), expected=expected)
