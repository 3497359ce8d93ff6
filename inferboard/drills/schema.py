"""The drill schema: one planted cause of an incident, as data (``assets/drills/*.yaml``).

A drill file holds one drill. Targets name a design's nodes by role, filled in from the design the
drill runs on (:func:`inferboard.drills.targets.resolve`): ``{pool}`` (the busiest stable model
pool), ``{canary}`` (a canary router), ``{canary_pool}``, ``{batcher}``, ``{cache}``,
``{features}`` (a preprocessing service), ``{region}`` (the busiest region), ``{other_region}``,
``{fallback_router}`` (a router with a fallback model below it), ``{gateway}``, ``{global_lb}``,
``{source}`` (the traffic source nearest ``{region}``), ``{other_source}`` (one from elsewhere),
or a literal node id. Times are minutes from the drill's start; recent changes may be negative (before it).

Errors name the file, the drill and the field, e.g.
``.../slow-canary.yaml: drill 'slow-canary' field 'mitigations.0.action': unknown field``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from inferboard.errors import Problem, ValidationFailed
from inferboard.model.faults import FAULT_KINDS
from inferboard.safe_yaml import YamlFileError, load_yaml_file
from inferboard.schema_base import StrictModel, validation_problems

ID = r"^[a-z][a-z0-9-]{1,63}$"
TARGET = r"^(\{[a-z_]+\}|[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}|\*|)$"
ChangeKind = Literal["deploy", "config", "model", "data_pipeline", "infra", "traffic"]
#: What a user can do to mitigate, and what each needs: the engine maps these to simulator actions.
MITIGATIONS: dict[str, str] = {
    "rollback_canary": "send the canary nothing (target: canary router); its pools go back to the stable version",
    "scale_out": "multiply a pool's replicas by value (default 2), raising its autoscaler's maximum to match",
    "fail_over": "move a region's traffic to the other regions (target: region)",
    "restore_region": "let a region take traffic again (target: region)",
    "switch_to_fallback": "serve a router's traffic from its fallback model (target: router)",
    "shed": "refuse a share (value) of the lowest-priority traffic at the entry",
    "warm_cache": "warm a cache back to its configured hit ratio (target: cache)",
    "flush_cache": "empty a cache (target: cache)",
    "revert_config": "put a node's parameters back to what they were before the drill's changes (target: node)",
    "restart_replicas": "replace a pool's replicas: a leak or a stuck process goes away (target: pool)",
    "move_to_dedicated_gpus": "stop sharing the pool's GPUs (partitioning none) (target: pool)",
    "pin_previous_model": "serve the previous model version everywhere",
    "retrain": "start a retraining run now (the result rolls out through the canary)",
    "set_batcher_delay": "set a batcher's maximum queue delay to value ms (target: batcher)",
    "move_traffic": "set a traffic source's share or a canary router's canary share to value (target)",
}
VIEWS = ("system", "breakdown", "model", "segments", "business", "alerts", "changes")


class Change(StrictModel):
    """One entry of the recent-changes log the candidate can read."""

    at_min: float = Field(ge=-7 * 24 * 60, le=7 * 24 * 60)
    kind: ChangeKind
    text: str = Field(min_length=8, max_length=300)
    #: True for the change that caused the incident (the hidden truth); False for a decoy.
    planted: bool = False


class PlantFault(StrictModel):
    """A simulator fault (``inferboard.model.faults``). ``steps`` > 1 makes it grow: the magnitude
    rises in equal steps from 1 (no effect) to ``magnitude`` over ``duration_min``, then stays."""

    kind: str
    target: str = Field(default="*", pattern=TARGET)
    magnitude: float | None = None
    at_min: float = Field(default=0.0, ge=0)
    duration_min: float | None = Field(default=None, gt=0)  #: None: to the end of the drill
    steps: int = Field(default=1, ge=1, le=48)

    @model_validator(mode="after")
    def _known(self):
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind '{self.kind}'; known: {', '.join(FAULT_KINDS)}")
        return self


class PlantEdit(StrictModel):
    """A configuration change made to the design at ``at_min`` (a deploy or a config push). A
    value ``{location}`` stands for the location of ``{region}``."""

    target: str = Field(pattern=TARGET)
    params: dict[str, Any] = Field(min_length=1, max_length=10)
    at_min: float = Field(default=0.0, ge=0)


class PlantDrift(StrictModel):
    """Drift a drill plants: input or concept, in which segment, when, how fast and how much."""
    kind: Literal["input", "concept"]
    segment: str = Field(default="*", pattern=r"^(\*|[a-z][a-z0-9-]{0,31})$")
    at_min: float = Field(default=0.0, ge=0)
    accuracy_drop_pp: float = Field(gt=0, le=100)
    shift_sd: float = Field(default=1.0, ge=0, le=10)
    ramp_min: float = Field(default=0.0, ge=0)


class PlantVersion(StrictModel):
    """A model version rolled out at ``at_min`` to ``where`` (``canary`` or ``all``)."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")
    delta_pp: dict[str, float] = Field(default_factory=dict)
    at_min: float = Field(default=0.0, ge=0)
    where: Literal["canary", "all"] = "all"
    #: The version's defect comes from the training pipeline: retraining repeats it.
    pipeline_bug: bool = False


class Plant(StrictModel):
    """What a drill plants as its cause: faults, configuration edits, drift and model versions."""
    faults: list[PlantFault] = Field(default_factory=list, max_length=10)
    edits: list[PlantEdit] = Field(default_factory=list, max_length=10)
    drift: list[PlantDrift] = Field(default_factory=list, max_length=10)
    versions: list[PlantVersion] = Field(default_factory=list, max_length=5)


class Mitigation(StrictModel):
    """A mitigation the drill knows about, and what it does to this incident."""

    action: str
    target: str = Field(default="", pattern=TARGET)
    value: float | None = None
    effect: Literal["fixes", "worsens", "no_effect"]
    why: str = Field(min_length=10, max_length=400)

    @model_validator(mode="after")
    def _known(self):
        if self.action not in MITIGATIONS:
            raise ValueError(f"unknown mitigation '{self.action}'; known: {', '.join(MITIGATIONS)}")
        return self


class Evidence(StrictModel):
    """Where the cause shows: a view (``system``, ``breakdown``, ``model``, ``segments``,
    ``business``, ``alerts``, ``changes``) and what it shows there."""

    view: Literal["system", "breakdown", "model", "segments", "business", "alerts", "changes"]
    shows: str = Field(min_length=8, max_length=300)


class Symptom(StrictModel):
    """What the page states, with a size the simulated series must show by the time the candidate
    is told (measured by :mod:`inferboard.drills.symptoms`)."""

    metric: Literal["p99_ms", "p50_ms", "error_rate", "shed_rate", "failed_rate", "accuracy_pct", "business_pct"]
    measure: Literal["slo_multiple", "baseline_multiple", "level", "drop_pp", "drop_pct"]
    size: float = Field(gt=0, le=1000)
    #: accuracy of one traffic segment instead of all traffic
    segment: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9-]{0,31}$")
    #: when the symptom begins, if not when the cause starts (the baseline is the time before it)
    since_min: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _fits(self):
        if self.segment and self.metric != "accuracy_pct":
            raise ValueError("a segment goes with the accuracy_pct metric only")
        latency = self.metric in ("p99_ms", "p50_ms")
        if self.measure == "slo_multiple" and not latency:
            raise ValueError("slo_multiple measures a latency (p99_ms or p50_ms)")
        if self.measure in ("drop_pp", "drop_pct") and latency:
            raise ValueError("a latency rises: use slo_multiple or baseline_multiple")
        return self


class Drill(StrictModel):
    """An incident drill: its story, the design it needs, the planted cause, the evidence, the mitigations
    and how they are judged, and the keywords a good diagnosis names."""
    schema_version: Literal[1] = 1
    id: str = Field(pattern=ID)
    title: str = Field(min_length=5, max_length=90)
    kind: Literal["latency", "quality"]
    difficulty: Literal["easy", "medium", "hard"] = "medium"
    summary: str = Field(min_length=10, max_length=300)
    #: What the on-call engineer is told when paged (or when a customer complains).
    page: str = Field(min_length=10, max_length=400)
    #: Component kinds the design needs for this cause to be planted.
    requires: list[str] = Field(default_factory=list, max_length=8)
    horizon_h: float = Field(default=4.0, gt=0, le=96)
    tick_s: float = Field(default=30.0, ge=5, le=600)
    #: Traffic over the drill; ``steady`` holds the design's mean rate so the cause stands out.
    pattern: Literal["steady", "diurnal", "step", "spike", "bursty"] = "steady"
    #: The rate the pattern is built on: the design's mean, or its peak (a busy hour).
    traffic: Literal["mean", "peak"] = "mean"
    plant: Plant
    changes: list[Change] = Field(min_length=1, max_length=20)
    #: The symptom the page states, with its size (checked against the simulation by the tests).
    symptom: Symptom
    #: The bundled designs (file names without ``.json`` in ``assets/drills/designs`` or
    #: ``assets/examples``) the page and the mitigations are checked on; elsewhere the cause may
    #: hit softer or harder.
    checked_on: list[str] = Field(default_factory=lambda: ["ranker-drill"], min_length=1, max_length=8)
    symptoms: list[str] = Field(min_length=1, max_length=10)
    evidence: list[Evidence] = Field(min_length=1, max_length=10)
    mitigations: list[Mitigation] = Field(min_length=2, max_length=12)
    #: The hidden truth, in words.
    root_cause: str = Field(min_length=20, max_length=600)
    #: Groups of words; naming the cause needs one word of at least ``keywords_needed`` groups.
    keywords: list[list[str]] = Field(min_length=1, max_length=6)
    keywords_needed: int = Field(default=2, ge=1, le=6)
    fix_keywords: list[list[str]] = Field(min_length=1, max_length=6)
    monitoring_keywords: list[list[str]] = Field(min_length=1, max_length=6)
    #: Minutes from being told to a working mitigation that earns full marks.
    target_mitigate_min: float = Field(default=15.0, gt=0, le=24 * 60)

    @model_validator(mode="after")
    def _consistent(self):
        if not any(m.effect == "fixes" for m in self.mitigations):
            raise ValueError("at least one mitigation must fix the incident")
        if not any(m.effect != "fixes" for m in self.mitigations):
            raise ValueError("at least one mitigation must not fix it (a wrong turn)")
        if not any(c.planted for c in self.changes) and not (self.plant.drift and self.kind == "quality"):
            raise ValueError("at least one recent change must be the planted one")
        if self.keywords_needed > len(self.keywords):
            raise ValueError("keywords_needed is more than the keyword groups")
        if not (self.plant.faults or self.plant.edits or self.plant.drift or self.plant.versions):
            raise ValueError("the plant is empty: nothing would go wrong")
        if self.symptom.measure in ("baseline_multiple", "drop_pp", "drop_pct") and (
                (self.symptom.since_min or self.cause_start_min) <= 0):
            raise ValueError("symptom: a change against the time before needs the symptom to start after minute 0 "
                             "(give since_min)")
        return self

    @property
    def cause_start_min(self) -> float:
        """When the earliest planted cause starts, in minutes."""
        starts = [x.at_min for group in (self.plant.faults, self.plant.edits, self.plant.drift, self.plant.versions)
                  for x in group]
        return min(starts)


class DrillError(ValidationFailed):
    """A drill file is invalid; every problem names the file, the drill and the field."""


def drill_from_data(raw: Any, source: str) -> Drill:
    """The drill from parsed data; bad data raises one error naming the file, item and field."""
    name = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else "?"
    item = f"drill '{name[:64]}'"
    if not isinstance(raw, dict):
        raise DrillError(source, [Problem(item, "", "a drill file must hold a YAML mapping")])
    try:
        return Drill.model_validate(raw)
    except ValidationError as error:
        problems = [Problem(item, field, message) for field, message in validation_problems(error)]
        raise DrillError(source, problems) from None


def load_drill(path: Path | str) -> Drill:
    """The drill in a YAML file."""
    path = Path(path)
    try:
        raw = load_yaml_file(path)
    except YamlFileError as error:
        raise DrillError(str(path), [Problem("", "", str(error).split(": ", 1)[-1])]) from None
    return drill_from_data(raw, str(path))
