"""Drift detection on synthetic feature samples: the statistics (PSI, two-sample KS, Wasserstein)
and a detector that evaluates them over its window the way a scheduled drift job does.

Each traffic segment has one monitored feature, standard normal while nothing drifts. An input
drift moves the feature's mean by ``shift_sd`` standard deviations from its start on (reaching it
after ``ramp_s``); a concept drift leaves the inputs alone and moves the model's residual (the
prediction error, known once labels arrive) instead. A shift with ``share`` below 1 moves only that
share of the samples (requests from a population the model was not trained on; which samples is
fixed by a uniform draw per sample), so the feature becomes the mixture ``(1-m) N(0,1) + m N(d,1)``.
Samples are drawn hour by hour from a seed,
the segment and the hour, so the same seed gives the same samples however the clock is stepped.

A detector with window ``W`` compares the last ``W`` of samples with a reference sample of the
healthy distribution every :data:`EVALUATION_S` seconds and fires on the first evaluation whose
statistic exceeds its threshold. After a step shift at ``t0`` a share ``f = (t - t0) / W`` of the
window is drifted; its distribution is the mixture ``(1-f) N(0,1) + f N(d,1)``, so the expected KS
statistic is ``f (2 Phi(d/2) - 1)`` and the detection delay about ``W * threshold / (2 Phi(d/2) - 1)``
(:func:`expected_ks_delay_s`): a longer window is steadier but slower. With a share ``m`` of the
samples moved the drifted part is ``f m`` and the delay ``W * threshold / (m (2 Phi(d/2) - 1))``;
:func:`expected_delay_s` gives it for PSI (solved on the decile bins) and Wasserstein (``f m d``) too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from statistics import NormalDist
from typing import Iterable, Sequence

import numpy as np

EVALUATION_S = 900.0  #: a drift job runs every 15 minutes
SAMPLES_PER_HOUR = 240.0  #: feature samples logged per hour for a segment taking all traffic
PSI_BINS = 10  #: PSI bins at the deciles of the reference sample
PSI_FLOOR = 1e-4  #: an empty bin counts as this proportion (PSI is infinite otherwise)
MAX_WINDOW_SAMPLES = 20_000  #: longer windows are thinned evenly to this many samples
RUN_AHEAD_HOURS = 6  #: how far a stream's kept run of samples grows past the hour asked for


def psi(expected: Sequence[float], actual: Sequence[float], floor: float = PSI_FLOOR) -> float:
    """Population stability index of two histograms over the same bins (counts or proportions):
    ``sum((a - e) * ln(a / e))`` over the bins, proportions floored at ``floor``."""
    e = np.asarray(expected, dtype=float)
    a = np.asarray(actual, dtype=float)
    if e.shape != a.shape or e.size == 0:
        raise ValueError("PSI needs two histograms over the same bins")
    if e.sum() <= 0 or a.sum() <= 0:
        raise ValueError("PSI needs histograms with something in them")
    e = np.maximum(e / e.sum(), floor)
    a = np.maximum(a / a.sum(), floor)
    return float(np.sum((a - e) * np.log(a / e)))


def psi_rows(expected: np.ndarray, actual: np.ndarray, floor: float = PSI_FLOOR) -> np.ndarray:
    """:func:`psi` of each row of ``actual`` against the same row of ``expected`` (counts, every row
    with something in it), the same arithmetic row by row."""
    e = np.maximum(expected / expected.sum(axis=1, keepdims=True), floor)
    a = np.maximum(actual / actual.sum(axis=1, keepdims=True), floor)
    return np.sum((a - e) * np.log(a / e), axis=1)


def psi_samples(reference: np.ndarray, recent: np.ndarray, bins: int = PSI_BINS) -> float:
    """PSI of ``recent`` against ``reference``, binned at the reference's quantiles."""
    edges = np.quantile(reference, np.linspace(0, 1, bins + 1)[1:-1])
    e = np.bincount(np.searchsorted(edges, reference, side="right"), minlength=bins)
    a = np.bincount(np.searchsorted(edges, recent, side="right"), minlength=bins)
    return psi(e, a)


def ks_statistic(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sample Kolmogorov-Smirnov statistic: the largest gap between the empirical CDFs."""
    x, y = np.sort(np.asarray(x, dtype=float)), np.sort(np.asarray(y, dtype=float))
    if x.size == 0 or y.size == 0:
        raise ValueError("KS needs two non-empty samples")
    points = np.concatenate((x, y))
    fx = np.searchsorted(x, points, side="right") / x.size
    fy = np.searchsorted(y, points, side="right") / y.size
    return float(np.max(np.abs(fx - fy)))


def wasserstein(x: np.ndarray, y: np.ndarray, points: int = 512) -> float:
    """1-D earth mover's distance, from the two samples' quantile functions on an even grid."""
    q = (np.arange(points) + 0.5) / points
    return float(np.mean(np.abs(np.quantile(x, q) - np.quantile(y, q))))


STATISTICS = {"psi": psi_samples, "ks": ks_statistic, "wasserstein": wasserstein}


def expected_ks(shift_sd: float, drifted_share: float) -> float:
    """The population KS statistic between N(0,1) and the mixture with ``drifted_share`` at N(d,1)."""
    return min(max(drifted_share, 0.0), 1.0) * (2.0 * NormalDist().cdf(abs(shift_sd) / 2.0) - 1.0)


def expected_ks_delay_s(shift_sd: float, window_s: float, threshold: float, share: float = 1.0) -> float:
    """Seconds after a step shift until the expected KS statistic reaches ``threshold`` (inf: never)."""
    full = expected_ks(shift_sd, 1.0) * min(max(share, 0.0), 1.0)
    return math.inf if full <= threshold else window_s * threshold / full


def expected_psi(shift_sd: float, moved: float, bins: int = PSI_BINS) -> float:
    """The population PSI between N(0,1) and the mixture with a share ``moved`` at N(d,1), on the
    reference's quantile bins."""
    normal = NormalDist()
    edges = [-math.inf, *(normal.inv_cdf(k / bins) for k in range(1, bins)), math.inf]
    cdf = lambda x, mu: 0.0 if x == -math.inf else 1.0 if x == math.inf else normal.cdf(x - mu)  # noqa: E731
    expected = np.full(bins, 1.0 / bins)
    shifted = np.array([cdf(b, shift_sd) - cdf(a, shift_sd) for a, b in zip(edges[:-1], edges[1:])])
    return psi(expected, (1.0 - moved) * expected + moved * shifted)


@lru_cache(maxsize=1024)
def expected_delay_s(test: str, shift_sd: float, share: float, window_s: float, threshold: float) -> float:
    """Seconds after a step shift of a share ``share`` of a stream by ``shift_sd`` until the expected
    ``test`` statistic over a ``window_s`` window reaches ``threshold`` (inf: never). Remembered: every
    timeline with a detector words its expected delay from it."""
    share = min(max(share, 0.0), 1.0)
    if test == "ks":
        return expected_ks_delay_s(shift_sd, window_s, threshold, share)
    if test == "wasserstein":
        full = share * abs(shift_sd)
        return math.inf if full <= threshold else window_s * threshold / full
    if expected_psi(shift_sd, share) <= threshold:
        return math.inf
    low, high = 0.0, 1.0
    for _ in range(40):  # PSI grows with the drifted part of the window: bisect on it
        mid = (low + high) / 2
        low, high = (mid, high) if expected_psi(shift_sd, share * mid) <= threshold else (low, mid)
    return window_s * high


def ramp_level(t: np.ndarray, start_s: float, ramp_s: float, end_s: float = math.inf) -> np.ndarray:
    """0 before ``start_s``, rising linearly to 1 over ``ramp_s`` (at once when 0), 0 from ``end_s``."""
    if ramp_s > 0:
        level = np.clip((t - start_s) / ramp_s, 0.0, 1.0)
    else:
        level = (t >= start_s).astype(float)
    return np.where(t < end_s, level, 0.0)


@dataclass(frozen=True)
class Shift:
    """A timed move of one segment's monitored distribution (``stream``: ``input`` or ``residual``)."""

    segment: str  #: a segment id, or ``*`` for every segment
    stream: str
    start_s: float
    shift_sd: float
    ramp_s: float = 0.0
    end_s: float = math.inf  #: the shift is gone from here on (a model retrained on it, a fix)
    share: float = 1.0  #: the share of samples it moves (below 1: a mixture, see the module docstring)

    def level_at(self, t: np.ndarray) -> np.ndarray:
        """0 before the shift, rising to 1 over its ramp, 0 again from ``end_s``."""
        return ramp_level(t, self.start_s, self.ramp_s, self.end_s)

    def mean_at(self, t: np.ndarray) -> np.ndarray:
        """The monitored feature's mean at times ``t``, in standard deviations of its reference."""
        return self.level_at(t) * self.shift_sd

    def move(self, t: np.ndarray, uniform: np.ndarray) -> np.ndarray:
        """What the shift adds to samples logged at ``t`` whose uniform draws are ``uniform``."""
        if self.share >= 1.0:
            return self.mean_at(t)
        return np.where(uniform < self.share * self.level_at(t), self.shift_sd, 0.0)


@lru_cache(maxsize=8192)
def hour_draws(seed: int, index: int, stream: str, hour: int, per_hour: int) -> tuple[np.ndarray, ...]:
    """The ``per_hour`` samples of one stream's ``hour``: their times, their noise and one uniform each
    (which samples a partial shift moves). They depend on nothing else, so they are drawn once per
    process and shared (read-only) by every check and timeline of any design."""
    first = 0 if stream == "input" else 1
    times = hour * 3600.0 + (np.arange(per_hour) + 0.5) * 3600.0 / per_hour
    noise = np.random.default_rng([seed, index, first, hour + 10**6]).standard_normal(per_hour)
    uniform = np.random.default_rng([seed, index, first + 2, hour + 10**6]).random(per_hour)
    for part in (times, noise, uniform):
        part.flags.writeable = False
    return times, noise, uniform


@dataclass
class _SampleRun:
    """Hours ``first`` to ``last - 1`` of one stream's samples joined, with what is derived from them
    under the shifts in force (the moved values, and per set of PSI bin edges each bin's running count)."""

    first: int
    last: int
    times: np.ndarray
    noise: np.ndarray
    uniform: np.ndarray
    moved: np.ndarray | None = None
    binned: dict = field(default_factory=dict)


class FeatureStream:
    """Deterministic samples of one segment's monitored feature (or residual) over time."""

    def __init__(self, seed: int, segment_index: int, segment: str, share: float, stream: str,
                 shifts: Iterable[Shift] = ()):
        self.seed, self.index, self.segment, self.stream = int(seed), segment_index, segment, stream
        self.per_hour = max(1, int(round(SAMPLES_PER_HOUR * max(share, 0.0))))
        self._run: _SampleRun | None = None
        self.set_shifts(shifts)
        self._bins: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def set_shifts(self, shifts: Iterable[Shift]) -> None:
        """Keep the shifts that move this stream in this segment."""
        self.shifts = [s for s in shifts if s.stream == self.stream and s.segment in ("*", self.segment)]
        if self._run is not None:
            self._run.moved, self._run.binned = None, {}

    def reference(self, size: int) -> np.ndarray:
        """A sample of the healthy distribution (the detector's reference window)."""
        rng = np.random.default_rng([self.seed, self.index, 0 if self.stream == "input" else 1, 7])
        return rng.standard_normal(max(size, 2))

    def _run_covering(self, first: int, last: int) -> "_SampleRun":
        """A kept run of whole hours that holds hours ``first`` to ``last - 1``. A detector's windows
        overlap and slide forward, so the run grows ``RUN_AHEAD_HOURS`` ahead when it must grow, and
        each hour is joined a few times in all instead of once per evaluation."""
        run = self._run
        if run is None or first < run.first:
            lo, hi = first, max(last, run.last if run is not None else last)
            run = self._run = _SampleRun(lo, hi, *self._joined(range(lo, hi)))
        elif last > run.last:  # append the hours ahead
            hi = max(last, run.last + RUN_AHEAD_HOURS)
            parts = zip((run.times, run.noise, run.uniform), self._joined(range(run.last, hi)))
            run = self._run = _SampleRun(run.first, hi, *(np.concatenate(pair) for pair in parts))
        return run

    def _joined(self, hours: range) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The times, noise and uniforms of ``hours``, each joined into one array."""
        drawn = [hour_draws(self.seed, self.index, self.stream, h, self.per_hour) for h in hours]
        return tuple(np.concatenate([d[part] for d in drawn]) for part in range(3))

    def _moved(self, run: "_SampleRun") -> np.ndarray:
        """The run's samples with the shifts in force added (kept until the run or the shifts change)."""
        if run.moved is None:
            run.moved = run.noise + sum(s.move(run.times, run.uniform) for s in self.shifts) if self.shifts \
                else run.noise
        return run.moved

    def _locate(self, start_s: float, end_s: float) -> tuple["_SampleRun | None", int, int]:
        """The kept run holding the samples logged in ``[start_s, end_s)`` and their index range in it."""
        if end_s <= start_s:
            return None, 0, 0
        first, last = int(math.floor(start_s / 3600.0)), int(math.ceil(end_s / 3600.0))
        if last <= first:
            return None, 0, 0
        run = self._run_covering(first, last)
        skip = (first - run.first) * self.per_hour
        end = skip + (last - first) * self.per_hour
        lo, hi = np.searchsorted(run.times[skip:end], (start_s, end_s), side="left") + skip
        return run, int(lo), int(hi)

    def window(self, start_s: float, end_s: float) -> np.ndarray:
        """The samples logged in ``[start_s, end_s)``."""
        run, lo, hi = self._locate(start_s, end_s)
        if run is None:
            return np.zeros(0)
        values = self._moved(run)[lo:hi].copy()  # the kept run is shared between windows
        if values.size > MAX_WINDOW_SAMPLES:
            values = values[np.linspace(0, values.size - 1, MAX_WINDOW_SAMPLES).astype(int)]
        return values

    def window_counts(self, start_s: float, end_s: float) -> np.ndarray | None:
        """The PSI bin counts of the samples logged in ``[start_s, end_s)`` on the reference's bins
        for that many samples (what ``psi_samples`` bins them into), or None when the window holds
        fewer than two samples or is thinned (then bin :meth:`window` itself). Each sample's bin is
        found once per kept run and set of shifts."""
        run, lo, hi = self._locate(start_s, end_s)
        size = hi - lo
        if run is None or size < 2 or size > MAX_WINDOW_SAMPLES:
            return None
        below = self._running_counts(run, size)
        return below[:, hi] - below[:, lo]

    def windows_counts(self, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`window_counts` of many windows ``[starts[i], ends[i])`` (each ``ends[i] > starts[i]``)
        at once: ``(counts, held)``, ``counts[i]`` the bin counts of window ``i`` where ``held[i]``
        (a window :meth:`window_counts` answers None for is not held, its row is zero)."""
        counts = np.zeros((starts.size, PSI_BINS), dtype=np.int64)
        held = np.zeros(starts.size, dtype=bool)
        if starts.size == 0:
            return counts, held
        run = self._run_covering(int(math.floor(float(starts.min()) / 3600.0)),
                                 int(math.ceil(float(ends.max()) / 3600.0)))
        lo = np.searchsorted(run.times, starts, side="left")
        hi = np.searchsorted(run.times, ends, side="left")
        sizes = hi - lo
        held[:] = (sizes >= 2) & (sizes <= MAX_WINDOW_SAMPLES)
        for size in np.unique(sizes[held]).tolist():
            rows = np.flatnonzero(held & (sizes == size))
            below = self._running_counts(run, size)
            counts[rows] = (below[:, hi[rows]] - below[:, lo[rows]]).T
        return counts, held

    def _running_counts(self, run: "_SampleRun", size: int) -> np.ndarray:
        """Per PSI bin of a ``size``-sample window, how many of ``run``'s samples before each index
        fall in it (kept per run, set of shifts and bin edges)."""
        edges, expected = self.reference_bins(size)
        key = edges.tobytes()
        below = run.binned.get(key)
        if below is None:
            bins = np.searchsorted(edges, self._moved(run), side="right")
            below = np.zeros((expected.size, bins.size + 1), dtype=np.int64)
            np.cumsum(bins == np.arange(expected.size)[:, None], axis=1, out=below[:, 1:])
            run.binned[key] = below
        return below

    def reference_bins(self, size: int, bins: int = PSI_BINS) -> tuple[np.ndarray, np.ndarray]:
        """The PSI bin edges at the quantiles of :meth:`reference` and its counts in them (kept per size)."""
        found = self._bins.get((size, bins))
        if found is None:
            reference = self.reference(size)
            edges = np.quantile(reference, np.linspace(0, 1, bins + 1)[1:-1])
            counts = np.bincount(np.searchsorted(edges, reference, side="right"), minlength=bins)
            found = self._bins[(size, bins)] = (edges, counts)
        return found


@dataclass(frozen=True)
class DetectorReading:
    """One evaluation of a drift detector: when, on which segment and stream, its statistic, and whether it
    fired."""
    t_s: float
    segment: str
    stream: str
    statistic: float
    fired: bool


class DriftDetector:
    """A drift detector of the design: ``test`` over ``window_s`` with ``threshold``, watching the
    input feature, the residual (needs labels, ``label_delay_s`` late) or both, per segment."""

    def __init__(self, node_id: str, test: str, window_s: float, threshold: float, drift_type: str,
                 segments: Sequence[tuple[str, float]], shifts: Sequence[Shift], seed: int = 0,
                 label_delay_s: float = 0.0, evaluation_s: float = EVALUATION_S):
        if test not in STATISTICS:
            raise ValueError(f"unknown drift test '{test}'; known: {', '.join(STATISTICS)}")
        self.node_id, self.test, self.window_s, self.threshold = node_id, test, float(window_s), float(threshold)
        self.evaluation_s = min(float(evaluation_s), self.window_s)
        self.label_delay_s = float(label_delay_s)
        streams = {"input": ["input"], "concept": ["residual"], "both": ["input", "residual"]}[drift_type]
        self.streams = [FeatureStream(seed, i, seg, share, stream, shifts)
                        for i, (seg, share) in enumerate(segments) for stream in streams]
        self.readings: list[DetectorReading] = []
        self.next_s = self.evaluation_s
        self.fired_at: float | None = None
        #: how far ahead evaluations may be worked out at once (0: one by one); a timeline whose end is
        #: known sets it, a drill that adds shifts as it goes leaves it
        self.horizon_s = 0.0
        self._ahead: dict[float, list[DetectorReading]] = {}  #: readings worked out ahead, by time

    def reading(self, stream: FeatureStream, t: float) -> DetectorReading:
        """The detector's statistic on ``stream`` over its window ending at ``t`` (residuals lag by the
        label delay), and whether it passes the threshold."""
        lag = self.label_delay_s if stream.stream == "residual" else 0.0
        if self.test == "psi":  # the same as psi_samples, with the reference's bins and each sample's bin kept
            counts = stream.window_counts(t - lag - self.window_s, t - lag)
            if counts is not None:
                value = psi(stream.reference_bins(int(counts.sum()))[1], counts)
                return DetectorReading(t, stream.segment, stream.stream, value, value > self.threshold)
        recent = stream.window(t - lag - self.window_s, t - lag)
        if recent.size < 2:
            return DetectorReading(t, stream.segment, stream.stream, 0.0, False)
        if self.test == "psi":
            edges, expected = stream.reference_bins(recent.size)
            value = psi(expected, np.bincount(np.searchsorted(edges, recent, side="right"), minlength=expected.size))
        else:
            value = STATISTICS[self.test](stream.reference(recent.size), recent)
        return DetectorReading(t, stream.segment, stream.stream, value, value > self.threshold)

    def readings_at(self, t: float) -> list[DetectorReading]:
        """The detector's reading on every stream at ``t``: PSI on every stream at once from the
        streams' kept bin counts when each window has them, else stream by stream (:meth:`reading`)."""
        if self.test != "psi":
            return [self.reading(stream, t) for stream in self.streams]
        counts = []
        for stream in self.streams:
            lag = self.label_delay_s if stream.stream == "residual" else 0.0
            found = stream.window_counts(t - lag - self.window_s, t - lag)
            if found is None:
                return [self.reading(stream, t) for stream in self.streams]
            counts.append(found)
        actual = np.array(counts, dtype=float)
        expected = np.array([stream.reference_bins(int(c.sum()))[1] for stream, c in zip(self.streams, counts)],
                            dtype=float)
        values = psi_rows(expected, actual).tolist()
        return [DetectorReading(t, stream.segment, stream.stream, value, value > self.threshold)
                for stream, value in zip(self.streams, values)]

    def set_shifts(self, shifts: Sequence[Shift]) -> None:
        """The shifts in force (a drill adds and ends them as it runs); past readings stay."""
        for stream in self.streams:
            stream.set_shifts(shifts)
        self._ahead.clear()

    def readings_ahead(self, times: Sequence[float]) -> dict[float, list[DetectorReading]]:
        """:meth:`readings_at` of every time in ``times`` under the shifts in force, PSI windows binned
        for all of them at once: the same readings, bit for bit."""
        if self.test != "psi" or not times:
            return {t: self.readings_at(t) for t in times}
        at = np.asarray(times, dtype=float)
        rows, held = [], np.ones(at.size, dtype=bool)
        for stream in self.streams:
            ends = at - (self.label_delay_s if stream.stream == "residual" else 0.0)
            counts, stream_held = stream.windows_counts(ends - self.window_s, ends)
            rows.append(counts)
            held &= stream_held
        found = {t: self.readings_at(t) for t, ok in zip(times, held.tolist()) if not ok}
        index = np.flatnonzero(held)
        if index.size:
            actual = np.stack([counts[index] for counts in rows], axis=1).reshape(-1, PSI_BINS).astype(float)
            sizes = actual.sum(axis=1).astype(int).tolist()
            expected = np.array([stream.reference_bins(size)[1] for stream, size in
                                 zip(self.streams * index.size, sizes)], dtype=float)
            values = psi_rows(expected, actual).reshape(index.size, len(self.streams)).tolist()
            for i, row in zip(index.tolist(), values):
                found[times[i]] = [DetectorReading(times[i], stream.segment, stream.stream, value,
                                                   value > self.threshold) for stream, value in zip(self.streams, row)]
        return found

    def _due_readings(self, t: float) -> list[DetectorReading]:
        """The readings of the evaluation at ``t`` (one due now), from those worked out ahead when the
        horizon allows, working out the rest of it when none is."""
        if self.horizon_s <= t:
            return self.readings_at(t)
        if t not in self._ahead:
            times, step = [], t
            while step <= self.horizon_s + 1e-9:  # the times advance_to reaches, summed the same way
                times.append(step)
                step += self.evaluation_s
            self._ahead = self.readings_ahead(times)
        return self._ahead.pop(t)

    def advance_to(self, t: float) -> list[DetectorReading]:
        """Run every evaluation due up to ``t``; returns the readings that fired."""
        fired = []
        while self.next_s <= t + 1e-9:
            for r in self._due_readings(self.next_s):
                self.readings.append(r)
                if r.fired:
                    fired.append(r)
                    if self.fired_at is None:
                        self.fired_at = self.next_s
            self.next_s += self.evaluation_s
        return fired
