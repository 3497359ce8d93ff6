"""Traffic patterns and CSV replay, checked against the definitions (not against earlier output)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from inferboard.sim.timeline.traffic import PATTERNS, ReplayCsvError, diurnal_shape, load_replay_csv, traffic_series

DAY = 86400.0


def ticks(hours: float, tick_s: float) -> np.ndarray:
    return np.arange(int(round(hours * 3600 / tick_s))) * tick_s


@pytest.mark.parametrize("mean, peak", [(100.0, 200.0), (100.0, 150.0), (40.0, 400.0)])
def test_diurnal_daily_mean_peak_time_and_floor(mean, peak):
    times = ticks(72, 60)
    rate = traffic_series("diurnal", mean, peak, times)
    days = rate.reshape(3, -1)
    assert np.allclose(days.mean(axis=1), mean, rtol=2e-3)
    assert rate.max() == pytest.approx(peak, rel=1e-3)
    assert rate.min() >= 0.05 * mean - 1e-9
    # The maximum of each day is at 16:00 (the tick whose middle is nearest 16:00).
    for day in range(3):
        top = times[day * 1440 + int(np.argmax(days[day]))] % DAY
        assert abs(top + 30 - 16 * 3600) <= 60


def test_diurnal_without_floor_is_the_plain_cosine():
    times = ticks(24, 600)
    rate = traffic_series("diurnal", 100.0, 180.0, times)
    middle = times + 300
    expected = 100 + 80 * np.cos(2 * math.pi * (middle / DAY - 16 / 24))
    assert np.allclose(rate, expected, rtol=1e-6)


RATIOS = [1.0, 1.3, 1.85, 2.0, 2.5, 3.0, 5.0, 10.0, 40.0]


@pytest.mark.parametrize("ratio", RATIOS)
def test_diurnal_keeps_the_daily_mean_and_peaks_at_the_peak_for_any_ratio(ratio):
    mean = 120.0
    peak = ratio * mean
    # 30-second ticks shifted so that a tick's middle falls exactly on 16:00 of each day
    times = np.arange(2 * 2880) * 30.0 - 15.0
    rate = traffic_series("diurnal", mean, peak, times)
    days = rate.reshape(2, -1)
    assert np.allclose(days.mean(axis=1), mean, rtol=1e-6)  # the daily average, numerically
    assert rate.max() == pytest.approx(peak, rel=1e-12)
    middles = times + 15.0
    for day in range(2):
        top = middles[day * 2880 + int(np.argmax(days[day]))] % DAY
        assert top == 16 * 3600 or ratio == 1.0


@pytest.mark.parametrize("ratio", RATIOS)
def test_diurnal_night_stays_positive_and_is_never_clipped(ratio):
    mean = 80.0
    peak = ratio * mean
    times = ticks(24, 60)
    rate = traffic_series("diurnal", mean, peak, times)
    floor = max(2 * mean - peak, 0.15 * mean)
    assert rate.min() > 0
    assert rate.min() >= floor * (1 - 1e-12)
    if ratio == 1.0:
        return
    # the closed-form curve everywhere: nothing is clamped
    shape_floor, k = diurnal_shape(mean, peak)
    hour = (times + 30) / 3600
    curve = shape_floor + (peak - shape_floor) * (np.cos(math.pi * (hour - 16) / 24) ** 2) ** k
    assert shape_floor == pytest.approx(floor)
    assert np.allclose(rate, curve, rtol=1e-12, atol=0)
    # smooth: rising from 04:00 to 16:00 and falling back, strictly wherever it is above the floor
    rising = rate[(hour > 4) & (hour < 16)]
    later = (hour > 16) | (hour < 4)
    falling = rate[later][np.argsort((hour[later] - 16) % 24)]
    for values, sign in ((rising, 1), (falling, -1)):
        step = sign * np.diff(values)
        assert np.all(step >= 0)
        above = values[1:] - floor > 1e-9 * mean
        assert np.all(step[above] > 0)


@pytest.mark.parametrize("ratio", [2.5, 5.0, 10.0, 40.0])
@pytest.mark.parametrize("tick_s", [600.0, 900.0, 3600.0])
def test_diurnal_mean_holds_with_coarse_ticks(ratio, tick_s):
    rate = traffic_series("diurnal", 50.0, ratio * 50.0, ticks(72, tick_s))
    assert np.allclose(rate.reshape(3, -1).mean(axis=1), 50.0, rtol=1e-6)
    assert rate.max() <= ratio * 50.0 * (1 + 1e-12)


def test_diurnal_shape_parameters():
    assert diurnal_shape(100.0, 185.0) == pytest.approx((15.0, 1.0))  # the plain cosine up to 1.85x
    floor, k = diurnal_shape(100.0, 250.0)
    assert floor == pytest.approx(15.0) and k > 1
    # the daily mean of cos^2k(x/2) is Gamma(k + 1/2) / (sqrt(pi) Gamma(k + 1))
    hump = math.exp(math.lgamma(k + 0.5) - math.lgamma(k + 1) - 0.5 * math.log(math.pi))
    assert floor + (250.0 - floor) * hump == pytest.approx(100.0, rel=1e-12)
    assert diurnal_shape(100.0, 500.0)[1] > k  # a higher peak narrows the hump


def test_steady_and_unknown_pattern():
    assert np.all(traffic_series("steady", 50, 500, ticks(2, 60)) == 50)
    with pytest.raises(ValueError, match="unknown traffic pattern"):
        traffic_series("tidal", 1, 2, ticks(1, 60))
    assert set(PATTERNS) == {"steady", "diurnal", "step", "spike", "bursty", "replay"}


def test_step_switches_to_peak_at_one_third_of_the_horizon():
    times = ticks(24, 60)
    rate = traffic_series("step", 100, 300, times)
    switch = 8 * 3600
    assert np.all(rate[times < switch] == 100)
    assert np.all(rate[times >= switch] == 300)


def test_spike_lasts_ten_minutes_from_forty_percent():
    times = ticks(24, 60)
    rate = traffic_series("spike", 100, 900, times)
    start = 0.4 * DAY
    inside = (times >= start) & (times < start + 600)
    assert inside.sum() == 10
    assert np.all(rate[inside] == 900) and np.all(rate[~inside] == 100)


def test_coarse_ticks_keep_the_spike_volume():
    times = ticks(24, 900)
    rate = traffic_series("spike", 100, 900, times)
    volume = rate.sum() * 900
    assert volume == pytest.approx(100 * DAY + 800 * 600)
    assert rate.max() < 900  # averaged into a 15-minute tick


def test_bursty_long_run_mean_and_levels():
    times = ticks(24 * 30, 60)
    rate = traffic_series("bursty", 100, 400, times, seed=11)
    assert rate.mean() == pytest.approx(100, rel=0.1)
    assert rate.max() == pytest.approx(400)
    normal = (23 * 100 - 3 * 400) / 20  # 20 min normal, 3 min burst on average
    assert rate.min() == pytest.approx(normal)
    again = traffic_series("bursty", 100, 400, times, seed=11)
    other = traffic_series("bursty", 100, 400, times, seed=12)
    assert np.array_equal(rate, again) and not np.array_equal(rate, other)


def test_bursty_with_a_very_high_peak_keeps_the_mean():
    times = ticks(24 * 30, 60)
    rate = traffic_series("bursty", 100, 5000, times, seed=3)
    assert rate.mean() == pytest.approx(100, rel=0.1)
    assert rate.min() == pytest.approx(5.0)


def test_replay_two_columns_step_hold_average_and_loop(tmp_path):
    path = tmp_path / "trace.csv"
    path.write_text("time_s,rps\n0,10\n60,40\n120,20\n")
    times_read, rps = load_replay_csv(path)
    assert times_read.tolist() == [0, 60, 120] and rps.tolist() == [10, 40, 20]
    rate = traffic_series("replay", 0, 0, np.arange(12) * 30.0, replay_csv=path)
    # period 180 s (last gap repeated): 10,10,40,40,20,20 then again
    assert rate.tolist() == [10, 10, 40, 40, 20, 20] * 2
    coarse = traffic_series("replay", 0, 0, np.arange(2) * 180.0, replay_csv=path)
    assert coarse.tolist() == pytest.approx([70 / 3, 70 / 3])


def test_replay_one_column_is_one_value_per_tick(tmp_path):
    path = tmp_path / "trace.csv"
    path.write_text("# hourly export\nrps\n5\n\n7.5\n9\n")
    rate = traffic_series("replay", 0, 0, np.arange(4) * 10.0, replay_csv=path)
    assert rate.tolist() == [5, 7.5, 9, 5]
    t, r = load_replay_csv(path, interval_s=60)
    assert t.tolist() == [0, 60, 120]


@pytest.mark.parametrize("text, line, field", [
    ("time_s,rps\n0,10\n60,abc\n", 3, "rps"),
    ("0,10\n60,5\n30,5\n", 3, "time_s"),
    ("10\n-4\n", 2, "rps"),
    ("0,1\n60,2,3\n", 2, None),
    ("5\nnan\n", 2, "rps"),
])
def test_bad_replay_csv_names_file_line_and_field(tmp_path, text, line, field):
    path = tmp_path / "broken.csv"
    path.write_text(text)
    with pytest.raises(ReplayCsvError) as info:
        load_replay_csv(path)
    message = str(info.value)
    assert "broken.csv" in message and f"line {line}" in message
    if field:
        assert f"'{field}'" in message


def test_replay_errors_for_empty_or_missing_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("time_s,rps\n# nothing\n")
    with pytest.raises(ReplayCsvError, match="empty.csv: no data rows"):
        load_replay_csv(empty)
    with pytest.raises(ReplayCsvError, match="missing.csv: cannot be read"):
        load_replay_csv(tmp_path / "missing.csv")
    with pytest.raises(ValueError, match="needs a CSV"):
        traffic_series("replay", 1, 1, ticks(1, 60))


def test_replay_reads_quoted_fields_and_counts_lines_of_multi_line_cells(tmp_path):
    path = tmp_path / "quoted.csv"
    path.write_text('"time_s","rps"\n"0","10"\n"60", "20"\n')
    times, rps = load_replay_csv(path)
    assert times.tolist() == [0, 60] and rps.tolist() == [10, 20]
    broken = tmp_path / "broken.csv"
    broken.write_text('time_s,rps\n0,"1\n0"\n60,x\n')
    with pytest.raises(ReplayCsvError) as info:
        load_replay_csv(broken)
    # the quoted cell on lines 2-3 is one row ("1\n0" is not a number), reported where it ends
    assert "line 3" in str(info.value) and "'rps'" in str(info.value)
