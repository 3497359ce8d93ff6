"""Offered traffic over time for the timeline: the patterns the requirements name, and CSV replay.

Every value is the mean request rate over one tick ``[t, t + dt)`` (dt from the spacing of
``times_s``), so a step, a spike, a burst or a replayed trace is integrated exactly over the tick,
whatever the tick length; the smooth diurnal curve is sampled at the middle of each tick.

- ``steady``: ``mean_rps`` throughout.
- ``diurnal``: a smooth daily curve, highest (= ``peak_rps``) at 16:00 of each simulated day and
  lowest at 04:00, whose daily average is exactly ``mean_rps`` for any peak >= mean:
  ``floor + (peak - floor) * u**k`` with ``u = cos²(π (h - 16)/24)`` (h the hour of the day). The
  trough is ``floor = max(2 mean - peak, 15% of mean)`` and ``k`` solves
  ``floor + (peak - floor) M(k) = mean``, ``M(k) = Γ(k + ½)/(√π Γ(k + 1))`` being the daily mean of
  ``u**k``. Up to peak = 1.85 × mean this is k = 1, the plain cosine ``mean + (peak - mean) cos``;
  beyond, the night stays at 15% of the mean (never clipped flat, never zero) and the day's hump
  narrows (k > 1) so the average still comes out at the mean. Where a tick is coarse against that
  hump (a very high peak-to-mean ratio) the tick's value averages a few points inside it.
- ``step``: ``mean_rps``, then ``peak_rps`` from one third of the horizon on.
- ``spike``: ``mean_rps`` with a 10-minute spike to ``peak_rps`` starting at 40% of the horizon.
- ``bursty``: a seeded two-state Markov-modulated rate: a normal level and a burst level
  (= ``peak_rps``) with exponential sojourns, 20 minutes normal and 3 minutes burst on average;
  the normal level is chosen so that the long-run average is ``mean_rps``. When that would put
  the normal level below 5% of the mean, the normal level is held there and bursts come less often.
- ``replay``: a CSV trace (:func:`load_replay_csv`) of ``time_s,rps`` rows, or one rps value per
  line taken as one value per tick; held constant between samples and repeated from its start
  when the timeline is longer than the trace (the last sample lasts as long as the gap before it).

The horizon (for step and spike) is the end of the last tick unless ``horizon_s`` is given.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np

from inferboard.safe_read import FileRefused, decode_text, read_bounded

PATTERNS = ("steady", "diurnal", "step", "spike", "bursty", "replay")
DAY_S = 86400.0
PEAK_HOUR = 16.0
#: the diurnal trough never goes below this share of the mean (see ``diurnal``)
DIURNAL_FLOOR_SHARE = 0.15
#: most points the diurnal curve is evaluated at (ticks × points per tick)
MAX_DIURNAL_SAMPLES = 20_000_000
#: the bursty pattern's normal level never goes below this share of the mean
FLOOR_SHARE = 0.05
SPIKE_S = 600.0
BURSTY_NORMAL_S = 1200.0
BURSTY_BURST_S = 180.0
MAX_REPLAY_BYTES = 64 * 1024 * 1024


class ReplayCsvError(ValueError):
    """A replay CSV that cannot be used; the message names the file, the line and the field."""


def tick_edges(times_s: np.ndarray) -> np.ndarray:
    """The n + 1 boundaries of the ticks that start at ``times_s`` (the last tick as long as the one before)."""
    times = np.asarray(times_s, dtype=float)
    if times.size == 0:
        return np.zeros(1)
    last = float(times[-1] - times[-2]) if times.size > 1 else 1.0
    return np.append(times, times[-1] + max(last, 1e-9))


def _step_average(breaks: np.ndarray, values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Mean over each tick of the step function worth ``values[k]`` on ``[breaks[k], breaks[k+1])``."""
    cumulative = np.concatenate(([0.0], np.cumsum(values * np.diff(breaks))))
    integral = np.interp(edges, breaks, cumulative)
    return np.diff(integral) / np.diff(edges)


def _log_hump_mean(k: float) -> float:
    """log M(k), M(k) = Γ(k + ½)/(√π Γ(k + 1)): the mean over a day of ``cos²(π (h - 16)/24)**k``."""
    if k < 1e7:
        return math.lgamma(k + 0.5) - math.lgamma(k + 1.0) - 0.5 * math.log(math.pi)
    # Γ(k + ½)/Γ(k + 1) = k^-½ (1 - 1/(8k) + 1/(128k²) + ...), where the lgamma difference cancels
    return -0.5 * math.log(math.pi * k) + math.log1p(-1.0 / (8.0 * k) + 1.0 / (128.0 * k * k))


def diurnal_shape(mean: float, peak: float) -> tuple[float, float]:
    """(floor, k) of the diurnal curve ``floor + (peak - floor) * u**k`` (see the module docstring)."""
    floor = max(2.0 * mean - peak, DIURNAL_FLOOR_SHARE * mean)
    target = (mean - floor) / (peak - floor)  # M(k), in (0, 1/2]
    if target >= 0.5:
        return floor, 1.0
    log_target = math.log(target)
    low, high = 0.0, 60.0  # log k; M(e^60) ≈ 1e-13, far below any useful peak/mean ratio
    for _ in range(200):
        mid = 0.5 * (low + high)
        if _log_hump_mean(math.exp(mid)) > log_target:
            low = mid
        else:
            high = mid
    return floor, math.exp(0.5 * (low + high))


def _diurnal(mean: float, peak: float, edges: np.ndarray) -> np.ndarray:
    ticks = edges.size - 1
    if peak <= mean or mean <= 0:
        return np.full(ticks, mean)
    floor, k = diurnal_shape(mean, peak)
    widths = np.diff(edges)
    # points per tick: one (the middle) unless the tick is wide against the hump's width ~ 1/sqrt(k) rad
    per_tick = int(math.ceil(2.0 * math.sqrt(k) * 2.0 * math.pi * float(widths.max()) / DAY_S))
    per_tick = max(1, min(per_tick, max(1, MAX_DIURNAL_SAMPLES // ticks)))
    at = edges[:-1, None] + widths[:, None] * ((np.arange(per_tick) + 0.5) / per_tick)
    half_phase = math.pi * (at / DAY_S - PEAK_HOUR / 24.0)
    rate = floor + (peak - floor) * (np.cos(half_phase) ** 2) ** k
    return rate.mean(axis=1) if per_tick > 1 else rate[:, 0]


def bursty_levels(mean: float, peak: float) -> tuple[float, float, float]:
    """(normal level, mean normal sojourn s, mean burst sojourn s) with long-run average ``mean``."""
    p_burst = BURSTY_BURST_S / (BURSTY_BURST_S + BURSTY_NORMAL_S)
    normal = (mean - p_burst * peak) / (1 - p_burst)
    if normal >= FLOOR_SHARE * mean:
        return normal, BURSTY_NORMAL_S, BURSTY_BURST_S
    normal = FLOOR_SHARE * mean
    p_burst = (mean - normal) / (peak - normal)
    return normal, BURSTY_BURST_S * (1 - p_burst) / p_burst, BURSTY_BURST_S


def _bursty(mean: float, peak: float, edges: np.ndarray, seed: int) -> np.ndarray:
    if peak <= mean or mean <= 0:
        return np.full(edges.size - 1, mean)
    normal, normal_s, burst_s = bursty_levels(mean, peak)
    rng = np.random.default_rng(seed)
    start, end = float(edges[0]), float(edges[-1])
    in_burst = bool(rng.random() < burst_s / (burst_s + normal_s))
    breaks, values = [start], []
    t = start
    while t < end:
        for unit in rng.exponential(1.0, size=256):
            values.append(peak if in_burst else normal)
            t += float(unit) * (burst_s if in_burst else normal_s)
            breaks.append(t)
            in_burst = not in_burst
            if t >= end:
                break
    return _step_average(np.array(breaks), np.array(values), edges)


def _replay(path: Path, edges: np.ndarray, interval_s: float) -> np.ndarray:
    times, rps = load_replay_csv(path, interval_s)
    gap = float(times[-1] - times[-2]) if times.size > 1 else interval_s
    period = float(times[-1] + gap - times[0])
    # Unroll the trace over as many periods as the horizon needs, relative to its first sample.
    span = float(edges[-1] - edges[0])
    repeats = int(math.ceil(span / period)) + 1
    base = times - times[0]
    breaks = np.concatenate([base + k * period for k in range(repeats)] + [[repeats * period]])
    values = np.tile(rps, repeats)
    return _step_average(breaks, values, edges - edges[0])


def traffic_series(pattern: str, mean_rps: float, peak_rps: float, times_s: np.ndarray, seed: int = 0,
                   replay_csv: Path | str | None = None, *, horizon_s: float | None = None) -> np.ndarray:
    """Offered requests per second over each tick starting at ``times_s`` (see the module docstring)."""
    if pattern not in PATTERNS:
        raise ValueError(f"unknown traffic pattern '{pattern}'; known: {', '.join(PATTERNS)}")
    times = np.asarray(times_s, dtype=float)
    if times.size == 0:
        return np.zeros(0)
    if not np.all(np.isfinite(times)) or np.any(np.diff(times) <= 0):
        raise ValueError("times_s must be finite and increasing")
    mean = max(0.0, float(mean_rps)) if math.isfinite(mean_rps) else 0.0
    peak = max(mean, float(peak_rps)) if math.isfinite(peak_rps) else mean
    edges = tick_edges(times)
    horizon = float(horizon_s) if horizon_s is not None else float(edges[-1])
    if pattern == "steady":
        out = np.full(times.size, mean)
    elif pattern == "diurnal":
        out = _diurnal(mean, peak, edges)
    elif pattern == "step":
        out = _step_average(np.array([min(edges[0], 0.0), horizon / 3, max(edges[-1], horizon) + 1]),
                            np.array([mean, peak]), edges)
    elif pattern == "spike":
        start = 0.4 * horizon
        out = _step_average(np.array([min(edges[0], 0.0), start, start + SPIKE_S,
                                      max(edges[-1], start + SPIKE_S) + 1]),
                            np.array([mean, peak, mean]), edges)
    elif pattern == "bursty":
        out = _bursty(mean, peak, edges, seed)
    else:
        if replay_csv is None:
            raise ValueError("the replay pattern needs a CSV file (replay_csv)")
        out = _replay(Path(replay_csv), edges, float(edges[1] - edges[0]))
    return np.clip(np.nan_to_num(out, nan=0.0, posinf=0.0, neginf=0.0), 0.0, None)


def load_replay_csv(path: Path | str, interval_s: float = 60.0) -> tuple[np.ndarray, np.ndarray]:
    """Read a traffic trace: ``time_s,rps`` rows, or one rps value per line (``interval_s`` apart).

    Blank lines and lines starting with ``#`` are skipped; the first line may be a header
    (``time_s,rps`` or ``rps``). Times must start at 0 or later and increase; rates must be finite
    and >= 0. Raises :class:`ReplayCsvError` naming the file, line and field of the first problem.
    """
    path = Path(path)
    try:
        text = decode_text(read_bounded(path, MAX_REPLAY_BYTES), str(path))  # a pipe or device is refused
    except FileRefused as refusal:
        raise ReplayCsvError(str(refusal)) from None
    times: list[float] = []
    rates: list[float] = []
    columns = None
    seen_line = False
    reader = csv.reader(io.StringIO(text), skipinitialspace=True)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            raise ReplayCsvError(f"{path}, line {reader.line_num}: {error}") from None
        number = reader.line_num
        fields = [f.strip() for f in row]
        if not any(fields) or fields[0].startswith("#"):
            continue
        if fields and fields[-1] == "" and len(fields) > 1:
            fields = fields[:-1]
        if not seen_line:
            seen_line = True
            if all(not _is_number(f) for f in fields):
                if len(fields) not in (1, 2):
                    raise ReplayCsvError(f"{path}, line {number}: header has {len(fields)} fields; "
                                         "expected 'time_s,rps' or 'rps'")
                columns = len(fields)
                continue
        if columns is None:
            columns = len(fields)
            if columns not in (1, 2):
                raise ReplayCsvError(f"{path}, line {number}: {columns} fields; expected 'time_s,rps' "
                                     "or one rps value per line")
        if len(fields) != columns:
            raise ReplayCsvError(f"{path}, line {number}: {len(fields)} field(s) where the file has {columns}")
        names = ("time_s", "rps") if columns == 2 else ("rps",)
        values = []
        for name, field in zip(names, fields):
            try:
                value = float(field)
            except ValueError:
                raise ReplayCsvError(f"{path}, line {number}, field '{name}': '{field[:40]}' is not a number") from None
            if not math.isfinite(value) or value < 0:
                raise ReplayCsvError(f"{path}, line {number}, field '{name}': {field[:40]} must be a finite "
                                     "number >= 0")
            values.append(value)
        if columns == 2:
            if times and values[0] <= times[-1]:
                raise ReplayCsvError(f"{path}, line {number}, field 'time_s': {fields[0]} does not increase "
                                     f"(previous {times[-1]:g})")
            times.append(values[0])
        rates.append(values[-1])
    if not rates:
        raise ReplayCsvError(f"{path}: no data rows (expected 'time_s,rps' rows or one rps value per line)")
    if columns == 1:
        if not math.isfinite(interval_s) or interval_s <= 0:
            raise ValueError("interval_s must be > 0")
        times = [i * float(interval_s) for i in range(len(rates))]
    return np.array(times, dtype=float), np.array(rates, dtype=float)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
