"""The design's workload and service-level requirements."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from inferboard.schema_base import StrictModel

TrafficPattern = Literal["steady", "diurnal", "step", "spike", "bursty"]
WorkloadKind = Literal["fixed", "generative"]
#: The business metric the model's quality moves (the quality model's business series).
BusinessMetric = Literal["conversion", "click_through", "approval", "retention"]
LOCATIONS = ("us-east", "us-west", "eu-west", "eu-central", "ap-southeast", "ap-northeast")
Location = Literal["us-east", "us-west", "eu-west", "eu-central", "ap-southeast", "ap-northeast"]


class Requirements(StrictModel):
    """What the design must achieve. A field left empty (None) is not declared by the design."""

    workload: WorkloadKind = "fixed"
    model_size_gb: float | None = Field(default=None, gt=0, le=4000,
                                        description="Model weights at FP16, in GB")
    request_size_kb: float | None = Field(default=None, gt=0, le=1_000_000)
    prompt_tokens: int | None = Field(default=None, ge=1, le=1_000_000)
    output_tokens: int | None = Field(default=None, ge=1, le=1_000_000)
    slo_p50_ms: float | None = Field(default=None, gt=0, le=3_600_000)
    slo_p95_ms: float | None = Field(default=None, gt=0, le=3_600_000)
    slo_p99_ms: float | None = Field(default=None, gt=0, le=3_600_000)
    slo_ttft_ms: float | None = Field(default=None, gt=0, le=3_600_000)
    availability_slo: float | None = Field(default=None, ge=50, lt=100,
                                           description="Availability target in percent, e.g. 99.9")
    mean_rps: float | None = Field(default=None, ge=0, le=10_000_000)
    peak_rps: float | None = Field(default=None, ge=0, le=10_000_000)
    traffic_pattern: TrafficPattern = "steady"
    budget_per_hour: float | None = Field(default=None, ge=0, le=10_000_000)
    budget_per_1k: float | None = Field(default=None, ge=0, le=1_000_000)
    allowed_regions: list[Location] = Field(default_factory=list, max_length=len(LOCATIONS))
    accuracy_target_pct: float | None = Field(default=None, ge=0, le=100)
    business_metric: BusinessMetric = "conversion"
    #: The business metric's level with a healthy model (percent); None: 4% (the quality model's default).
    business_base_pct: float | None = Field(default=None, gt=0, le=100)

    @model_validator(mode="after")
    def _consistent(self) -> "Requirements":
        if self.mean_rps is not None and self.peak_rps is not None and self.peak_rps < self.mean_rps:
            raise ValueError("peak_rps must be at least mean_rps")
        slos = [s for s in (self.slo_p50_ms, self.slo_p95_ms, self.slo_p99_ms) if s is not None]
        if slos != sorted(slos):
            raise ValueError("latency SLOs must not decrease from p50 to p95 to p99")
        if len(set(self.allowed_regions)) != len(self.allowed_regions):
            raise ValueError("allowed_regions lists a region twice")
        return self

    def error_budget(self) -> float | None:
        """The fraction of requests allowed to fail, from the availability SLO."""
        return None if self.availability_slo is None else 1.0 - self.availability_slo / 100.0
