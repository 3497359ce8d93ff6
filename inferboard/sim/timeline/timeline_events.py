"""What an on-call engineer sees on a timeline: faults and failovers, shedding, queues building and
draining, SLO breaches and recoveries, burn-rate alerts firing and resolving (with the window that
fired), and the time the system takes to recover after a fault.

Events are found on the series so far; a stretch of a stepped timeline emits only the events of
its own ticks, so stepping gives the same events as one run over the whole horizon.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from inferboard.model.faults import FAULT_KINDS
from inferboard.sim.timeline.fault_regimes import detection_delay
from inferboard.sim.timeline.stepped import SteppedTimeline

BURN_WINDOWS = ((3600.0, 300.0, 14.4, "fast burn"), (21600.0, 1800.0, 6.0, "slow burn"))
SHED_ON, SHED_OFF = 1e-3, 5e-4
QUEUE_ON_S = 1.0  #: a backlog this many seconds of wait deep is a queue building
HEALTHY_BURN = 1.0  #: recovered: burning the error budget no faster than it is earned, no backlog


def _edges(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d = np.diff(np.concatenate(([0], flags.astype(np.int8))))
    return np.flatnonzero(d == 1), np.flatnonzero(d == -1)


def hysteresis(values: np.ndarray, on: float, off: float) -> np.ndarray:
    """True from a value above ``on`` until the next one below ``off``."""
    state = np.full(values.size, -1, dtype=np.int8)
    state[values > on], state[values < off] = 1, 0
    index = np.where(state >= 0, np.arange(values.size), 0)
    return state[np.maximum.accumulate(index)] == 1


def rolling_mean(values: np.ndarray, window_s: float, tick_s: float) -> np.ndarray:
    """Trailing mean over ``window_s`` (partial at the start)."""
    n = max(1, int(round(window_s / tick_s)))
    cumulative = np.concatenate(([0.0], np.cumsum(values)))
    i = np.arange(values.size)
    low = np.maximum(0, i + 1 - n)
    return (cumulative[i + 1] - cumulative[low]) / (i + 1 - low)


def _duration(seconds: float) -> str:
    """A span in words: seconds, minutes, or hours from two hours on."""
    if seconds >= 7200:
        return f"{seconds / 3600:g} h"
    return f"{seconds:g} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _shed_reason(design, node_id: str) -> str:
    """Why a router turns traffic away: nothing wired after it, else its limits."""
    wired = any(edge.source == node_id for edge in design.edges.values())
    return "rate limit or admission control" if wired else "nothing is wired after it to take the traffic"


def rise_before(rises: np.ndarray, i: int) -> int:
    """The last rising edge before tick ``i`` (0 if none)."""
    earlier = rises[rises < i]
    return int(earlier[-1]) if earlier.size else 0


@dataclass
class _Stretch:
    """Ticks ``k0:k1`` of a timeline being turned into events: its series known up to ``k1``, and how
    to emit an event that falls inside the stretch (events before it were emitted already)."""

    state: SteppedTimeline
    k0: int
    k1: int
    times: np.ndarray
    series: dict[str, np.ndarray]
    aux: dict[str, np.ndarray]

    @classmethod
    def of(cls, state: SteppedTimeline, k0: int, k1: int) -> _Stretch:
        """The stretch ``k0:k1`` of ``state``."""
        return cls(state, k0, k1, state.times[:k1], {k: v[:k1] for k, v in state.series.items()},
                   {k: v[:k1] for k, v in state.aux.items()})

    @property
    def low(self) -> int:
        """The tick before the stretch (an edge at ``k0`` compares with it)."""
        return max(0, self.k0 - 1)

    def emit(self, i: int, kind: str, node_id: str, message: str) -> None:
        """Emit an event at tick ``i`` if the tick is in this stretch."""
        if self.k0 <= i < self.k1:
            self.state.emit(self.times[i], kind, node_id, message)

    def flags(self, node_id: str, values: np.ndarray, kinds: tuple[str, str], on_message, off_message) -> None:
        """An event at each rising edge of ``values`` (``kinds[0]``) and each falling one (``kinds[1]``);
        ``off_message`` is text or a function of the tick."""
        rises, falls = _edges(values)
        for i in rises:
            self.emit(i, kinds[0], node_id, on_message(i))
        for i in falls:
            self.emit(i, kinds[1], node_id, off_message(i) if callable(off_message) else off_message)

    def no_edge(self, values: np.ndarray, on: float, off: float) -> bool:
        """No edge of a hysteresis flag can fall in this stretch (a cheap look at its ticks only; the
        flag is off before the first tick)."""
        window = values[self.low:self.k1]
        return bool((window < off).all() or self.k0 > 0 and (window > on).all())

    def steady_flag(self, flag: np.ndarray) -> bool:
        """The flag has no edge in this stretch."""
        window = flag[self.low:self.k1]
        return bool(not window.any() or self.k0 > 0 and window.all())


def stretch_events(state: SteppedTimeline, k0: int, k1: int) -> None:
    """Emit the events of ticks ``k0:k1`` of ``state`` (series known up to ``k1``): faults with their
    failovers and recoveries, shedding, queues, SLO breaches and burn-rate alerts, in that order."""
    st = _Stretch.of(state, k0, k1)
    bad = st.series["error_rate"] + st.series["shed_rate"]
    for fault in state.timed:
        _fault_events(st, fault, bad)
    _shedding_events(st)
    _queue_events(st)
    _slo_events(st)
    _burn_rate_events(st)


def _fault_events(st: _Stretch, f, bad: np.ndarray) -> None:
    """A fault's start and end, the time the system took to recover from it, and its failover."""
    state, count = st.state, st.k1
    start, end = state.tick_of(f.start_s), state.tick_of(f.start_s + f.duration_s)
    if start >= state.count:
        return
    title, target = FAULT_KINDS[f.kind][0], "" if f.target == "*" else f.target
    amount = "" if f.magnitude is None else f" ({f.magnitude:g})"
    where = "everywhere" if f.target == "*" else f"on {f.target}"
    st.emit(start, "fault_started", target, f"{title}{amount} {where} for {_duration(f.duration_s)}")
    if end < count:
        st.emit(end, "fault_ended", target, f"{title} on {f.target} is over")
        _recovery(st, f, start, end, title, target)
    delay, failover = detection_delay(state.design, f.target) if f.kind == "region_outage" else (math.inf, False)
    detect = state.tick_of(f.start_s + delay) if math.isfinite(delay) else state.count
    if not failover or detect >= min(end, state.count) or detect >= count:
        return
    where = "moves to the other regions" if bad[detect] < SHED_ON else "has no healthy region to go to"
    st.emit(detect, "failover_started", f.target,
            f"health checks marked {f.target} down after {delay:g} s; its traffic {where}")
    settled = np.flatnonzero(bad[detect:min(end, count)] < SHED_ON)
    if settled.size:
        st.emit(detect + int(settled[0]), "failover_done", f.target,
                f"traffic of {f.target} is served elsewhere; errors and shedding under {SHED_ON:.1%}")


def _recovery(st: _Stretch, f, start: int, end: int, title: str, target: str) -> None:
    """Time to recover from a fault that is over: from its start to the first healthy tick after its
    last bad one (remembered on the state, as a later stretch may see it)."""
    state, series, times, count = st.state, st.series, st.times, st.k1
    memo = state.recovery.get(id(f))
    if memo is None:  # the fault is over: where it last hurt is known for good
        unhealthy = np.flatnonzero(~_healthy(state, series, start, end))
        last_bad = start + int(unhealthy[-1]) if unhealthy.size else None
        memo = state.recovery[id(f)] = [last_bad, None if last_bad is None else last_bad + 1]
    if memo[1] is None or memo[1] >= count:
        return
    healthy = np.flatnonzero(_healthy(state, series, memo[1], count))
    if not healthy.size:
        memo[1] = count
        return
    r = memo[1] + int(healthy[0])
    memo[1] = None
    after = f", {_duration(times[r] - times[end])} after it ended" if r > end else ""
    st.emit(max(r, end), "recovered", target, f"recovered {_duration(times[r] - times[start])} after the "
            f"{title.lower()} began{after}: no backlog, error budget no longer burning")


def _shedding_events(st: _Stretch) -> None:
    """Stations and routers that start and stop shedding."""
    kinds = ("shedding_started", "shedding_stopped")
    for name, loss in st.aux.items():
        if st.no_edge(loss, SHED_ON, SHED_OFF):
            continue
        if name.startswith("loss:"):
            st.flags(name[5:], hysteresis(loss, SHED_ON, SHED_OFF), kinds,
                     lambda i, x=loss: f"{x[i]:.2%} of its arrivals shed (timeouts, full queue or no ready replica)",
                     f"shedding below {SHED_OFF:.2%}")
        elif name.startswith("router_shed:"):
            why = _shed_reason(st.state.design, name[12:])
            st.flags(name[12:], hysteresis(loss, SHED_ON, SHED_OFF), kinds,
                     lambda i, x=loss, why=why: f"sheds {x[i]:.2%} of all traffic ({why})", "no longer shedding")


def _queue_events(st: _Stretch) -> None:
    """Backlogs building (a second of wait) and draining, with their peak."""
    times = st.times
    for name, backlog in st.series.items():
        if not name.startswith("backlog:"):
            continue
        sid = name[8:]
        if not backlog[st.low:st.k1].any():
            continue
        capacity = np.maximum(st.aux.get(f"capacity:{sid}", np.ones(st.k1)), 1e-12)
        wait = backlog / capacity
        building = hysteresis(wait, QUEUE_ON_S, 1e-9)
        rises, _ = _edges(building)
        st.flags(sid, building, ("queue_building", "queue_drained"),
                 lambda i, b=backlog, w=wait: f"a backlog is building: {b[i]:,.0f} requests waiting, "
                                              f"{w[i]:.1f} s of wait and growing",
                 lambda i, b=backlog, w=wait, r=rises: (
                     f"queue drained after {_duration(times[i] - times[rise_before(r, i)])}; it peaked at "
                     f"{b[rise_before(r, i):i].max():,.0f} requests ({w[rise_before(r, i):i].max():.1f} s of wait)"))


def _slo_events(st: _Stretch) -> None:
    """The p99 crossing the requirements' SLO, and back."""
    req, times = st.state.design.requirements, st.times
    if req.slo_p99_ms is None:
        return
    p99 = st.series["p99_ms"]
    breach = p99 > req.slo_p99_ms
    if st.steady_flag(breach):
        return
    rises, _ = _edges(breach)
    st.flags("", breach, ("slo_breached", "slo_recovered"),
             lambda i: f"p99 {p99[i]:.1f} ms exceeds the {req.slo_p99_ms:g} ms SLO",
             lambda i: f"p99 back within the {req.slo_p99_ms:g} ms SLO after "
                       f"{_duration(times[i] - times[rise_before(rises, i)])}")


def _burn_rate_events(st: _Stretch) -> None:
    """Multi-window burn-rate alerts firing and resolving (each of :data:`BURN_WINDOWS`)."""
    burn, tick_s, times = st.series["burn_rate"], st.state.tick_s, st.times
    cumulative = np.concatenate(([0.0], np.cumsum(burn)))
    for long_s, short_s, threshold, label in BURN_WINDOWS:
        near = (_window_mean(cumulative, st.low, st.k1, long_s, tick_s) > threshold) & (
            _window_mean(cumulative, st.low, st.k1, short_s, tick_s) > threshold)
        if not near.any() or st.k0 > 0 and near.all():  # no edge in this stretch
            continue
        slow, fast = rolling_mean(burn, long_s, tick_s), rolling_mean(burn, short_s, tick_s)
        firing = (slow > threshold) & (fast > threshold)
        rises, _ = _edges(firing)
        st.flags("", firing, ("burn_rate_alert", "burn_rate_resolved"),
                 lambda i, s=slow, f=fast, lw=long_s, sw=short_s, th=threshold, lb=label: (
                     f"page ({lb}, {lw / 3600:g} h and {sw / 60:g} min windows): error budget burning {s[i]:.1f}× "
                     f"over {lw / 3600:g} h and {f[i]:.1f}× over {sw / 60:g} min (threshold {th:g}×)"),
                 lambda i, lb=label, lw=long_s, sw=short_s, r=rises: (
                     f"alert resolved ({lb}, {lw / 3600:g} h and {sw / 60:g} min windows) after "
                     f"{_duration(times[i] - times[rise_before(r, i)])}"))


def _healthy(state: SteppedTimeline, series: dict[str, np.ndarray], lo: int, hi: int) -> np.ndarray:
    """Ticks ``lo:hi`` where no station holds a backlog and the error budget burns at most 1×."""
    ok = series["burn_rate"][lo:hi] <= HEALTHY_BURN
    for name, backlog in series.items():
        if name.startswith("backlog:"):
            ok &= backlog[lo:hi] <= 0
    return ok


def _window_mean(cumulative: np.ndarray, lo: int, hi: int, window_s: float, tick_s: float) -> np.ndarray:
    """:func:`rolling_mean` at ticks ``lo:hi`` only, from the cumulative sums of the whole series."""
    n = max(1, int(round(window_s / tick_s)))
    i = np.arange(lo, hi)
    low = np.maximum(0, i + 1 - n)
    return (cumulative[i + 1] - cumulative[low]) / (i + 1 - low)
