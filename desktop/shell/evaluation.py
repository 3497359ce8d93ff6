"""Live evaluation of the open design without freezing the window.

Edits are debounced (the first edit after a quiet spell is evaluated at once, a burst of edits
once at its end). The structural rule check runs on the GUI thread while it stays under a frame
(16 ms); the behaviour rules, the steady-state simulation and the timeline run on a worker thread
against an immutable snapshot of the design (the design's file bytes, parsed on the worker).
Results are tagged with the document revision and dropped if the design changed meanwhile. An edit
that changes only the canvas geometry (cards moved, a region resized) hands the last finished, exact
results on again at once: nothing the rules or the simulator read has changed.

A batching station whose table is not built yet (about a second of CPU) is answered at once from an
estimated table (inferboard.sim.batching.batch_estimate): the steady readouts say they are an estimate, the
missing tables are built on a thread of their own, and the design is evaluated again, exactly."""

from __future__ import annotations

import json
import time
import traceback
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from inferboard.store import DesignFileError, design_to_dict, parse_design

from desktop.editor.document import DesignDocument

FRAME_S = 0.016


@dataclass(frozen=True)
class EvalSettings:
    """What the evaluation runs with besides the design: traffic pattern, timed faults, hours simulated, scenario."""

    pattern: str | None = None
    #: Timed faults for the timeline (inferboard.sim TimedFault values).
    faults: tuple = ()
    hours: float = 24.0
    tick_s: float = 60.0
    #: The practice scenario the design is scored in (None: the design's own requirements).
    scenario: Any = None


@dataclass
class Timings:
    """How long the last evaluation's structural check and each worker step took, in seconds."""

    structural_s: float = 0.0
    steps: dict[str, float] = field(default_factory=dict)


def snapshot_bytes(design) -> bytes:
    """The design's file form, compact (the GUI thread pays only for this; parsing is the worker's)."""
    return form_bytes(design_to_dict(design))


def form_bytes(form: dict) -> bytes:
    """A design's file form ``form`` (:func:`inferboard.store.design_to_dict`) as compact bytes."""
    return json.dumps(form, separators=(",", ":")).encode("utf-8")


#: Where a node sits and how big a region is drawn: nothing the rules or the simulator read (a node's
#: region is its own field, set when it is dropped into one).
GEOMETRY = ("x", "y", "width", "height")


def figures_key(data: dict) -> str:
    """The design's file form ``data`` without the canvas geometry: two designs with the same key get
    the same findings and figures, so moving cards around needs no new evaluation."""
    nodes = [{k: v for k, v in node.items() if k not in GEOMETRY} for node in data.get("nodes", [])]
    return json.dumps({**data, "nodes": nodes}, separators=(",", ":"))  # the file form's own key order


def _rules_structural(design, settings: EvalSettings):
    # loaded on the worker after the first paint
    from inferboard.practice.grading import score_design

    return score_design(design, settings.scenario, behaviour=False)


def _sim_steady(design, settings: EvalSettings):
    # the simulator loads on first use, not at start-up
    from inferboard.sim.steady.design_sim import evaluate

    return evaluate(design)


def _sim_steady_peak(design, settings: EvalSettings):
    """The steady state at the requirements' peak rate (None when they declare none)."""
    # the simulator loads on first use, not at start-up
    from inferboard.sim.steady.design_sim import evaluate

    peak = design.requirements.peak_rps
    return evaluate(design, rps=peak) if peak else None


def _rules_full(design, settings: EvalSettings):
    # loaded on the worker after the first paint
    from inferboard.practice.grading import score_design

    return score_design(design, settings.scenario, behaviour=True)


def _sim_timeline(design, settings: EvalSettings):
    # the simulator loads on first use, not at start-up
    from inferboard.sim.timeline.timeline import run_timeline

    return run_timeline(design, hours=settings.hours, tick_s=settings.tick_s, pattern=settings.pattern,
                        faults=tuple(settings.faults))


#: The worker's steps, in the order their results reach the window.
STEPS: tuple[tuple[str, Callable], ...] = (("steady", _sim_steady), ("steady_peak", _sim_steady_peak),
                                           ("report", _rules_full), ("timeline", _sim_timeline))
#: Steps that may solve a batching station on an estimated table (the timeline keeps per-process
#: caches of its stations' figures, so it always waits for the exact table: in an evaluation that
#: estimated a table it is left to the exact evaluation that follows once the table is built).
ESTIMATING_STEPS = frozenset({"structural", "steady", "steady_peak", "report"})


class _JobSignals(QObject):
    result = Signal(str, object, object)
    #: (step, token): the step's result, emitted next, was worked out on estimated batching tables
    estimated = Signal(str, object)
    failed = Signal(str, object, str)
    finished = Signal(object, object)


class EvalJob(QRunnable):
    """One evaluation on the worker: parses the design snapshot and runs each step, reporting each result as it comes."""

    def __init__(self, data: bytes, token: tuple, settings: EvalSettings, is_current: Callable[[tuple], bool],
                 steps=None):
        super().__init__()
        self.data = data
        self.token = token
        self.settings = settings
        self.is_current = is_current
        self.steps = steps if steps is not None else STEPS
        self.signals = _JobSignals()
        #: (servers, params) of the batching stations solved on an estimated table
        self.estimated: set = set()
        #: False: every table is built before a station is solved (the evaluation after a build)
        self.allow_estimates = True
        #: the design's :func:`figures_key`, when the evaluator knows it
        self.figures_key: str | None = None

    def run(self) -> None:
        """Run the steps in order, stopping early once the design has changed, and report results, estimates and
        failures."""
        # the simulator loads on first use, not at start-up
        from inferboard.sim.batching.batching import estimating, recording

        timings: dict[str, float] = {}
        try:
            design = parse_design(self.data, "<snapshot>")
        except DesignFileError as error:  # a snapshot of a valid design always parses; be safe anyway
            self.signals.failed.emit("snapshot", self.token, str(error))
            self.signals.finished.emit(self.token, timings)
            return
        with recording() as self.used:  # the batching stations solved: where the next tables are
            for name, step in self.steps:
                if not self.is_current(self.token):
                    break
                exact = name not in ESTIMATING_STEPS or not self.allow_estimates
                if exact and self.estimated:
                    continue  # it would build the missing tables here first: left to the exact evaluation
                start = time.perf_counter()
                try:
                    with nullcontext(set()) if exact else estimating() as estimated:
                        value = step(design, self.settings)
                except Exception:
                    self.signals.failed.emit(name, self.token, traceback.format_exc(limit=4))
                    continue
                timings[name] = time.perf_counter() - start
                if estimated:
                    self.estimated |= estimated
                    self.signals.estimated.emit(name, self.token)
                self.signals.result.emit(name, self.token, value)
        self.signals.finished.emit(self.token, timings)


#: Tables built ahead after one evaluation at most (each about a second of CPU).
PREFETCH_TABLES = 4


class TablePrefetch(QRunnable):
    """Builds the batching tables the likely next edits need (one replica more or fewer on a batched
    pool, :mod:`inferboard.sim.design.table_prefetch`), stopping as soon as the design changes."""

    def __init__(self, data: bytes, used: set, token: tuple, is_current: Callable[[tuple], bool]):
        super().__init__()
        self.data, self.used, self.token, self.is_current = data, set(used), token, is_current
        self.signals = _JobSignals()

    def run(self) -> None:
        """Build the batching tables the next likely edits will need, quietly."""
        # the simulator loads on first use, not at start-up
        from inferboard.sim.batching.batching import prepare_table
        from inferboard.sim.design.table_prefetch import likely_next_tables

        try:
            design = parse_design(self.data, "<snapshot>")
            for key in likely_next_tables(design, self.used)[:PREFETCH_TABLES]:
                if not self.is_current(self.token):
                    break
                prepare_table(*key)
        except Exception:  # only a head start: the evaluation that needs a table builds it anyway
            pass
        self.signals.finished.emit(self.token, None)


class TableBuild(QRunnable):
    """Builds the batching tables an evaluation estimated, so that it can be evaluated exactly."""

    def __init__(self, keys: set, token: tuple):
        super().__init__()
        self.keys, self.token = set(keys), token
        self.signals = _JobSignals()

    def run(self) -> None:
        """Build the batching tables the current design is missing, then report whether all were built."""
        # the simulator loads on first use, not at start-up
        from inferboard.sim.batching.batching import prepare_table

        built = True
        for key in sorted(self.keys, key=repr):
            try:
                prepare_table(*key)
            except Exception:  # the exact evaluation then builds (or reports) it itself
                built = False
        self.signals.finished.emit(self.token, built)


class _Warmup(QRunnable):
    """Loads the rule set and the simulator once, off the GUI thread."""

    def __init__(self, done: Callable[[], None]):
        super().__init__()
        self.done_signal = _JobSignals()
        self.done_signal.finished.connect(lambda *_: done())

    def run(self) -> None:
        # loaded on the worker after the first paint
        from inferboard.rules import default_rules
        from inferboard.rules.loader import RuleFileError

        try:
            default_rules()
        except RuleFileError:
            pass  # a broken rubric: the first evaluation reports it, naming the file
        import inferboard.sim.steady.design_sim  # noqa: F401
        import inferboard.sim.timeline.timeline  # noqa: F401
        self.done_signal.finished.emit(None, None)


class Evaluator(QObject):
    """Evaluates the open design as it is edited: debounced, on a worker, results tagged with the revision they are
    for."""

    structural_ready = Signal(object)
    report_ready = Signal(object)
    steady_ready = Signal(object)
    steady_peak_ready = Signal(object)
    timeline_ready = Signal(object)
    #: (step, message) for a step that failed or is not available.
    failed = Signal(str, str)
    busy_changed = Signal(bool)
    #: Every step for the current design and settings has reported.
    evaluated = Signal()
    #: Whether the steady figures shown are an estimate (their exact batching tables are being built).
    estimate_changed = Signal(bool)

    def __init__(self, document: DesignDocument, parent: QObject | None = None, debounce_ms: int = 150,
                 auto: bool = True, clock: Callable[[], float] = time.monotonic):
        super().__init__(parent)
        self.document = document
        self.debounce_ms = debounce_ms
        #: Seconds, for telling a burst of edits from a quiet spell (tests pass a fake clock).
        self.clock = clock
        self.settings = EvalSettings()
        self._settings_version = 0
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.run_now)
        self._last_run = 0.0
        self._last_edit = 0.0
        self._immediate = False
        #: False: even the first edit after a quiet spell waits ``debounce_ms`` (the evaluation
        #: then runs once the edits pause, never in the middle of a burst).
        self.leading = True
        self._running: tuple | None = None
        self._pending = False
        self._rules_ready = False
        self.structural_on_gui = True
        self.timings = Timings()
        self.latest: dict[str, Any] = {}
        #: The worker's steps (tests swap in their own).
        self.steps = STEPS
        self._jobs: list[EvalJob] = []
        self._warmup: _Warmup | None = None
        #: Build the batching tables the likely next edits need once an evaluation is done (the
        #: app turns it on; off, each edit to a new replica count waits for its table).
        self.prefetch_tables = False
        self.prefetch_pool = QThreadPool(self)
        self.prefetch_pool.setMaxThreadCount(1)
        self._prefetch: TablePrefetch | None = None
        self._build: TableBuild | None = None
        #: The revision whose tables were just built: evaluated without estimates.
        self._exact_token: tuple | None = None
        #: Steps whose latest result was worked out on estimated batching tables.
        self.estimated_steps: set[str] = set()
        self._incoming_estimates: set[str] = set()
        #: (settings version, :func:`figures_key`) of the last evaluation that finished exact and current
        self._evaluated: tuple[int, str] | None = None
        #: Held (:meth:`hold`): evaluations wait; ``_waiting``: one is due once released.
        self._held = False
        self._waiting = False
        document.replaced.connect(self._drop_scenario)
        if auto:
            document.changed.connect(lambda _event: self.schedule())
            document.replaced.connect(lambda: self.schedule(immediate=True))

    def _drop_scenario(self) -> None:
        """A new design is scored on its own requirements until a practice round says otherwise."""
        if self.settings.scenario is not None:
            self.settings = replace(self.settings, scenario=None)
            self._settings_version += 1

    # ------------------------------------------------------------------ state
    def token(self) -> tuple:
        """The (revision, settings version) a result must carry to be current."""
        return (self.document.revision, self._settings_version)

    def is_current(self, token: tuple) -> bool:
        """Whether a result tagged ``token`` is for the design and settings shown now."""
        return token == self.token()

    def busy(self) -> bool:
        """Whether an evaluation is running, waiting to start, or waiting for its tables."""
        return self._running is not None or self.timer.isActive() or self._build is not None or self._waiting

    def hold(self) -> None:
        """Let evaluations wait until :meth:`release` (the window's first paint goes first)."""
        self._held = True

    def release(self) -> None:
        """Run the evaluation that waited while held, if any."""
        self._held = False
        if self._waiting:
            self._waiting = False
            self.run_now()

    def start_warmup(self) -> None:
        """Load the rules and the simulator on the worker (call once the window is up, so that
        this does not compete with the start for the interpreter)."""
        if self._warmup is None:
            self._warmup = _Warmup(self._warm)
            self._warmup.setAutoDelete(False)
            self.pool.start(self._warmup)

    def _warm(self) -> None:
        self._rules_ready = True

    def set_settings(self, **changes: Any) -> None:
        """Change the evaluation settings and evaluate again at once."""
        self.settings = replace(self.settings, **changes)
        self._settings_version += 1
        self.schedule(immediate=True)

    # ------------------------------------------------------------------ scheduling
    def schedule(self, immediate: bool = False) -> None:
        """Debounce edits on both edges: the first edit after a quiet spell is evaluated at once
        (in this turn of the event loop, so a compound edit counts once); edits that follow it
        closely restart a ``debounce_ms`` wait, so a burst is evaluated once more at its end."""
        now = self.clock()
        in_burst = now - self._last_edit < self.debounce_ms / 1000.0
        self._last_edit = now
        if self._immediate:
            return  # already due in this turn of the event loop
        if immediate or (not in_burst and self.leading):
            self._immediate = True
            self.timer.start(0)
        else:
            self.timer.start(self.debounce_ms)

    def run_now(self) -> None:
        """Evaluate the current design now: the worker starts first (on a snapshot), then the
        structural rules run here while it works."""
        self.timer.stop()
        self._immediate = False
        if self._held:
            self._waiting = True
            return
        self._last_run = self.clock()
        token = self.token()
        design = self.document.design
        structural_here = self._rules_ready and self.structural_on_gui
        form = design_to_dict(design)
        key = figures_key(form)
        if self._running is None and self._same_figures(key):
            self._show_again(token)
            return
        if self._running is not None:
            self._pending = True
        else:
            self._start_job(token, form_bytes(form), with_structural=not structural_here, key=key)
        if structural_here:
            self._structural_here(design)

    def _same_figures(self, key: str) -> bool:
        """Whether the last evaluation, finished, exact and with every step's result, was of the design
        with :func:`figures_key` ``key``, under the settings in force."""
        return (self._evaluated == (self._settings_version, key) and not self.estimated_steps
                and all(name in self.latest for name in self._step_names()))

    def _step_names(self) -> list[str]:
        return ["structural", *(name for name, _ in self.steps)]

    def _show_again(self, token: tuple) -> None:
        """Hand the last results on under ``token`` (the design moved on the canvas only), as an
        evaluation would."""
        for name in self._step_names():
            self._on_result(name, token, self.latest[name])
        self.evaluated.emit()

    def _structural_here(self, design) -> None:
        start = time.perf_counter()
        try:
            # loaded on the worker after the first paint
            from inferboard.practice.grading import score_design

            report = score_design(design, self.settings.scenario, behaviour=False)
        except Exception as error:  # pragma: no cover - reported, not fatal
            self.failed.emit("structural", str(error))
        else:
            self.latest["structural"] = report
            self.structural_ready.emit(report)
        spent = time.perf_counter() - start
        # A smoothed time, so that one slow check (a busy machine) does not decide alone.
        self.timings.structural_s = (spent if not self.timings.structural_s
                                     else 0.6 * self.timings.structural_s + 0.4 * spent)
        # Move it to the worker once it no longer fits in a frame.
        self.structural_on_gui = self.timings.structural_s < FRAME_S

    def _start_job(self, token: tuple, data: bytes, with_structural: bool = False, key: str | None = None) -> None:
        steps = self.steps
        if with_structural and steps is STEPS:
            steps = (("structural", _rules_structural),) + tuple(steps)
        job = EvalJob(data, token, self.settings, self.is_current, steps)
        job.figures_key = key
        self._evaluated = None  # the latest results are this job's from now on, step by step
        job.allow_estimates = token != self._exact_token
        job.setAutoDelete(False)
        job.signals.estimated.connect(self._on_estimated)
        job.signals.result.connect(self._on_result)
        job.signals.failed.connect(self._on_failed)
        job.signals.finished.connect(self._on_finished)
        self._jobs.append(job)
        self._running = token
        self.busy_changed.emit(True)
        self.pool.start(job)

    def _on_estimated(self, name: str, token: tuple) -> None:
        if self.is_current(token):
            self._incoming_estimates.add(name)

    def _on_result(self, name: str, token: tuple, value: Any) -> None:
        if not self.is_current(token):
            return
        self.latest[name] = value
        was = "steady" in self.estimated_steps
        if name in self._incoming_estimates:
            self._incoming_estimates.discard(name)
            self.estimated_steps.add(name)
        else:
            self.estimated_steps.discard(name)
        if name == "steady" and was != ("steady" in self.estimated_steps):
            self.estimate_changed.emit("steady" in self.estimated_steps)
        signal = {"structural": self.structural_ready, "steady": self.steady_ready,
                  "steady_peak": self.steady_peak_ready, "report": self.report_ready,
                  "timeline": self.timeline_ready}.get(name)
        if signal is not None:
            signal.emit(value)

    def _on_failed(self, name: str, token: tuple, message: str) -> None:
        if self.is_current(token):
            self.latest.pop(name, None)
            self.failed.emit(name, message)

    def _on_finished(self, token: tuple, timings: dict) -> None:
        done = [j for j in self._jobs if j.token == token]
        self._jobs = [j for j in self._jobs if j.token != token]
        self._running = None
        if timings:
            self.timings.steps = dict(timings)
        if self._pending or not self.is_current(token):
            self._pending = False
            self.run_now()
            return
        if done and done[-1].estimated:
            self._start_build(done[-1])
            return  # still busy: the exact evaluation follows once the tables are built
        if done and done[-1].figures_key is not None:
            self._evaluated = (token[1], done[-1].figures_key)
        self.busy_changed.emit(False)
        self.evaluated.emit()
        if self.prefetch_tables and done and getattr(done[-1], "used", None):
            self._start_prefetch(done[-1])

    # ------------------------------------------------------------------ estimated tables, then exact
    def _start_build(self, job: EvalJob) -> None:
        """Build the tables ``job`` estimated (on the tables' own thread), then evaluate again."""
        build = TableBuild(job.estimated, job.token)
        build.setAutoDelete(False)
        build.signals.finished.connect(self._build_done)
        self._build = build
        self.busy_changed.emit(True)
        self.prefetch_pool.start(build)

    def _build_done(self, token: tuple, built: bool) -> None:
        self._build = None
        if self.is_current(token) and self._running is None:
            self._exact_token = token
            self.run_now()  # exact now: the tables are at hand (or it builds what failed here)

    def building_tables(self) -> bool:
        """Whether the exact tables of an estimated evaluation are being built."""
        return self._build is not None

    # ------------------------------------------------------------------ tables ahead of edits
    def _start_prefetch(self, job: EvalJob) -> None:
        if self._prefetch is not None:
            return  # one at a time; it stops by itself once the design has changed
        prefetch = TablePrefetch(job.data, job.used, job.token, self.is_current)
        prefetch.setAutoDelete(False)
        prefetch.signals.finished.connect(self._prefetch_done)
        self._prefetch = prefetch
        self.prefetch_pool.start(prefetch)

    def _prefetch_done(self, _token, _value) -> None:
        self._prefetch = None

    def prefetching(self) -> bool:
        """Whether tables for the likely next edits are being built."""
        return self._prefetch is not None

    def shutdown(self) -> None:
        """Stop scheduling, let running jobs see they are stale, and wait for the worker threads."""
        self.timer.stop()
        self._settings_version += 1  # makes every job stale, so it stops after its current step
        self.pool.waitForDone(5000)
        self.prefetch_pool.waitForDone(5000)
