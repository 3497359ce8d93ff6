"""Time-varying arrivals for the request-level load test: a non-homogeneous Poisson process.

The rate is a step function (one value per tick, as the timeline's traffic patterns give it) or
any function of time bounded by ``rate_max``. Arrivals come from thinning (Lewis & Shedler, Naval
Research Logistics Quarterly 26(3), 1979): candidates of a homogeneous Poisson process at the
highest rate, each kept with probability ``rate(t) / rate_max``. The kept points are exactly a
Poisson process with intensity ``rate(t)``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

MAX_ARRIVALS = 50_000_000


def thinned_arrivals(rate: Callable[[np.ndarray], np.ndarray], horizon_s: float, rate_max: float,
                     seed: int = 0) -> np.ndarray:
    """Sorted arrival times on ``[0, horizon_s)`` of a Poisson process with intensity ``rate(t)`` <= ``rate_max``."""
    if horizon_s <= 0 or rate_max <= 0:
        return np.zeros(0)
    rng = np.random.default_rng(seed)
    expected = rate_max * horizon_s
    if expected > MAX_ARRIVALS:
        raise ValueError(f"about {expected:,.0f} arrivals is more than the {MAX_ARRIVALS:,} a load test may have")
    n = rng.poisson(expected)
    candidates = np.sort(rng.uniform(0.0, horizon_s, n))  # a Poisson process given its count
    keep = rng.random(n) * rate_max < np.asarray(rate(candidates), dtype=float)
    return candidates[keep]


def step_rate(times_s: np.ndarray, rates: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The step function worth ``rates[k]`` on ``[times_s[k], times_s[k+1])`` (the last step lasts on)."""
    times, values = np.asarray(times_s, dtype=float), np.maximum(np.asarray(rates, dtype=float), 0.0)

    def rate(t: np.ndarray) -> np.ndarray:
        index = np.clip(np.searchsorted(times, t, side="right") - 1, 0, times.size - 1)
        return values[index]

    return rate


def tick_arrivals(times_s: np.ndarray, rates: np.ndarray, tick_s: float, seed: int = 0) -> np.ndarray:
    """Arrivals over the ticks starting at ``times_s`` with per-tick mean rates ``rates``."""
    rates = np.asarray(rates, dtype=float)
    if rates.size == 0:
        return np.zeros(0)
    horizon = float(times_s[-1]) + tick_s
    return thinned_arrivals(step_rate(times_s, rates), horizon, float(rates.max()), seed)
