"""Helpers for building reference designs in code: a region box, nodes wired in a row, and the
operations plane (metrics, alerting, registry, drift, retraining) every production design carries.
Used by ``reference_designs``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from inferboard.model import Design, ops
from inferboard.practice.scenario import load_scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "assets" / "scenarios"
ROW = 130.0  # vertical spacing inside a region
COL = 190.0  # horizontal spacing


def new_design(scenario_id: str, folder: Path | None = None) -> Design:
    scenario = load_scenario((folder or SCENARIOS) / scenario_id)
    return Design(requirements=scenario.requirements,
                  metadata={"title": f"Reference: {scenario.title}", "notes": scenario.reference.notes.strip()})


def region(d: Design, rid: str, location: str, residency: str, x: float, y: float, width: float,
           height: float, role: str = "active") -> str:
    d.add_node("region", x, y, {"location": location, "residency": residency, "role": role}, node_id=rid)
    d.apply(ops.ResizeNode(rid, width, height))
    return rid


def add(d: Design, kind: str, node_id: str, x: float, y: float, region_id: str | None = None, label: str = "",
        **params: Any) -> str:
    d.add_node(kind, x, y, params, node_id=node_id, region=region_id, label=label)
    return node_id


def wire(d: Design, source: str, target: str, source_port: str = "requests", target_port: str = "requests") -> None:
    d.connect(source, source_port, target, target_port)


def chain(d: Design, *node_ids: str) -> None:
    for source, target in zip(node_ids, node_ids[1:]):
        wire(d, source, target)


def scale(d: Design, autoscaler: str, *pools: str) -> None:
    for pool in pools:
        wire(d, autoscaler, pool, "scaling", "scaling")


def ops_plane(d: Design, x: float, y: float, pools: Iterable[str], autoscalers: Iterable[str],
              runbook: str, drift: bool = True, business: bool = True,
              artifact_pools: Iterable[str] | None = None) -> None:
    """Metrics (system, model and business), burn-rate alerting with a runbook, a versioned and
    replicated registry feeding every pool, and (with ``drift``) drift detection that alerts and
    triggers a gated retraining pipeline promoting through the canary."""
    pools = list(pools)
    add(d, "model_registry", "registry", x, y - 1.5 * ROW, replicate_to_regions=True, versioned=True)
    add(d, "metrics_collector", "metrics", x, y, model_metrics=True, business_metrics=business)
    add(d, "alerting", "alerts", x, y + 1.5 * ROW, burn_rate_alerts=True, severity_levels=3, runbook_url=runbook,
        grouping=True, dedup_window_s=300)
    for pool in pools:
        wire(d, pool, "metrics", "telemetry", "telemetry")
    for pool in (pools if artifact_pools is None else artifact_pools):
        wire(d, "registry", pool, "artifacts", "artifacts")
    for autoscaler in autoscalers:
        wire(d, "metrics", autoscaler, "telemetry", "metrics")
    wire(d, "metrics", "alerts", "telemetry", "telemetry")
    if drift:
        add(d, "drift_detector", "drift", x + COL, y + 1.5 * ROW, test="psi", drift_type="both", window_hours=24,
            threshold=0.2, action="alert_and_retrain")
        add(d, "retraining_pipeline", "retrain", x + COL, y - 1.5 * ROW, schedule="on_trigger", validation_gate=True,
            promote_via_canary=True)
        wire(d, "metrics", "drift", "telemetry", "telemetry")
        wire(d, "drift", "alerts", "alerts", "alerts")
        wire(d, "drift", "retrain", "triggers", "triggers")
        wire(d, "retrain", "registry", "artifacts", "artifacts")


def schedule(peak_hours: Iterable[int], high: int, low: int) -> list[list[int]]:
    """A predictive schedule: ``high`` replicas from each hour in ``peak_hours``, ``low`` otherwise."""
    peaks = set(peak_hours)
    out, last = [], None
    for hour in range(24):
        value = high if hour in peaks else low
        if value != last:
            out.append([hour, value])
            last = value
    return out


def serving_region(d: Design, rid: str, location: str, residency: str, y: float, *, upstream: str,
                   front: list[tuple[str, str, dict[str, Any]]], pool: dict[str, Any],
                   pool_kind: str = "gpu_pool", batcher: dict[str, Any] | None = None,
                   canary: dict[str, Any] | None = None, canary_replicas: int = 2,
                   fallback: dict[str, Any] | None = None, fallback_from: str | None = None,
                   autoscaler: dict[str, Any] | None = None, label: str = "") -> tuple[list[str], list[str]]:
    """One region's serving stack: ``upstream`` -> front nodes in order -> canary router -> (batcher)
    -> pool, with a canary pool beside it, an optional CPU fallback below ``fallback_from`` (a front
    suffix) and an autoscaler. Returns (pools, autoscalers)."""
    n_front = len(front) + (1 if canary else 0)
    width = 60 + COL * (n_front + (2 if batcher else 1))
    region(d, rid, location, residency, 0, y - 40, width, 3 * ROW + 40)
    p = rid + "-"
    ids = []
    for i, (kind, suffix, params) in enumerate(front):
        ids.append(add(d, kind, p + suffix, 30 + i * COL, y, rid, **params))
    chain(d, upstream, *ids)
    x = 30 + len(front) * COL
    pools, scalers = [], []
    if canary:
        router = add(d, "canary_router", p + "canary", x, y, rid, **canary)
        wire(d, ids[-1], router) if ids else wire(d, upstream, router)
        x += COL
    for row, (suffix, port) in enumerate(((pool_kind.split("_")[0], "stable"), ("canary-pool", "canary"))):
        if row == 1 and not canary:
            break
        params = dict(pool)
        if row == 1:
            params.update(replicas=canary_replicas, min_replicas=canary_replicas, max_replicas=2 * canary_replicas)
            params.pop("spot_share", None)
        parent = router if canary else ids[-1]
        if batcher:
            b = add(d, "dynamic_batcher", p + ("batcher" if row == 0 else "canary-batcher"), x, y + row * ROW, rid,
                    **batcher)
            d.connect(parent, port if canary else "requests", b, "requests")
            parent, port_out = b, "requests"
        else:
            port_out = port if canary else "requests"
        target = add(d, pool_kind, p + suffix, x + (COL if batcher else 0), y + row * ROW, rid,
                     label=(label if row == 0 else "Canary " + (label or "pool")).strip(), **params)
        d.connect(parent, port_out, target, "requests")
        pools.append(target)
    if fallback is not None:
        fb = add(d, "fallback_model", p + "fallback", 30 + COL, y + 2 * ROW, rid, **fallback)
        wire(d, p + fallback_from if fallback_from else (ids[-1] if ids else upstream), fb)
    if autoscaler is not None:
        hpa = add(d, "autoscaler", p + "hpa", 30 + 2 * COL + (COL if fallback is not None else 0), y + 2 * ROW, rid,
                  **autoscaler)
        scale(d, hpa, *pools)
        scalers.append(hpa)
    return pools, scalers
