"""What the headline figures say, and on what basis: the one place the tiles, the status line under
them, the canvas badges and the tests read a figure from.

A :class:`Reading` is the steady state (the simulator's analytic answer with the replicas as
configured) at the requirements' mean rate (what ``inferboard simulate`` prints) or at their peak
rate (``inferboard simulate --peak``), or one moment of the simulated timeline (autoscaling,
traffic pattern and faults included, what the plots show under their cursor). Nothing here
imports Qt."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from inferboard import humanize

#: The headline figures, in tile order.
HEADLINE = ("p50_ms", "p95_ms", "p99_ms", "throughput_rps", "shed_rate", "error_rate", "cost_per_hour",
            "cost_per_1k")

STEADY = "steady"
#: The steady state at the requirements' peak rate.
PEAK = "peak"
PLAYHEAD = "playhead"


def number(x: Any) -> float | None:
    """A finite float from a figure that may be a float, None, or an estimate with ``.value``."""
    if x is None:
        return None
    x = getattr(x, "value", x)
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def cost_per_1k(cost_per_hour: float | None, served_rps: float | None) -> float | None:
    """The cost of a thousand served requests, or None without a cost or traffic."""
    if cost_per_hour is None or not served_rps or served_rps <= 0:
        return None
    return cost_per_hour / (served_rps * 3600.0) * 1000.0


@dataclass(frozen=True)
class Reading:
    """One set of headline figures and where they come from (steady state, peak, or a tick of the timeline)."""

    #: STEADY, PEAK or PLAYHEAD
    mode: str
    values: dict[str, float | None]
    offered_rps: float | None
    #: Short, for a tile's bottom line: "steady, mean", "steady, peak", "at 14:20".
    short_basis: str
    #: Whole sentence: what these numbers are and what they assume.
    basis: str
    time_s: float | None = None
    index: int | None = None
    events: tuple[str, ...] = field(default=())
    #: The timeline a PLAYHEAD reading was taken from.
    source: Any = field(default=None, compare=False, repr=False)

    def text(self, key: str) -> str:
        """Figure ``key`` in words and units, as the tiles show it."""
        return humanize.figure(key, self.values.get(key))

    def status_line(self) -> str:
        """One line with every headline figure of this reading, for under the tiles."""
        head = {PLAYHEAD: f"At {humanize.clock(self.time_s)} on the timeline", PEAK: "Steady state at peak"}.get(
            self.mode, "Steady state at the mean rate")
        parts = [f"offered {humanize.rate(self.offered_rps)}", f"served {self.text('throughput_rps')}",
                 f"p99 {self.text('p99_ms')}", f"shed {self.text('shed_rate')}", f"errors {self.text('error_rate')}",
                 f"cost {self.text('cost_per_hour')}"]
        line = f"{head}: " + ", ".join(parts)
        if self.events:
            line += " — " + self.events[0]
        return line


def steady_reading(result: Any, at_peak: bool = False) -> Reading:
    """The steady state ``result`` (a design_sim DesignResult or anything with its fields), worked
    out at the requirements' mean rate, or at their peak rate when ``at_peak``."""
    values = {key: number(getattr(result, key, None)) for key in HEADLINE}
    # "Shed" counts every request turned away or timed out, as the timeline's shed rate does (the
    # steady state reports the time-outs of a saturated queue apart).
    timed_out = number(getattr(result, "timeout_rate", None)) or 0.0
    if values["shed_rate"] is not None:
        values["shed_rate"] += timed_out
    offered = number(getattr(result, "offered_rps", None))
    replicas = _configured_replicas(result)
    if at_peak:
        basis = (f"Steady state at peak, {humanize.rate(offered)} (the requirements' peak rate){replicas}: the "
                 "analytic answer, without autoscaling, traffic pattern or timed faults, as “inferboard simulate "
                 "--peak” prints it.")
        return Reading(PEAK, values, offered, "steady, peak", basis)
    basis = (f"Steady state at {humanize.rate(offered)} (the mean rate){replicas}: the analytic answer, "
             "without autoscaling, traffic pattern or timed faults, as “inferboard simulate” prints it.")
    return Reading(STEADY, values, offered, "steady, mean", basis)


def _configured_replicas(result: Any) -> str:
    nodes = getattr(result, "nodes", None) or {}
    pools = [(node_id, n.replicas) for node_id, n in nodes.items()
             if getattr(n, "replicas", None) is not None and getattr(n, "utilisation", None) is not None]
    if not pools:
        return ""
    shown = ", ".join(f"{node_id} {replicas}" for node_id, replicas in pools[:3])
    return f", replicas as configured ({shown}{', ...' if len(pools) > 3 else ''})"


def timeline_value(timeline: Any, key: str, index: int) -> float | None:
    """The value of series ``key`` at tick ``index``, or None."""
    series = timeline.series.get(key)
    if series is None or index >= len(series):
        return None
    return number(series[index])


def busiest_index(timeline: Any) -> int:
    """The tick with the most offered traffic (the first of equals): where the playhead starts."""
    offered = timeline.series.get("offered_rps")
    if offered is None or not len(offered):
        return 0
    best, index = -1.0, 0
    for i, value in enumerate(offered):
        if value > best + 1e-9:
            best, index = float(value), i
    return index


def timeline_reading(timeline: Any, index: int, pattern: str | None = None) -> Reading:
    """The timeline's figures at tick ``index`` (clamped to the run)."""
    count = len(timeline.times_s)
    index = max(0, min(int(index), count - 1))
    t = float(timeline.times_s[index])
    values = {key: timeline_value(timeline, key, index) for key in HEADLINE if key != "cost_per_1k"}
    values["cost_per_1k"] = cost_per_1k(values.get("cost_per_hour"), values.get("throughput_rps"))
    offered = timeline_value(timeline, "offered_rps", index)
    tick = float(timeline.times_s[1] - timeline.times_s[0]) if count > 1 else 60.0
    events = tuple(f"{humanize.clock(e.time_s)} {humanize.in_text(e.message)}" for e in getattr(timeline, "events", []) or []
                   if abs(e.time_s - t) <= max(tick, 60.0))
    busiest = " (the busiest moment)" if index == busiest_index(timeline) else ""
    traffic = f"{pattern} traffic" if pattern else "the requirements' traffic pattern"
    basis = (f"At {humanize.clock(t)} on the simulated timeline{busiest}: {humanize.rate(offered)} offered, "
             f"{traffic}, replicas as the autoscalers set them, faults in force then (the plots' cursor).")
    return Reading(PLAYHEAD, values, offered, f"at {humanize.clock(t)}", basis, t, index, events, timeline)


def load_test_line(summary: Any, steady: Reading | None, rate_basis: str = "") -> str:
    """The load test's figures with their basis (``rate_basis`` says whose rate it ran at) and why
    they differ from ``steady``: the steady state at the same rate, or the figures shown."""
    n = int(getattr(summary, "n_requests", 0) or 0)
    offered = number(getattr(summary, "offered_rps", None))
    ci = getattr(summary, "ci_ms", {}) or {}

    def with_interval(key: str) -> str:
        value = number(getattr(summary, f"{key}_ms", None))
        low, high = (ci.get(key) or (None, None))[:2]
        text = humanize.duration_ms(value)
        if value is not None and low is not None and high is not None:
            text += f" (95% interval {humanize.duration_ms(low)}–{humanize.duration_ms(high)})"
        return text

    state = ", cancelled: partial results" if getattr(summary, "cancelled", False) else ""
    rate = f" ({rate_basis})" if rate_basis else ""
    line = (f"Load test, {humanize.count(n)} requests at {humanize.rate(offered)}{rate}{state}: "
            f"p50 {with_interval('p50')}, p95 {with_interval('p95')}, p99 {with_interval('p99')}")
    lost = sum(int(getattr(summary, k, 0) or 0) for k in ("shed", "timed_out", "errors"))
    if n:
        line += f"; {humanize.share(lost / n)} not served"
    same_rate = (steady is not None and steady.mode != PLAYHEAD and offered is not None
                 and steady.offered_rps is not None and abs(steady.offered_rps - offered) <= 1e-6 * max(1.0, offered))
    if same_rate:
        line += (f". The steady-state p99 at the same rate and replicas is {steady.text('p99_ms')}: that is the "
                 "analytic approximation, the load test follows every request, so they differ by the "
                 "approximation's error and the test's sampling noise (its interval).")
    elif steady is not None and steady.mode == PLAYHEAD:
        line += (f". It ran with the replicas as configured; the tiles ({steady.short_basis}) have the "
                 "autoscalers' replicas and the faults then, so they need not agree with it.")
    elif steady is not None:
        line += (f". It ran with the replicas as configured; the tiles ({steady.short_basis}) are at "
                 f"{humanize.rate(steady.offered_rps)}, so they need not agree with it.")
    return line
