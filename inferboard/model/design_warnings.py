"""Live warnings: cheap checks of a design's own consistency, run after every edit (unlike the
rubric rules, they need no simulation and say nothing about quality, only about settings that
contradict each other or parts left unconnected).

    replicas_outside_bounds   a pool starts with fewer replicas than its minimum or more than its maximum
    autoscaler_bounds         a pool's min/max and its autoscaler's disagree so one of them can never apply
    unwired                   a component with no wires, or one that takes requests and gets none
    traffic_shares            the traffic sources' shares do not add up to 100%
"""

from __future__ import annotations

from dataclasses import dataclass

from inferboard.model.design import REQUEST_SIGNAL, Design

SHARE_TOLERANCE = 0.005


@dataclass(frozen=True)
class DesignWarning:
    """A warning about the design as drawn (not a rubric finding): a code, the nodes it concerns, and what to fix."""

    code: str
    node_ids: tuple[str, ...]
    message: str




def _name(design: Design, node_id: str) -> str:
    node = design.nodes[node_id]
    return node.label or node.id


def _bounds(design: Design) -> list[DesignWarning]:
    out = []
    for node in design.nodes.values():
        p = node.params
        if not {"replicas", "min_replicas", "max_replicas"} <= set(p):
            continue
        name = _name(design, node.id)
        if p["min_replicas"] > p["max_replicas"]:
            out.append(DesignWarning("replicas_outside_bounds", (node.id,),
                                f"{name}: min replicas {p['min_replicas']} is above max replicas {p['max_replicas']}"))
        elif p["replicas"] < p["min_replicas"]:
            out.append(DesignWarning("replicas_outside_bounds", (node.id,),
                                f"{name}: starts with {p['replicas']} replicas, below its minimum of "
                                f"{p['min_replicas']}"))
        elif p["replicas"] > p["max_replicas"]:
            out.append(DesignWarning("replicas_outside_bounds", (node.id,),
                                f"{name}: starts with {p['replicas']} replicas, above its maximum of "
                                f"{p['max_replicas']}"))
    return out


def _autoscalers(design: Design) -> list[DesignWarning]:
    """An autoscaler and the one pool it scales: the effective range is where both ranges meet,
    so a bound outside the other's range never applies. (An autoscaler shared by several pools,
    a main pool and its canary say, has bounds sized for the largest: not checked.)"""
    controls: dict[str, list[str]] = {}
    for edge in design.edges.values():
        if design.signal_of(edge) == "control" and "max_replicas" in design.nodes[edge.source].params \
                and "max_replicas" in design.nodes[edge.target].params:
            controls.setdefault(edge.source, []).append(edge.target)
    out = []
    for scaler_id, pools in controls.items():
        if len(pools) != 1:
            continue
        a, p = design.nodes[scaler_id].params, design.nodes[pools[0]].params
        s_name, p_name = _name(design, scaler_id), _name(design, pools[0])
        ids = (pools[0], scaler_id)
        if a["min_replicas"] > p["max_replicas"]:
            out.append(DesignWarning("autoscaler_bounds", ids,
                                     f"{s_name} keeps at least {a['min_replicas']} replicas, more than {p_name}'s "
                                     f"max of {p['max_replicas']}"))
        elif a["max_replicas"] > p["max_replicas"]:
            out.append(DesignWarning("autoscaler_bounds", ids,
                                     f"{p_name} caps at {p['max_replicas']} replicas but {s_name} may ask for "
                                     f"{a['max_replicas']}: the pool's max wins"))
        elif a["max_replicas"] < p.get("min_replicas", 0):
            out.append(DesignWarning("autoscaler_bounds", ids,
                                     f"{s_name} scales up to {a['max_replicas']} replicas, fewer than {p_name}'s "
                                     f"min of {p['min_replicas']}"))
    return out


def _unwired(design: Design) -> list[DesignWarning]:
    out = []
    wired: set[str] = set()
    fed: set[str] = set()
    sending: set[str] = set()
    for edge in design.edges.values():
        wired.update((edge.source, edge.target))
        if design.signal_of(edge) == REQUEST_SIGNAL:
            fed.add(edge.target)
            sending.add(edge.source)
    for node in design.nodes.values():
        kind = design.catalog.kind(node.kind)
        if kind.container:
            continue
        name = _name(design, node.id)
        takes_requests = any(port.signal == REQUEST_SIGNAL for port in kind.inputs)
        sends_requests = any(port.signal == REQUEST_SIGNAL for port in kind.outputs)
        if node.id not in wired:
            out.append(DesignWarning("unwired", (node.id,), f"{name} is not wired to anything"))
        elif takes_requests and node.id not in fed:
            out.append(DesignWarning("unwired", (node.id,), f"{name} takes requests but nothing sends it any"))
        elif sends_requests and not takes_requests and node.id not in sending:
            out.append(DesignWarning("unwired", (node.id,), f"{name} sends its requests nowhere"))
    return out


def _shares(design: Design) -> list[DesignWarning]:
    sources = [n for n in design.nodes.values() if "share" in n.params and n.kind == "traffic_source"]
    if not sources:
        return []
    total = sum(float(n.params["share"]) for n in sources)
    if abs(total - 1.0) <= SHARE_TOLERANCE:
        return []
    parts = " + ".join(f"{float(n.params['share']) * 100:.0f}%" for n in sources)
    return [DesignWarning("traffic_shares", tuple(n.id for n in sources),
                     f"Traffic shares add up to {total * 100:.0f}% ({parts}), not 100%")]


def design_warnings(design: Design) -> list[DesignWarning]:
    """Every live warning of ``design``, in a stable order (by check, then design order)."""
    return [*_bounds(design), *_autoscalers(design), *_unwired(design), *_shares(design)]
