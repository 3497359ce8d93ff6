"""Drift statistics against hand computations, and the detector's delay against its window."""

import math
from statistics import NormalDist

import numpy as np
import pytest

from inferboard.sim.quality.drift import (EVALUATION_S, DriftDetector, FeatureStream, Shift, expected_ks,
                                          hour_draws, ks_statistic, psi, psi_rows, psi_samples)


def test_psi_of_two_known_histograms():
    expected = [25, 25, 25, 25]
    actual = [10, 20, 30, 40]
    # by hand: sum (a - e) ln(a / e) over proportions
    e = [0.25] * 4
    a = [0.1, 0.2, 0.3, 0.4]
    by_hand = sum((ai - ei) * math.log(ai / ei) for ai, ei in zip(a, e))
    assert psi(expected, actual) == pytest.approx(by_hand, rel=1e-12)
    assert by_hand == pytest.approx(0.2282, abs=1e-4)
    assert psi(expected, expected) == 0.0


def test_psi_floors_empty_bins():
    value = psi([50, 50], [100, 0])
    assert value == pytest.approx((1 - 0.5) * math.log(1 / 0.5) + (1e-4 - 0.5) * math.log(1e-4 / 0.5), rel=1e-9)


def test_ks_statistic_of_two_small_samples_by_hand():
    # CDF gaps at 1, 2, 3, 4: x = {1, 2, 3}, y = {2.5, 3.5, 4}: largest gap 2/3 at 2
    assert ks_statistic(np.array([1.0, 2.0, 3.0]), np.array([2.5, 3.5, 4.0])) == pytest.approx(2 / 3)


def test_psi_of_samples_is_near_zero_without_drift_and_large_with_it():
    rng = np.random.default_rng(1)
    ref = rng.standard_normal(20_000)
    assert psi_samples(ref, rng.standard_normal(20_000)) < 0.01
    assert psi_samples(ref, rng.standard_normal(20_000) + 1.0) > 0.5


@pytest.mark.parametrize("window_h", [6.0, 24.0])
def test_ks_detection_delay_follows_the_window(window_h):
    shift, threshold, start = 1.0, 0.15, 3600.0
    # by hand: after a step shift d the window holds a share f drifted; KS = f (2 Phi(d/2) - 1)
    full = 2 * NormalDist().cdf(shift / 2) - 1
    delay = window_h * 3600 * threshold / full
    detector = DriftDetector("d", "ks", window_h * 3600, threshold, "input", [("all", 1.0)],
                             [Shift("all", "input", start, shift)], seed=4)
    detector.advance_to(start + 3 * delay)
    assert detector.fired_at is not None
    assert detector.fired_at - start == pytest.approx(delay, abs=0.25 * delay + EVALUATION_S)
    assert expected_ks(shift, 0.5) == pytest.approx(full / 2)


def test_a_longer_window_detects_later_and_nothing_fires_without_drift():
    def fired(window_h, shifts):
        d = DriftDetector("d", "psi", window_h * 3600, 0.2, "input", [("all", 1.0)], shifts, seed=2)
        d.advance_to(60 * 3600)
        return d.fired_at

    shift = [Shift("all", "input", 0.0, 1.5)]
    assert fired(4, shift) < fired(24, shift)
    assert fired(4, []) is None


def test_concept_drift_is_seen_only_once_labels_arrive():
    shift = [Shift("all", "residual", 0.0, 2.0)]
    late = DriftDetector("d", "ks", 3600, 0.2, "concept", [("all", 1.0)], shift, label_delay_s=4 * 3600)
    late.advance_to(12 * 3600)
    inputs_only = DriftDetector("d", "ks", 3600, 0.2, "input", [("all", 1.0)], shift)
    inputs_only.advance_to(12 * 3600)
    assert late.fired_at is not None and late.fired_at >= 4 * 3600
    assert inputs_only.fired_at is None


def _fresh_window(stream, start_s: float, end_s: float) -> np.ndarray:
    """The samples of ``[start_s, end_s)`` drawn hour by hour again, nothing kept."""
    hours = range(math.floor(start_s / 3600.0), math.ceil(end_s / 3600.0))
    times, noise, uniform = (np.concatenate([hour_draws(stream.seed, stream.index, stream.stream, h,
                                                        stream.per_hour)[part] for h in hours]) for part in range(3))
    keep = (times >= start_s) & (times < end_s)
    return noise[keep] + sum((s.move(times, uniform)[keep] for s in stream.shifts), np.zeros(int(keep.sum())))


def test_kept_bin_counts_give_the_psi_of_the_window_itself():
    """A stream's kept running bin counts and PSI taken on all streams at once give exactly what
    binning each window's own samples and ``psi`` give, before, across and after a partial shift,
    with windows that slide, start before hour 0 and grow the kept run of hours, and once the
    shift is withdrawn."""
    shifts = [Shift("*", "input", 5 * 3600.0, 1.5, ramp_s=1800.0, share=0.4)]
    streams = [FeatureStream(3, i, seg, share, "input", shifts) for i, (seg, share) in
               enumerate((("a", 1.0), ("b", 0.3)))]
    window = 6 * 3600.0
    ends = list(np.arange(900.0, 30 * 3600.0, 2700.0))
    for at, end in enumerate(ends + ends[-3:]):
        if at == len(ends):
            for stream in streams:
                stream.set_shifts([])
        counts, expected, direct = [], [], []
        for stream in streams:
            recent = stream.window(end - window, end)
            assert recent.tolist() == _fresh_window(stream, end - window, end).tolist()
            edges, reference = stream.reference_bins(recent.size)
            own = np.bincount(np.searchsorted(edges, recent, side="right"), minlength=reference.size)
            kept = stream.window_counts(end - window, end)
            assert kept is not None and kept.tolist() == own.tolist()
            counts.append(kept)
            expected.append(reference)
            direct.append(psi(reference, own))
        rows = psi_rows(np.array(expected, dtype=float), np.array(counts, dtype=float))
        assert rows.tolist() == direct


@pytest.mark.parametrize("window_s, segments", [
    (6 * 3600.0, (("a", 1.0), ("b", 0.3))),  # every window held: all worked out together
    (100 * 3600.0, (("a", 1.0),)),  # over MAX_WINDOW_SAMPLES: thinned, one by one
    (600.0, (("a", 0.004),)),  # one sample an hour: mostly under two, one by one
])
def test_readings_worked_out_ahead_are_the_readings_one_by_one(window_s, segments):
    """A detector given a horizon reads every window up to it at once; its readings, their order and
    when it fired are the ones evaluating window by window gives, also when the shifts change half
    way (the readings ahead are dropped and worked out again) and for label-delayed residuals."""
    def played(horizon_s: float) -> DriftDetector:
        shifts = [Shift("*", "input", 5 * 3600.0, 1.5, ramp_s=1800.0, share=0.4),
                  Shift("b", "residual", 8 * 3600.0, 1.0)]
        detector = DriftDetector("d", "psi", window_s, 0.1, "both", list(segments), shifts,
                                 seed=4, label_delay_s=2 * 3600.0)
        detector.horizon_s = horizon_s
        for hour in range(1, 31):
            if hour == 14:
                detector.set_shifts(shifts[1:])
            detector.advance_to(hour * 3600.0)
        return detector

    ahead, alone = played(30 * 3600.0), played(0.0)
    assert len(alone.readings) == round(30 * 3600.0 / alone.evaluation_s) * 2 * len(segments)
    assert ahead.readings == alone.readings
    assert ahead.fired_at == alone.fired_at
    if window_s == 6 * 3600.0:
        assert alone.fired_at is not None
