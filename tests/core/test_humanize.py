"""Numbers for people: one format per kind of figure, used by the window and the command line."""

from __future__ import annotations

import math

import pytest

from inferboard import humanize


@pytest.mark.parametrize("ms, text", [(0.0, "0 ms"), (0.42, "0.42 ms"), (4.21, "4.2 ms"), (17.3, "17 ms"),
                                      (999.0, "999 ms"), (1000.0, "1.0 s"), (60_023.0, "60 s"),
                                      (600_000.0, "10 min"), (7.2e6, "2.0 h"), (math.inf, "—"), (None, "—")])
def test_durations_read_in_the_unit_people_use(ms, text):
    assert humanize.duration_ms(ms) == text


@pytest.mark.parametrize("dollars, text", [(0.0042, "$0.0042"), (0.041, "$0.041"), (27.68, "$27.68"),
                                           (1234.0, "$1.2k"), (12_345.0, "$12.3k"), (3.4e6, "$3.4M")])
def test_money_is_short_and_keeps_its_precision_where_it_matters(dollars, text):
    assert humanize.money(dollars) == text


def test_rates_shares_counts_and_clock():
    assert humanize.rate(2500) == "2,500 req/s"
    assert humanize.rate(12_345) == "12.3k req/s"
    assert humanize.per_day(3.4e6 / 86_400) == "3.4M req/day"
    assert humanize.money_per_hour(1200) == "$1.2k/h"
    assert [humanize.share(x) for x in (0, 1e-5, 5e-4, 0.4667, 1.0)] == ["0%", "<0.01%", "0.05%", "46.7%", "100%"]
    assert humanize.count(1_000_000) == "1M" and humanize.count(50_000) == "50,000"
    assert humanize.clock(14 * 3600 + 20 * 60) == "14:20" and humanize.clock(26 * 3600) == "1d 02:00"
    assert humanize.figure("p99_ms", 60_023) == "60 s" and humanize.figure("shed_rate", 0.4667) == "46.7%"


def test_numbers_in_the_simulators_sentences_read_the_same_way():
    assert humanize.in_text("p99 30169.9 ms exceeds the 50 ms SLO") == "p99 30 s exceeds the 50 ms SLO"
    assert humanize.in_text("46.67% of its arrivals shed") == "46.7% of its arrivals shed"
    assert humanize.in_text("v2.5 ms-level build 3") == "v2.5 ms-level build 3"  # not a figure
