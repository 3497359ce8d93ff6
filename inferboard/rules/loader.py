"""Loading rubrics and rules from YAML, with errors that name the file, the rule and the field.

Layout::

    rubrics/topics.yaml                     the interview topics rules may cover
    rubrics/<rubric>/rubric.yaml            title, id prefix, weight, description
    rubrics/<rubric>/<RULE-ID>.yaml         one rule per file
    rubrics/<rubric>/examples/<RULE-ID>/    pass-*.json, fail-*.json, expected.yaml
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from pydantic import ValidationError

from inferboard.catalog import Catalog, default_catalog
from inferboard.errors import InferboardError
from inferboard.model.requirements import Requirements
from inferboard.rules import conditions as c
from inferboard.rules.context import DERIVED
from inferboard.rules.schema import Rubric, Rule, Topic, TopicList
from inferboard.safe_yaml import YamlFileError, load_yaml_file
from inferboard.schema_base import validation_problems

RUBRIC_FILE = "rubric.yaml"
TOPICS_FILE = "topics.yaml"


class RuleFileError(InferboardError):
    """A rubric or rule file is malformed. Names the file, the rule id and the field."""

    def __init__(self, file: Path | str, rule_id: str, field: str, message: str):
        self.file, self.rule_id, self.field, self.message = str(file), rule_id, field, message
        where = f"rule '{rule_id}'" + (f": field '{field}'" if field else "")
        super().__init__(f"{file}: {where}: {message}")


class UnknownRule(InferboardError, KeyError):
    """No rule has the id asked for; the message suggests close ones."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown rule"


@dataclass
class RuleSet:
    """Rules keyed by id (in rubric order, then id order), with their rubrics and topics."""

    rules: dict[str, Rule]
    rubrics: dict[str, Rubric]
    topics: dict[str, Topic]
    files: dict[str, Path] = field(default_factory=dict)
    folder: Path | None = None
    #: rule id -> rendered explanation, filled on first use.
    explanations: dict[str, str] = field(default_factory=dict, repr=False)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules.values())

    def __len__(self) -> int:
        return len(self.rules)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.rules

    def get(self, rule_id: str) -> Rule:
        """The rule called ``rule_id`` (case does not matter); raises UnknownRule."""
        rule = self.rules.get(rule_id) or self.rules.get(rule_id.strip().upper())
        if rule is None:
            close = difflib.get_close_matches(rule_id.upper(), list(self.rules), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else "; `inferboard rules` lists them"
            raise UnknownRule(f"unknown rule '{rule_id}'{hint}")
        return rule

    def of_rubric(self, rubric: str) -> list[Rule]:
        """The rules of ``rubric``."""
        return [r for r in self.rules.values() if r.rubric == rubric]

    def examples_dir(self, rule_id: str) -> Path:
        """The folder of ``rule_id``'s example designs."""
        rule = self.get(rule_id)
        return self.files[rule.id].parent / "examples" / rule.id


def _first_problem(error: ValidationError) -> tuple[str, str]:
    return validation_problems(error)[0]


def _read(path: Path, rule_id: str = "?") -> Any:
    try:
        return load_yaml_file(path)
    except YamlFileError as error:
        raise RuleFileError(path, rule_id, "", str(error).split(": ", 1)[-1]) from None


def _load_topics(folder: Path) -> dict[str, Topic]:
    path = folder / TOPICS_FILE
    raw = _read(path, "-")
    try:
        topics = TopicList.model_validate(raw).topics
    except ValidationError as error:
        loc, msg = _first_problem(error)
        raise RuleFileError(path, "-", loc, msg) from None
    return {t.id: t for t in topics}


def _load_rubric(path: Path) -> Rubric:
    raw = _read(path, "-")
    try:
        rubric = Rubric.model_validate(raw)
    except ValidationError as error:
        loc, msg = _first_problem(error)
        raise RuleFileError(path, "-", loc, msg) from None
    if rubric.id != path.parent.name:
        raise RuleFileError(path, "-", "id", f"must equal the folder name '{path.parent.name}'")
    return rubric


def _parse_rule(path: Path, rubric: Rubric, topics: dict[str, Topic], catalog: Catalog) -> Rule:
    raw = _read(path)
    if not isinstance(raw, dict):
        raise RuleFileError(path, "?", "", "a rule file must hold a mapping")
    rule_id = str(raw.get("id", "?"))
    data = dict(raw)
    for key in ("when", "applies_when"):
        if key in data and data[key] is not None:
            try:
                data[key] = c.parse_condition(data[key], key)
            except c.ConditionError as error:
                raise RuleFileError(path, rule_id, error.path, error.message) from None
    try:
        rule = Rule.model_validate(data)
    except ValidationError as error:
        loc, msg = _first_problem(error)
        raise RuleFileError(path, rule_id, loc, msg) from None
    if rule.id != path.stem:
        raise RuleFileError(path, rule_id, "id", f"must equal the file name '{path.stem}'")
    if rule.rubric != rubric.id:
        raise RuleFileError(path, rule_id, "rubric", f"must be '{rubric.id}', the folder it sits in")
    if not rule.id.startswith(rubric.prefix + "-"):
        raise RuleFileError(path, rule_id, "id", f"rules of rubric '{rubric.id}' are named {rubric.prefix}-NNN")
    for i, topic in enumerate(rule.topics):
        if topic not in topics:
            raise RuleFileError(path, rule_id, f"topics.{i}", f"unknown topic '{topic}' (see {TOPICS_FILE})")
    for key in ("applies_when", "when"):
        condition = data.get(key)
        if condition is not None:
            try:
                check_names(condition, key, catalog)
            except c.ConditionError as error:
                raise RuleFileError(path, rule_id, error.path, error.message) from None
    return rule


def load_rules(folder: Path | str, catalog: Catalog | None = None) -> RuleSet:
    """Load every rubric under ``folder``; raise RuleFileError on the first malformed file."""
    folder = Path(folder)
    catalog = catalog or default_catalog()
    if not folder.is_dir():
        raise RuleFileError(folder, "-", "", "the rubrics folder does not exist")
    topics = _load_topics(folder)
    rubrics: dict[str, Rubric] = {}
    rules: dict[str, Rule] = {}
    files: dict[str, Path] = {}
    prefixes: dict[str, str] = {}
    for rubric_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        rubric_file = rubric_dir / RUBRIC_FILE
        if not rubric_file.is_file():
            raise RuleFileError(rubric_dir, "-", "", f"a rubric folder needs a {RUBRIC_FILE}")
        rubric = _load_rubric(rubric_file)
        if rubric.prefix in prefixes:
            raise RuleFileError(rubric_file, "-", "prefix", f"'{rubric.prefix}' is already used by rubric "
                                                             f"'{prefixes[rubric.prefix]}'")
        prefixes[rubric.prefix] = rubric.id
        rubrics[rubric.id] = rubric
        for path in sorted(rubric_dir.glob("*.y*ml")):
            if path.name == RUBRIC_FILE:
                continue
            if path.suffix not in (".yaml", ".yml"):
                continue
            rule = _parse_rule(path, rubric, topics, catalog)
            if rule.id in rules:
                raise RuleFileError(path, rule.id, "id", f"duplicate rule id: also defined in {files[rule.id]}")
            rules[rule.id] = rule
            files[rule.id] = path
    if not rules:
        raise RuleFileError(folder, "-", "", "no rules found")
    rubrics = dict(sorted(rubrics.items(), key=lambda kv: (kv[1].order, kv[0])))
    position = {name: i for i, name in enumerate(rubrics)}
    ordered = dict(sorted(rules.items(), key=lambda kv: (position[kv[1].rubric], kv[0])))
    return RuleSet(ordered, rubrics, topics, files, folder)


# --------------------------------------------------------------- names checked against the catalog
REQUIREMENT_FIELDS = set(Requirements.model_fields)


def _check_kinds(kinds: tuple[str, ...], path: str, catalog: Catalog) -> None:
    for kind in kinds:
        if kind not in catalog.kinds:
            raise c.ConditionError(path, f"unknown component kind '{kind}'")


def _check_attr(name: str, kinds: tuple[str, ...], path: str, catalog: Catalog) -> None:
    for kind in kinds:
        if catalog.kinds[kind].param(name) is None and not (name in DERIVED and kind in DERIVED[name][0]):
            raise c.ConditionError(path, f"'{kind}' has no parameter or derived attribute '{name}'")


def _check_where(where: c.Where, kinds: tuple[str, ...], path: str, catalog: Catalog) -> None:
    for name, test in where.items():
        here = f"{path}.{name}"
        _check_attr(name, kinds, here, catalog)
        _check_operand(test, kinds, here, catalog)
        for kind in kinds:
            spec = catalog.kinds[kind].param(name)
            literal = test.operand if test.op in ("in", "not_in") else [test.operand]
            if spec is not None and spec.type == "choice":
                for value in literal:
                    if not isinstance(value, c.Ref) and value not in spec.choices:
                        raise c.ConditionError(here, f"'{value}' is not a choice of {kind}.{name} "
                                                     f"({', '.join(spec.choices)})")


def _check_operand(test: c.Comparison, kinds: tuple[str, ...], path: str, catalog: Catalog) -> None:
    operand = test.operand
    if not isinstance(operand, c.Ref):
        return
    for name in operand.requirement_names():
        if name not in REQUIREMENT_FIELDS:
            raise c.ConditionError(f"{path}.{test.op}.requirement", f"unknown requirement '{name}'")
    if operand.param is not None:
        if not kinds:
            raise c.ConditionError(f"{path}.{test.op}.param", "there is no node here to take a parameter from")
        _check_attr(operand.param, kinds, f"{path}.{test.op}.param", catalog)


def check_names(condition: Any, path: str, catalog: Catalog) -> None:
    """Check every kind, parameter and requirement a condition names; raise ConditionError."""
    if isinstance(condition, (c.AllOf, c.AnyOf)):
        for i, child in enumerate(condition.of):
            check_names(child, f"{path}.{condition.type}.{i}", catalog)
        return
    if isinstance(condition, c.NotOf):
        check_names(condition.of, f"{path}.not", catalog)
        return
    here = f"{path}.{condition.type}"
    if isinstance(condition, c.Selector):
        kinds = condition.kinds()
        _check_kinds(kinds, f"{here}.kind", catalog)
        _check_where(condition.where, kinds, f"{here}.where", catalog)
        _check_where(condition.region_where, ("region",), f"{here}.region_where", catalog)
        if isinstance(condition, c.Param):
            _check_where(condition.test, kinds, f"{here}.test", catalog)
        if isinstance(condition, c.Attached):
            _check_kinds(condition.to_kinds(), f"{here}.to", catalog)
            _check_where(condition.to_where, condition.to_kinds(), f"{here}.to_where", catalog)
    elif isinstance(condition, c.PathThrough):
        for name in ("source", "target", "through"):
            value = getattr(condition, name)
            _check_kinds((value,) if isinstance(value, str) else tuple(value), f"{here}.{name}", catalog)
        targets = (condition.target,) if isinstance(condition.target, str) else tuple(condition.target)
        _check_where(condition.target_where, targets, f"{here}.target_where", catalog)
    elif isinstance(condition, c.Requirement):
        for name in condition.names():
            if name not in REQUIREMENT_FIELDS:
                raise c.ConditionError(f"{here}.name", f"unknown requirement '{name}'")
        if condition.is_ is not None:
            _check_operand(condition.is_, (), f"{here}.is", catalog)
    elif isinstance(condition, (c.Headroom, c.Idle)):
        _check_kinds(tuple(condition.kind), f"{here}.kind", catalog)
