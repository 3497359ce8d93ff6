"""``inferboard scenario check FILE``: a hand-written scenario validated as the library would load
it (schema, cross references, rubric names, the reference design), every error naming the file,
the scenario and the field; then its reference design graded as a learner's would be.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inferboard.errors import ValidationFailed
from inferboard.practice.grading import Grade, grade_design
from inferboard.practice.library import known_rubrics
from inferboard.practice.scenario import SCENARIO_FILE, Scenario, load_scenario
from inferboard.practice.whatif import run_follow_ups
from inferboard.store.design_files import MAX_FILE_BYTES, DesignFileError, parse_design
from inferboard.workshop.submissions import read_regular_file

#: A reference design is what the room is compared with: below this it is worth a second look.
REFERENCE_FLOOR = 80.0


@dataclass
class ScenarioCheck:
    """A scenario file checked: the scenario, its problems and warnings, and how its reference design scores."""

    path: Path
    scenario: Scenario | None = None
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    grade: Grade | None = None
    #: (follow-up id, title, held, verdict) on the reference design
    follow_ups: list[tuple[str, str, bool, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the scenario has no problems."""
        return not self.problems

    def summary(self) -> str:
        """A few lines saying the scenario is valid and how its reference design scores."""
        assert self.scenario is not None and self.grade is not None
        g = self.grade
        lines = [f"{self.path}: scenario '{self.scenario.id}' is valid; its reference design scores "
                 f"{g.overall:.1f} ({g.grade})"]
        for line in g.rubrics:
            shown = "n/a" if line.percent is None else f"{line.percent:5.1f}%"
            lines.append(f"  {line.title:<32} {shown}  (weight {line.weight:g})")
        for lost in g.lost:
            lines.append(f"  -{lost.points:g} {lost.source}: {lost.message}")
        for follow_id, title, held, verdict in self.follow_ups:
            lines.append(f"  follow-up {follow_id} ({title}): {verdict}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The check as plain data for ``--json``."""
        return {"file": str(self.path), "ok": self.ok, "scenario": self.scenario.id if self.scenario else None,
                "problems": self.problems, "warnings": self.warnings,
                "reference": self.grade.to_dict() if self.grade else None,
                "follow_ups": [{"id": i, "title": t, "held": h, "verdict": v} for i, t, h, v in self.follow_ups]}


def check_scenario_file(path: Path, behaviour: bool = True) -> ScenarioCheck:
    """Validate the scenario at ``path`` and grade its reference design (with the simulator unless ``behaviour`` is
    off)."""
    path = Path(path)
    if path.is_dir():
        path = path / SCENARIO_FILE
    report = ScenarioCheck(path)
    try:
        scenario = load_scenario(path)
    except ValidationFailed as error:
        report.problems = str(error).splitlines()
        return report
    report.scenario = scenario
    item = f"scenario '{scenario.id}'"
    rubrics = known_rubrics()
    if rubrics is not None:
        for n, weight in enumerate(scenario.rubrics):
            if weight.rubric not in rubrics:
                report.problems.append(f"{path}: {item} field 'rubrics.{n}.rubric': unknown rubric "
                                       f"'{weight.rubric}'; known: {', '.join(sorted(rubrics))}")
    if path.parent.name != scenario.id:
        report.warnings.append(f"{path}: {item} field 'id': a pack needs the folder to be named '{scenario.id}' "
                               f"(it is '{path.parent.name}')")
    reference_path = path.parent / scenario.reference.file
    try:
        data = read_regular_file(reference_path, MAX_FILE_BYTES)
        reference = parse_design(data, str(reference_path))
    except (OSError, ValueError) as error:
        text = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        report.problems.append(f"{path}: {item} field 'reference.file': cannot read {scenario.reference.file}: {text}")
        return report
    except DesignFileError as error:
        report.problems.append(f"{path}: {item} field 'reference.file': {scenario.reference.file} is not a valid "
                               f"design: {error}")
        return report
    if report.problems:
        return report
    report.grade = grade_design(scenario, reference, reference, behaviour=behaviour)
    if behaviour and scenario.follow_ups:
        report.follow_ups = [(w.follow_up_id, w.title, w.held, w.verdict) for w in run_follow_ups(scenario, reference)]
    if report.grade.overall < REFERENCE_FLOOR:
        report.warnings.append(f"{path}: {item} field 'reference.file': the reference design scores only "
                               f"{report.grade.overall:.1f}; learners are compared with it, so fix what it loses "
                               "points on")
    return report
