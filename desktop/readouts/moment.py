"""What the canvas shows for the figures' moment: per-node badges (utilisation, queue, p99), regions
that are down, components a fault hits, and the wires traffic takes after a failover.

Built from the same :class:`desktop.readouts.readings.Reading` as the tiles (the steady state, or one tick
of the timeline), so the cards agree with the numbers beside them. Nothing here imports Qt."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from inferboard import humanize
from inferboard.catalog.roles import kind_group
from inferboard.sim.explain.trust import TIMELINE, node_trust, steady_trust

from desktop.readouts.readings import PLAYHEAD, Reading, number

ENTRY_KINDS = kind_group("traffic_entry")
POOL_KINDS = kind_group("serving_pool")


@dataclass
class Moment:
    """What the canvas shows for one moment: a badge per node and the regions that are down."""

    #: node id -> ((text, level), tooltip)
    badges: dict[str, tuple[tuple[str, str] | None, str]] = field(default_factory=dict)
    #: region id -> label ("Down: region outage 10:00–12:00")
    down_regions: dict[str, str] = field(default_factory=dict)
    #: node id -> what is wrong with it now
    failing: dict[str, str] = field(default_factory=dict)
    #: nodes inside a region that is down
    dimmed: set[str] = field(default_factory=set)
    #: edge ids traffic takes after a failover
    failover_edges: set[str] = field(default_factory=set)


def level_for_utilisation(u: float, saturated: bool = False) -> str:
    """"ok", "warn" (70% busy or more) or "bad" (90%, or saturated)."""
    if saturated or u >= 0.9:
        return "bad"
    return "warn" if u >= 0.7 else "ok"


def _region_of(design: Any, node_id: str) -> str | None:
    node = design.nodes.get(node_id)
    return None if node is None else (node.id if node.kind == "region" else node.region)


def _window(fault: Any) -> str:
    return f"{humanize.clock(fault.start_s)}–{humanize.clock(fault.start_s + fault.duration_s)}"


def steady_badges(design: Any, steady: Any, explain=lambda key: "") -> dict:
    """A badge per node from the steady state: its busiest figure, coloured by how busy it is."""
    badges = {}
    for node_id, node_result in (getattr(steady, "nodes", {}) or {}).items():
        if node_id not in design.nodes:
            continue
        u = number(getattr(node_result, "utilisation", None))
        if u is None or number(getattr(node_result, "capacity_rps", None)) is None:
            continue
        level = level_for_utilisation(u, bool(getattr(node_result, "saturated", False)))
        trust = node_trust(steady, node_id)
        how = f"<br><i>{html.escape(trust.text())}</i>" if trust is not None else ""
        badges[node_id] = ((f"{humanize.share(u)} busy", level), explain(f"nodes.{node_id}.utilisation") + how)
    return badges


def _timeline_badges(design: Any, reading: Reading) -> dict:
    timeline, index = reading.source, reading.index or 0
    badges = {}
    for node_id in design.nodes:
        u = _at(timeline, f"utilisation:{node_id}", index)
        if u is None:
            continue
        queue = _at(timeline, f"queue:{node_id}", index) or 0.0
        replicas = _at(timeline, f"replicas:{node_id}", index)
        ready = _at(timeline, f"ready:{node_id}", index)
        text = f"{humanize.share(u)} busy" + (f" · q {humanize.compact(queue)}" if queue >= 0.5 else "")
        text += _ready_words(design.nodes[node_id], ready)
        tip = (f"At {humanize.clock(reading.time_s)}: {humanize.share(u)} busy, {queue:,.1f} requests queued"
               + (f", {replicas:.0f} replicas" if replicas is not None else "")
               + (f", {ready:.0f} ready" if ready is not None else "") + f"<br><i>{html.escape(TIMELINE.text())}</i>")
        level = level_for_utilisation(u, u >= 0.999)
        accuracy = _at(timeline, f"model_accuracy_pct:{node_id}", index)
        if accuracy is not None:
            text, tip, level = _with_accuracy(design, text, tip, level, accuracy)
        badges[node_id] = ((text, level), tip)
    return badges


LEVELS = ("ok", "warn", "bad")


def _with_accuracy(design: Any, text: str, tip: str, level: str, accuracy: float) -> tuple[str, str, str]:
    """A pool's badge with its model's accuracy at the moment: warn when under the accuracy target,
    bad when more than a point under it."""
    target = design.requirements.accuracy_target_pct
    words = f"accuracy {accuracy:.1f}%" + ("" if target is None else f" against the {target:g}% target")
    quality = "ok" if target is None or accuracy >= target else ("warn" if accuracy >= target - 1.0 else "bad")
    worst = max(level, quality, key=LEVELS.index)
    return f"{text} · acc {accuracy:.1f}%", f"{tip}<br>Model {words}", worst


def _ready_words(node: Any, ready: float | None) -> str:
    """" · 4 of 6 ready" when fewer replicas are ready at the moment than the card's configured count."""
    configured = number(node.params.get("replicas"))
    if ready is None or configured is None or round(ready) >= round(configured):
        return ""
    return f" · {ready:.0f} of {configured:.0f} ready"


def _at(timeline: Any, key: str, index: int) -> float | None:
    values = timeline.series.get(key)
    return number(values[index]) if values is not None and index < len(values) else None


def build_moment(design: Any, reading: Reading | None, steady: Any = None, faults=(), explain=lambda key: "",
                 slo_p99_ms: float | None = None) -> Moment:
    """The canvas's badges and downed regions for ``reading`` (the playhead's tick or a steady state) and the faults in
    force."""
    moment = Moment()
    if design is None or reading is None:
        return moment
    if reading.mode == PLAYHEAD and reading.source is not None:
        moment.badges = _timeline_badges(design, reading)
    elif steady is not None:
        moment.badges = steady_badges(design, steady, explain)
    p99 = reading.values.get("p99_ms")
    if p99 is not None:
        level = "ok" if slo_p99_ms is None or p99 <= slo_p99_ms else "bad"
        trust = TIMELINE if reading.mode == PLAYHEAD else (
            steady_trust(steady)["p99_ms"] if getattr(steady, "network", None) is not None else None)
        tip = f"p99 {humanize.duration_ms(p99)} ({reading.short_basis})" + (
            f"<br><i>{html.escape(trust.text())}</i>" if trust is not None else "")
        for node in design.nodes.values():
            if node.kind in ENTRY_KINDS:
                moment.badges[node.id] = ((f"p99 {humanize.duration_ms(p99)}", level), tip)
    if reading.mode != PLAYHEAD or reading.time_s is None:
        return moment
    t = reading.time_s
    for fault in faults:
        if not fault.active(t):
            continue
        if fault.kind == "region_outage" and fault.target in design.nodes:
            _region_down(design, moment, fault, t)
        elif fault.target in design.nodes:
            moment.failing[fault.target] = f"{fault.title()} ({_window(fault)})"
        elif fault.target == "*":
            for node in design.nodes.values():
                if _fault_can_hit(fault.kind, node.kind):
                    moment.failing[node.id] = f"{fault.title()} ({_window(fault)})"
    for node in design.nodes.values():
        if node.kind in POOL_KINDS and (_at(reading.source, f"utilisation:{node.id}", reading.index or 0) or 0.0) >= 0.999:
            moment.failing.setdefault(node.id, "Saturated: cannot keep up")
    return moment


def _fault_can_hit(fault_kind: str, node_kind: str) -> bool:
    if fault_kind == "traffic_surge":
        return node_kind == "traffic_source"
    return False


def _region_down(design: Any, moment: Moment, fault: Any, t: float) -> None:
    # the simulator loads on first use, not at start-up
    from inferboard.sim.timeline.fault_regimes import detection_delay

    region = fault.target
    delay, failover = detection_delay(design, region)
    detected = t >= fault.start_s + delay
    state = ("traffic failed over" if detected and failover else
             "not yet detected" if not detected else "no failover: its traffic is lost")
    moment.down_regions[region] = f"DOWN · {fault.title()} {_window(fault)} · {state}"
    moment.dimmed.update(n.id for n in design.nodes.values() if n.region == region)
    if not (detected and failover):
        return
    surviving = set()
    for edge in design.edges.values():
        source, target = design.nodes[edge.source], design.nodes[edge.target]
        if source.kind == "global_load_balancer" and _region_of(design, target.id) not in (None, region):
            moment.failover_edges.add(edge.id)
            surviving.add(target.id)
        if source.kind == "traffic_source" and target.kind == "global_load_balancer":
            moment.failover_edges.add(edge.id)
    # follow the request path inside the surviving regions
    frontier = list(surviving)
    while frontier:
        node_id = frontier.pop()
        for edge in design.edges.values():
            if edge.source == node_id and edge.id not in moment.failover_edges and getattr(
                    edge, "source_port", "requests") == "requests":
                target_region = _region_of(design, edge.target)
                if target_region != region:
                    moment.failover_edges.add(edge.id)
                    frontier.append(edge.target)
