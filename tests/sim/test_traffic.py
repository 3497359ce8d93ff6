"""Traffic patterns and CSV replay, checked against the definitions (not against earlier output)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from inferboard.sim.traffic import PATTERNS, ReplayCsvError, load_replay_csv, traffic_series

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
