"""Figures explained in words a candidate understands, for the window's "Working" and for
``inferboard simulate --explain``.

:mod:`inferboard.sim.explain.explain` records the simulator's notation (models, formulas, inputs); this
module tells the same story in plain words with node labels instead of ids, for example::

    p99 = 11 ms: 99 in 100 requests are answered within 11 ms. An average request takes 8.1 ms:
    1.0 ms at Gateway + 4.2 ms waiting for a batch at Batcher + 2.9 ms on GPUs (3 replicas, 20% busy).

Two sources are explained: a steady state (a design_sim DesignResult) and one tick of a timeline
(a TimelineResult), so the window can explain whichever basis its tiles show."""

from __future__ import annotations

import math
from typing import Any

from inferboard import humanize
from inferboard.model.faults import FAULT_KINDS
from inferboard.sim.design.faults import DEFAULT_MAGNITUDE

LATENCY_KEYS = {"p50_ms": 50, "p95_ms": 95, "p99_ms": 99, "mean_ms": None}


def node_name(design: Any, node_id: str | None) -> str:
    """The label a user gave a node, else its id."""
    if not node_id:
        return "the design"
    nodes = getattr(design, "nodes", {}) if design is not None else {}
    node = nodes.get(node_id)
    label = getattr(node, "label", "") if node is not None else ""
    if not label:
        return node_id
    shared = sum(1 for other in nodes.values() if getattr(other, "label", "") == label) > 1
    return f"{label} ({node_id})" if shared else label


def _ms(seconds: float) -> float:
    return seconds * 1000.0 if math.isfinite(seconds) else math.inf


def _batchers_of(result: Any, station_id: str) -> list[str]:
    compiled = getattr(result, "compiled", None)
    if compiled is None:
        return []
    return [n for n, s in compiled.station_of.items() if s == station_id and n != station_id]


def station_words(result: Any, design: Any, station: Any) -> str:
    """Where an average request at one station spends its time, in words."""
    name = node_name(design, station.node_id or station.id)
    sojourn = _ms(station.mean_sojourn_s)
    if getattr(station, "model", "") == "delay" or station.capacity_unlimited:
        return f"{humanize.duration_ms(sojourn)} at {name}"
    parts = []
    batching = _ms(getattr(station, "batching_wait_s", 0.0) or 0.0)
    queueing = _ms(getattr(station, "queue_wait_s", 0.0) or 0.0)
    if batching >= 0.05:
        batcher = _batchers_of(result, station.id)
        where = node_name(design, batcher[0]) if batcher else name
        parts.append(f"{humanize.duration_ms(batching)} waiting for a batch at {where}")
    if queueing >= 0.05:
        parts.append(f"{humanize.duration_ms(queueing)} queueing for a free replica")
    service = max(0.0, sojourn - (batching if batching >= 0.05 else 0.0) - (queueing if queueing >= 0.05 else 0.0))
    node = (getattr(result, "nodes", {}) or {}).get(station.node_id)
    replicas = getattr(node, "replicas", None)
    detail = f"{replicas} replica{'s' if replicas != 1 else ''}, " if replicas is not None else ""
    parts.append(f"{humanize.duration_ms(service)} on {name} ({detail}{humanize.share(station.utilisation)} busy)")
    return " + ".join(parts)


def _path_words(result: Any, design: Any) -> str:
    net = getattr(result, "network", None)
    offered = float(getattr(result, "offered_rps", 0.0) or 0.0)
    if net is None or offered <= 0:
        return ""
    pieces = []
    for station in net.stations.values():
        if station.arrival_rps <= 0:
            continue
        words = station_words(result, design, station)
        share = station.arrival_rps / offered
        if share < 0.995:
            words += f" (for the {humanize.share(share)} of requests that go there)"
        pieces.append(words)
    if not pieces:
        return ""
    return f"An average request takes {humanize.duration_ms(result.mean_ms)}: " + " + ".join(pieces) + "."


def _saturated_words(result: Any, design: Any) -> str:
    net = getattr(result, "network", None)
    if net is None:
        return ""
    full = [s for s in net.stations.values() if s.saturated]
    if not full:
        return ""
    worst = max(full, key=lambda s: s.arrival_rps / s.capacity_rps if s.capacity_rps > 0 else math.inf)
    return (f"{node_name(design, worst.node_id or worst.id)} cannot keep up: it is sent "
            f"{humanize.rate(worst.arrival_rps)} but can serve at most {humanize.rate(worst.capacity_rps)}, so its "
            "queue grows until requests are shed or time out, and the waiting sets the latency.")


def steady_words(result: Any, design: Any, key: str) -> str:
    """A steady-state figure in words (Markdown: a bold head line, then sentences)."""
    offered = getattr(result, "offered_rps", None)
    at = f"at {humanize.rate(offered)} offered, steady state"
    value = getattr(result, key, None) if not key.startswith("nodes.") else None
    if key in LATENCY_KEYS:
        pct = LATENCY_KEYS[key]
        head = f"**{key[:3] if pct else 'mean'} = {humanize.duration_ms(value)}** ({at})."
        meaning = (f" {pct} in 100 requests are answered within {humanize.duration_ms(value)}." if pct else "")
        tail = (" The slowest requests are the ones that met the longest queues, so the tail is longer than the "
                "average." if pct and pct >= 95 else "")
        return " ".join(p for p in (head + meaning, _saturated_words(result, design), _path_words(result, design)
                                    + tail) if p.strip())
    if key == "throughput_rps":
        lost = (offered or 0.0) - (value or 0.0)
        text = f"**Served {humanize.rate(value)}** of {humanize.rate(offered)} offered ({humanize.per_day(value)})."
        if lost > 1e-6 * max(1.0, offered or 0.0):
            text += f" {humanize.rate(lost)} are not served. " + _saturated_words(result, design)
        return text.strip()
    if key in ("shed_rate", "error_rate"):
        if key == "shed_rate":  # turned away or timed out, as the timeline counts it
            value = (value or 0.0) + (getattr(result, "timeout_rate", 0.0) or 0.0)
        rps = (value or 0.0) * (offered or 0.0)
        what = "shed (turned away by full queues, rate limits or time-outs)" if key == "shed_rate" else (
            "answered with an error (failing replicas, or traffic sent to capacity that is down)")
        text = f"**{humanize.share(value)} of requests are {what}**: {humanize.rate(rps)} of {humanize.rate(offered)}."
        if key == "shed_rate":
            text += " " + _saturated_words(result, design)
        return text.strip()
    if key == "cost_per_hour":
        items = {k: v for k, v in (result.compiled.cost_items.items() if getattr(result, "compiled", None) else [])
                 if v > 0}
        top = sorted(items.items(), key=lambda kv: -kv[1])[:4]
        parts = []
        for node_id, cost in top:
            node = result.nodes.get(node_id)
            replicas = f" for {node.replicas} replicas" if node is not None and node.replicas else ""
            parts.append(f"{node_name(design, node_id)} {humanize.money_per_hour(cost)}{replicas}")
        more = " and the rest" if len(items) > len(top) else ""
        return (f"**{humanize.money_per_hour(value)}** (about {humanize.money((value or 0.0) * 24 * 30)} a month) "
                f"at list prices with the replicas as configured: " + ", ".join(parts) + more + ".")
    if key == "cost_per_1k":
        served = getattr(result, "throughput_rps", 0.0) or 0.0
        if value is None or served <= 0:
            return "**No cost per request**: nothing is served."
        return (f"**{humanize.money(value)} per 1,000 requests**: {humanize.money_per_hour(result.cost_per_hour)} "
                f"spread over {humanize.count(served * 3600)} requests served an hour.")
    return ""


def timeline_words(timeline: Any, index: int, design: Any, key: str) -> str:
    """One tick of a timeline in words: the figure, then what each pool was doing."""
    series = timeline.series
    index = max(0, min(int(index), len(timeline.times_s) - 1))
    t = float(timeline.times_s[index])

    def at(name: str) -> float | None:
        values = series.get(name)
        return float(values[index]) if values is not None and index < len(values) else None

    offered, served = at("offered_rps"), at("throughput_rps")
    head = {"throughput_rps": f"**Served {humanize.rate(served)}** of {humanize.rate(offered)} offered",
            "shed_rate": f"**{humanize.share(at('shed_rate'))} shed**",
            "error_rate": f"**{humanize.share(at('error_rate'))} errors**",
            "cost_per_hour": f"**{humanize.money_per_hour(at('cost_per_hour'))}**"}.get(key)
    if key in LATENCY_KEYS and LATENCY_KEYS[key]:
        head = f"**{key[:3]} = {humanize.duration_ms(at(key))}**: {LATENCY_KEYS[key]} in 100 requests answered within it"
    if key == "cost_per_1k":
        cost = at("cost_per_hour")
        per_1k = cost / (served * 3.6) if cost is not None and served else None
        head = f"**{humanize.money(per_1k)} per 1,000 requests**"
    lines = [f"{head or key} at {humanize.clock(t)} on the simulated timeline, with {humanize.rate(offered)} "
             "offered."]
    pools = sorted(k.split(":", 1)[1] for k in series if k.startswith("utilisation:"))
    for pool in pools:
        replicas, util = at(f"replicas:{pool}"), at(f"utilisation:{pool}")
        queue, wait = at(f"queue:{pool}"), at(f"wait_ms:{pool}")
        if replicas is None and util is None:
            continue
        ready = at(f"ready:{pool}")
        starting = (f", {replicas - ready:.0f} still starting" if ready is not None and replicas is not None
                    and replicas - ready >= 0.5 else "")
        count = f"{replicas:.0f} replica{'' if round(replicas) == 1 else 's'}" if replicas is not None else "replicas"
        lines.append(f"- {node_name(design, pool)}: {count}{starting}, {humanize.share(util)} busy, "
                     f"{queue or 0.0:,.1f} requests queued, {humanize.duration_ms(wait)} average wait.")
    near = [e for e in getattr(timeline, "events", []) or [] if abs(e.time_s - t) <= 300]
    for event in near[:3]:
        lines.append(f"- {humanize.clock(event.time_s)}: {humanize.in_text(event.message)}")
    return "\n".join(lines)


def _magnitude_words(kind: str, magnitude: float) -> str:
    if kind in ("slow_canary", "slow_replica"):
        return f"{magnitude:g}x slower"
    if kind in ("failing_replica", "dependency_errors"):
        return f"{humanize.share(magnitude)} of requests fail"
    if kind == "traffic_surge":
        return f"{magnitude:g}x the traffic"
    if kind == "gpu_shortage":
        return f"at most {magnitude:g} replicas to be had"
    return ""


def _target_words(target: str, design: Any = None) -> str:
    if target in ("", "*"):
        return "everywhere"
    if "=" in target:
        parts = []
        for part in target.split(","):
            key, _, value = part.partition("=")
            value = value.strip().replace("_", " ")
            parts.append(f"every {value}" if key.strip() == "kind" else f"{key.strip().replace('_', ' ')} {value}")
        return " in ".join(parts) if len(parts) == 2 and parts[0].startswith("every") else ", ".join(parts)
    return node_name(design, target) if design is not None else target


def fault_words(text: str, design: Any = None) -> str:
    """A fault spec such as ``dependency_errors*0.2:kind=feature_service`` in words:
    "Dependency error burst on every feature service: 20% of requests fail"."""
    head, _, timing = text.partition("@")
    kind_part, _, target = head.partition(":")
    kind, _, magnitude_text = kind_part.partition("*")
    kind = kind.strip()
    if kind not in FAULT_KINDS:
        return text
    try:
        magnitude = float(magnitude_text) if magnitude_text else DEFAULT_MAGNITUDE.get(kind)
    except ValueError:
        return text
    where = _target_words(target.strip(), design)
    words = f"{FAULT_KINDS[kind][0]} {where if where == 'everywhere' else 'on ' + where}"
    effect = _magnitude_words(kind, magnitude) if magnitude is not None else ""
    if effect:
        words += f": {effect}"
    if timing:
        start, _, duration = timing.partition("+")
        words += f" (from {start.strip()} into the day" + (f", for {duration.strip()})" if duration else ")")
    return words
