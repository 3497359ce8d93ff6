"""The closed vocabulary of rule conditions: ``all`` / ``any`` / ``not`` over typed leaf predicates.

In YAML every condition is a mapping with exactly one key, the combinator or leaf name::

    when:
      all:
        - kind_count: {kind: gpu_pool, min: 1}
        - not: {attached: {kind: gpu_pool, to: autoscaler, direction: upstream, signal: control}}

:func:`parse_condition` turns that shorthand into the typed models below (each leaf has a ``type``
literal), naming the exact YAML path of any fault. There is no eval: a leaf is data, and its
meaning lives in :mod:`inferboard.rules.leaves` or :mod:`inferboard.rules.behaviour`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, PrivateAttr, ValidationError, model_validator

from inferboard.catalog.roles import kind_group
from inferboard.schema_base import StrictModel, problem_message
from inferboard.model.faults import DRIFT_SPEC

Scalar = Union[bool, int, float, str]
Signal = Literal["requests", "control", "telemetry", "artifacts", "alerts", "triggers", "any"]
NameList = Annotated[list[str], Field(min_length=1)]
OPS = ("eq", "ne", "lt", "le", "gt", "ge", "in", "not_in")


class Ref(StrictModel):
    """A value taken from the design instead of written in the rule: a requirement (the first
    declared of the names given) or another parameter / derived attribute of the same node,
    multiplied by ``times``."""

    requirement: str | list[str] | None = None
    param: str | None = None
    times: float = 1.0

    @model_validator(mode="after")
    def _one_source(self) -> "Ref":
        if (self.requirement is None) == (self.param is None):
            raise ValueError("a reference names exactly one of 'requirement' or 'param'")
        return self

    def requirement_names(self) -> list[str]:
        """The requirement(s) the reference reads, as a list."""
        if self.requirement is None:
            return []
        return [self.requirement] if isinstance(self.requirement, str) else list(self.requirement)


Operand = Union[Ref, Scalar, list[Scalar]]


class Comparison(StrictModel):
    """Exactly one operator and its operand, e.g. ``{gt: 0.5}`` or ``{in: [mig, time_slicing]}``."""

    model_config = StrictModel.model_config | {"populate_by_name": True}

    eq: Operand | None = None
    ne: Operand | None = None
    lt: Operand | None = None
    le: Operand | None = None
    gt: Operand | None = None
    ge: Operand | None = None
    in_: list[Scalar] | None = Field(default=None, alias="in")
    not_in: list[Scalar] | None = None
    _op: str = PrivateAttr(default="")

    @model_validator(mode="before")
    @classmethod
    def _bare_value_means_eq(cls, raw: Any) -> Any:
        return raw if isinstance(raw, dict) else {"eq": raw}

    @model_validator(mode="after")
    def _one_operator(self) -> "Comparison":
        set_ops = [op for op in OPS if getattr(self, "in_" if op == "in" else op) is not None]
        if len(set_ops) != 1:
            raise ValueError(f"a comparison has exactly one operator of {', '.join(OPS)}")
        for op in ("lt", "le", "gt", "ge"):
            value = getattr(self, op)
            if value is not None and not isinstance(value, Ref) and (
                    isinstance(value, bool) or not isinstance(value, (int, float))):
                raise ValueError(f"'{op}' compares numbers, not {value!r}")
        self._op = set_ops[0]
        return self

    @property
    def op(self) -> str:
        """The comparison written in the rule ("lt", "ge", "in", ...)."""
        return self._op

    @property
    def operand(self) -> Any:
        """The value the comparison is against."""
        return getattr(self, "in_" if self._op == "in" else self._op)


Where = dict[str, Comparison]


class Selector(StrictModel):
    """Which nodes a leaf talks about: kinds, optionally narrowed by parameter tests on the node
    (``where``) and on the region it sits in (``region_where``)."""

    kind: str | NameList
    where: Where = {}
    region_where: Where = {}

    def kinds(self) -> tuple[str, ...]:
        """The kinds the selector picks, as a tuple."""
        return (self.kind,) if isinstance(self.kind, str) else tuple(self.kind)


# ------------------------------------------------------------------------------ structural leaves
class KindCount(Selector):
    """Holds when the number of selected nodes is within ``min``..``max``. ``min`` defaults to 1
    ("exists"), or to 0 when only ``max`` is given (``max: 0`` = "there is none")."""

    type: Literal["kind_count"] = "kind_count"
    min: int | None = Field(default=None, ge=0)
    max: int | None = Field(default=None, ge=0)

    @property
    def lower(self) -> int:
        """The fewest nodes allowed (1 when the rule gives no bounds)."""
        return self.min if self.min is not None else (1 if self.max is None else 0)


class Param(Selector):
    """Holds when at least one selected node passes every test in ``test``."""

    type: Literal["param"] = "param"
    test: Annotated[Where, Field(min_length=1)]


class Attached(Selector):
    """Holds when EVERY selected node is linked to a partner of kind ``to`` (``attached``), or when
    at least one is (``linked``)."""

    type: Literal["attached", "linked"] = "attached"
    to: str | NameList
    to_where: Where = {}
    direction: Literal["upstream", "downstream", "adjacent"] = "downstream"
    signal: Signal = "requests"
    #: direct = one edge; path = any chain of edges of that signal.
    reach: Literal["direct", "path"] = "direct"

    def to_kinds(self) -> tuple[str, ...]:
        """The kinds a node must be attached to, as a tuple."""
        return (self.to,) if isinstance(self.to, str) else tuple(self.to)


class PathThrough(StrictModel):
    """Holds when every request path from a ``source`` node to a ``target`` node passes through a
    node of a ``through`` kind."""

    type: Literal["path_through"] = "path_through"
    source: str | NameList = "traffic_source"
    target: str | NameList
    target_where: Where = {}
    through: str | NameList


class ServingRegions(StrictModel):
    """Holds when at least ``min`` regions hold serving capacity (a pool that can run replicas)."""

    type: Literal["serving_regions"] = "serving_regions"
    min: int = Field(default=2, ge=1)
    role: Literal["any", "active"] = "any"


class ArtifactsDelivered(StrictModel):
    """Holds when every serving pool pulls model artifacts from a registry in its own region or
    from a registry that replicates to regions."""

    type: Literal["artifacts_delivered"] = "artifacts_delivered"


class RegionsAllowed(StrictModel):
    """Holds when every region's location is in the requirements' ``allowed_regions`` (vacuously
    true when none are declared)."""

    type: Literal["regions_allowed"] = "regions_allowed"


class ResidencyRespected(StrictModel):
    """Holds when no traffic source's requests reach a region whose residency is another
    jurisdiction than the callers' (residency ``none`` takes anyone's data)."""

    type: Literal["residency_respected"] = "residency_respected"


class Requirement(StrictModel):
    """Holds when one of the named requirements is declared, and, with ``is``, when the first
    declared one passes that comparison."""

    model_config = StrictModel.model_config | {"populate_by_name": True}

    type: Literal["requirement"] = "requirement"
    name: str | NameList
    is_: Comparison | None = Field(default=None, alias="is")

    def names(self) -> list[str]:
        """The requirement(s) that must be declared, as a list."""
        return [self.name] if isinstance(self.name, str) else list(self.name)


# ------------------------------------------------------------------------------- behaviour leaves
Load = Literal["peak", "mean"]
REPLICA_POOL_KINDS = kind_group("replica_pool")


class LatencyWithinSlo(StrictModel):
    """Simulated p95 and p99 at ``load`` are within the declared SLOs, and so is every LLM pool's
    time to first token at its 95th percentile (``slo_ttft_ms``)."""

    type: Literal["latency_within_slo"] = "latency_within_slo"
    load: Load = "peak"


class Headroom(StrictModel):
    """Every node of ``kind`` keeps at least ``min_pct`` % spare capacity at peak."""

    type: Literal["headroom"] = "headroom"
    min_pct: float = Field(default=20.0, gt=0, lt=100)
    kind: NameList = Field(default_factory=lambda: list(REPLICA_POOL_KINDS))


class Idle(StrictModel):
    """At least one node of ``kind`` runs below ``max_utilisation`` at ``load``."""

    type: Literal["idle"] = "idle"
    max_utilisation: float = Field(default=0.25, gt=0, lt=1)
    load: Load = "mean"
    kind: NameList = Field(default_factory=lambda: list(REPLICA_POOL_KINDS))
    #: Leave out pools fed only through a canary router's canary port: they are small on purpose.
    skip_canary: bool = True


class WithinBudget(StrictModel):
    """Simulated cost per 1k requests and per hour at ``load`` are within the declared budgets."""

    type: Literal["within_budget"] = "within_budget"
    load: Load = "mean"


class SurvivesRegionLoss(StrictModel):
    """With the region of largest serving capacity down, the rest still serves ``min_served_pct``
    % of peak at full quality (fallback answers do not count) with no surviving pool busier than
    ``max_survivor_utilisation``."""

    type: Literal["survives_region_loss"] = "survives_region_loss"
    min_served_pct: float = Field(default=99.0, gt=0, le=100)
    max_survivor_utilisation: float = Field(default=0.9, gt=0, le=1)


class SurvivesSpotReclaim(StrictModel):
    """With every spot replica reclaimed, the design still serves ``min_served_pct`` % of peak."""

    type: Literal["survives_spot_reclaim"] = "survives_spot_reclaim"
    min_served_pct: float = Field(default=95.0, gt=0, le=100)


class FallbackCarries(StrictModel):
    """What-if: with every GPU pool's replicas gone (``gpu_shortage`` at 0 on ``*``) at ``load``, every
    fallback pool that takes traffic over stays unsaturated and at most ``max_utilisation`` busy."""

    type: Literal["fallback_carries"] = "fallback_carries"
    load: Load = "peak"
    max_utilisation: float = Field(default=0.9, gt=0, le=1)




class UnderDrift(StrictModel):
    """A timeline of ``hours`` of the design with the quality faults of ``drift`` (``--fault`` form)."""

    drift: list[Annotated[str, Field(pattern=DRIFT_SPEC)]] = Field(default=["input_drift*0.3:*@2h+46h"],
                                                                     min_length=1)
    hours: float = Field(default=48.0, gt=0, le=168)


class AccuracyUnderDrift(UnderDrift):
    """Under ``drift`` the accuracy seen on labels is below the declared target for at most
    ``max_hours_below`` hours of the run."""

    type: Literal["accuracy_under_drift"] = "accuracy_under_drift"
    max_hours_below: float = Field(default=24.0, ge=0)


class DriftAlertHeard(UnderDrift):
    """Under ``drift`` every drift detector that fires reaches a person (its alerts wired to alerting)."""

    type: Literal["drift_alert_heard"] = "drift_alert_heard"


class RetrainThroughCanary(UnderDrift):
    """Under ``drift`` every retrained version serves a canary before it takes all traffic."""

    type: Literal["retrain_through_canary"] = "retrain_through_canary"


# ---------------------------------------------------------------------------------- combinators
class AllOf(StrictModel):
    """True when every condition in ``of`` holds."""

    type: Literal["all"] = "all"
    of: list["Condition"] = Field(min_length=1)


class AnyOf(StrictModel):
    """True when at least one condition in ``of`` holds."""

    type: Literal["any"] = "any"
    of: list["Condition"] = Field(min_length=1)


class NotOf(StrictModel):
    """True when the condition in ``of`` does not hold."""

    type: Literal["not"] = "not"
    of: "Condition"


LEAVES: dict[str, type[StrictModel]] = {
    "kind_count": KindCount, "param": Param, "attached": Attached, "linked": Attached,
    "path_through": PathThrough, "serving_regions": ServingRegions,
    "artifacts_delivered": ArtifactsDelivered, "regions_allowed": RegionsAllowed,
    "residency_respected": ResidencyRespected, "requirement": Requirement,
    "latency_within_slo": LatencyWithinSlo, "headroom": Headroom, "idle": Idle,
    "within_budget": WithinBudget, "survives_region_loss": SurvivesRegionLoss,
    "survives_spot_reclaim": SurvivesSpotReclaim, "fallback_carries": FallbackCarries,
    "accuracy_under_drift": AccuracyUnderDrift, "drift_alert_heard": DriftAlertHeard,
    "retrain_through_canary": RetrainThroughCanary,
}
BEHAVIOUR_LEAVES = frozenset({"latency_within_slo", "headroom", "idle", "within_budget",
                              "survives_region_loss", "survives_spot_reclaim", "fallback_carries",
                              "accuracy_under_drift", "drift_alert_heard", "retrain_through_canary"})
COMBINATORS = ("all", "any", "not")

Condition = Annotated[
    Union[AllOf, AnyOf, NotOf, KindCount, Param, Attached, PathThrough, ServingRegions, ArtifactsDelivered,
          RegionsAllowed, ResidencyRespected, Requirement, LatencyWithinSlo, Headroom, Idle, WithinBudget,
          SurvivesRegionLoss, SurvivesSpotReclaim, FallbackCarries, AccuracyUnderDrift, DriftAlertHeard,
          RetrainThroughCanary],
    Field(discriminator="type"),
]
for _model in (AllOf, AnyOf, NotOf):
    _model.model_rebuild()


class ConditionError(ValueError):
    """A condition is malformed; ``path`` is the dotted YAML path of the fault."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def parse_condition(raw: Any, path: str) -> Any:
    """Turn the one-key YAML shorthand into typed condition models, or raise ConditionError."""
    if not isinstance(raw, dict) or len(raw) != 1:
        raise ConditionError(path, "a condition is a mapping with exactly one key: all, any, not or a leaf "
                                   f"({', '.join(sorted(LEAVES))})")
    (name, body), = raw.items()
    here = f"{path}.{name}"
    if name in ("all", "any"):
        if not isinstance(body, list) or not body:
            raise ConditionError(here, f"'{name}' takes a non-empty list of conditions")
        children = [parse_condition(item, f"{here}.{i}") for i, item in enumerate(body)]
        return (AllOf if name == "all" else AnyOf)(of=children)
    if name == "not":
        return NotOf(of=parse_condition(body, here))
    model = LEAVES.get(name)
    if model is None:
        raise ConditionError(here, f"unknown condition '{name}'; known: {', '.join([*COMBINATORS, *sorted(LEAVES)])}")
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise ConditionError(here, f"'{name}' takes a mapping of its fields")
    if "type" in body:
        raise ConditionError(f"{here}.type", "unknown field (the key above already names the leaf)")
    try:
        return model.model_validate({**body, "type": name})
    except ValidationError as error:
        first = error.errors()[0]
        loc = ".".join(str(p) for p in first.get("loc", ()) if p not in ("function-after[_one_operator()]",))
        raise ConditionError(f"{here}.{loc}" if loc else here, problem_message(first)) from None


def walk(condition: Any):
    """Yield every node of a condition tree, depth first."""
    yield condition
    if isinstance(condition, (AllOf, AnyOf)):
        for child in condition.of:
            yield from walk(child)
    elif isinstance(condition, NotOf):
        yield from walk(condition.of)


def uses_behaviour(condition: Any) -> bool:
    """Whether a condition needs the simulator (has a behaviour leaf anywhere in it)."""
    return condition is not None and any(getattr(c, "type", "") in BEHAVIOUR_LEAVES for c in walk(condition))


def to_yaml_form(condition: Any) -> Any:
    """The one-key shorthand of a typed condition (for docs)."""
    if isinstance(condition, (AllOf, AnyOf)):
        return {condition.type: [to_yaml_form(c) for c in condition.of]}
    if isinstance(condition, NotOf):
        return {"not": to_yaml_form(condition.of)}
    body = condition.model_dump(mode="json", by_alias=True, exclude_defaults=True, exclude={"type"})
    return {condition.type: body}
