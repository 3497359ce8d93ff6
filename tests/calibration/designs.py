"""The calibration designs of ``bands.yaml``, built from each scenario's reference design."""

from __future__ import annotations

from pathlib import Path

import yaml

from inferboard.model import Design, ops
from inferboard.practice.library import ScenarioEntry

BANDS_FILE = Path(__file__).with_name("bands.yaml")
POOL_KINDS = ("gpu_pool", "generation_pool", "cpu_pool")
LEVELS = ("weak", "middling", "one_region_scaled", "strong", "lean_canary", "shadow_candidate")


def bands() -> dict:
    return yaml.safe_load(BANDS_FILE.read_text(encoding="utf-8"))


def band(scenario_id: str, level: str) -> tuple[float, float]:
    data = bands()
    override = (data["scenarios"].get(scenario_id) or {}).get("bands", {})
    low, high = override.get(level, data["default_bands"][level])
    return float(low), float(high)


def _main_pool(reference: Design):
    pools = [n for n in reference.nodes.values() if n.kind in POOL_KINDS]
    return max(pools, key=lambda n: (n.params.get("replicas", 0), -list(reference.nodes).index(n.id)))


def weak(entry: ScenarioEntry) -> Design:
    """Traffic source -> regional load balancer -> the reference's main pool; nothing else."""
    reference = entry.reference_design()
    pool = _main_pool(reference)
    source = next(n for n in reference.nodes.values() if n.kind == "traffic_source")
    design = Design(requirements=entry.scenario.requirements, metadata={"title": "weak", "notes": ""})
    design.add_node("traffic_source", 0, 0, {"origin": source.params.get("origin", "us-east")}, node_id="users")
    design.add_node("regional_load_balancer", 200, 0, node_id="lb")
    design.add_node(pool.kind, 400, 0, dict(pool.params), node_id="pool")
    design.connect("users", "requests", "lb", "requests")
    design.connect("lb", "requests", "pool", "requests")
    return design


def _busiest_region_only(entry: ScenarioEntry) -> Design:
    """The reference with every region but the one holding its main pool removed."""
    design = entry.reference_design()
    keep = design.nodes[_main_pool(design).id].region
    for region in [n.id for n in design.nodes.values() if n.kind == "region" and n.id != keep]:
        members = [n.id for n in design.nodes.values() if n.region == region]
        design.remove_node(region)
        for member in members:
            design.remove_node(member)
    return design


def middling(entry: ScenarioEntry) -> Design:
    """The reference in its busiest region only, without autoscalers and without alerting."""
    design = _busiest_region_only(entry)
    for node_id in [n.id for n in design.nodes.values() if n.kind in ("autoscaler", "alerting")]:
        design.remove_node(node_id)
    return design


def one_region_scaled(entry: ScenarioEntry) -> Design:
    """The reference in its busiest region only, autoscalers and alerting kept."""
    return _busiest_region_only(entry)


def _candidate_pools(design: Design) -> list[str]:
    """The pools behind each canary router's canary port (through a batcher, if any)."""
    out = []
    for edge in list(design.edges.values()):
        if design.nodes[edge.source].kind == "canary_router" and edge.source_port == "canary":
            node = edge.target
            while design.nodes[node].kind not in POOL_KINDS:
                node = next(e.target for e in design.edges.values() if e.source == node and e.source_port == "requests")
            out.append(node)
    return out


def lean_canary(entry: ScenarioEntry, shadow: bool = False) -> Design:
    """The reference with every canary pool at one replica and no autoscaler (mirroring, with ``shadow``)."""
    design = entry.reference_design()
    for pool in _candidate_pools(design):
        design.set_params(pool, replicas=1, min_replicas=1, max_replicas=1)
        for edge in [e.id for e in design.edges.values() if e.target == pool and e.target_port == "scaling"]:
            design.apply(ops.RemoveEdge(edge))
    if shadow:
        for router in [n.id for n in design.nodes.values() if n.kind == "canary_router"]:
            design.set_params(router, shadow=True)
    return design


def shadow_candidate(entry: ScenarioEntry) -> Design:
    """The reference mirroring to one-replica candidate pools without autoscaler."""
    return lean_canary(entry, shadow=True)


def strong(entry: ScenarioEntry) -> Design:
    """The reference with one minor slip: its alerts carry no runbook link."""
    design = entry.reference_design()
    for node in [n for n in design.nodes.values() if n.kind == "alerting"]:
        design.set_params(node.id, runbook_url="")
    return design


BUILDERS = {"weak": weak, "middling": middling, "one_region_scaled": one_region_scaled, "strong": strong,
            "lean_canary": lean_canary, "shadow_candidate": shadow_candidate}


def three_boxes() -> Design:
    """The three-box fraud design: traffic source -> regional load balancer -> CPU pool; no regions,
    no feature store, nothing else."""
    design = Design()
    design.add_node("traffic_source", 0, 0, {"origin": "us-east"}, node_id="payments")
    design.add_node("regional_load_balancer", 200, 0, node_id="lb")
    design.add_node("cpu_pool", 400, 0, node_id="scorers")
    design.connect("payments", "requests", "lb", "requests")
    design.connect("lb", "requests", "scorers", "requests")
    return design
