"""The drill library (``assets/drills/*.yaml``) and the roles a drill's targets name in a design."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from inferboard.drills.schema import Drill, DrillError, load_drill
from inferboard.errors import Problem
from inferboard.model.design import Design
from inferboard.paths import data_dir

ROLES = ("pool", "canary", "canary_pool", "batcher", "cache", "features", "region", "other_region",
         "fallback_router", "gateway", "global_lb", "source", "other_source")


def drills_folder() -> Path:
    """The folder of the shipped drills."""
    return data_dir("assets") / "drills"


@lru_cache(maxsize=4)
def _load(folder: str) -> dict[str, Drill]:
    out: dict[str, Drill] = {}
    for path in sorted(Path(folder).glob("*.yaml")):
        drill = load_drill(path)
        if drill.id in out:
            raise DrillError(str(path), [Problem(f"drill '{drill.id}'", "id", "another drill file has this id")])
        out[drill.id] = drill
    return out


def load_drills(folder: Path | str | None = None) -> dict[str, Drill]:
    """Every drill of the folder (default: the bundled library), by id."""
    return dict(_load(str(folder or drills_folder())))


def get_drill(drill_id: str, folder: Path | str | None = None) -> Drill:
    """The drill ``drill_id`` from ``folder`` (the shipped drills by default)."""
    drills = load_drills(folder)
    if drill_id not in drills:
        raise KeyError(f"unknown drill '{drill_id}'; known: {', '.join(sorted(drills))}")
    return drills[drill_id]


def roles(design: Design) -> dict[str, str]:
    """role -> node id for the roles this design has (see :mod:`inferboard.drills.schema`)."""
    # here, not above: `inferboard drill list` reads the drills without loading the simulator
    from inferboard.sim.design.design_structure import DesignStructure
    from inferboard.sim.quality.quality import model_pools

    out: dict[str, str] = {}
    pools = model_pools(design)

    def size(node_id: str) -> float:
        return float(design.nodes[node_id].params.get("replicas", 1) or 0)

    stable = sorted((p for p, r in pools.items() if r == "stable"), key=lambda p: (-size(p), p))
    if stable:
        out["pool"] = stable[0]
    canary_pools = sorted(p for p, r in pools.items() if r.startswith("canary:"))
    routers = sorted(n.id for n in design.nodes_of_kind("canary_router"))
    if canary_pools:
        out["canary_pool"] = canary_pools[0]
        out["canary"] = pools[canary_pools[0]].split(":", 1)[1]
    elif routers:
        out["canary"] = routers[0]
    regions = design.nodes_of_kind("region")
    if regions:
        served = {r.id: sum(size(p) for p in pools if design.nodes[p].region == r.id) for r in regions}
        order = sorted(served, key=lambda r: (-served[r], r))
        home = design.nodes[out["pool"]].region if "pool" in out else None
        out["region"] = home if home in served else order[0]
        others = [r for r in order if r != out["region"]]
        if others:
            out["other_region"] = others[0]
    home = out.get("region")

    def pick(kind: str) -> str | None:
        nodes = sorted(design.nodes_of_kind(kind), key=lambda n: (n.region != home, n.id))
        return nodes[0].id if nodes else None

    for role, kind in (("batcher", "dynamic_batcher"), ("cache", "cache"), ("features", "feature_service"),
                       ("gateway", "regional_load_balancer")):
        found = pick(kind)
        if found:
            out[role] = found
    glb = sorted(n.id for n in design.nodes_of_kind("global_load_balancer"))
    if glb:
        out["global_lb"] = glb[0]
    location = design.nodes[home].params.get("location") if home in design.nodes else None
    sources = sorted(design.nodes_of_kind("traffic_source"),
                     key=lambda n: (n.params.get("origin") != location, -float(n.params.get("share", 1.0)), n.id))
    if sources:
        out["source"] = sources[0].id
        away = [n for n in sources if n.params.get("origin") != location]
        if away:
            out["other_source"] = away[0].id
    structure = DesignStructure(design)
    routers_with_fallback = sorted((n for n, (_, fb) in structure.split.items() if fb),
                                   key=lambda n: (design.nodes[n].region != home, n))
    if routers_with_fallback:
        out["fallback_router"] = routers_with_fallback[0]
    return out


def resolve(target: str, found: dict[str, str]) -> str:
    """A drill target for a design: ``{role}`` becomes the node id; other text is kept."""
    if target.startswith("{") and target.endswith("}"):
        role = target[1:-1]
        if role not in found:
            raise KeyError(role)
        return found[role]
    return target


def fill(text: str, found: dict[str, str]) -> str:
    """Text with ``{role}`` placeholders replaced by node ids (unknown roles left as they are)."""
    for role, node_id in found.items():
        text = text.replace("{" + role + "}", node_id)
    return text


def applicable(drill: Drill, design: Design) -> list[str]:
    """Why ``drill`` cannot run on ``design`` (empty: it can)."""
    kinds = {n.kind for n in design.nodes.values()}
    problems = [f"the design has no {k.replace('_', ' ')}" for k in drill.requires if k not in kinds]
    if problems:  # the roles below follow from the kinds: naming them again says nothing new
        return problems
    found = roles(design)
    needed = set()
    for group in (drill.plant.faults, drill.plant.edits):
        for item in group:
            needed.add(item.target)
    for m in drill.mitigations:
        if m.effect == "fixes":
            needed.add(m.target)
    for target in sorted(needed):
        if target.startswith("{") and target[1:-1] not in found:
            problems.append(f"the design has no node for {target}")
        elif target and not target.startswith("{") and target != "*" and target not in design.nodes:
            problems.append(f"the design has no node '{target}'")
    return problems
