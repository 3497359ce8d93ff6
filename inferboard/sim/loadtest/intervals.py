"""Confidence intervals for steady-state means and quantiles from one autocorrelated run.

Latencies of successive requests are strongly correlated near saturation (a request that waited
long is followed by others that wait long), so the i.i.d. order-statistic interval is far too
narrow and batch means of per-batch quantiles are biased and too few to see the correlation.

* **Batch size from the autocorrelation.** A series is cut into non-overlapping batches, starting
  with batches of ``n / 1024`` and doubling the batch size until the lag-1 autocorrelation of the
  batch means is below ``LAG1_LIMIT`` (the batch means are then close to independent), keeping at
  least ``MIN_BATCHES`` batches (Law and Carson, "A sequential procedure for determining the length
  of a steady-state simulation", Operations Research 27(5), 1979; Fishman's LABATCH follows the
  same doubling rule). The variance of the overall mean is ``var(batch means) / k`` with a Student
  t on ``k - 1`` degrees of freedom. If even the largest batches stay correlated the interval is
  flagged unreliable.
* **Quantiles through the indicator process.** The sample p-quantile ``q`` satisfies (Bahadur
  representation for dependent sequences, Sen 1972; Heidelberger and Lewis, "Quantile estimation
  in dependent sequences", Operations Research 32(1), 1984) ``F(q) - p ≈ -(mean of 1{X_i <= q} - p)``,
  so a 95% interval for the CDF at ``q`` is the batch-means interval of the indicator series
  ``1{X_i <= q}`` (its variance is the time-average variance constant of the indicator over n),
  and the quantile interval is that interval mapped back through the empirical quantile function.
  The interval for the tail fraction ``u = 1 - p`` (or ``p`` below the median) is taken on the log
  scale, ``u·exp(±t·se/u)`` (delta method): a run that happened to contain a long congestion
  episode puts too much mass in the tail, and the log scale reaches further towards the true
  quantile on that side. This needs no density estimate and is asymmetric where the tail is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

#: Accept a batch size once the lag-1 autocorrelation of the batch means is below this.
LAG1_LIMIT = 0.1
#: Fewest batches a variance estimate is made from; fewer means the run is too short.
MIN_BATCHES = 16
#: Batches to start from (the batch size is then doubled). Few, long batches: the batch-means
#: variance is biased low by about (integrated autocorrelation time) / (batch size).
START_BATCHES = 32
#: Smallest sample that gets an interval at all.
MIN_SAMPLES = 100
#: The standard normal 97.5% quantile.
Z975 = NormalDist().inv_cdf(0.975)


def t975(dof: int) -> float:
    """Student t 97.5% quantile: a table below 10 degrees of freedom, else the Cornish–Fisher
    expansion around the normal (under 0.05% off)."""
    z = Z975
    if dof <= 0:
        return math.inf
    if dof < 10:
        return (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262)[dof - 1]
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    return z + g1 / dof + g2 / dof ** 2 + g3 / dof ** 3


@dataclass(frozen=True)
class BatchVariance:
    """Variance of a series' overall mean from batch means (see the module docstring)."""

    var_of_mean: float
    batches: int
    batch_size: int
    reliable: bool  #: False when the batch means were still correlated at ``MIN_BATCHES`` batches


def _batch_means_var(x: np.ndarray, b: int) -> tuple[float, float, int]:
    """(variance of the mean from batches of ``b``, lag-1 autocorrelation of the batch means, batches)."""
    n = len(x)
    k = n // b
    means = x[n - k * b:].reshape(k, b).mean(axis=1)  # drop the oldest remainder (warm-up side)
    d = means - means.mean()
    ss = float((d * d).sum())
    lag1 = float((d[1:] * d[:-1]).sum() / ss) if ss > 0 else 0.0
    return ss / (k - 1) / k, lag1, k


def batch_variance(x: np.ndarray) -> BatchVariance:
    """Batch-means variance of ``mean(x)`` with the batch size chosen from the autocorrelation.

    The batch size starts at ``n / START_BATCHES`` and doubles while the batch means' lag-1
    autocorrelation is at least ``LAG1_LIMIT``. The batch-means variance grows with the batch size
    until the batches are long against the correlation time, so the estimate taken is the larger of
    the accepted size's and the next (double) size's, on the degrees of freedom of the latter:
    batch means that pass the lag-1 test by chance then still do not understate the variance."""
    n = len(x)
    b = max(1, n // START_BATCHES)
    if n // b < MIN_BATCHES:
        return BatchVariance(math.nan, 0, b, False)
    var, lag1, k = _batch_means_var(x, b)
    while lag1 >= LAG1_LIMIT and n // (2 * b) >= MIN_BATCHES:
        b *= 2
        var, lag1, k = _batch_means_var(x, b)
    reliable = lag1 < LAG1_LIMIT
    if n // (2 * b) >= MIN_BATCHES // 2:
        var2, _, k2 = _batch_means_var(x, 2 * b)
        if var2 > var:
            var, k, b = var2, k2, 2 * b
    return BatchVariance(var, k, b, reliable)


@dataclass(frozen=True)
class Interval:
    """An estimate with its 95% interval, whether the interval can be relied on, and the batches it came
    from."""
    value: float
    low: float
    high: float
    reliable: bool
    batches: int


def mean_interval(x: np.ndarray) -> Interval:
    """95% interval for the steady-state mean of the series ``x``."""
    value = float(x.mean())
    if len(x) < MIN_SAMPLES:
        return Interval(value, math.nan, math.nan, False, 0)
    bv = batch_variance(np.asarray(x, dtype=float))
    half = t975(bv.batches - 1) * math.sqrt(bv.var_of_mean)
    return Interval(value, value - half, value + half, bv.reliable, bv.batches)


def quantile_interval(x: np.ndarray, ordered: np.ndarray, p: float) -> Interval:
    """95% interval for the steady-state p-quantile of ``x`` (in time order); ``ordered`` is
    ``x`` sorted (shared between quantiles)."""
    n = len(x)
    value = float(np.quantile(ordered, p))
    if n < MIN_SAMPLES:
        return Interval(value, math.nan, math.nan, False, 0)
    indicator = (x <= value).astype(np.float64)
    bv = batch_variance(indicator)
    # at least the i.i.d. binomial spread: a run too short to see a tail event has no variance
    se = math.sqrt(max(bv.var_of_mean, p * (1.0 - p) / n))
    spread = t975(bv.batches - 1) * se
    tail = min(p, 1.0 - p)  # the smaller side's probability, on whose log scale the interval is taken
    ratio = math.exp(min(spread / tail, 700.0))
    if p >= 0.5:
        p_low, p_high = 1.0 - tail * ratio, 1.0 - tail / ratio
    else:
        p_low, p_high = tail / ratio, tail * ratio
    reliable = bv.reliable and p_low > 0.0 and spread < tail
    low = float(np.quantile(ordered, max(p_low, 0.0)))
    high = float(np.quantile(ordered, min(p_high, 1.0)))
    return Interval(value, min(low, value), max(high, value), reliable, bv.batches)


def samples_for(interval: Interval, n: int, target: float) -> int:
    """Samples needed for a relative half-width ``target`` (the width shrinks as 1/sqrt(n))."""
    half = relative_half_width(interval)
    if not math.isfinite(half) or half <= 0:
        return n
    return int(math.ceil(n * (half / target) ** 2))


def relative_half_width(interval: Interval) -> float:
    """Half the interval's width relative to its value (inf if undefined)."""
    if not (math.isfinite(interval.low) and math.isfinite(interval.high)) or interval.value == 0:
        return math.inf
    return 0.5 * (interval.high - interval.low) / abs(interval.value)
