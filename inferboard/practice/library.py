"""The scenario library: packs of scenarios on disk, loaded with per-scenario errors, and packs
imported from and exported to zip files safely.

A *pack* is a folder holding ``pack.yaml`` and one sub-folder per scenario
(``<scenario-id>/scenario.yaml`` + its reference design). Inferboard ships the ``core`` pack in
``assets/scenarios/``; imported packs live in ``<user data>/scenarios/<pack-id>/``. A broken
scenario is reported (file, scenario, field) and left out; everything else keeps working.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from pydantic import Field, ValidationError

from inferboard.errors import Problem, ValidationFailed
from inferboard.model.design import Design
from inferboard.paths import data_dir, user_data_dir
from inferboard.printable import shown
from inferboard.practice import packzip
from inferboard.practice.pack_install import install_folder, recover_installs, staging_folder
from inferboard.practice.packzip import PackError
from inferboard.practice.scenario import ID, SCENARIO_FILE, Scenario, ScenarioError, load_scenario
from inferboard.safe_read import FileRefused, read_bounded
from inferboard.safe_yaml import YamlFileError, load_yaml_file
from inferboard.schema_base import StrictModel, validation_problems
from inferboard.store.atomic import folder_lock
from inferboard.store.design_files import MAX_FILE_BYTES, DesignFileError, parse_design

PACK_FILE = "pack.yaml"
CORE_PACK = "core"
MAX_SCENARIOS_PER_PACK = 200


class PackInfo(StrictModel):
    """``pack.yaml``: who made the pack and what it is."""

    id: str = Field(pattern=ID)
    title: str = Field(min_length=3, max_length=90)
    version: str = Field(default="1", pattern=r"^[0-9A-Za-z.+-]{1,20}$")
    description: str = Field(default="", max_length=2000)
    author: str = Field(default="", max_length=200)


@dataclass
class ScenarioEntry:
    """A loaded scenario with where it came from and its reference design's bytes."""

    scenario: Scenario
    folder: Path
    pack_id: str
    reference_bytes: bytes

    @property
    def id(self) -> str:
        """The scenario's id."""
        return self.scenario.id

    def reference_design(self) -> Design:
        """A fresh copy of the reference design (safe to edit)."""
        return parse_design(self.reference_bytes, str(self.folder / self.scenario.reference.file))


@dataclass
class Pack:
    """A scenario pack: its info, its folder, its scenarios and whether it ships with Inferboard."""

    info: PackInfo
    folder: Path
    scenario_ids: list[str] = field(default_factory=list)
    shipped: bool = False


def known_rubrics() -> set[str] | None:
    """The rubric names of the installed rule set, or None when it cannot be loaded."""
    try:
        # the rule set loads on first use, not at import
        from inferboard.rules import default_rules

        return set(default_rules().rubrics)
    except Exception:  # noqa: BLE001 - a broken rule set must not break the scenario library
        return None


def read_pack_info(folder: Path) -> PackInfo:
    """A pack's pack.yaml, validated; raises ScenarioError naming the file and field."""
    path = folder / PACK_FILE
    try:
        raw = load_yaml_file(path)
    except YamlFileError as error:
        raise PackError(str(error)) from None
    try:
        return PackInfo.model_validate(raw)
    except ValidationError as error:
        item = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else "?"
        details = "; ".join(f"field '{loc}': {msg}" for loc, msg in validation_problems(error))
        raise PackError(f"{path}: pack '{str(item)[:64]}': {details}") from None


#: Parsed scenarios by (path, modification time, size): YAML parsing is the slow part of a reload.
_PARSED: dict[tuple[str, int, int], Scenario] = {}


def _load_cached(path: Path) -> Scenario:
    try:
        info = path.stat()
    except OSError:
        return load_scenario(path)  # raises the usual ScenarioError
    key = (str(path.resolve()), info.st_mtime_ns, info.st_size)
    if key not in _PARSED:
        if len(_PARSED) > 512:
            _PARSED.clear()
        _PARSED[key] = load_scenario(path)
    return _PARSED[key]


def load_entry(folder: Path, pack_id: str, rubrics: set[str] | None) -> ScenarioEntry:
    """Load one scenario folder; raise ScenarioError (or DesignFileError) naming what is wrong."""
    path = folder / SCENARIO_FILE
    scenario = _load_cached(path)
    item = f"scenario '{scenario.id}'"
    problems = []
    if scenario.id != folder.name:
        problems.append(Problem(item, "id", f"must equal the folder name '{folder.name}'"))
    if rubrics is not None:
        for n, weight in enumerate(scenario.rubrics):
            if weight.rubric not in rubrics:
                problems.append(Problem(item, f"rubrics.{n}.rubric",
                                        f"unknown rubric '{weight.rubric}'; known: {', '.join(sorted(rubrics))}"))
    if problems:
        raise ScenarioError(str(path), problems)
    reference = folder / scenario.reference.file
    try:
        data = read_bounded(reference, MAX_FILE_BYTES, follow_links=False)  # no links inside a pack
    except FileRefused as refusal:
        raise ScenarioError(str(path), [Problem(item, "reference.file",
                                                f"cannot read {reference.name}: {refusal.message}")]) from None
    parse_design(data, str(reference))  # raises DesignFileError naming the node and field
    return ScenarioEntry(scenario, folder, pack_id, data)


def scan_pack(folder: Path, rubrics: set[str] | None) -> tuple[Pack, list[ScenarioEntry], list[str]]:
    """Load a pack folder: its info, every scenario that is sound, and one message per problem."""
    info = read_pack_info(folder)
    pack = Pack(info, folder)
    entries: list[ScenarioEntry] = []
    problems: list[str] = []
    children = sorted(p for p in folder.iterdir() if p.is_dir() or p.is_symlink())
    for child in children[:MAX_SCENARIOS_PER_PACK]:
        if child.is_symlink():
            problems.append(f"{child}: a symbolic link is not allowed in a pack; skipped")
            continue
        if not (child / SCENARIO_FILE).is_file():
            continue
        try:
            entry = load_entry(child, info.id, rubrics)
        except (ValidationFailed, FileRefused, OSError) as error:
            problems.append(str(error))
            continue
        except Exception as error:  # noqa: BLE001 - one bad scenario must not hide the others
            problems.append(f"{shown(child / SCENARIO_FILE)}: could not be loaded ({type(error).__name__}: "
                            f"{shown(error)}); skipped")
            continue
        entries.append(entry)
        pack.scenario_ids.append(entry.id)
    if len(children) > MAX_SCENARIOS_PER_PACK:
        problems.append(f"{folder}: more than {MAX_SCENARIOS_PER_PACK} scenarios; the rest were skipped")
    return pack, entries, problems


def shipped_pack_dir() -> Path:
    """The folder of the scenario packs that ship with Inferboard."""
    return data_dir("assets") / "scenarios"


def user_packs_dir(user_data: Path | None = None) -> Path:
    """The folder imported scenario packs go to, under ``user_data`` or the user's data folder."""
    return user_data_dir(user_data) / "scenarios"


def in_zip(message: str, staging: Path, zip_path: Path) -> str:
    """``message`` about a file unpacked into ``staging``, naming it inside the zip (``pack.zip!a/b.yaml``)."""
    return message.replace(f"{shown(staging)}/", f"{shown(zip_path)}!")


class ScenarioLibrary:
    """Every scenario the user can practise, from the shipped pack and imported packs.

    ``load()`` never raises for a bad pack or scenario: ``problems`` lists one message per fault
    (file, scenario, field) and the sound scenarios are still available.
    """

    def __init__(self, shipped: Path | None = None, user_packs: Path | None = None,
                 rubrics: set[str] | None = None, check_rubrics: bool = True):
        self.shipped = shipped if shipped is not None else shipped_pack_dir()
        self.user_packs = user_packs
        #: Rubric names a scenario may use; None with check_rubrics asks the installed rule set.
        self._rubrics = rubrics
        self._check_rubrics = check_rubrics
        self.packs: dict[str, Pack] = {}
        self.entries: dict[str, ScenarioEntry] = {}
        self.problems: list[str] = []

    @classmethod
    def default(cls, user_data: Path | None = None) -> "ScenarioLibrary":
        """The shipped scenarios plus those imported into the user's data folder."""
        return cls(user_packs=user_packs_dir(user_data)).load()

    def rubric_names(self) -> set[str] | None:
        """The rubrics scenarios may weigh (None when not checked)."""
        if not self._check_rubrics:
            return None
        if self._rubrics is None:
            self._rubrics = known_rubrics()
        return self._rubrics

    # ----------------------------------------------------------------- loading
    def pack_folders(self) -> Iterable[tuple[Path, bool]]:
        """Each pack folder with whether it ships with Inferboard: the shipped first, then the imported."""
        if self.shipped is not None and self.shipped.is_dir():
            yield self.shipped, True
        if self.user_packs is not None and self.user_packs.is_dir():
            for child in sorted(self.user_packs.iterdir()):
                if child.name.startswith("."):
                    continue
                if child.is_symlink() or not child.is_dir():
                    self.problems.append(f"{child}: not a pack folder; skipped")
                    continue
                yield child, False

    def load(self) -> "ScenarioLibrary":
        """Read every pack, keeping the sound scenarios and one problem line per fault; returns the library."""
        self.packs, self.entries, self.problems = {}, {}, []
        if self.user_packs is not None:
            recover_installs(self.user_packs)
        rubrics = self.rubric_names()
        for folder, shipped in self.pack_folders():
            try:
                pack, entries, problems = scan_pack(folder, rubrics)
            except (PackError, FileRefused, OSError) as error:
                self.problems.append(f"{error}; pack skipped")
                continue
            except Exception as error:  # noqa: BLE001 - one broken pack must not hide the other packs
                self.problems.append(f"{shown(folder)}: the pack could not be loaded ({type(error).__name__}: "
                                     f"{shown(error)}); skipped")
                continue
            if pack.info.id in self.packs:
                self.problems.append(f"{folder / PACK_FILE}: pack '{pack.info.id}' field 'id': "
                                     f"already used by {self.packs[pack.info.id].folder}; skipped")
                continue
            pack.shipped = shipped
            self.packs[pack.info.id] = pack
            self.problems += problems
            for entry in entries:
                if entry.id in self.entries:
                    self.problems.append(f"{entry.folder / SCENARIO_FILE}: scenario '{entry.id}' field 'id': "
                                         f"already used in pack '{self.entries[entry.id].pack_id}'; skipped")
                    pack.scenario_ids.remove(entry.id)
                    continue
                self.entries[entry.id] = entry
        return self

    def get(self, scenario_id: str) -> ScenarioEntry:
        """The scenario called ``scenario_id``; raises KeyError naming the known ones."""
        try:
            return self.entries[scenario_id]
        except KeyError:
            raise KeyError(f"no scenario '{scenario_id}'; known: {', '.join(sorted(self.entries))}") from None

    def scenarios(self) -> list[Scenario]:
        """Every scenario loaded."""
        return [entry.scenario for entry in self.entries.values()]

    # ----------------------------------------------------------- import/export
    def export(self, pack_or_scenario_id: str, target: Path) -> Path:
        """Write a pack (or a one-scenario pack named after the scenario) to ``target`` as a zip."""
        if pack_or_scenario_id in self.packs:
            pack = self.packs[pack_or_scenario_id]
            folders = [self.entries[s].folder for s in pack.scenario_ids]
            info = pack.info
        elif pack_or_scenario_id in self.entries:
            entry = self.entries[pack_or_scenario_id]
            folders = [entry.folder]
            info = PackInfo(id=entry.id, title=entry.scenario.title,
                            description=f"The scenario '{entry.scenario.title}', exported on its own.")
        else:
            raise PackError(f"no pack or scenario '{pack_or_scenario_id}'")
        return packzip.write_pack_zip(target, info.model_dump(exclude_defaults=False), folders)

    def import_pack(self, zip_path: Path, replace: bool = False) -> Pack:
        """Check and install a pack zip into the user packs folder; refuse it whole if any part is
        unsafe or invalid (PackError names the entry or the file and field)."""
        if self.user_packs is None:
            raise PackError("this library has no folder for imported packs")
        self.user_packs.mkdir(parents=True, exist_ok=True)
        recover_installs(self.user_packs)
        with folder_lock(self.user_packs):  # one import at a time; see pack_install
            self.load()  # collisions are checked against what is installed now
            pack = self._import_locked(Path(zip_path), replace)
        self.load()
        return self.packs[pack.info.id]

    def _import_locked(self, zip_path: Path, replace: bool) -> Pack:
        staging = staging_folder(self.user_packs)
        try:
            root = packzip.extract_pack_zip(Path(zip_path), staging)
            try:
                pack, entries, problems = scan_pack(root, self.rubric_names())
            except (PackError, FileRefused) as error:
                raise PackError(in_zip(str(error), staging, zip_path)) from None
            if problems:  # one line a problem, each naming the file inside the zip
                named = [in_zip(problem, staging, zip_path) for problem in problems]
                if len(named) == 1:
                    raise PackError(f"{named[0]} (the pack was not imported)")
                raise PackError(f"{shown(zip_path)}: the pack was not imported:\n" + "\n".join(named))
            if not entries:
                raise PackError(f"{zip_path}: the pack holds no scenarios")
            self._check_collisions(pack, entries, replace, zip_path)
            install_folder(root, self.user_packs / pack.info.id)
        except PackError:
            raise
        except (ValidationFailed, DesignFileError, OSError) as error:
            raise PackError(f"{shown(zip_path)}: the pack was not imported: "
                            f"{in_zip(str(error), staging, zip_path)}") from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return pack

    def _check_collisions(self, pack: Pack, entries: list[ScenarioEntry], replace: bool, source: Path) -> None:
        existing = self.packs.get(pack.info.id)
        if existing is not None and (existing.shipped or not replace):
            reason = "is shipped with Inferboard" if existing.shipped else "is already installed (replace it?)"
            raise PackError(f"{source}: pack '{pack.info.id}' field 'id': a pack with this id {reason}")
        for entry in entries:
            other = self.entries.get(entry.id)
            if other is not None and other.pack_id != pack.info.id:
                raise PackError(f"{source}: scenario '{entry.id}' field 'id': already used in pack "
                                f"'{other.pack_id}'")

    def remove_pack(self, pack_id: str) -> None:
        """Delete imported pack ``pack_id``; raises PackError for a shipped or unknown pack."""
        pack = self.packs.get(pack_id)
        if pack is None or pack.shipped:
            raise PackError(f"pack '{pack_id}' is not an imported pack")
        with folder_lock(self.user_packs):  # renamed out of sight first: a crash never leaves half a pack
            doomed = staging_folder(self.user_packs)
            pack.folder.rename(doomed / pack.folder.name)
            shutil.rmtree(doomed)
        self.load()
