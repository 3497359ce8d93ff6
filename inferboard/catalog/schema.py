"""Schemas of the component catalog: component kinds, their ports, parameters and cost models,
and the GPU type table. Every file under ``components/`` is validated against these."""

from __future__ import annotations

from typing import Literal, Union

from pydantic import Field, model_validator

from inferboard.schema_base import StrictModel

#: What flows along an edge. An output port connects only to an input port of the same signal.
Signal = Literal["requests", "telemetry", "control", "artifacts", "alerts", "triggers"]

Category = Literal[
    "traffic", "routing", "queueing", "compute", "caching", "scaling", "resilience",
    "model_lifecycle", "observability", "placement",
]

ParamType = Literal["int", "float", "bool", "choice", "text", "schedule"]

ParamValue = Union[bool, int, float, str, list]


class PortSpec(StrictModel):
    """One connection point of a component kind."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    signal: Signal
    #: Kinds allowed on the other end; empty means any kind with a matching signal.
    accepts: list[str] = []
    #: How many edges may attach to this port; None means unlimited.
    max_connections: int | None = Field(default=None, ge=1)
    help: str = ""


class ParamSpec(StrictModel):
    """One editable parameter of a component kind."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    title: str
    type: ParamType
    unit: str = ""
    default: ParamValue
    min: float | None = None
    max: float | None = None
    choices: list[str] = []
    help: str

    @model_validator(mode="after")
    def _consistent(self) -> "ParamSpec":
        if self.type == "choice":
            if not self.choices:
                raise ValueError(f"parameter {self.name!r}: a choice needs 'choices'")
            if self.default not in self.choices:
                raise ValueError(f"parameter {self.name!r}: default {self.default!r} is not one of its choices")
        elif self.choices:
            raise ValueError(f"parameter {self.name!r}: only a choice may list 'choices'")
        if self.type in ("int", "float"):
            if isinstance(self.default, bool) or not isinstance(self.default, (int, float)):
                raise ValueError(f"parameter {self.name!r}: default must be a number")
            if self.type == "int" and not isinstance(self.default, int):
                raise ValueError(f"parameter {self.name!r}: default must be an integer")
            if self.min is not None and self.max is not None and self.min > self.max:
                raise ValueError(f"parameter {self.name!r}: min is above max")
            if self.min is not None and self.default < self.min:
                raise ValueError(f"parameter {self.name!r}: default is below min")
            if self.max is not None and self.default > self.max:
                raise ValueError(f"parameter {self.name!r}: default is above max")
        elif self.min is not None or self.max is not None:
            raise ValueError(f"parameter {self.name!r}: only numbers may have min or max")
        if self.type == "bool" and not isinstance(self.default, bool):
            raise ValueError(f"parameter {self.name!r}: default must be true or false")
        if self.type == "text" and not isinstance(self.default, str):
            raise ValueError(f"parameter {self.name!r}: default must be text")
        if self.type == "schedule" and not isinstance(self.default, list):
            raise ValueError(f"parameter {self.name!r}: default must be a list of [hour, replicas] pairs")
        return self


class CostModel(StrictModel):
    """How a component adds to the design's cost per hour.

    ``fixed``: ``fixed_per_hour`` only. ``per_replica``: ``fixed_per_hour`` plus
    ``per_replica_per_hour`` times the value of ``replica_param``. ``gpu``: replicas times the
    hourly price of the GPU type named by the ``gpu_type`` parameter, with the ``spot_share``
    parameter's fraction billed at the spot price; ``fixed_per_hour`` is added on top.
    ``per_million_requests`` is added for every million requests the component handles.
    """

    model: Literal["fixed", "per_replica", "gpu"] = "fixed"
    fixed_per_hour: float = Field(default=0.0, ge=0)
    per_replica_per_hour: float = Field(default=0.0, ge=0)
    replica_param: str | None = None
    per_million_requests: float = Field(default=0.0, ge=0)
    source: str = ""


#: What a kind is to the rest of the product, read wherever code groups kinds (never restated):
#: ``serving_pool`` serves requests on replicas (every pool the simulator sizes);
#: ``replica_pool`` is a primary model pool whose replica count the design sizes and scales;
#: ``gpu_pool`` runs on GPUs; ``traffic_entry`` starts requests; ``cache``; ``canary``;
#: ``region`` contains other nodes; ``can_fail`` is a node whose dependency can return errors;
#: ``fallback`` serves what the primary cannot; ``work_queue`` holds work drained offline;
#: ``batched_pool`` is served in batches by a dynamic batcher in front of it; ``batcher`` is that
#: batcher; ``pool_feeder`` holds requests in front of a pool (its queue is the pool's station);
#: ``load_balancer`` spreads requests over its children (a delay station to the simulator);
#: ``capacity_split`` splits its traffic by its children's capacity, as serving pools do;
#: ``model_pool`` serves a model: it runs a model version and the simulator can scale it.
Role = Literal["serving_pool", "replica_pool", "gpu_pool", "traffic_entry", "cache", "canary", "region",
               "can_fail", "fallback", "work_queue", "batched_pool", "batcher", "pool_feeder", "load_balancer",
               "capacity_split", "model_pool"]


class ComponentKind(StrictModel):
    """A kind of component the user can place on the canvas."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    title: str
    category: Category
    icon: str
    description: str
    when_to_use: str
    #: A region is a container: other nodes sit inside it.
    container: bool = False
    #: What the kind is to the rest of the product (see :data:`Role`).
    roles: list[Role] = []
    inputs: list[PortSpec] = []
    outputs: list[PortSpec] = []
    params: list[ParamSpec] = []
    #: Parameters shown on the node's card on the canvas, in order.
    card_params: list[str] = []
    cost: CostModel = CostModel()

    @model_validator(mode="after")
    def _unique_names(self) -> "ComponentKind":
        for label, names in (("input port", [p.name for p in self.inputs]),
                             ("output port", [p.name for p in self.outputs]),
                             ("parameter", [p.name for p in self.params])):
            seen = set()
            for name in names:
                if name in seen:
                    raise ValueError(f"{label} {name!r} is declared twice")
                seen.add(name)
        param_names = {p.name for p in self.params}
        for name in self.card_params:
            if name not in param_names:
                raise ValueError(f"card_params names {name!r}, which is not a parameter")
        if self.cost.replica_param is not None and self.cost.replica_param not in param_names:
            raise ValueError(f"cost.replica_param names {self.cost.replica_param!r}, which is not a parameter")
        return self

    def param(self, name: str) -> ParamSpec | None:
        """The spec of parameter ``name``, or None."""
        for spec in self.params:
            if spec.name == name:
                return spec
        return None

    def port(self, name: str, direction: Literal["in", "out"]) -> PortSpec | None:
        """The spec of port ``name`` on the ``direction`` side, or None."""
        for spec in self.inputs if direction == "in" else self.outputs:
            if spec.name == name:
                return spec
        return None

    def defaults(self) -> dict[str, ParamValue]:
        """Every parameter's default value (lists copied)."""
        return {spec.name: (list(spec.default) if isinstance(spec.default, list) else spec.default)
                for spec in self.params}


class PeakFlops(StrictModel):
    """Peak dense (no structured sparsity) tensor throughput of one GPU, in TFLOP/s (TOP/s for INT8),
    by the precision of the arithmetic. ``fp32`` is TF32 on tensor cores where the GPU has them;
    ``fp8``/``int8`` are absent (null) on GPUs without such tensor cores."""

    fp32: float = Field(gt=0)
    fp16: float = Field(gt=0)
    fp8: float | None = Field(default=None, gt=0)
    int8: float | None = Field(default=None, gt=0)


#: How the GPUs of one tensor-parallel replica talk to each other.
Interconnect = Literal["nvlink", "pcie", "infinity_fabric"]


class GpuType(StrictModel):
    """One GPU model with the figures the simulator and cost model need."""

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    title: str
    memory_gb: float = Field(gt=0)
    #: Throughput relative to a T4 on the same fixed-cost model (T4 = 1.0).
    relative_speed: float = Field(gt=0)
    hbm_bandwidth_tb_s: float = Field(gt=0)
    peak_tflops: PeakFlops
    mig_max_instances: int = Field(ge=0)
    #: GPU-to-GPU link of a tensor-parallel replica, its bandwidth one way per GPU and the fixed
    #: time of one small all-reduce over it
    interconnect: Interconnect = "pcie"
    interconnect_gb_s: float = Field(default=32.0, gt=0)
    allreduce_latency_us: float = Field(default=20.0, ge=0)
    on_demand_per_hour: float = Field(gt=0)
    spot_per_hour: float = Field(gt=0)
    source: str
    checked: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")


class GpuTable(StrictModel):
    """The file of GPU types the catalog knows."""

    gpus: list[GpuType]
