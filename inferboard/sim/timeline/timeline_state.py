"""The timeline as a state that steps through time: ``Timeline.start(design, pattern, faults)`` gives a
:class:`TimelineState`; ``advance(seconds)`` simulates the next ticks from where it stands (backlogs,
replicas and autoscaler memory carried over); ``apply(action)`` changes the design or operates it
from the current instant on (:mod:`actions`); ``snapshot()`` / ``Timeline.resume`` save and restore
it. ``run_timeline`` is ``start`` + one ``advance`` over the whole horizon.

A stretch of ticks is simulated in this order (see timeline.py for the model of each step):
fault regimes of the stretch and their compiles (at the rates where a rate-dependent router changes
behaviour too, see :func:`routing_rates`, for the station parameters between them); the pools'
control loops up to the end of the stretch, run together with the per-tick routing
(:mod:`timeline_routing`), each metric read from the pool's queue including the backlog
(:class:`BacklogMetric`); the request paths' shares per tick with the replicas decided; then the
stations in topological order (:mod:`timeline_stations`), cost and events.

Snapshots are the state's inputs plus the actions applied with their instants: resuming replays
them, and because every step depends only on the past, the replay equals the original run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from inferboard.model.design import Design
from inferboard.model.faults import is_quality_fault
from inferboard.sim.design.compile import compile_design, default_load
from inferboard.sim.design.design_structure import DesignStructure
from inferboard.sim.design.faults import Fault, TimedFault
from inferboard.sim.design.hardware import plan_pool
from inferboard.sim.design.routing import Routing
from inferboard.sim.timeline.autoscaling import PoolController, PoolPlanOverTime
from inferboard.sim.timeline.hpa import autoscaler_for
from inferboard.sim.timeline.metric_tables import BacklogMetric, MetricTable, station_limits
from inferboard.sim.timeline.regime_tables import RegimeTables
from inferboard.sim.timeline.series import MAX_VALUE, TimelineEvent, TimelineResult, finite
from inferboard.sim.timeline.tick_routing import RegimeRouter
from inferboard.sim.timeline.timeline_stations import simulate_stretch
from inferboard.sim.timeline.traffic import traffic_series
from inferboard.store.design_files import design_to_bytes, parse_design

MAX_TICKS = 2_000_000
#: an advance shorter than this many ticks simulates that many at once and shows the ticks as they
#: are asked for (a live drill steps a minute at a time; one stretch costs much the same for 6 ticks
#: as for 60); an action, or going past them, settles the state where it stands
LOOKAHEAD_TICKS = 60


@dataclass(frozen=True)
class TimelineSnapshot:
    """Everything needed to rebuild a state: its inputs, the actions applied and when, and how far it ran."""

    design: Design
    pattern: str | None
    faults: tuple[Fault, ...]
    hours: float
    tick_s: float
    seed: int
    replay_csv: str | None
    actions: tuple[tuple[int, object], ...]  #: (tick the action applied at, action)
    ticks: int  #: ticks simulated


class Timeline:
    """Entry points of the stepping API."""

    @staticmethod
    def start(design: Design, pattern: str | None = None, faults: Sequence[Fault] = (), hours: float = 24.0,
              tick_s: float = 60.0, seed: int = 0, replay_csv: Path | str | None = None) -> "TimelineState":
        """A state at the start of the horizon; quality faults (drift, a bad model) are the quality
        model's (:func:`timeline.with_quality`), not the serving system's, and are left out."""
        system = [f for f in faults if not is_quality_fault(f.kind)]
        return TimelineState(design, pattern, system, hours, tick_s, seed, replay_csv)

    @staticmethod
    def resume(snapshot: TimelineSnapshot) -> "TimelineState":
        """A state rebuilt from ``snapshot``: its inputs replayed with each action at its tick."""
        state = TimelineState(snapshot.design, snapshot.pattern, snapshot.faults, snapshot.hours, snapshot.tick_s,
                              snapshot.seed, snapshot.replay_csv)
        for tick, action in snapshot.actions:
            state.advance_ticks(tick - state.ticks_done)
            state.apply(action)
        state.advance_ticks(snapshot.ticks - state.ticks_done)
        return state


#: The autoscalers' metric tables, per metric, keyed by replica count and the station's parameters:
#: a pure function of those, so shared by every run in the process (bounded in size).
_METRIC_TABLES: dict[str, dict] = {}
METRIC_TABLES_MAX = 20_000


#: Compiles shared by every timeline of the process: a compile is a pure function of the design's
#: revision (nodes, edges, requirements and catalog are immutable objects every edit replaces, so
#: their identities name it; the entry keeps them alive), the rate, the faults, the replica
#: overrides and the undetected regions. Bounded in size.
_COMPILES: dict[tuple, tuple[tuple, object]] = {}
COMPILES_MAX = 256


def compile_shared(design: Design, rate: float, faults: list, override: dict, undetected: list,
                   structure: DesignStructure):
    """:func:`compile.compile_design` of ``design`` as it stands, remembered for the process."""
    revision = (tuple(design.nodes.values()), tuple(design.edges.values()), design.requirements, design.catalog)
    key = (tuple(map(id, revision[0])), tuple(map(id, revision[1])), id(revision[2]), id(revision[3]), rate,
           tuple(faults), tuple(sorted(override.items())), tuple(undetected))
    found = _COMPILES.get(key)
    if found is None:
        if len(_COMPILES) >= COMPILES_MAX:
            _COMPILES.clear()
        found = _COMPILES[key] = (revision, compile_design(design, rate, faults, override, undetected,
                                                           structure=structure))
    return found[1]


def _metric_cache(metric: str) -> dict:
    store = _METRIC_TABLES.setdefault(metric, {})
    if sum(len(v) for v in store.values()) > METRIC_TABLES_MAX:
        store.clear()
    return store


def routing_rates(compile_at, reference: float, top: float, structure: DesignStructure) -> list[float]:
    """The base rates to compile a regime at: the reference, the highest rate, and each rate where a
    rate limit, an admission control or a fallback overflow starts to act (found from the node's
    rate at the reference and its threshold at the top rate). Routing itself is evaluated per tick
    (:mod:`tick_routing`); these compiles give the station parameters that follow the rate (an LLM
    pool's plan, a degraded output length), a tick taking those of the compiles around its rate
    (weights linear in 1/rate, as a binding limiter passes a fixed rate)."""
    limited = [n for n, kind in structure.kind.items()
               if kind == "admission_control" or structure.split[n][1]
               or kind == "regional_load_balancer" and float(structure.params[n].get("rate_limit_rps", 0) or 0) > 0]
    if not limited or top <= reference * (1 + 1e-9) and top >= reference * (1 - 1e-9):
        return [reference]
    low = compile_at(reference)
    high = compile_at(top)
    points = {reference, top}
    for n in limited:
        at_ref = low.node_rates.get(n, 0.0)
        if at_ref <= 0:
            continue
        if structure.kind[n] == "regional_load_balancer":
            threshold = float(structure.params[n]["rate_limit_rps"])
        elif high.shed_rps.get(n, 0.0) > 0 or any(high.node_rates.get(f, 0.0) > 0 for f in structure.split[n][1]):
            threshold = sum(high.node_rates.get(c, 0.0) for c in structure.split[n][0])
        else:
            continue
        kink = reference * threshold / at_ref
        if 0 < kink < top:
            points.add(kink)
    return sorted(points)


class TimelineState:
    """A design running through time (see the module docstring)."""

    def __init__(self, design: Design, pattern: str | None, faults: Sequence[Fault], hours: float, tick_s: float,
                 seed: int = 0, replay_csv: Path | str | None = None):
        if not (math.isfinite(hours) and hours > 0 and math.isfinite(tick_s) and tick_s > 0):
            raise ValueError("hours and tick_s must be finite and > 0")
        count = int(math.ceil(hours * 3600.0 / tick_s - 1e-9))
        if count > MAX_TICKS:
            raise ValueError(f"{count} ticks is more than the {MAX_TICKS} a timeline may have; use a longer tick")
        self.inputs = (design, pattern, tuple(faults), float(hours), float(tick_s), int(seed),
                       None if replay_csv is None else str(replay_csv))
        self.tick_s, self.count = float(tick_s), count
        self.times = np.arange(count, dtype=float) * tick_s
        req = design.requirements
        self.mean, self.load_note = (float(req.mean_rps), "") if req.mean_rps is not None else default_load(req)
        peak = float(req.peak_rps) if req.peak_rps is not None else 2.0 * self.mean
        pattern = pattern or ("replay" if replay_csv is not None else req.traffic_pattern)
        self.base = traffic_series(pattern, self.mean, peak, self.times, seed, replay_csv, horizon_s=hours * 3600.0)
        self.top = float(self.base.max()) if count else 0.0
        self.timed = [f if isinstance(f, TimedFault) else
                      TimedFault(f.kind, f.target, f.magnitude, 0.0, self.times[-1] + tick_s) for f in faults]
        self.design = design
        self.configs = 0  #: revision of the design and operations in force (actions bump it)
        self.extra_faults: frozenset[Fault] = frozenset()  #: operations acting as faults (flush, failover, ...)
        self.entry_shed = 0.0  #: share of traffic shed at the entry (a priority class)
        self.actions: list[tuple[int, object]] = []
        self.events: list = []
        self.notes: set[str] = set()
        self.series: dict[str, np.ndarray] = {}
        self.aux: dict[str, np.ndarray] = {}  #: per-station loss and capacity, per-router shed (for events)
        self.backlog: dict[str, float] = {}
        self.lost: dict[str, np.ndarray] = {}
        self.accepted: dict[str, np.ndarray] = {}  #: cumulative accepted arrivals at tick boundaries
        self.ticks_done = 0
        self.reached = 0  #: ticks simulated (ahead of ``ticks_done`` after a short advance)
        self._ahead: tuple[int, dict] | None = None  #: where simulating ahead started, and the state there
        self._compiled: dict = {}
        self.cost_memo: dict = {}
        self.recovery: dict[int, list] = {}  #: per timed fault: [last bad tick, searched up to, done]
        self._tables: dict = {}
        self._rows: dict = {}
        self._structure: dict[int, DesignStructure] = {}
        self._routers: dict = {}
        self.routing_facts: dict = {}  #: per design revision, what routing per tick knows of it
        self._setup_pools()

    # ------------------------------------------------------------------ pools
    def _setup_pools(self) -> None:
        design, count = self.design, self.count
        self.pools = [n for n in design.nodes.values() if n.kind in design.catalog.kinds_with_role("serving_pool")]
        self.scalers = {p.id: autoscaler_for(design, p.id) for p in self.pools}
        initial = {}
        for p in self.pools:
            a, configured = self.scalers[p.id], int(p.params.get("replicas", 1))
            initial[p.id] = configured if a is None else (
                0 if a.scale_to_zero and configured == 0 else min(max(configured, a.min_replicas), a.max_replicas))
        self.override = {pid: max(1, n) for pid, n in initial.items() if self.scalers[pid] is not None}
        self.pool_lam = {p.id: np.zeros(count) for p in self.pools}
        self.controls, self.tracks, self.pool_carry, self.controllers = {}, {}, {}, {}
        #: replicas serving before the first tick (what routing counts at tick 0)
        self.initial_ready = {pid: float(n) for pid, n in initial.items()}
        times_list = self.times.tolist()
        for p in self.pools:
            fault_ticks: dict[int, list] = {}
            for f in self.timed:
                if f.hits(p.id) and (f.kind == "spot_reclaimed" or f.kind == "gpu_shortage"
                                          and p.kind in design.catalog.kinds_with_role("gpu_pool")):
                    for t, started in ((f.start_s, True), (f.start_s + f.duration_s, False)):
                        tick = self.tick_of(t)
                        if tick < count:
                            fault_ticks.setdefault(tick, []).append((f.kind, started, f.amount))
            plan = PoolPlanOverTime(p.id, initial[p.id], float(p.params.get("provisioning_s", 0.0)),
                                    float(p.params.get("spot_share", 0.0)), self.scalers[p.id], fault_ticks)
            controller = self.controllers[p.id] = PoolController(plan, self.times, self.pool_lam[p.id], self.emit,
                                                                 times_list)
            control = controller.run()
            self.tracks[p.id] = next(control)
            self.controls[p.id] = control
            self.pool_carry[p.id] = [0, 0.0]
        self.pending_commands: dict[str, list] = {}

    def tick_of(self, t: float) -> int:
        """The first tick at or after ``t``."""
        return int(np.searchsorted(self.times, t, side="left"))

    def emit(self, t: float, kind: str, node_id: str, message: str) -> None:
        """Record an event at time ``t``."""
        self.events.append((float(t), len(self.events), TimelineEvent(float(t), kind, node_id, message)))

    # ------------------------------------------------------------------ public API
    @property
    def now_s(self) -> float:
        """The simulated time reached, in seconds."""
        return self.ticks_done * self.tick_s

    @property
    def finished(self) -> bool:
        """Whether the whole horizon has been simulated."""
        return self.ticks_done >= self.count

    def advance(self, seconds: float) -> "TimelineState":
        """Simulate the next ``seconds`` (whole ticks, rounded up; never past the horizon)."""
        return self.advance_ticks(int(math.ceil(max(0.0, seconds) / self.tick_s - 1e-9)))

    def advance_ticks(self, ticks: int) -> "TimelineState":
        """Simulate the next ``ticks`` ticks (at most to the horizon); returns the state. A short
        advance simulates :data:`LOOKAHEAD_TICKS` at once (every step depends only on the past, so
        the ticks are the same) and the next ones are then already there."""
        end = min(self.count, self.ticks_done + max(0, int(ticks)))
        if end <= self.ticks_done:
            return self
        if end > self.reached:
            start = self.reached
            target = min(self.count, max(end, start + LOOKAHEAD_TICKS)) if end - self.ticks_done < LOOKAHEAD_TICKS \
                else end
            self._ahead = (start, self._save()) if target > end else None
            simulate_stretch(self, start, target)
            self.reached = target
        self.ticks_done = end
        return self

    def _save(self) -> dict:
        """What a stretch changes in the state, as it stands (for :meth:`_settle`)."""
        return dict(controllers={pid: c.save() for pid, c in self.controllers.items()},
                    carry={pid: list(v) for pid, v in self.pool_carry.items()}, backlog=dict(self.backlog),
                    events=len(self.events), recovery={k: list(v) for k, v in self.recovery.items()},
                    notes=set(self.notes), commands={k: list(v) for k, v in self.pending_commands.items()},
                    series=set(self.series), aux=set(self.aux))

    def _settle(self) -> None:
        """Bring the state back from the ticks simulated ahead to ``ticks_done``: put it back where
        simulating ahead started and simulate again up to ``ticks_done`` (before an action)."""
        if self.reached == self.ticks_done or self._ahead is None:
            return
        start, saved = self._ahead
        for pid, kept in saved["controllers"].items():
            self.controls[pid] = self.controllers[pid].restore(kept)
        for pid, carry in saved["carry"].items():
            self.pool_carry[pid][:] = carry
        del self.events[saved["events"]:]
        for live, kept in ((self.backlog, saved["backlog"]), (self.recovery, saved["recovery"]),
                           (self.pending_commands, saved["commands"])):
            live.clear()
            live.update(kept)
        self.notes.intersection_update(saved["notes"])
        for store, names in ((self.series, saved["series"]), (self.aux, saved["aux"])):
            for name in set(store) - names:
                del store[name]
        self._ahead, self.reached = None, start
        if self.ticks_done > start:
            simulate_stretch(self, start, self.ticks_done)
        self.reached = self.ticks_done

    def _ahead_shows_more(self) -> bool:
        """Whether the ticks simulated ahead brought a series or a note into being that the ticks
        asked for did not (a result must not name what has not happened yet)."""
        if self._ahead is None or self.reached == self.ticks_done:
            return False
        saved = self._ahead[1]
        return not (self.series.keys() <= saved["series"] and self.notes <= saved["notes"])

    def apply(self, action) -> "TimelineState":
        """Apply an action (:mod:`actions`) from now on; what already happened stays as it was."""
        self._settle()
        action.apply_to(self)
        self.actions.append((self.ticks_done, action))
        self.emit(self.now_s, "action", getattr(action, "target", ""), action.describe())
        return self

    def snapshot(self) -> TimelineSnapshot:
        """The state's inputs and actions so far. The snapshot keeps its own copy of the design, so
        later edits of the design do not change it (the running state itself works from the design
        it was started with: edit a design through actions while it runs)."""
        design, pattern, faults, hours, tick_s, seed, replay = self.inputs

        copy = parse_design(design_to_bytes(design), "<timeline snapshot>", design.catalog)
        return TimelineSnapshot(copy, pattern, faults, hours, tick_s, seed, replay, tuple(self.actions),
                                self.ticks_done)

    def result(self):
        """The series and events so far, as a :class:`series.TimelineResult`."""
        if self._ahead_shows_more():
            self._settle()
        k = self.ticks_done
        series = {name: finite(v[:k], 1.0 if name in ("shed_rate", "error_rate") or name.startswith("utilisation:")
                               else MAX_VALUE) for name, v in self.series.items()}
        for p in self.pools:
            series[f"replicas:{p.id}"] = finite(self.tracks[p.id].replicas[:k])
            series[f"ready:{p.id}"] = finite(self.tracks[p.id].ready[:k])
            for prefix in ("utilisation", "queue", "arrival_rps", "wait_ms", "backlog"):
                series.setdefault(f"{prefix}:{p.id}", np.zeros(k))
        until = self.times[k] if k < self.count else math.inf  # not the events of the ticks simulated ahead
        events = [e for t, _, e in sorted(self.events, key=lambda x: x[:2]) if t < until]
        notes = ([self.load_note] if self.load_note else []) + sorted(self.notes)
        return TimelineResult(self.times[:k].copy(), series, events, notes)

    # ------------------------------------------------------------------ configuration (used by actions)
    def reconfigure(self, design: Design | None = None, add_faults: Sequence[Fault] = (),
                    remove_faults: Sequence[Fault] = ()) -> None:
        """A new design revision or set of operations from the current tick on."""
        self._settle()
        if design is not None:
            self.design = design
        self.extra_faults = (self.extra_faults | frozenset(add_faults)) - frozenset(remove_faults)
        self.configs += 1

    def plan_with_replicas(self, pool_id: str, replicas: int) -> None:
        """From now on the compiles plan this pool with ``replicas`` replicas (a manual scale): an LLM
        pool's per-replica figures follow its count. Routing itself counts the replicas ready in
        each tick, whatever the count asked for."""
        self._settle()
        self.override = {**self.override, pool_id: max(1, int(replicas))}
        self.configs += 1

    def command_pool(self, pool_id: str, command: tuple) -> None:
        """A command for a pool's control loop, acting at the current tick."""
        self._settle()
        if pool_id not in self.controls:
            raise ValueError(f"'{pool_id}' is not a pool of this design")
        self.pending_commands.setdefault(pool_id, []).append(command)

    def structure(self) -> DesignStructure:
        """The current design revision's structure (remembered per revision)."""
        found = self._structure.get(self.configs)
        if found is None or not found.matches(self.design):
            found = self._structure[self.configs] = DesignStructure(self.design)
        return found

    def compiled_for(self, key) -> tuple[list[float], list]:
        """(base rates, compiles) of a regime under the configuration in force (memoised)."""
        memo = (self.configs, key)
        found = self._compiled.get(memo)
        if found is None:
            structure = self.structure()
            faults, undetected = sorted(key[0], key=repr), sorted(key[1])
            cache: dict[float, object] = {}

            def compile_at(rate: float):
                if rate not in cache:

                    cache[rate] = compile_shared(self.design, rate, faults, self.override, undetected, structure)
                return cache[rate]

            reference = self.mean if self.mean > 0 else 1.0
            rates = routing_rates(compile_at, reference, max(self.top, reference), structure)
            found = self._compiled[memo] = (rates, [compile_at(r) for r in rates])
        return found

    def router_for(self, key) -> RegimeRouter:
        """The per-tick router of a regime under the configuration in force (memoised)."""
        memo = (self.configs, key)
        found = self._routers.get(memo)
        if found is None:
            structure = self.structure()
            routing = Routing(self.design, self.mean if self.mean > 0 else 1.0, sorted(key[0], key=repr),
                              self.override, sorted(key[1]), structure)
            for pool in structure.pools:
                routing.plan(pool)
            found = self._routers[memo] = RegimeRouter(routing)
        return found

    def tables_for(self, compiled: list) -> RegimeTables:
        """The station tables of a stretch's compiles (remembered per set of compiles)."""
        memo = tuple(id(c) for c in compiled)
        found = self._tables.get(memo)
        if found is None:
            serving = self.design.catalog.kinds_with_role("serving_pool")
            base_spr = {p.id: float(plan_pool(p, self.design.catalog, self.design.requirements, (), {p.id: 1}).servers)
                        for p in self.design.nodes.values() if p.kind in serving}
            found = self._tables[memo] = (RegimeTables(self.design, compiled, base_spr), compiled)
        return found[0]

    def metric_for(self, pool_id: str, tables: RegimeTables, j: int | None, lam: np.ndarray, lo_regime: np.ndarray,
                   k0: int, k1: int, capacity_per_replica: np.ndarray | None = None, limits: tuple | None = None):
        """The autoscaler metric function of a pool over ticks ``k0:k1`` (see :class:`BacklogMetric`);
        ``capacity_per_replica`` where it is not the station's servers over their service time (an
        LLM pool's, from the FLOPs/HBM model); ``limits``: the station's (capacity per replica,
        patience, waiting room) per tick when known already (:func:`station_limits`)."""
        a = self.scalers[pool_id]
        metric = a.metric if a else "rps"
        if j is None:
            sig = np.zeros(k1 - k0, dtype=np.int64)
            return MetricTable(metric, lam, sig, tables, None, 0, 0), None
        params = tables.params[j]
        sig = params["sig"][lo_regime]
        rows = self._rows.get((id(tables), j))
        if rows is None:  # each signature's parameters, the key of the metric tables kept across stretches
            rows = self._rows[(id(tables), j)] = [
                tuple(float(params[k][g]) for k in ("spr", "service", "cv", "ca2", "err", "timeout", "cap", "bmax",
                                                    "base", "item", "window")) for g in params["sig_regime"]]
        cache = _metric_cache(metric)
        table = MetricTable(metric, lam, sig, tables, j, a.min_replicas if a else 0, a.max_replicas if a else 0,
                             shared=(cache, rows))
        if limits is None or capacity_per_replica is not None:
            limits = station_limits(tables, j, lo_regime, capacity_per_replica)
        return table, BacklogMetric(table, metric, k0, lam, *limits, self.tick_s, self.tracks[pool_id].ready,
                                    self.pool_carry[pool_id])

