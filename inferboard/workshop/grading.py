"""Batch grading: every submission of a room graded against one scenario, in a process pool.

Each design is scored by :func:`inferboard.practice.grading.grade_design` (and so by
``score_design``, the one scoring calculation of every surface), then read out by the simulator:
p99 against the scenario's SLO and cost per 1k requests at the scenario's peak, the share of the
peak still served after the busiest region is lost, and each follow-up's verdict (the what-if
runs of ``inferboard.practice.whatif``). Both runs use the scenario's real requirements.

A submission that cannot be read or graded gets a result with ``error`` set; the others go on.
:func:`grade_submissions` takes a progress callback and a cancel flag so the desktop can run it in
a worker thread; with ``jobs`` > 1 the designs are graded in worker processes (``spawn``, so a GUI
process with threads is never forked), each row sent back as soon as it is graded, and the results
are put back in submission order. Designs with the same pools go to the same worker (see
:func:`pool_signature`), and the workers share the batching model's tables through a private
temporary folder, so a table is built once for the room rather than once per worker.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import queue
import shutil
import tempfile
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Protocol, Sequence

from inferboard.catalog.roles import kinds_with
from inferboard.model.design import Design
from inferboard.practice.grading import grade_design
from inferboard.practice.history import utc_now
from inferboard.practice.scenario import FollowUp, Scenario
from inferboard.practice.whatif import load_rate, run_follow_ups, simulator_readout, what_if, with_requirements
from inferboard.store.design_files import DesignFileError, design_to_bytes, parse_design
from inferboard.workshop.submissions import Submission

REGION_LOSS_FAULT = "region_outage:kind=region,location=primary"
#: Findings kept per submission (the worst first); a design can fire many rules.
MAX_FINDINGS = 60


class CancelFlag(Protocol):
    """Anything with ``is_set()`` (a threading.Event) that asks grading to stop."""

    def is_set(self) -> bool:
        """Whether the run was asked to stop."""


#: progress(done, total, result): called in the calling thread after each submission.
Progress = Callable[[int, int, "SubmissionResult"], None]


@dataclass
class SubmissionResult:
    """One row of the room: a graded submission, or the reason it could not be graded."""

    index: int
    name: str
    error: str = ""
    title: str = ""
    sha256: str = ""
    overall: float | None = None
    grade: str = ""
    design_overall: float | None = None
    #: rubric -> percent (None: nothing applicable)
    rubrics: dict[str, float | None] = field(default_factory=dict)
    #: Lost points, worst first: rule_id, rubric, title, message, points, node_ids.
    findings: list[dict[str, Any]] = field(default_factory=list)
    #: p99_ms, slo_p99_ms, within_slo, cost_per_1k, cost_per_hour, lost_pct, rps,
    #: region_loss_served_pct, region_loss_p99_ms, region_loss_note
    figures: dict[str, Any] = field(default_factory=dict)
    #: id, title, held, verdict per follow-up
    follow_ups: list[dict[str, Any]] = field(default_factory=list)
    #: kind -> how many more the reference design has
    missing: dict[str, int] = field(default_factory=dict)
    nodes: int = 0
    edges: int = 0
    #: The design file's text (for pictures and side-by-side views); "" for an error row.
    design: str = ""

    @property
    def ok(self) -> bool:
        """Whether the submission was graded (not refused with an error)."""
        return not self.error

    @property
    def follow_ups_held(self) -> int:
        """How many follow-ups the design held."""
        return sum(1 for f in self.follow_ups if f.get("held"))

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data, for JSON and the cohort store."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SubmissionResult":
        """A result read back from plain data (unknown keys ignored)."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


@dataclass
class GradingRun:
    """A whole room graded: the scenario, its rubrics (name, title, weight) and a row each."""

    scenario_id: str
    scenario_title: str
    rubrics: list[tuple[str, str, float]]
    results: list[SubmissionResult]
    started_at: str = ""
    duration_s: float = 0.0
    jobs: int = 1
    cancelled: bool = False
    skipped: list[str] = field(default_factory=list)

    @property
    def graded(self) -> list[SubmissionResult]:
        """The submissions that were graded."""
        return [r for r in self.results if r.ok]

    @property
    def errors(self) -> list[SubmissionResult]:
        """The submissions that could not be graded."""
        return [r for r in self.results if not r.ok]

    def to_dict(self) -> dict[str, Any]:
        """The run as plain data: scenario, rubrics, timing and every result."""
        return {"scenario": self.scenario_id, "scenario_title": self.scenario_title,
                "rubrics": [{"rubric": n, "title": t, "weight": w} for n, t, w in self.rubrics],
                "started_at": self.started_at, "duration_s": round(self.duration_s, 3), "jobs": self.jobs,
                "cancelled": self.cancelled, "skipped": list(self.skipped),
                "submissions": [r.to_dict() for r in self.results]}


# ------------------------------------------------------------------------------ one design
def region_loss_follow_up(scenario: Scenario) -> FollowUp:
    """The scenario's own region-outage follow-up, or the loss of the busiest location."""
    for follow_up in scenario.follow_ups:
        if any(text.strip().startswith("region_outage") for text in follow_up.faults):
            return follow_up
    return FollowUp(id="region-loss", title="The busiest region is lost",
                    prompt="The region holding most of your serving capacity goes dark at the peak.",
                    faults=[REGION_LOSS_FAULT], look_for="Enough headroom elsewhere to serve the peak.")


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def simulated_figures(scenario: Scenario, design: Design) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The key figures at the scenario's peak with its real requirements, and each follow-up's
    verdict (see the module doc)."""
    # the simulator loads on first use, not at start-up
    from inferboard.sim.steady import design_sim

    requirements = scenario.requirements
    rps = load_rate(requirements)
    slo = requirements.slo_p99_ms
    figures: dict[str, Any] = {"rps": rps, "slo_p99_ms": slo, "p99_ms": None, "within_slo": None,
                               "cost_per_1k": None, "cost_per_hour": None, "lost_pct": None,
                               "region_loss_served_pct": None, "region_loss_p99_ms": None, "region_loss_note": ""}
    try:
        result = design_sim.evaluate(with_requirements(design, requirements), rps=rps)
    except Exception as error:  # noqa: BLE001 - a simulator failure is reported on the row, not raised
        figures["region_loss_note"] = f"the simulator could not evaluate this design ({type(error).__name__})"
        return figures, []
    before = simulator_readout(result, rps)
    p99 = _finite(result.p99_ms)
    lost = min(1.0, before.lost_rate)
    figures.update(p99_ms=p99, cost_per_1k=_finite(result.cost_per_1k), cost_per_hour=_finite(result.cost_per_hour),
                   lost_pct=100.0 * lost,
                   within_slo=None if slo is None or p99 is None else bool(p99 <= slo and lost < 0.01))
    region = region_loss_follow_up(scenario)
    what_ifs = run_follow_ups(scenario, design, before=before)
    loss = next((w for w in what_ifs if w.follow_up_id == region.id), None) or what_if(scenario, design, region,
                                                                                     before)
    if loss.after.available:
        figures["region_loss_served_pct"] = 100.0 * max(0.0, 1.0 - min(1.0, loss.after.lost_rate))
        figures["region_loss_p99_ms"] = _finite(loss.after.p99_ms)
    figures["region_loss_note"] = loss.verdict
    return figures, [{"id": w.follow_up_id, "title": w.title, "held": w.held, "verdict": w.verdict} for w in what_ifs]


def grade_one(scenario: Scenario, reference: Design | None, submission: Submission, index: int = 0,
              behaviour: bool = True) -> SubmissionResult:
    """Grade one submission; any failure becomes the row's ``error``."""
    row = SubmissionResult(index, submission.name, submission.error, sha256=submission.sha256)
    if not submission.ok:
        row.error = row.error or "nothing to grade"
        return row
    try:
        design = parse_design(submission.data, submission.name)
    except DesignFileError as error:
        row.error = _short(str(error), submission.name)
        return row
    except Exception as error:  # noqa: BLE001 - a hostile file must not stop the room
        row.error = f"cannot be read as a design ({type(error).__name__}: {error})"
        return row
    try:
        grade = grade_design(scenario, design, reference, behaviour=behaviour)
        row.overall, row.grade, row.design_overall = grade.overall, grade.grade, grade.design_overall
        row.rubrics = {line.rubric: line.percent for line in grade.rubrics}
        lost = sorted(grade.lost, key=lambda p: -p.points)[:MAX_FINDINGS]
        row.findings = [{"rule_id": p.source, "rubric": p.rubric, "title": p.title, "message": p.message,
                         "points": p.points, "node_ids": list(p.node_ids)} for p in lost]
        row.missing = dict(grade.diff.missing)
        if behaviour:
            row.figures, row.follow_ups = simulated_figures(scenario, design)
    except Exception as error:  # noqa: BLE001 - one design that trips a bug is its own error row
        row.error = f"grading failed ({type(error).__name__}: {error})"
        return row
    row.title = str(design.metadata.get("title", "") or "")[:200]
    row.nodes, row.edges = len(design.nodes), len(design.edges)
    row.design = design_to_bytes(design).decode("utf-8")
    return row


def _short(message: str, name: str) -> str:
    """A design-file error without the file name repeated (the row names the file)."""
    lines = [line[len(name) + 2:] if line.startswith(name + ": ") else line for line in message.splitlines()]
    return "; ".join(lines[:5]) + (f"; ... {len(lines) - 5} more" if len(lines) > 5 else "")


# ------------------------------------------------------------------------------ the pool
_WORKER: dict[str, Any] = {}


def _init_worker(scenario_json: str, reference: bytes | None, behaviour: bool, rows, stop, tables: str) -> None:
    # the simulator loads on first use, not at start-up
    from inferboard.sim.batching.batching import share_tables

    share_tables(tables)

    _WORKER["scenario"] = Scenario.model_validate_json(scenario_json)
    _WORKER["reference"] = parse_design(reference, "<reference>") if reference is not None else None
    _WORKER["behaviour"] = behaviour
    _WORKER["rows"], _WORKER["stop"] = rows, stop


def _grade_batch(batch: list[tuple[int, Submission]]) -> int:
    """Grade a run of submissions in a worker, sending each row back as soon as it is done."""
    done = 0
    for index, submission in batch:
        if _WORKER["stop"].is_set():
            break
        _WORKER["rows"].put(grade_one(_WORKER["scenario"], _WORKER["reference"], submission, index,
                                      _WORKER["behaviour"]))
        done += 1
    return done


def pool_signature(submission: Submission) -> str:
    """What decides which simulator tables a design needs: its serving pools and batchers with
    their parameters, and the caches and canaries that thin the traffic reaching them. Designs that share it are graded by the same worker, which then builds each
    table once (the batching model's tables take most of a grading's time and are cached per
    process)."""
    try:
        raw = json.loads(submission.data or b"{}")
        nodes = raw.get("nodes", []) if isinstance(raw, dict) else []
        pools, shaping = kinds_with("serving_pool"), kinds_with("cache", "canary")
        parts = sorted(json.dumps([n.get("kind"), n.get("params")], sort_keys=True, default=str) for n in nodes
                       if isinstance(n, dict) and (n.get("kind") in pools or n.get("kind") in shaping
                                                 or "batch" in str(n.get("kind"))))
        return "|".join(parts)
    except Exception:  # noqa: BLE001 - the worker reports what is wrong with the file
        return ""


def batches(todo: list[tuple[int, Submission]], workers: int) -> list[list[tuple[int, Submission]]]:
    """``todo`` sorted by pool signature and cut into twice as many runs as workers (locality for
    the table caches, and a spare run each so the workers finish together)."""
    ordered = sorted(todo, key=lambda item: (pool_signature(item[1]), item[0]))
    count = min(len(ordered), 2 * workers)
    size, extra = divmod(len(ordered), count)
    out, at = [], 0
    for n in range(count):
        step = size + (1 if n < extra else 0)
        out.append(ordered[at:at + step])
        at += step
    return out


def default_jobs() -> int:
    """How many worker processes grading uses: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def grade_submissions(scenario: Scenario, reference: bytes | None, submissions: Sequence[Submission],
                      jobs: int | None = None, progress: Progress | None = None, cancel: CancelFlag | None = None,
                      behaviour: bool = True, skipped: Sequence[str] = ()) -> GradingRun:
    """Grade ``submissions`` (``reference``: the scenario's reference design file bytes). With
    ``jobs`` 1 everything runs in this process; otherwise in up to ``jobs`` worker processes."""
    started, clock = utc_now(), time.perf_counter()
    jobs = default_jobs() if jobs is None else max(1, int(jobs))
    results: dict[int, SubmissionResult] = {}
    total = len(submissions)

    def record(row: SubmissionResult) -> None:
        if row.index in results:
            return
        results[row.index] = row
        if progress is not None:
            progress(len(results), total, row)

    def stopped() -> bool:
        return cancel is not None and cancel.is_set()

    todo = []
    for index, submission in enumerate(submissions):
        if submission.ok:
            todo.append((index, submission))
        else:
            record(grade_one(scenario, None, submission, index))
    workers = min(jobs, len(todo))
    if workers > 1:
        try:
            _run_pool(scenario, reference, todo, workers, record, stopped, behaviour)
        except BrokenProcessPool:  # a worker died (killed, out of memory): finish here, one by one
            pass
    ref = None
    for index, submission in todo:  # everything with jobs=1, and whatever a broken pool left
        if stopped():
            break
        if index not in results:
            if ref is None and reference is not None:
                ref = parse_design(reference, "<reference>")
            record(grade_one(scenario, ref, submission, index, behaviour))
    cancelled = stopped() and len(results) < total
    return GradingRun(scenario.id, scenario.title, _rubric_titles(scenario), [results[i] for i in sorted(results)],
                      started, time.perf_counter() - clock, workers if workers > 1 else 1, cancelled, list(skipped))


def _run_pool(scenario: Scenario, reference: bytes | None, todo: list[tuple[int, Submission]], workers: int,
              record: Callable[[SubmissionResult], None], stopped: Callable[[], bool], behaviour: bool) -> None:
    context = multiprocessing.get_context("spawn")  # never fork a process that may run a GUI's threads
    rows, stop = context.Queue(), context.Event()
    tables = tempfile.mkdtemp(prefix="inferboard-tables-")  # the workers share batching tables here
    executor = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                                   initargs=(scenario.model_dump_json(), reference, behaviour, rows, stop, tables))
    expected = len(todo)
    received = 0
    try:
        futures: set[Future] = {executor.submit(_grade_batch, batch) for batch in batches(todo, workers)}
        while received < expected:
            if stopped():
                stop.set()
            try:
                record(rows.get(timeout=0.1))
                received += 1
                continue
            except queue.Empty:
                pass
            finished = {f for f in futures if f.done()}
            for future in finished:
                future.result()  # raises BrokenProcessPool when a worker died
            futures -= finished
            if not futures:  # every batch returned (all done, or stopped early): drain what is left
                while True:
                    try:
                        record(rows.get(timeout=0.2))
                        received += 1
                    except queue.Empty:
                        break
                break
    finally:
        stop.set()
        executor.shutdown(wait=True, cancel_futures=True)
        rows.close()
        shutil.rmtree(tables, ignore_errors=True)


def _rubric_titles(scenario: Scenario) -> list[tuple[str, str, float]]:
    titles: dict[str, str] = {}
    try:
        # the rule set loads on first use, not at import
        from inferboard.rules import default_rules

        rubrics = default_rules().rubrics
        titles = {name: getattr(rubrics[name], "title", name) for name in rubrics}
    except Exception:  # noqa: BLE001 - titles are cosmetic
        pass
    return [(r.rubric, titles.get(r.rubric, r.rubric.replace("_", " ").capitalize()), r.weight)
            for r in scenario.rubrics]


def results_json(run: GradingRun) -> str:
    """The run as indented JSON text."""
    return json.dumps(run.to_dict(), indent=2)
