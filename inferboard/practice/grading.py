"""Grading a design against a scenario: rubric scores from the rule engine, the clarifying-question
score, every lost point traced to its cause, and the reference-versus-yours component diff.

How a design is judged:
- The *Requirements* rubric reads the requirements the candidate wrote down (did they pin the
  SLOs, the peak, the budget?). Every other rubric judges the design against the scenario's real
  requirements (the hidden facts), whatever the candidate typed, so a lax SLO earns nothing.
- The clarifying-question score (``clarify_score``) counts as one more rubric, ``clarifying``,
  with the scenario's ``clarify_weight``.
- Overall = the weighted mean of the rubric percentages, rubrics with nothing applicable left
  out, less a penalty per major or minor finding and capped when a blocker fired (the rule
  engine's ``overall_of``); the grade letter follows the rule engine's bands and is
  capped at D when a blocker fired, as everywhere else. The design part of it is computed by
  :func:`score_design`, the same call the findings dock and ``inferboard check`` make.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Sequence

from inferboard.model.design import Design
from inferboard.practice.scenario import Question, Scenario
from inferboard.rules import check_design
from inferboard.rules import grade_of
from inferboard.rules import overall_of

CLARIFY_RUBRIC = "clarifying"
REQUIREMENTS_RUBRIC = "requirements"
#: Credit for a key question by the phase it was asked in (see docs/scenarios.md).
PHASE_CREDIT = {"clarify": 1.0, "high_level": 0.5, "deep_dive": 0.25, "tradeoffs": 0.25, "overtime": 0.25}
#: Credit cap for a key question asked after building started (a serving component was drawn).
AFTER_BUILDING_CAP = 0.5


@dataclass(frozen=True)
class AskedQuestion:
    """A question asked in a round: when, in which phase, and whether building had started."""

    question_id: str
    t_s: float
    phase: str
    #: True when the design already held a serving component when the question was asked.
    after_building: bool = False


def question_credit(phase: str, after_building: bool) -> float:
    """The share of a key question's points earned when asked in ``phase``."""
    credit = PHASE_CREDIT.get(phase, PHASE_CREDIT["overtime"])
    return min(credit, AFTER_BUILDING_CAP) if after_building else credit


@dataclass
class QuestionCredit:
    """What one key question earned: its points times the credit for when it was asked."""

    question_id: str
    text: str
    category: str
    points: float
    credit: float  # 0..1
    asked_phase: str | None  # None: never asked

    @property
    def earned(self) -> float:
        """The points earned."""
        return self.points * self.credit


@dataclass
class ClarifyScore:
    """The clarifying-questions rubric: percent of the possible points, and each key question's credit."""

    percent: float
    earned: float
    possible: float
    questions: list[QuestionCredit]


def clarify_score(scenario: Scenario, asked: Iterable[AskedQuestion]) -> ClarifyScore:
    """Score the key questions: each earns ``points × credit`` for its first asking (the best one,
    if asked twice); a key question never asked earns nothing. Other questions reveal facts but
    carry no points. percent = 100 × earned / possible."""
    first: dict[str, AskedQuestion] = {}
    for item in asked:
        best = first.get(item.question_id)
        if best is None or question_credit(item.phase, item.after_building) > question_credit(best.phase,
                                                                                              best.after_building):
            first[item.question_id] = item
    lines = []
    for question in scenario.questions:
        if not question.key or question.points <= 0:
            continue
        hit = first.get(question.id)
        credit = question_credit(hit.phase, hit.after_building) if hit else 0.0
        lines.append(QuestionCredit(question.id, question.text, question.category, question.points, credit,
                                    hit.phase if hit else None))
    possible = sum(line.points for line in lines)
    earned = sum(line.earned for line in lines)
    return ClarifyScore(100.0 * earned / possible if possible else 100.0, earned, possible, lines)


def building_started(design: Design | None) -> bool:
    """Whether the design holds anything beyond regions and traffic entries (the candidate has started to build)."""
    if design is None:
        return False
    not_building = design.catalog.kinds_with_role("region", "traffic_entry")  # placing, not building
    return any(n.kind not in not_building for n in design.nodes.values())


# ------------------------------------------------------------------------------ results
@dataclass
class RubricLine:
    """One rubric's line in a grade: title, percent and weight."""

    rubric: str
    title: str
    percent: float | None
    weight: float
    earned: float
    applicable: float


@dataclass
class LostPoint:
    """One cause of lost points: a fired rule (with its explanation) or a clarifying question."""

    rubric: str
    source: str  # a rule id, or "question:<id>"
    points: float
    title: str
    message: str
    explanation: str = ""
    node_ids: tuple[str, ...] = ()


@dataclass
class ComponentDiff:
    """Component kinds of the reference design against the candidate's, counted by kind."""

    missing: dict[str, int]  # kind -> how many more the reference has (absent kinds first)
    extra: dict[str, int]
    shared: list[str]
    notes: dict[str, str] = field(default_factory=dict)  # kind -> why the reference has it

    @property
    def absent_kinds(self) -> list[str]:
        """The kinds the reference has and the design lacks entirely."""
        return [k for k in self.missing if k not in self.shared]


@dataclass
class Grade:
    """A round's grade: the rubric lines, the points lost, the overall score and letter, and the comparison with the
    reference."""

    rubrics: list[RubricLine]
    lost: list[LostPoint]
    overall: float
    grade: str
    clarify: ClarifyScore | None
    diff: ComponentDiff
    skipped: list[tuple[str, str]] = field(default_factory=list)
    findings: list[Any] = field(default_factory=list)
    #: The design's own score (every rubric but the clarifying questions): the figure the findings
    #: dock and ``inferboard check --scenario`` show for the same design.
    design_overall: float = 0.0

    def percent_of(self, rubric: str) -> float | None:
        """The percent of ``rubric``, or None when it is not in the grade."""
        for line in self.rubrics:
            if line.rubric == rubric:
                return line.percent
        return None

    def to_dict(self) -> dict[str, Any]:
        """The grade as plain data (for the history and the reports)."""
        return {"overall": round(self.overall, 2), "grade": self.grade, "design_overall": round(self.design_overall, 2),
                "rubrics": [asdict(r) for r in self.rubrics], "lost": [asdict(p) for p in self.lost],
                "clarify": asdict(self.clarify) if self.clarify else None, "diff": asdict(self.diff),
                "skipped": [list(s) for s in self.skipped]}


def component_diff(scenario: Scenario, reference: Design, design: Design) -> ComponentDiff:
    """The component kinds the design has fewer of than the scenario's reference, with the reference's reasons."""
    ref = Counter(n.kind for n in reference.nodes.values())
    mine = Counter(n.kind for n in design.nodes.values())
    missing = {k: ref[k] - mine[k] for k in ref if ref[k] > mine[k]}
    missing = dict(sorted(missing.items(), key=lambda kv: (kv[0] in mine, kv[0])))
    extra = {k: mine[k] - ref[k] for k in sorted(mine) if mine[k] > ref[k]}
    shared = sorted(k for k in ref if k in mine)
    notes = {k: scenario.reference.components[k] for k in missing if k in scenario.reference.components}
    return ComponentDiff(missing, extra, shared, notes)


def score_design(design: Design, scenario: Scenario | None = None, behaviour: bool = True):
    """The one scoring calculation behind every surface that shows a design's score: the findings
    dock, the practice result, the interviewer's live checklist, ``inferboard check`` and
    ``inferboard grade``. Outside a scenario it is the plain rule check; in one, the scenario's
    rubrics and weights, the requirements rubric on what the design declares and every other
    rubric on the scenario's real requirements. Returns the rule engine's CheckReport."""
    if scenario is None:
        return check_design(design, behaviour=behaviour)
    return check_design(design, rubrics=scenario.rubric_names(), weights=scenario.rubric_weights(),
                        behaviour=behaviour, judged_requirements=scenario.requirements, drift=scenario.drift)


def grade_design(scenario: Scenario, design: Design, reference: Design | None = None,
                 asked: Iterable[AskedQuestion] | None = None, behaviour: bool = True) -> Grade:
    """Grade ``design`` for ``scenario``. ``asked`` None leaves the clarifying score out (a file
    graded on the command line); an empty list scores it 0."""
    report = score_design(design, scenario, behaviour)
    skipped: list[tuple[str, str]] = list(report.skipped)
    findings = list(report.findings)
    lines = [RubricLine(name, score.title, score.percent, score.weight, score.earned, score.applicable)
             for name, score in report.scores.items()]
    lost = [LostPoint(f.rubric, f.rule_id, f.points, f.title, f.message, f.explanation, tuple(f.node_ids))
            for f in report.findings]
    order = {name: n for n, name in enumerate(scenario.rubric_names())}
    lines.sort(key=lambda line: order.get(line.rubric, 99))
    clarify = None
    if asked is not None:
        clarify = clarify_score(scenario, asked)
        lines.insert(0, RubricLine(CLARIFY_RUBRIC, "Clarifying questions", clarify.percent, scenario.clarify_weight,
                                   clarify.earned, clarify.possible))
        lost = [*_question_losses(scenario, clarify), *lost]
    overall = weighted_overall(lines, [f.severity for f in report.findings if report.scores[f.rubric].weight > 0])
    diff = component_diff(scenario, reference, design) if reference is not None else ComponentDiff({}, {}, [])
    return Grade(lines, lost, overall, grade_of(overall, bool(report.blockers)), clarify, diff, skipped, findings,
                 report.overall)


def weighted_overall(lines: Iterable[RubricLine], severities: Iterable[str] = ()) -> float:
    """The overall of rubric lines: the rule engine's own weighted mean (not-assessed lines left out),
    with its severity penalties and blocker cap for the findings' ``severities``."""
    return overall_of(((line.percent if line.applicable > 0 else None, line.weight) for line in lines), severities)


def _question_losses(scenario: Scenario, clarify: ClarifyScore) -> list[LostPoint]:
    out = []
    for line in clarify.questions:
        missed = line.points - line.earned
        if missed <= 1e-9:
            continue
        question: Question = scenario.question(line.question_id)
        facts = "; ".join(scenario.fact(f).text for f in question.reveals)
        if line.asked_phase is None:
            message = f"Never asked: \u201c{line.text}\u201d"
        else:
            message = (f"Asked late (during {line.asked_phase.replace('_', ' ')}, "
                       f"{100 * line.credit:.0f}% credit): \u201c{line.text}\u201d")
        explanation = (f"This {line.category} question shapes the design, so a strong candidate asks it before "
                       f"drawing. It would have revealed: {facts}")
        out.append(LostPoint(CLARIFY_RUBRIC, f"question:{line.question_id}", round(missed, 4),
                             "Key clarifying question", message, explanation))
    return out
