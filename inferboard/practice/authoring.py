"""Writing a scenario of one's own: a draft (plain data, as a form collects it) checked with the same
schema and cross checks as the shipped YAML files, saved into the user's library as a scenario
folder, and exported as a one-scenario pack zip that the pack importer takes back unchanged.

A draft is a mapping shaped like ``scenario.yaml``. :func:`check_draft` gives the validated
:class:`~inferboard.practice.scenario.Scenario` (or None) and every problem, each naming its field
(``facts.1.text``, ``follow_ups.0.faults.0`` ...), so an editor can show them as the user types.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import yaml

from inferboard.errors import Problem
from inferboard.model.design import Design
from inferboard.practice import packzip
from inferboard.practice.library import PACK_FILE, PackInfo, ScenarioLibrary, known_rubrics
from inferboard.practice.scenario import (ID, REQUIREMENT_FIELDS, SCENARIO_FILE, Scenario, ScenarioError,
                                          scenario_from_data)
from inferboard.safe_yaml import YamlFileError, load_yaml_text
from inferboard.store.atomic import atomic_write
from inferboard.store.design_files import design_to_bytes

#: The pack in the user's library that authored scenarios are saved into.
AUTHORED_PACK = "my-scenarios"
AUTHORED_PACK_TITLE = "My scenarios"
REFERENCE_FILE = "reference.json"


@dataclass
class DraftCheck:
    """What :func:`check_draft` found: the scenario when sound, else the problems (field named)."""

    scenario: Scenario | None
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        """Whether the draft became a scenario with no problems."""
        return self.scenario is not None and not self.problems

    def messages(self) -> list[str]:
        """Each problem as "field: message"."""
        return [f"{p.field or 'scenario'}: {p.message}" for p in self.problems]


def slug(text: str) -> str:
    """An id made from a title: lower case, words joined by '-', starting with a letter."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    value = "-".join(words)[:64].strip("-")
    if not value or not value[0].isalpha():
        value = ("s-" + value).strip("-")
    return value if re.match(ID, value) else "my-scenario"


def parse_requirement_changes(text: str) -> tuple[dict[str, Any], list[str]]:
    """``"peak_rps=9000, accuracy_target_pct=98.5"`` -> ({...}, problems). Values are read as YAML
    scalars or lists (``allowed_regions=[eu-west]``), so numbers stay numbers."""
    changes: dict[str, Any] = {}
    problems: list[str] = []
    for part in _split_top_level(text):
        name, eq, value = part.partition("=")
        name = name.strip()
        if not eq or not name or not value.strip():
            problems.append(f"'{part.strip()}' is not field=value")
            continue
        if name not in REQUIREMENT_FIELDS:
            problems.append(f"'{name}' is not a requirements field")
            continue
        try:
            changes[name] = load_yaml_text(value.strip(), name)
        except YamlFileError:
            problems.append(f"'{value.strip()}' is not a value")
    return changes, problems


def requirement_changes_text(changes: dict[str, Any]) -> str:
    """A follow-up's requirement changes in words ("peak_rps → 900, allowed_regions → [eu-west]")."""
    def show(value: Any) -> str:
        if isinstance(value, list):
            return "[" + ", ".join(str(v) for v in value) + "]"
        return str(value)

    return ", ".join(f"{k}={show(v)}" for k, v in changes.items())


def _split_top_level(text: str) -> list[str]:
    """Split on commas that are not inside [...]."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "[":
            depth += 1
        elif char == "]":
            depth = max(0, depth - 1)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [p for p in parts if p.strip()]


#: The schema's messages as an author reads them (pattern, prefix -> words).
PLAIN_MESSAGES = (
    (re.compile(r"String should match pattern '\^\[a-z\]\[a-z0-9-\]\{1,63\}\$'"),
     "use lower-case letters, digits and dashes, starting with a letter (2 to 64 characters)"),
    (re.compile(r"String should have at least (\d+) characters?"), r"needs at least \1 characters"),
    (re.compile(r"String should have at most (\d+) characters?"), r"takes at most \1 characters"),
    (re.compile(r"List should have at least 1 item after validation, not 0"), "needs at least one"),
    (re.compile(r"List should have at least (\d+) items after validation, not \d+"), r"needs at least \1"),
    (re.compile(r"Input should be greater than (\S+)"), r"must be more than \1"),
    (re.compile(r"Input should be less than or equal to (\S+)"), r"must be at most \1"),
)


def plain_field(field: str) -> str:
    """``phases.0.goal`` -> "Phases 1, goal"; ``reference.notes`` -> "Reference, notes"."""
    if not field:
        return "Scenario"
    parts = [str(int(p) + 1) if p.isdigit() else p.replace("_", " ") for p in field.split(".")]
    words: list[str] = []
    for part in parts:
        if part.isdigit() and words:
            words[-1] += f" {part}"
        else:
            words.append(part)
    return ", ".join(words).capitalize()


def plain_problem(problem: Problem) -> str:
    """One problem as an author reads it: the field in words, the schema's message in plain words."""
    message = problem.message
    for pattern, words in PLAIN_MESSAGES:
        if pattern.search(message):
            message = pattern.sub(words, message)
            break
    return f"{plain_field(problem.field)}: {message}"


def check_draft(draft: dict[str, Any], rubrics: set[str] | None = None,
                taken_ids: Iterable[str] = ()) -> DraftCheck:
    """Validate ``draft`` exactly as a ``scenario.yaml`` is validated (schema, then the cross
    checks), plus what the library checks when it loads the folder: rubric names known to the
    rule set and an id no other scenario uses."""
    try:
        scenario = scenario_from_data(draft, "draft")
    except ScenarioError as error:
        return DraftCheck(None, [Problem("", p.field, p.message) for p in error.problems])
    problems: list[Problem] = []
    if rubrics is not None:
        for n, weight in enumerate(scenario.rubrics):
            if weight.rubric not in rubrics:
                problems.append(Problem("", f"rubrics.{n}.rubric", f"unknown rubric '{weight.rubric}'"))
    if scenario.id in set(taken_ids):
        problems.append(Problem("", "id", f"the scenario id '{scenario.id}' is already used in the library"))
    return DraftCheck(None if problems else scenario, problems)


def draft_from_scenario(scenario: Scenario) -> dict[str, Any]:
    """The draft a scenario comes from (what its YAML holds)."""
    return scenario.model_dump(mode="json")


def scenario_yaml(scenario: Scenario) -> str:
    """``scenario.yaml`` text for ``scenario``: every field written out, in the schema's order."""
    return yaml.safe_dump(draft_from_scenario(scenario), sort_keys=False, allow_unicode=True, width=100)


def new_draft(design: Design, title: str = "") -> dict[str, Any]:
    """A starting draft for a scenario whose reference is ``design``: its requirements, the four
    phases with usual lengths and every rubric at weight 1 (the form fills in the rest)."""
    rubrics = sorted(known_rubrics() or ["requirements"])
    return {
        "id": slug(title) if title else "", "title": title, "difficulty": "medium", "summary": "", "tags": [],
        "prompt": "", "requirements": design.requirements.model_dump(mode="json"),
        "facts": [], "questions": [],
        "phases": [{"name": "clarify", "minutes": 8, "goal": "", "nudge": ""},
                   {"name": "high_level", "minutes": 12, "goal": "", "nudge": ""},
                   {"name": "deep_dive", "minutes": 15, "goal": "", "nudge": ""},
                   {"name": "tradeoffs", "minutes": 10, "goal": "", "nudge": ""}],
        "rubrics": [{"rubric": name, "weight": 1.0} for name in rubrics],
        "clarify_weight": 1.0, "follow_ups": [],
        "reference": {"file": REFERENCE_FILE, "notes": "", "components": {}},
        "interviewer_script": "",
    }


# ------------------------------------------------------------------------------ writing
def write_scenario_folder(folder: Path, scenario: Scenario, reference: Design) -> Path:
    """Write ``scenario.yaml`` and the reference design into ``folder`` (each atomically)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write(folder / scenario.reference.file, design_to_bytes(reference), keep_backup=False)
    atomic_write(folder / SCENARIO_FILE, scenario_yaml(scenario).encode("utf-8"), keep_backup=False)
    return folder


def authored_pack_folder(library: ScenarioLibrary) -> Path:
    """The user's own pack (created on first use)."""
    if library.user_packs is None:
        raise packzip.PackError("this library has no folder for the user's scenarios")
    folder = library.user_packs / AUTHORED_PACK
    if not (folder / PACK_FILE).is_file():
        folder.mkdir(parents=True, exist_ok=True)
        info = PackInfo(id=AUTHORED_PACK, title=AUTHORED_PACK_TITLE,
                        description="Scenarios written in Inferboard from a design of one's own.")
        atomic_write(folder / PACK_FILE, yaml.safe_dump(info.model_dump(), sort_keys=False).encode("utf-8"),
                     keep_backup=False)
    return folder


def taken_ids(library: ScenarioLibrary, own: str | None = None) -> set[str]:
    """Scenario ids a new scenario may not take: every loaded one but ``own`` (the id this editor
    saved already: saving again replaces it)."""
    return {sid for sid, entry in library.entries.items() if not (sid == own and entry.pack_id == AUTHORED_PACK)}


def save_to_library(library: ScenarioLibrary, scenario: Scenario, reference: Design) -> Path:
    """Save into the user's pack and reload the library; returns the scenario's folder."""
    folder = write_scenario_folder(authored_pack_folder(library) / scenario.id, scenario, reference)
    library.load()
    return folder


def export_pack(target: Path, scenario: Scenario, reference: Design, author: str = "") -> Path:
    """Write a one-scenario pack zip to ``target`` (atomically; same bytes for the same scenario)."""
    info = PackInfo(id=scenario.id, title=scenario.title, author=author,
                    description=f"The scenario '{scenario.title}', written in Inferboard.")
    staging = Path(tempfile.mkdtemp(prefix="inferboard-pack-"))
    try:
        folder = write_scenario_folder(staging / scenario.id, scenario, reference)
        return packzip.write_pack_zip(Path(target), info.model_dump(), [folder])
    finally:
        shutil.rmtree(staging, ignore_errors=True)
