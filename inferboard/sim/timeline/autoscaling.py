"""Pools over time: the autoscaler (Kubernetes HPA rules, KEDA queue-depth semantics, Knative
scale to zero) and the replica count it produces tick by tick (:class:`PoolController`).

The autoscaler's metric is read through a callable the caller hands in (the timeline reads it from
the tick model of :mod:`tickqueue` at the pool's load and ready replicas). The autoscaler's settings
and its per-reading arithmetic live in :mod:`hpa`.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right, insort
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator

import numpy as np

from inferboard.sim.timeline.hpa import (AutoscalerConfig, RecommendationWindow, hpa_desired, hpa_desired_array,
                                         schedule_floor)

__all__ = ["PoolController", "PoolPlanOverTime", "PoolTrack", "pool_controller", "simulate_pool"]

HPA_SCALE_UP_PODS = 4
HPA_SCALE_UP_PERCENT = 100.0
HPA_POLICY_PERIOD_S = 60.0
KNATIVE_STABLE_WINDOW_S = 60.0
EPS_T = 1e-6
#: Skip quiet stretches of the control loop in vectorised chunks (False: evaluate every tick; same result).
SKIP_QUIET_STRETCHES = True


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
    """A pool's replicas per tick: configured, ready, and when the first starting replica is ready while
    none is."""
    replicas: np.ndarray
    ready: np.ndarray
    first_ready_s: np.ndarray  #: when the first starting replica is ready while none is (inf otherwise)


Emit = Callable[[float, str, str, str], None]


def simulate_pool(plan: PoolPlanOverTime, times_s: np.ndarray, lam: np.ndarray,
                  metric_at: Callable[[int, int, int], np.ndarray], emit: Emit) -> PoolTrack:
    """Replica count over the whole of ``times_s`` for one pool (see :class:`PoolController`)."""
    control = pool_controller(plan, times_s, np.asarray(lam, dtype=float), emit)
    track = next(control)
    control.send((len(times_s), metric_at, (), ()))
    return track


def pool_controller(plan: PoolPlanOverTime, times_s: np.ndarray, lam_arr: np.ndarray, emit: Emit) -> Iterator:
    """The resumable control loop of one pool: ``PoolController(...).run()`` (see there)."""
    return PoolController(plan, times_s, lam_arr, emit).run()


class PoolController:
    """Replica count over time for one pool: faults, provisioning and (if wired) its autoscaler.

    :meth:`run` is a resumable generator. The first ``next()`` gives the :class:`PoolTrack` (arrays
    over all of ``times_s``, filled as the run goes); each ``send((limit, metric_at, barriers,
    commands))`` then runs the control loop up to tick ``limit`` (exclusive). ``lam_arr`` is the
    pool's arrival rate per tick; the caller fills it (in place) at least up to ``limit`` before
    sending. ``barriers`` are ticks where the pool's parameters change; ``commands`` act at the first
    tick of the stretch: ``("scale", replicas)`` sets the replica count by hand (an autoscaler keeps
    deciding after it) and ``("limits", min, max)`` changes the autoscaler's bounds.

    ``metric_at(r, lo, hi)`` gives the autoscaler's metric over ticks ``lo:hi`` as if ``r`` replicas
    were ready. Decisions happen at tick times; a replica asked for at time t serves from the first
    tick at or after ``t + provisioning_s``; removals act at once. Quiet stretches (no
    recommendation that would act) are skipped in vectorised chunks, so the cost grows with the
    number of decisions rather than of ticks.

    Rules (references §2), one method each: the HPA recommendation with tolerance every
    ``sync_period_s`` (:meth:`recommend`, from :meth:`read_metric`); scale-up stabilisation (lowest
    recommendation in the window) and scale-down stabilisation (highest) (:meth:`stabilise`); the
    scale-up rate limit max(+4 pods, +100%) per 60 s (:meth:`scale_up_limit`); the clamp to the
    autoscaler's and pool's min/max and any GPU-shortage cap (:meth:`clamp`); Knative scale to zero
    after 60 s + grace without traffic and activation on the first request (:meth:`scale_from_or_to_zero`);
    the predictive floor asked for ``provisioning_s`` early; provisioning (:meth:`scale_to`,
    :meth:`mature`).
    """

    def __init__(self, plan: PoolPlanOverTime, times_s: np.ndarray, lam_arr: np.ndarray, emit: Emit,
                 times_list: list[float] | None = None) -> None:
        count = self.count = len(times_s)
        self.plan, self.emit, self.lam = plan, emit, lam_arr
        self.times_s = times_s
        #: ``times_s`` as a list (``times_list`` when the caller has it: pools of one timeline share it)
        self.times = np.asarray(times_s, dtype=float).tolist() if times_list is None else times_list
        self.times_arr = np.asarray(times_s, dtype=float)
        self.autoscaler = plan.autoscaler
        self.pool_id, self.provisioning_s = plan.pool_id, plan.provisioning_s
        #: replicas asked for, and those of them serving
        self.replicas = self.ready = plan.initial
        #: the count set by hand (or the initial one) a pool without autoscaler returns to after a fault
        self.configured = plan.initial
        self.cap: int | None = None  #: GPU-shortage cap
        self.reclaiming = False  #: a spot reclaim is in force
        #: replicas on their way: [time they are ready, how many]
        self.pending: deque[list] = deque()
        #: scale events of the last policy period (for the scale-up rate limit)
        self.up_events: deque[tuple[float, int]] = deque()
        self.down_events: deque[tuple[float, int]] = deque()
        #: ticks a pool without autoscaler must look at (faults, replicas becoming ready)
        self.wake: list[int] = sorted(plan.fault_ticks)
        reps = np.full(count, float(plan.initial))
        self.track = PoolTrack(reps, reps.copy(), np.full(count, np.inf))
        self.limit = 0  #: ticks below it have been run
        #: stop at the end of the first tick whose ready count differs from the one before (``limit``
        #: then says where): the caller re-routes from there on (:mod:`timeline_routing`)
        self.stop_when_ready_changes = False
        self.metric_at: Callable[[int, int, int], np.ndarray] | None = None
        self.idle_since: float | None = None
        if self.autoscaler is not None:
            self._prepare_autoscaling(self.autoscaler)

    def _prepare_autoscaling(self, a: AutoscalerConfig) -> None:
        times_s, count = self.times_s, self.count
        tick = float(times_s[1] - times_s[0]) if count > 1 else 0.0
        # Ask for the floor early enough that it is ready at the scheduled hour, ticks included.
        floors_arr = np.minimum(schedule_floor(a.schedule, times_s, self.provisioning_s + tick - EPS_T),
                                a.max_replicas)
        self.floors = floors_arr.tolist()
        sync_index = np.floor(np.asarray(times_s) / a.sync_period_s + 1e-9)
        due_arr = np.concatenate(([True], sync_index[1:] > sync_index[:-1]))
        self.due, self.due_ticks = due_arr.tolist(), np.flatnonzero(due_arr)
        self.due_list = self.due_ticks.tolist()
        self.due_times = np.asarray(times_s, dtype=float)[self.due_ticks]
        #: ticks a quiet stretch never skips across (faults, regime changes, floor changes, the end)
        self.barriers = sorted(set(self.plan.fault_ticks) | set(self.plan.barrier_ticks) | {count}
                               | set((np.flatnonzero(np.diff(floors_arr)) + 1).tolist()))
        self.zero_after = KNATIVE_STABLE_WINDOW_S + a.zero_grace_s
        self.up_window = RecommendationWindow(a.up_window_s, -1) if a.up_window_s > 0 else None
        self.down_window = RecommendationWindow(a.down_window_s, 1)
        self.scale_to_zero, self.any_floor = a.scale_to_zero, bool(a.schedule)

    # -- the track --------------------------------------------------------------------------
    def mark(self, i: int) -> None:
        """Write the current counts into the track from tick ``i`` on."""
        track, ready, pending = self.track, self.ready, self.pending
        track.replicas[i:] = self.replicas
        track.ready[i:] = ready
        track.first_ready_s[i:] = pending[0][0] if ready == 0 and pending else np.inf

    # -- provisioning -----------------------------------------------------------------------
    def scale_to(self, i: int, new: int, why: str, ready_first: bool = False) -> None:
        """Ask for ``new`` replicas at tick ``i``: added ones start provisioning, removed ones go at
        once (those still starting first, or the ready ones first with ``ready_first``)."""
        old = self.replicas
        if new == old:
            return
        t, a, prov, pending = self.times[i], self.autoscaler, self.provisioning_s, self.pending
        if new > old:
            pending.append([t + prov, new - old])
            if a is not None:
                self.up_events.append((t, new - old))
            if a is None and prov > 0:
                j = int(np.searchsorted(self.times_s, t + prov - EPS_T))
                if j < self.count:
                    self.wake.append(j)
                    self.wake.sort()
        else:
            drop = old - new
            if a is not None:
                self.down_events.append((t, drop))
            if ready_first:
                take = min(drop, self.ready)
                self.ready -= take
                drop -= take
            while drop and pending:
                take = min(drop, int(pending[-1][1]))
                pending[-1][1] -= take
                drop -= take
                if pending[-1][1] == 0:
                    pending.pop()
            self.ready -= drop
        self.replicas = new
        self.emit(t, "scaled", self.pool_id, f"{old} → {new} replicas: {why}")
        if prov <= 0:
            self.mature(i)

    def mature(self, i: int) -> None:
        """Replicas whose provisioning is over by tick ``i`` start serving."""
        t, got, pending = self.times[i], 0, self.pending
        while pending and pending[0][0] <= t + EPS_T:
            got += int(pending.popleft()[1])
        if got:
            self.ready += got
            self.emit(t, "replica_ready", self.pool_id, f"{got} replica(s) ready after {self.provisioning_s:g} s "
                                                        f"provisioning; {self.ready} of {self.replicas} serving")

    # -- faults and commands ----------------------------------------------------------------
    def apply_faults(self, i: int) -> None:
        """GPU shortages and spot reclaims that start or end at tick ``i``."""
        plan = self.plan
        for kind, started, magnitude in plan.fault_ticks.get(i, ()):
            if kind == "gpu_shortage":
                self.cap = cap = max(0, int(magnitude)) if started else None
                if cap is not None and self.replicas > cap:
                    self.scale_to(i, cap, f"GPU shortage caps the pool at {cap}")
            elif kind == "spot_reclaimed":
                self.reclaiming = started
                spot = int(round(self.replicas * plan.spot_share))
                if started and spot:
                    self.scale_to(i, self.replicas - spot, f"{spot} spot replica(s) reclaimed", ready_first=True)
        if self.autoscaler is None:
            configured, cap = self.configured, self.cap
            target = configured - (int(round(configured * plan.spot_share)) if self.reclaiming else 0)
            target = target if cap is None else min(target, cap)
            if target != self.replicas:
                self.scale_to(i, target, "fault over: back to the configured count" if target > self.replicas
                              else "fault")

    def command(self, i: int, commands) -> None:
        """Scale by hand or change the autoscaler's bounds at tick ``i``."""
        for cmd in commands:
            if cmd[0] == "scale":
                self.configured = max(0, int(cmd[1]))
                target = self.configured if self.cap is None else min(self.configured, self.cap)
                a = self.autoscaler
                if a is not None:
                    target = min(max(target, a.min_replicas), a.max_replicas)
                self.scale_to(i, target, "scaled by hand")
            elif cmd[0] == "limits" and self.autoscaler is not None:
                low, high = int(cmd[1]), int(cmd[2])
                a = self.autoscaler = replace(self.autoscaler, min_replicas=max(0, min(low, high)),
                                              max_replicas=max(1, high))
                n = self.replicas
                target = min(max(n, a.min_replicas), a.max_replicas)
                if target != n and n > 0:
                    self.scale_to(i, target, f"autoscaler bounds now {a.min_replicas}-{a.max_replicas}")
        self.mark(i)

    # -- the autoscaler's rules ---------------------------------------------------------------
    def read_metric(self, i: int) -> float:
        """The autoscaler's metric at tick ``i`` with the ready replicas serving."""
        at = getattr(self.metric_at, "at", None)
        return at(self.ready, i) if at is not None else float(self.metric_at(self.ready, i, i + 1)[0])

    def recommend(self, value: float) -> int:
        """The HPA recommendation for a metric ``value`` (:func:`hpa_desired`, tolerance included)."""
        a = self.autoscaler
        return hpa_desired(a.metric, value, a.target, a.tolerance, self.replicas, self.ready)

    def stabilise(self, t: float, desired: int) -> int:
        """``desired`` after stabilisation: scaling up to at most the lowest recommendation of the
        scale-up window, down to at least the highest of the scale-down window (both include it)."""
        up_window = self.up_window
        up = up_window.query_push(t, desired) if up_window is not None else desired
        return min(max(self.replicas, up), self.down_window.query_push(t, desired))

    def scale_up_limit(self, t: float, wanted: int) -> int:
        """``wanted`` capped by the HPA's default scale-up policy: the replicas of one policy period
        ago plus the larger of 4 pods and 100% (never below the current count, as in Kubernetes)."""
        up_events, down_events, n = self.up_events, self.down_events, self.replicas
        while up_events and up_events[0][0] <= t - HPA_POLICY_PERIOD_S:
            up_events.popleft()
        while down_events and down_events[0][0] <= t - HPA_POLICY_PERIOD_S:
            down_events.popleft()
        base = n - sum(k for _, k in up_events) + sum(k for _, k in down_events)
        rate_cap = max(base + HPA_SCALE_UP_PODS, math.ceil(base * (1 + HPA_SCALE_UP_PERCENT / 100)))
        return min(wanted, max(rate_cap, n))

    def upper_bound(self) -> int:
        """The autoscaler's maximum, lowered by a GPU shortage."""
        hi = self.autoscaler.max_replicas
        return hi if self.cap is None else min(hi, self.cap)

    def clamp(self, wanted: int, floor: int, hi: int) -> int:
        """``wanted`` within [max(minimum, predictive floor), ``hi``] (``hi`` wins over the floor)."""
        return max(min(max(self.autoscaler.min_replicas, floor), hi), min(hi, wanted))

    def scale_from_or_to_zero(self, i: int, traffic: float, floor: int, hi: int) -> bool:
        """Knative: scale to zero after the stable window and grace without traffic; from zero,
        activation (a cold start) on the first request or a predictive floor. Returns whether the
        pool is at zero or just went there (then the HPA does not act at this tick)."""
        a, n, t = self.autoscaler, self.replicas, self.times[i]
        idle = self.idle_since
        if self.scale_to_zero and n > 0 and floor == 0 and idle is not None and t - idle >= self.zero_after - EPS_T:
            self.scale_to(i, 0, f"scale to zero after {t - idle:g} s without traffic")
            return True
        if n == 0:
            if (traffic > 0 or floor > 0) and hi > 0:
                self.scale_to(i, min(hi, max(1, a.min_replicas, floor)), "activation from zero (cold start)")
            return True
        return False

    def control(self, i: int) -> None:
        """One tick of the autoscaled pool: ready replicas, faults, zero, the floor, then at sync
        ticks the HPA (recommendation, stabilisation, scale-up policy, bounds)."""
        a, t = self.autoscaler, self.times[i]
        pending = self.pending
        if pending and pending[0][0] <= t + EPS_T:
            self.mature(i)
        if i in self.plan.fault_ticks:
            self.apply_faults(i)
        x = float(self.lam[i])
        if x > 0:
            self.idle_since = None
        elif self.idle_since is None:
            self.idle_since = t
        floor = self.floors[i] if self.any_floor else 0
        hi = self.upper_bound()
        if self.scale_from_or_to_zero(i, x, floor, hi):
            return
        if floor and self.replicas < min(floor, hi):
            self.scale_to(i, min(floor, hi), f"predictive floor {floor} (asked {self.provisioning_s:g} s ahead)")
        if self.due[i] and self.ready > 0:
            value = self.read_metric(i)
            rec = self.stabilise(t, self.recommend(value))
            if rec > self.replicas:
                rec = self.scale_up_limit(t, rec)
            rec = self.clamp(rec, floor, hi)
            if rec != self.replicas:
                self.scale_to(i, rec, f"HPA {a.metric} {value:.3g} vs target {a.target:g}")

    # -- saving and going back --------------------------------------------------------------
    def save(self) -> dict:
        """The loop's state where it stands (between two sends), for :meth:`restore`. The track
        from ``limit`` on holds the current counts (every change is written to the end)."""
        at = min(self.limit, self.count - 1)
        track = self.track
        saved = {name: getattr(self, name) for name in (
            "replicas", "ready", "configured", "cap", "reclaiming", "limit", "idle_since", "autoscaler")}
        saved.update(pending=[list(p) for p in self.pending], up_events=list(self.up_events),
                     down_events=list(self.down_events), wake=list(self.wake),
                     tail=(track.replicas[at], track.ready[at], track.first_ready_s[at]) if self.count else None)
        if self.autoscaler is not None:
            saved.update(barriers=list(self.barriers), down_items=list(self.down_window.items),
                         up_items=list(self.up_window.items) if self.up_window is not None else None)
        return saved

    def restore(self, saved: dict) -> Iterator[PoolTrack]:
        """Put the loop back where :meth:`save` found it; returns a new generator standing there
        (the old one must not be sent to again)."""
        for name in ("replicas", "ready", "configured", "cap", "reclaiming", "limit", "idle_since", "autoscaler"):
            setattr(self, name, saved[name])
        self.pending = deque(list(p) for p in saved["pending"])
        self.up_events, self.down_events = deque(saved["up_events"]), deque(saved["down_events"])
        self.wake[:] = saved["wake"]
        if saved["tail"] is not None and self.limit < self.count:
            self.track.replicas[self.limit:], self.track.ready[self.limit:], self.track.first_ready_s[self.limit:] = \
                saved["tail"]
        if self.autoscaler is not None:
            self.barriers[:] = saved["barriers"]
            self.down_window.items = deque(saved["down_items"])
            if self.up_window is not None:
                self.up_window.items = deque(saved["up_items"])
        control = self.run()
        next(control)
        return control

    # -- running ------------------------------------------------------------------------------
    def run(self) -> Iterator[PoolTrack]:
        """The control loop as a generator (see the class docstring)."""
        if self.autoscaler is None:
            yield from self._run_fixed()
        else:
            yield from self._run_autoscaled()

    def _run_fixed(self) -> Iterator[PoolTrack]:
        """Without autoscaler only faults, commands and replicas becoming ready change the count."""
        done, wake, count = -1, self.wake, self.count
        while True:
            if not wake or wake[0] >= self.limit:
                begin = self.limit
                self.limit, self.metric_at, _, commands = yield self.track
                if commands and begin < count:
                    self.mature(begin)
                    self.command(begin, commands)
                continue
            i = wake.pop(0)
            if done < i < count:
                done, before = i, self.ready
                self.mature(i)
                self.apply_faults(i)
                self.mark(i)
                if self.stop_when_ready_changes and self.ready != before:
                    self.limit = i + 1

    def _run_autoscaled(self) -> Iterator[PoolTrack]:
        count, barriers, lam = self.count, self.barriers, self.lam
        first_ready = self.track.first_ready_s
        i = self.limit
        while True:
            if i >= self.limit:
                begin = self.limit
                self.limit, self.metric_at, extra, commands = yield self.track
                for tick in extra:
                    if 0 < tick < count and tick not in barriers:
                        insort(barriers, int(tick))
                if commands and begin < count:
                    self.command(begin, commands)
                continue
            before = (self.replicas, self.ready)
            self.control(i)
            if (self.replicas, self.ready) != before or (self.ready == 0 and self.pending and first_ready[i] == np.inf):
                self.mark(i)
                if self.stop_when_ready_changes and self.ready != before[1]:
                    self.limit = i + 1
            i = self.next_tick(i)
            if lam[i - 1] > 0:  # ticks skipped had traffic (zero-traffic ticks are never skipped)
                self.idle_since = None

    def next_tick(self, i: int) -> int:
        """The next tick where anything may change. Syncs skipped on the way recommend nothing that
        acts: nothing above n (or the cap), nothing below n while a recommendation >= n is still in
        the scale-down window. Their recommendations are then pushed (as the windows' survivors)."""
        a, n, ready = self.autoscaler, self.replicas, self.ready
        if n == 0 or not SKIP_QUIET_STRETCHES:
            return i + 1
        hi = self.upper_bound()
        lo = min(max(a.min_replicas, self.floors[i] if self.any_floor else 0), hi)
        if not lo <= n <= hi:
            return i + 1
        times, times_arr, metric_at = self.times, self.times_arr, self.metric_at
        due_ticks, due_list, down_window = self.due_ticks, self.due_list, self.down_window
        barriers = self.barriers
        end = min(barriers[bisect_right(barriers, i)], self.limit)
        if self.pending:  # the next replica to become ready ends the quiet stretch
            end = min(end, int(np.searchsorted(times_arr, self.pending[0][0] - EPS_T)))
            if end <= i + 1:
                return i + 1
        hold = -math.inf  # newest recommendation >= n still in the scale-down window (a prefix of it)
        for ts, v in down_window.items:
            if v < n:
                break
            hold = ts
        start, found, chunk, kept_t, kept_d = i + 1, end, 32, [], []
        if ready > 0 and not self.scale_to_zero:  # the next syncs in plain Python first: cheap when busy
            k = bisect_right(self.due_list, i)
            for j in self.due_list[k:k + 2]:
                if j >= end:
                    break
                d = self.recommend(self.read_metric(j))
                hold = times[j] if d >= n else hold
                if (d > n and hi > n) or (d < n and lo < n and hold <= times[j] - a.down_window_s):
                    return j
                if self.up_window is not None:
                    self.up_window.query_push(times[j], d)
                down_window.query_push(times[j], d)
                start = j + 1
        can_up, can_down = hi > n, lo < n
        while start < end:
            stop = min(end, start + chunk)
            chunk = min(4 * chunk, 4096)
            s0, s1 = (bisect_left(due_list, start), bisect_left(due_list, stop)) if ready > 0 else (0, 0)
            sync = due_ticks[s0:s1]
            first = stop
            if sync.size:
                d = hpa_desired_array(a.metric, np.asarray(metric_at(ready, start, stop))[sync - start], a.target,
                                      a.tolerance, n, ready)
                ts = self.due_times[s0:s1]
                last_ge = np.maximum.accumulate(np.where(d >= n, ts, -np.inf))
                np.maximum(last_ge, hold, out=last_ge)
                act = (d > n) if can_up else None  # a recommendation that acts: above n, or below it
                if can_down:  # with none >= n left in the scale-down window
                    down = (d < n) & (last_ge <= ts - a.down_window_s)
                    act = down if act is None else act | down
                hits = np.flatnonzero(act) if act is not None else ()
                if len(hits):
                    first = int(sync[hits[0]])
                hold = float(last_ge[-1])
            if self.scale_to_zero:
                zero = np.flatnonzero(self.lam[start:first] <= 0)
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
            self._push_survivors(np.concatenate(kept_t), np.concatenate(kept_d))
        return found

    def _push_survivors(self, t_all: np.ndarray, d_all: np.ndarray) -> None:
        """Push skipped recommendations into the windows: only those a later one does not hide."""
        if d_all.min() == d_all.max():  # all alike: the last one is the only survivor
            t_all, d_all = t_all[-1:], d_all[-1:]
        later_max = np.concatenate((np.maximum.accumulate(d_all[::-1])[::-1][1:], [-np.inf]))
        for j in np.flatnonzero(d_all > later_max):
            self.down_window.query_push(float(t_all[j]), int(d_all[j]))
        if self.up_window is not None:
            later_min = np.concatenate((np.minimum.accumulate(d_all[::-1])[::-1][1:], [np.inf]))
            for j in np.flatnonzero(d_all < later_min):
                self.up_window.query_push(float(t_all[j]), int(d_all[j]))
