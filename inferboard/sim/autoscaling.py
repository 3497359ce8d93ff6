"""Pools over time: the autoscaler (Kubernetes HPA rules, KEDA queue-depth semantics, Knative
scale to zero) and the replica count it produces tick by tick.

The queue a pool presents at a given load and replica count, which the autoscaler's metric is read
from, is the tick model in :mod:`tickqueue` (its names are re-exported here).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right, insort
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from inferboard.sim.tickqueue import (DEFAULT_PATIENCE_S, Z95, StationParams, StationState, log_erlang_b,
                                      patience_queue, station_state)

__all__ = ["AutoscalerConfig", "PoolPlanOverTime", "PoolTrack", "autoscaler_for", "hpa_desired", "hpa_desired_array",
           "schedule_floor", "simulate_pool",
           # the tick model, re-exported from tickqueue
           "DEFAULT_PATIENCE_S", "Z95", "StationParams", "StationState", "log_erlang_b", "patience_queue",
           "station_state"]

HPA_SCALE_UP_PODS = 4
HPA_SCALE_UP_PERCENT = 100.0
HPA_POLICY_PERIOD_S = 60.0
KNATIVE_STABLE_WINDOW_S = 60.0
EPS_T = 1e-6
#: Skip quiet stretches of the control loop in vectorised chunks (False: evaluate every tick; same result).
SKIP_QUIET_STRETCHES = True


# ----------------------------------------------------------------------------- the autoscaler
@dataclass(frozen=True)
class AutoscalerConfig:
    autoscaler_id: str
    metric: str
    target: float
    tolerance: float = 0.1
    sync_period_s: float = 15.0
    up_window_s: float = 0.0
    down_window_s: float = 300.0
    min_replicas: int = 1
    max_replicas: int = 10
    scale_to_zero: bool = False
    zero_grace_s: float = 30.0
    schedule: tuple[tuple[float, int], ...] = ()


def autoscaler_for(design, pool_id: str) -> AutoscalerConfig | None:
    """The autoscaler wired to ``pool_id``'s scaling input, with min/max clamped to the pool's."""
    for edge in design.edges.values():
        if edge.target != pool_id or edge.target_port != "scaling":
            continue
        source = design.nodes[edge.source]
        if source.kind != "autoscaler":
            continue
        a, pool = source.params, design.nodes[pool_id].params
        hi = min(int(a["max_replicas"]), int(pool.get("max_replicas", a["max_replicas"])))
        lo = min(max(int(a["min_replicas"]), int(pool.get("min_replicas", 0)), 1), hi)
        schedule = tuple(sorted((float(h), int(r)) for h, r in a.get("predictive_schedule", []))) \
            if a.get("predictive") else ()
        return AutoscalerConfig(source.id, str(a["metric"]), float(a["target"]), float(a["tolerance"]),
                                float(a["sync_period_s"]), float(a["scale_up_stabilization_s"]),
                                float(a["scale_down_stabilization_s"]), lo, max(hi, 1),
                                bool(a["scale_to_zero"]), float(a["scale_to_zero_grace_s"]), schedule)
    return None


def hpa_desired(metric: str, value: float, target: float, tolerance: float, replicas: int, ready: int) -> int:
    """One HPA recommendation. Per-pod metrics (utilisation, latency) follow the resource rules:
    ``ceil(ready × value/target)``, starting replicas counted as 0% when scaling up; total metrics
    (queue_depth, rps: KEDA AverageValue) give ``ceil(total / target)``. Within tolerance: no change."""
    if metric in ("queue_depth", "rps"):
        ratio = value / (target * max(replicas, 1))
        return replicas if abs(ratio - 1) <= tolerance else math.ceil(value / target - 1e-9)
    ratio = value / target
    starting = replicas - ready
    if starting <= 0 or ratio <= 1:
        return replicas if abs(ratio - 1) <= tolerance else math.ceil(ratio * ready - 1e-9)
    new_ratio = ratio * ready / replicas
    if abs(new_ratio - 1) <= tolerance or new_ratio < 1:
        return replicas
    return max(replicas, math.ceil(new_ratio * replicas - 1e-9))


def hpa_desired_array(metric: str, values: np.ndarray, target: float, tolerance: float, replicas: int,
                      ready: int | None = None) -> np.ndarray:
    """:func:`hpa_desired` over many ticks (same replicas and ready count throughout)."""
    ready = replicas if ready is None else ready
    if metric in ("queue_depth", "rps"):
        ratio = values / (target * max(replicas, 1))
        return np.where(np.abs(ratio - 1) <= tolerance, replicas, np.ceil(values / target - 1e-9))
    ratio = values / target
    plain = np.where(np.abs(ratio - 1) <= tolerance, replicas, np.ceil(ratio * ready - 1e-9))
    if ready >= replicas:
        return plain
    new_ratio = ratio * ready / replicas
    held = (np.abs(new_ratio - 1) <= tolerance) | (new_ratio < 1)
    grown = np.maximum(replicas, np.ceil(new_ratio * replicas - 1e-9))
    return np.where(ratio <= 1, plain, np.where(held, replicas, grown))


def schedule_floor(schedule, times_s: np.ndarray, lead_s: float) -> np.ndarray:
    """The predictive floor in force at ``times + lead`` (hour of the simulated day, wrapping)."""
    if not schedule:
        return np.zeros(len(times_s), dtype=np.int64)
    hours = np.array([h for h, _ in schedule])
    values = np.array([v for _, v in schedule], dtype=np.int64)
    hour = ((np.asarray(times_s) + lead_s) % 86400.0) / 3600.0
    index = np.searchsorted(hours, hour + 1e-9, side="right") - 1
    return values[index]  # index -1 wraps to the last entry of the previous day


@dataclass
class PoolPlanOverTime:
    """Everything the replica simulation needs for one pool."""

    pool_id: str
    initial: int
    provisioning_s: float
    spot_share: float
    autoscaler: AutoscalerConfig | None
    #: tick -> list of (kind, started, magnitude) for gpu_shortage / spot_reclaimed faults
    fault_ticks: dict[int, list[tuple[str, bool, float]]] = field(default_factory=dict)
    #: ticks where the pool's parameters or routing change (new fault regime)
    barrier_ticks: tuple[int, ...] = ()


@dataclass
class PoolTrack:
    replicas: np.ndarray
    ready: np.ndarray
    first_ready_s: np.ndarray  #: when the first starting replica is ready while none is (inf otherwise)


Emit = Callable[[float, str, str, str], None]


class _Window:
    """Sliding extreme (max, or min with ``sign=-1``) of recommendations newer than ``window_s``."""

    def __init__(self, window_s: float, sign: int):
        self.window, self.sign, self.items = window_s, sign, deque()

    def query_push(self, t: float, value: int) -> int:
        """The extreme over the window including ``value``; then remember ``value`` at ``t``."""
        items, sign = self.items, self.sign
        while items and items[0][0] <= t - self.window:
            items.popleft()
        best = value if not items else (max(value, items[0][1]) if sign > 0 else min(value, items[0][1]))
        while items and (items[-1][1] <= value if sign > 0 else items[-1][1] >= value):
            items.pop()
        items.append((t, value))
        return best


def simulate_pool(plan: PoolPlanOverTime, times_s: np.ndarray, lam: np.ndarray,
                  metric_at: Callable[[int, int, int], np.ndarray], emit: Emit) -> PoolTrack:
    """Replica count over the whole of ``times_s`` for one pool (see :func:`pool_controller`)."""
    control = pool_controller(plan, times_s, np.asarray(lam, dtype=float), emit)
    track = next(control)
    control.send((len(times_s), metric_at, (), ()))
    return track


def pool_controller(plan: PoolPlanOverTime, times_s: np.ndarray, lam_arr: np.ndarray, emit: Emit):
    """Replica count over time for one pool: faults, provisioning and (if wired) its autoscaler,
    as a resumable generator. The first ``next()`` gives the :class:`PoolTrack` (arrays over all of
    ``times_s``, filled as the run goes); each ``send((limit, metric_at, barriers, commands))`` then
    runs the control loop up to tick ``limit`` (exclusive). ``lam_arr`` is the pool's arrival rate
    per tick; the caller fills it (in place) at least up to ``limit`` before sending. ``barriers``
    are ticks where the pool's parameters change; ``commands`` act at the first tick of the stretch:
    ``("scale", replicas)`` sets the replica count by hand (an autoscaler keeps deciding after it)
    and ``("limits", min, max)`` changes the autoscaler's bounds.

    ``metric_at(r, lo, hi)`` gives the autoscaler's metric over ticks ``lo:hi`` as if ``r`` replicas
    were ready. Decisions happen at tick times; a
    replica asked for at time t serves from the first tick at or after ``t + provisioning_s``;
    removals act at once. Quiet stretches (no recommendation that would act) are skipped in
    vectorised chunks, so the cost grows with the number of decisions rather than of ticks.
    Rules (references §2): HPA recommendation with tolerance every ``sync_period_s``; scale-up
    stabilisation (lowest recommendation in the window) and scale-down stabilisation (highest);
    scale-up rate limit max(+4 pods, +100%) per 60 s; clamp to the autoscaler's and pool's min/max
    and any GPU-shortage cap; Knative scale to zero after 60 s + grace without traffic and
    activation on the first request; the predictive floor asked for ``provisioning_s`` early.
    """
    count = len(times_s)
    times = np.asarray(times_s, dtype=float).tolist()
    a = plan.autoscaler
    pid, prov = plan.pool_id, plan.provisioning_s
    n = ready = plan.initial
    cap: int | None = None
    reclaiming = False
    pending: deque[list] = deque()
    reps = np.full(count, float(n))
    ready_arr = reps.copy()
    first = np.full(count, np.inf)
    up_events: deque[tuple[float, int]] = deque()
    down_events: deque[tuple[float, int]] = deque()
    wake: list[int] = sorted(plan.fault_ticks)
    configured = plan.initial
    track = PoolTrack(reps, ready_arr, first)
    metric_box: list = [None]

    def metric_at(r: int, lo: int, hi: int):
        return metric_box[0](r, lo, hi)

    def mark(i: int) -> None:
        reps[i:] = n
        ready_arr[i:] = ready
        first[i:] = pending[0][0] if ready == 0 and pending else np.inf

    def scale_to(i: int, new: int, why: str, ready_first: bool = False) -> None:
        nonlocal n, ready
        old = n
        if new == old:
            return
        t = times[i]
        if new > old:
            pending.append([t + prov, new - old])
            if a is not None:
                up_events.append((t, new - old))
            if a is None and prov > 0:
                j = int(np.searchsorted(times_s, t + prov - EPS_T))
                if j < count:
                    wake.append(j)
                    wake.sort()
        else:
            drop = old - new
            if a is not None:
                down_events.append((t, drop))
            if ready_first:
                take = min(drop, ready)
                ready -= take
                drop -= take
            while drop and pending:
                take = min(drop, int(pending[-1][1]))
                pending[-1][1] -= take
                drop -= take
                if pending[-1][1] == 0:
                    pending.pop()
            ready -= drop
        n = new
        emit(t, "scaled", pid, f"{old} → {new} replicas: {why}")
        if prov <= 0:
            mature(i)

    def mature(i: int) -> None:
        nonlocal ready
        t, got = times[i], 0
        while pending and pending[0][0] <= t + EPS_T:
            got += int(pending.popleft()[1])
        if got:
            ready += got
            emit(t, "replica_ready", pid, f"{got} replica(s) ready after {prov:g} s provisioning; "
                                          f"{ready} of {n} serving")

    def apply_faults(i: int) -> None:
        nonlocal cap, reclaiming
        for kind, started, magnitude in plan.fault_ticks.get(i, ()):
            if kind == "gpu_shortage":
                cap = max(0, int(magnitude)) if started else None
                if cap is not None and n > cap:
                    scale_to(i, cap, f"GPU shortage caps the pool at {cap}")
            elif kind == "spot_reclaimed":
                reclaiming = started
                spot = int(round(n * plan.spot_share))
                if started and spot:
                    scale_to(i, n - spot, f"{spot} spot replica(s) reclaimed", ready_first=True)
        if a is None:
            target = configured - (int(round(configured * plan.spot_share)) if reclaiming else 0)
            target = target if cap is None else min(target, cap)
            if target != n:
                scale_to(i, target, "fault over: back to the configured count" if target > n else "fault")

    def command(i: int, commands) -> None:
        nonlocal a, configured
        for cmd in commands:
            if cmd[0] == "scale":
                configured = max(0, int(cmd[1]))
                target = configured if cap is None else min(configured, cap)
                if a is not None:
                    target = min(max(target, a.min_replicas), a.max_replicas)
                scale_to(i, target, "scaled by hand")
            elif cmd[0] == "limits" and a is not None:
                low, high = int(cmd[1]), int(cmd[2])
                a = replace(a, min_replicas=max(0, min(low, high)), max_replicas=max(1, high))
                target = min(max(n, a.min_replicas), a.max_replicas)
                if target != n and n > 0:
                    scale_to(i, target, f"autoscaler bounds now {a.min_replicas}-{a.max_replicas}")
        mark(i)

    limit = 0
    if a is None:
        done = -1
        while True:
            if not wake or wake[0] >= limit:
                begin = limit
                limit, metric_box[0], _, commands = yield track
                if commands and begin < count:
                    mature(begin)
                    command(begin, commands)
                continue
            i = wake.pop(0)
            if done < i < count:
                done = i
                mature(i)
                apply_faults(i)
                mark(i)

    times_arr = np.asarray(times_s, dtype=float)
    tick = float(times_s[1] - times_s[0]) if count > 1 else 0.0
    # Ask for the floor early enough that it is ready at the scheduled hour, ticks included.
    floors_arr = np.minimum(schedule_floor(a.schedule, times_s, prov + tick - EPS_T), a.max_replicas)
    floors = floors_arr.tolist()
    sync_index = np.floor(np.asarray(times_s) / a.sync_period_s + 1e-9)
    due_arr = np.concatenate(([True], sync_index[1:] > sync_index[:-1]))
    due, due_ticks = due_arr.tolist(), np.flatnonzero(due_arr)
    due_list = due_ticks.tolist()
    barriers = sorted(set(plan.fault_ticks) | set(plan.barrier_ticks) | {count}
                      | set((np.flatnonzero(np.diff(floors_arr)) + 1).tolist()))
    idle_since = None
    zero_after = KNATIVE_STABLE_WINDOW_S + a.zero_grace_s
    up_window = _Window(a.up_window_s, -1) if a.up_window_s > 0 else None
    down_window = _Window(a.down_window_s, 1)
    fault_set = plan.fault_ticks
    scale_to_zero, any_floor = a.scale_to_zero, bool(a.schedule)

    def next_tick(i: int) -> int:
        """The next tick where anything may change. Syncs skipped on the way recommend nothing that
        acts: nothing above n (or the cap), nothing below n while a recommendation >= n is still in
        the scale-down window. Their recommendations are then pushed (as the windows' survivors)."""
        if n == 0 or not SKIP_QUIET_STRETCHES:
            return i + 1
        hi = a.max_replicas if cap is None else min(a.max_replicas, cap)
        lo = min(max(a.min_replicas, floors[i] if any_floor else 0), hi)
        if not lo <= n <= hi:
            return i + 1
        end = min(barriers[bisect_right(barriers, i)], limit)
        if pending:  # the next replica to become ready ends the quiet stretch
            end = min(end, int(np.searchsorted(times_arr, pending[0][0] - EPS_T)))
            if end <= i + 1:
                return i + 1
        hold = -math.inf  # newest recommendation >= n still in the scale-down window (a prefix of it)
        for ts, v in down_window.items:
            if v < n:
                break
            hold = ts
        start, found, chunk, kept_t, kept_d = i + 1, end, 32, [], []
        if ready > 0 and not scale_to_zero:  # the next syncs in plain Python first: cheap when busy
            k = bisect_right(due_list, i)
            for j in due_list[k:k + 2]:
                if j >= end:
                    break
                d = hpa_desired(a.metric, float(metric_at(ready, j, j + 1)[0]), a.target, a.tolerance, n, ready)
                hold = times[j] if d >= n else hold
                if (d > n and hi > n) or (d < n and lo < n and hold <= times[j] - a.down_window_s):
                    return j
                if up_window is not None:
                    up_window.query_push(times[j], d)
                down_window.query_push(times[j], d)
                start = j + 1
        while start < end:
            stop = min(end, start + chunk)
            chunk = min(4 * chunk, 4096)
            sync = due_ticks[bisect_left(due_ticks, start):bisect_left(due_ticks, stop)] if ready > 0 else due_ticks[:0]
            first = stop
            if sync.size:
                d = hpa_desired_array(a.metric, np.asarray(metric_at(ready, start, stop))[sync - start], a.target,
                                      a.tolerance, n, ready)
                ts = times_arr[sync]
                last_ge = np.maximum(np.maximum.accumulate(np.where(d >= n, ts, -np.inf)), hold)
                act = ((d > n) & (hi > n)) | ((d < n) & (lo < n) & (last_ge <= ts - a.down_window_s))
                hits = np.flatnonzero(act)
                if hits.size:
                    first = int(sync[hits[0]])
                hold = float(last_ge[-1])
            if scale_to_zero:
                zero = np.flatnonzero(lam_arr[start:first] <= 0)
                first = start + int(zero[0]) if zero.size else first
            if sync.size:
                quiet = sync < first
                kept_t.append(ts[quiet])
                kept_d.append(d[quiet])
            if first < stop:
                found = first
                break
            start = stop
        if kept_t and sum(x.size for x in kept_t):
            t_all, d_all = np.concatenate(kept_t), np.concatenate(kept_d)
            if d_all.min() == d_all.max():  # all alike: the last one is the only survivor
                t_all, d_all = t_all[-1:], d_all[-1:]
            later_max = np.concatenate((np.maximum.accumulate(d_all[::-1])[::-1][1:], [-np.inf]))
            for j in np.flatnonzero(d_all > later_max):
                down_window.query_push(float(t_all[j]), int(d_all[j]))
            if up_window is not None:
                later_min = np.concatenate((np.minimum.accumulate(d_all[::-1])[::-1][1:], [np.inf]))
                for j in np.flatnonzero(d_all < later_min):
                    up_window.query_push(float(t_all[j]), int(d_all[j]))
        return found

    i = 0
    while True:
        if i >= limit:
            begin = limit
            limit, metric_box[0], extra, commands = yield track
            for tick in extra:
                if 0 < tick < count and tick not in barriers:
                    insort(barriers, int(tick))
            if commands and begin < count:
                command(begin, commands)
            continue
        before = (n, ready)
        t = times[i]
        if pending and pending[0][0] <= t + EPS_T:
            mature(i)
        if i in fault_set:
            apply_faults(i)
        x = float(lam_arr[i])
        if x > 0:
            idle_since = None
        elif idle_since is None:
            idle_since = t
        floor = floors[i] if any_floor else 0
        hi = a.max_replicas if cap is None else min(a.max_replicas, cap)
        if scale_to_zero and n > 0 and floor == 0 and idle_since is not None and t - idle_since >= zero_after - EPS_T:
            scale_to(i, 0, f"scale to zero after {t - idle_since:g} s without traffic")
        elif n == 0:
            if (x > 0 or floor > 0) and hi > 0:
                scale_to(i, min(hi, max(1, a.min_replicas, floor)), "activation from zero (cold start)")
        else:
            if floor and n < min(floor, hi):
                scale_to(i, min(floor, hi), f"predictive floor {floor} (asked {prov:g} s ahead)")
            if due[i] and ready > 0:
                value = float(metric_at(ready, i, i + 1)[0])
                desired = hpa_desired(a.metric, value, a.target, a.tolerance, n, ready)
                up = up_window.query_push(t, desired) if up_window is not None else desired
                rec = min(max(n, up), down_window.query_push(t, desired))
                if rec > n:
                    while up_events and up_events[0][0] <= t - HPA_POLICY_PERIOD_S:
                        up_events.popleft()
                    while down_events and down_events[0][0] <= t - HPA_POLICY_PERIOD_S:
                        down_events.popleft()
                    base = n - sum(k for _, k in up_events) + sum(k for _, k in down_events)
                    rate_cap = max(base + HPA_SCALE_UP_PODS, math.ceil(base * (1 + HPA_SCALE_UP_PERCENT / 100)))
                    rec = min(rec, max(rate_cap, n))  # never below the current count (as in Kubernetes)
                rec = max(min(max(a.min_replicas, floor), hi), min(hi, rec))
                if rec != n:
                    scale_to(i, rec, f"HPA {a.metric} {value:.3g} vs target {a.target:g}")
        if (n, ready) != before or (ready == 0 and pending and first[i] == np.inf):
            mark(i)
        i = next_tick(i)
        if lam_arr[i - 1] > 0:  # ticks skipped had traffic (zero-traffic ticks are never skipped)
            idle_since = None
