"""The schema of rule files, rubric files and the topic list under ``rubrics/``."""

from __future__ import annotations

import string
from typing import Any, Literal

from pydantic import Field, PrivateAttr, field_validator

from inferboard.rules.conditions import Condition, uses_behaviour
from inferboard.rules.roles import PoolRole
from inferboard.schema_base import StrictModel

Severity = Literal["blocker", "major", "minor", "advice"]
SEVERITIES: tuple[str, ...] = ("blocker", "major", "minor", "advice")
RULE_ID = r"^[A-Z]+-[0-9]{3}$"
#: Placeholders a message template may use.
MESSAGE_FIELDS = {"nodes": "the offending node ids, or 'the design' when none",
                  "count": "how many nodes are flagged",
                  "details": "the measured facts behind the verdict, joined by '; '",
                  "peak": "the judged peak request rate ('6,000 req/s')",
                  "mean": "the judged mean request rate ('2,500 req/s')",
                  "pattern": "the traffic pattern ('spike')",
                  "slo": "the tightest latency SLO ('p99 50 ms')",
                  "availability": "the availability SLO ('99.99%')",
                  "downtime": "the downtime the availability SLO allows ('4 minutes a month')"}
#: What a requirement placeholder reads when the figure is not declared.
UNDECLARED = "an undeclared figure"
#: The explanation's sections, in the order they are shown, with their headings.
SECTIONS = {"checks": "What it checks", "why": "Why it matters in production", "trade_off": "The trade-off",
            "example": "Example", "fix": "How to fix"}

Text = Field(min_length=20, max_length=2000)


class Explanation(StrictModel):
    """The teaching text: the same in the GUI, ``inferboard explain`` and docs/rules.md."""

    checks: str = Text
    why: str = Text
    trade_off: str = Text
    example: str = Text
    fix: str = Text


class SizeSeverity(StrictModel):
    """Severity by the size of a measured miss (measured over target): up to ``minor_up_to`` the
    finding is minor, up to ``major_up_to`` major, beyond that the rule's own severity."""

    minor_up_to: float = Field(gt=1.0, le=10.0)
    major_up_to: float = Field(gt=1.0, le=10.0)

    @field_validator("major_up_to")
    @classmethod
    def _ordered(cls, value: float, info: Any) -> float:
        if value <= info.data.get("minor_up_to", 1.0):
            raise ValueError("major_up_to must be above minor_up_to")
        return value

    def severity_of(self, ratio: float, own: str) -> str:
        """The severity of a miss of ``ratio`` (measured / target) for a rule of severity ``own``."""
        if ratio <= self.minor_up_to:
            return "minor"
        return "major" if ratio <= self.major_up_to and own == "blocker" else own


#: The share of a rule's points a finding costs at each severity, when its size sets a severity below the
#: rule's own (a small miss of an 8-point blocker rule costs 8 x 0.3 / 1.0 points).
SEVERITY_SHARE = {"blocker": 1.0, "major": 0.6, "minor": 0.3, "advice": 0.1}


class Rule(StrictModel):
    """One check a demanding interviewer would make. ``when`` describes the fault: the rule fires
    (a finding) when it holds. ``applies_when`` decides whether its points count at all: for a
    capability rule (``implied_by`` set) it reads the requirements, for a quality rule it also
    requires the component judged to be drawn."""

    id: str = Field(pattern=RULE_ID)
    rubric: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    severity: Severity
    #: The pool roles this rule judges (docs/rules.md, "Pool roles"); pools of other roles are not
    #: selected by any of its conditions.
    roles: list[PoolRole] = Field(min_length=1)
    points: float = Field(ge=0, le=50)
    title: str = Field(min_length=5, max_length=90)
    message: str = Field(min_length=5, max_length=300)
    topics: list[str] = Field(min_length=1)
    explanation: Explanation
    #: Set on capability rules: what in the requirements makes the design need this capability. Such a
    #: rule applies whenever the requirements imply it and fires when the design lacks it, so its
    #: points are earned by showing the capability, never by leaving things out.
    implied_by: str | None = Field(default=None, min_length=10, max_length=200)
    applies_when: Condition | None = None
    when: Condition
    #: For rules on a measured figure: the finding's severity follows the size of the miss.
    size_severity: SizeSeverity | None = None
    _behaviour: bool = PrivateAttr(default=False)
    _scope: frozenset = PrivateAttr(default=frozenset())

    def model_post_init(self, context: Any) -> None:
        """Work out once whether the rule needs the simulator and which roles it is scoped to."""
        self._behaviour = uses_behaviour(self.when) or uses_behaviour(self.applies_when)
        self._scope = frozenset(self.roles)

    @field_validator("roles")
    @classmethod
    def _distinct_roles(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("a role is listed twice")
        return value

    @property
    def scope(self) -> frozenset[str]:
        """The pool roles this rule judges, as a set."""
        return self._scope

    @field_validator("message")
    @classmethod
    def _known_placeholders(cls, value: str) -> str:
        for _, name, spec, conversion in string.Formatter().parse(value):
            if name is None:
                continue
            if name not in MESSAGE_FIELDS or spec or conversion:
                raise ValueError(f"unknown placeholder {{{name}}}; use {', '.join('{' + f + '}' for f in MESSAGE_FIELDS)}")
        return value

    @property
    def guard(self) -> bool:
        """A blocker that is not a capability (a model that does not fit, data crossing a border):
        it costs its points when it fires and counts for nothing when it does not, since not
        breaking something earns no credit."""
        return self.severity == "blocker" and self.implied_by is None

    @property
    def behaviour(self) -> bool:
        """True when answering the rule needs the simulator."""
        return self._behaviour

    def finding_severity(self, ratio: float | None) -> tuple[str, float]:
        """The severity and the points lost of a finding whose measured miss is ``ratio`` (None: not
        measured, the rule's own severity and points)."""
        if self.size_severity is None or ratio is None:
            return self.severity, self.points
        severity = self.size_severity.severity_of(ratio, self.severity)
        return severity, self.points * SEVERITY_SHARE[severity] / SEVERITY_SHARE[self.severity]

    def render_message(self, nodes: tuple[str, ...], details: list[str], requirements: Any = None) -> str:
        """The rule's message with the nodes, count, details and requirement figures filled in."""
        values: dict[str, Any] = {"nodes": ", ".join(f"'{n}'" for n in nodes) if nodes else "the design",
                                  "count": len(nodes), "details": "; ".join(details) or "see the explanation",
                                  **requirement_figures(requirements)}
        return self.message.format_map(values)


def requirement_figures(requirements: Any) -> dict[str, str]:
    """The requirement placeholders of a message, in the scenario's own terms."""
    names = ("peak", "mean", "pattern", "slo", "availability", "downtime")
    if requirements is None:
        return {name: UNDECLARED for name in names}

    def rate(value: float | None) -> str:
        return UNDECLARED if value is None else f"{value:,.0f} req/s"

    slo = next((f"{label} {value:,.0f} ms" for label, value in (("p99", requirements.slo_p99_ms),
                                                                 ("p95", requirements.slo_p95_ms))
                if value is not None), UNDECLARED)
    availability = downtime = UNDECLARED
    if requirements.availability_slo is not None:
        availability = f"{requirements.availability_slo:g}%"
        minutes = requirements.error_budget() * 30 * 24 * 60
        downtime = f"{minutes / 60:,.0f} hours a month" if minutes >= 120 else f"{minutes:,.0f} minutes a month"
    return {"peak": rate(requirements.peak_rps), "mean": rate(requirements.mean_rps),
            "pattern": requirements.traffic_pattern, "slo": slo, "availability": availability, "downtime": downtime}


class Rubric(StrictModel):
    """``rubrics/<id>/rubric.yaml``: one area an interviewer scores."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    title: str = Field(min_length=3, max_length=80)
    prefix: str = Field(pattern=r"^[A-Z]+$")
    #: Position in listings and reports (lower first).
    order: int = Field(default=100, ge=0, le=1000)
    weight: float = Field(default=1.0, ge=0, le=100)
    description: str = Field(min_length=20, max_length=2000)


class Topic(StrictModel):
    """A topic rules belong to (for the rules page and the explanations)."""

    id: str = Field(pattern=r"^[a-z_]+\.[a-z_]+$")
    title: str = Field(min_length=3, max_length=120)


class TopicList(StrictModel):
    """``rubrics/topics.yaml``: the interview topics rules may claim to cover."""

    topics: list[Topic] = Field(min_length=1)
