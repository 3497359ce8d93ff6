"""The scenario schema: one interview question with its hidden facts, clarifying questions,
phases, rubrics, follow-ups and a reference design.

A scenario lives in a folder: ``scenario.yaml`` (validated here, unknown fields refused) and the
reference design ``reference.json`` beside it. Every error names the file, the scenario and the
field, e.g. ``.../scenario.yaml: scenario 'fraud-cpu' field 'questions.2.reveals': unknown fact 'x'``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError

from inferboard.catalog import default_catalog
from inferboard.errors import Problem, ValidationFailed
from inferboard.practice.injects import MAX_INJECTS, PlannedInject, check_injects
from inferboard.model.faults import DRIFT_SPEC
from inferboard.model.requirements import LOCATIONS, Requirements
from inferboard.safe_yaml import YamlFileError, load_yaml_file
from inferboard.schema_base import StrictModel, validation_problems
from inferboard.sim.design.faults import parse_fault

SCENARIO_FILE = "scenario.yaml"
SCHEMA_VERSION = 1
ID = r"^[a-z][a-z0-9-]{1,63}$"
PhaseName = Literal["clarify", "high_level", "deep_dive", "tradeoffs"]
#: The phases in interview order, with the titles the timer shows.
PHASE_TITLES: dict[str, str] = {"clarify": "Clarify requirements", "high_level": "High-level design",
                                "deep_dive": "Deep dive", "tradeoffs": "Trade-offs and failure scenario"}
Category = Literal["workload", "latency", "traffic", "budget", "compliance", "accuracy", "operations",
                   "reliability"]
Difficulty = Literal["easy", "medium", "hard"]
REQUIREMENT_FIELDS = frozenset(Requirements.model_fields)
#: Selector keys a follow-up fault target may use besides ``kind`` and ``location``: node params.
SELECTOR_KEY = re.compile(r"^[a-z][a-z0-9_]*$")
NODE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")


class HiddenFact(StrictModel):
    """Something the interviewer knows and says only when asked. ``sets`` names the requirement
    fields the fact pins down, so a revealed fact can fill in the requirements editor."""

    id: str = Field(pattern=ID)
    category: Category
    text: str = Field(min_length=10, max_length=600)
    sets: list[str] = Field(default_factory=list, max_length=10)


class Question(StrictModel):
    """A clarifying question on the candidate's panel. Asking it reveals ``reveals``. A key
    question earns requirement points (``points``) when asked early; see docs/scenarios.md."""

    id: str = Field(pattern=ID)
    text: str = Field(min_length=8, max_length=300)
    category: Category
    reveals: list[str] = Field(min_length=1, max_length=10)
    key: bool = False
    points: float = Field(default=1.0, ge=0, le=10)


class Phase(StrictModel):
    """One phase of a round: its name, length and the goal shown when it starts."""

    name: PhaseName
    minutes: float = Field(gt=0, le=120)
    #: Shown to the candidate when the phase starts.
    goal: str = Field(min_length=10, max_length=400)
    #: A gentle nudge shown when the phase is nearly over or overrun.
    nudge: str = Field(default="", max_length=400)

    @property
    def title(self) -> str:
        """The phase's name in words."""
        return PHASE_TITLES[self.name]


class FollowUp(StrictModel):
    """A mid-round twist: a requirement change, a fault, or both.

    ``faults`` use the simulator's syntax ``KIND[*MAGNITUDE]:TARGET`` (timing ignored), where
    TARGET is ``*``, a node id, or a selector ``key=value[,key=value]`` matched against the
    candidate's design: ``kind`` (component kind), ``location`` (the region's location; the
    value ``primary`` means the location with the most serving replicas) or any parameter name.
    """

    id: str = Field(pattern=ID)
    title: str = Field(min_length=5, max_length=90)
    #: What the interviewer says to the candidate.
    prompt: str = Field(min_length=20, max_length=1000)
    phase: PhaseName = "tradeoffs"
    faults: list[str] = Field(default_factory=list, max_length=8)
    requirement_changes: dict[str, Any] = Field(default_factory=dict)
    #: Interviewer only: what a strong answer covers.
    look_for: str = Field(min_length=20, max_length=1500)


class RubricWeight(StrictModel):
    """How much one rubric counts in the scenario's grade."""

    rubric: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    weight: float = Field(default=1.0, ge=0, le=100)


class Reference(StrictModel):
    """The scenario's reference design: its file, the notes on it and why it has each component kind."""

    file: str = Field(default="reference.json", pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,80}\.json$")
    notes: str = Field(min_length=20, max_length=6000)
    #: Why the reference has each component kind; shown beside "missing in your design".
    components: dict[str, str] = Field(default_factory=dict)


class Scenario(StrictModel):
    """A practice scenario: the prompt, hidden facts, questions, phases, rubric weights, follow-ups and reference."""

    schema_version: Literal[1] = SCHEMA_VERSION
    id: str = Field(pattern=ID)
    title: str = Field(min_length=5, max_length=90)
    difficulty: Difficulty
    summary: str = Field(min_length=10, max_length=300)
    tags: list[str] = Field(default_factory=list, max_length=12)
    prompt: str = Field(min_length=40, max_length=4000)
    #: The ground truth the facts describe; follow-ups and what-if runs start from it.
    requirements: Requirements
    facts: list[HiddenFact] = Field(min_length=1, max_length=60)
    questions: list[Question] = Field(min_length=1, max_length=40)
    phases: list[Phase] = Field(min_length=1, max_length=4)
    rubrics: list[RubricWeight] = Field(min_length=1, max_length=20)
    #: Weight of the clarifying-question score beside the rubric weights in the overall score.
    clarify_weight: float = Field(default=1.0, ge=0, le=100)
    #: The drift the scenario's world goes through (``--fault`` form, quality faults only): the
    #: drift rules judge the design's accuracy, alerts and retraining under it (default: theirs).
    drift: list[Annotated[str, Field(pattern=DRIFT_SPEC)]] = Field(default_factory=list, max_length=6)
    follow_ups: list[FollowUp] = Field(default_factory=list, max_length=20)
    #: Interviewer only: follow-ups the console plays by itself at the minutes given (editable there).
    injects: list[PlannedInject] = Field(default_factory=list, max_length=MAX_INJECTS)
    reference: Reference
    #: Interviewer only: how to run the round.
    interviewer_script: str = Field(default="", max_length=6000)

    # ------------------------------------------------------------------ lookups
    def fact(self, fact_id: str) -> HiddenFact:
        """Hidden fact ``fact_id``; raises KeyError naming the known ones."""
        for fact in self.facts:
            if fact.id == fact_id:
                return fact
        raise KeyError(f"scenario '{self.id}' has no fact '{fact_id}'")

    def question(self, question_id: str) -> Question:
        """Question ``question_id``; raises KeyError naming the known ones."""
        for question in self.questions:
            if question.id == question_id:
                return question
        raise KeyError(f"scenario '{self.id}' has no question '{question_id}'")

    def follow_up(self, follow_up_id: str) -> FollowUp:
        """Follow-up ``follow_up_id``; raises KeyError naming the known ones."""
        for follow_up in self.follow_ups:
            if follow_up.id == follow_up_id:
                return follow_up
        raise KeyError(f"scenario '{self.id}' has no follow-up '{follow_up_id}'")

    @property
    def total_minutes(self) -> float:
        """The length of all phases together."""
        return sum(p.minutes for p in self.phases)

    def rubric_names(self) -> list[str]:
        """The rubrics the scenario weighs, in order."""
        return [r.rubric for r in self.rubrics]

    def rubric_weights(self) -> dict[str, float]:
        """Each rubric's weight by name."""
        return {r.rubric: r.weight for r in self.rubrics}

    def requirements_after(self, *follow_ups: FollowUp) -> Requirements:
        """The requirements once the given follow-ups' changes are applied in order."""
        data = self.requirements.model_dump()
        for follow_up in follow_ups:
            data.update(follow_up.requirement_changes)
        return Requirements.model_validate(data)


class ScenarioError(ValidationFailed):
    """A scenario file cannot be used; ``problems`` name the scenario and the field."""


# ------------------------------------------------------------------------- fault targets
@dataclass(frozen=True)
class FaultSpec:
    """A follow-up fault, parsed: kind, magnitude and a target selector still to be resolved."""

    kind: str
    magnitude: float | None
    target: str
    selector: tuple[tuple[str, str], ...]  # empty for "*" or a node id

    @property
    def is_selector(self) -> bool:
        """Whether the fault picks its target by a selector rather than a node id."""
        return bool(self.selector)


def parse_fault_spec(text: str) -> FaultSpec:
    """Parse a follow-up fault string; raise ValueError naming what is wrong."""
    fault = parse_fault(text)
    target = fault.target
    selector: list[tuple[str, str]] = []
    if "=" in target:
        for part in target.split(","):
            key, eq, value = part.partition("=")
            key, value = key.strip(), value.strip()
            if not eq or not SELECTOR_KEY.match(key) or not value:
                raise ValueError(f"fault '{text}': target part '{part}' is not key=value")
            selector.append((key, value))
    elif target != "*" and not NODE_ID.match(target):
        raise ValueError(f"fault '{text}': target '{target}' is neither *, a node id nor key=value")
    return FaultSpec(fault.kind, fault.magnitude, target, tuple(selector))


def _check_selector(spec: FaultSpec, text: str) -> None:
    """Refuse a selector naming a component kind the catalog lacks or a location that does not exist."""
    for key, value in spec.selector:
        if key == "kind" and value not in default_catalog().kinds:
            raise ValueError(f"fault '{text}': unknown component kind '{value}' in the target")
        if key == "location" and value != "primary" and value not in LOCATIONS:
            raise ValueError(f"fault '{text}': unknown location '{value}' in the target "
                             f"(known: primary, {', '.join(LOCATIONS)})")


# ------------------------------------------------------------------------- cross checks
def _unique(items, what: str, field: str) -> list[Problem]:
    seen: set[str] = set()
    out = []
    for n, item in enumerate(items):
        if item.id in seen:
            out.append(Problem("", f"{field}.{n}.id", f"{what} id '{item.id}' is used twice"))
        seen.add(item.id)
    return out


def cross_check(scenario: Scenario) -> list[Problem]:
    """Checks that span fields: references between ids, fault syntax, requirement edits."""
    problems = _unique(scenario.facts, "fact", "facts") + _unique(scenario.questions, "question", "questions")
    problems += _unique(scenario.follow_ups, "follow-up", "follow_ups")
    fact_ids = {f.id for f in scenario.facts}
    for n, fact in enumerate(scenario.facts):
        for name in fact.sets:
            if name not in REQUIREMENT_FIELDS:
                problems.append(Problem("", f"facts.{n}.sets", f"'{name}' is not a requirements field"))
    revealed: set[str] = set()
    for n, question in enumerate(scenario.questions):
        for fact_id in question.reveals:
            if fact_id not in fact_ids:
                problems.append(Problem("", f"questions.{n}.reveals", f"unknown fact '{fact_id}'"))
            revealed.add(fact_id)
    for fact_id in sorted(fact_ids - revealed):
        problems.append(Problem("", "facts", f"fact '{fact_id}' is revealed by no question"))
    if not any(q.key and q.points > 0 for q in scenario.questions):
        problems.append(Problem("", "questions", "at least one question must be a key question with points"))
    names = [p.name for p in scenario.phases]
    order = list(PHASE_TITLES)
    if names[0] != "clarify":
        problems.append(Problem("", "phases.0.name", "the first phase must be 'clarify'"))
    if len(set(names)) != len(names) or names != sorted(names, key=order.index):
        problems.append(Problem("", "phases", f"phases must be distinct and in the order {', '.join(order)}"))
    seen_rubrics: set[str] = set()
    for n, weight in enumerate(scenario.rubrics):
        if weight.rubric in seen_rubrics:
            problems.append(Problem("", f"rubrics.{n}.rubric", f"rubric '{weight.rubric}' is listed twice"))
        seen_rubrics.add(weight.rubric)
    for n, follow_up in enumerate(scenario.follow_ups):
        problems += _check_follow_up(scenario, n, follow_up)
    problems += check_injects(scenario.injects, {f.id for f in scenario.follow_ups})
    return problems


def _check_follow_up(scenario: Scenario, n: int, follow_up: FollowUp) -> list[Problem]:
    where = f"follow_ups.{n}"
    problems = []
    if not follow_up.faults and not follow_up.requirement_changes:
        problems.append(Problem("", where, "a follow-up needs faults, requirement_changes or both"))
    for m, text in enumerate(follow_up.faults):
        try:
            _check_selector(parse_fault_spec(text), text)
        except ValueError as error:
            problems.append(Problem("", f"{where}.faults.{m}", str(error)))
    surges = [t for t in follow_up.faults if t.strip().startswith("traffic_surge")]
    rates = sorted({"mean_rps", "peak_rps"} & set(follow_up.requirement_changes))
    if surges and rates:
        problems.append(Problem("", f"{where}.requirement_changes.{rates[0]}",
                                "a traffic_surge fault and a new request rate would count the growth twice; "
                                "use one or the other"))
    for name in follow_up.requirement_changes:
        if name not in REQUIREMENT_FIELDS:
            problems.append(Problem("", f"{where}.requirement_changes.{name}", "not a requirements field"))
    if follow_up.requirement_changes and all(k in REQUIREMENT_FIELDS for k in follow_up.requirement_changes):
        try:
            scenario.requirements_after(follow_up)
        except ValidationError as error:
            for item in error.errors():
                loc = ".".join(str(p) for p in item.get("loc", ()))
                field = f"{where}.requirement_changes" + (f".{loc}" if loc else "")
                problems.append(Problem("", field, item.get("msg", "invalid")))
    return problems


# ------------------------------------------------------------------------------ loading
def scenario_from_data(raw: Any, source: str) -> Scenario:
    """Validate parsed YAML; raise ScenarioError naming the scenario and every bad field."""
    name = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else "?"
    item = f"scenario '{name[:64]}'"
    if not isinstance(raw, dict):
        raise ScenarioError(source, [Problem(item, "", "a scenario file must hold a YAML mapping")])
    try:
        scenario = Scenario.model_validate(raw)
    except ValidationError as error:
        problems = [Problem(item, field, message) for field, message in validation_problems(error)]
        raise ScenarioError(source, problems) from None
    problems = [Problem(item, p.field, p.message) for p in cross_check(scenario)]
    if problems:
        raise ScenarioError(source, problems)
    return scenario


def load_scenario(path: Path | str) -> Scenario:
    """Load ``scenario.yaml`` (or a folder holding one)."""
    path = Path(path)
    if path.is_dir():
        path = path / SCENARIO_FILE
    try:
        raw = load_yaml_file(path)
    except YamlFileError as error:
        raise ScenarioError(str(path), [Problem("", "", error.message)]) from None
    return scenario_from_data(raw, str(path))
