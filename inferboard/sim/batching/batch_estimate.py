"""An estimated batching table, made at once from a table already at hand, for a station whose own
table is still to be built (about a second of CPU): the readouts show the estimate while the exact
table is built, then the exact figures in its place (see :func:`batching.estimating`).

The anchor is the nearest table this process holds: the same batcher on another server count when
there is one (a replica edit), else the nearest batcher (a parameter edit). Tables are laid out by
load (arrival rate over full-batch capacity), so the anchor's rows are kept load for load; its
times are scaled by the ratio of full-batch times, the part of the wait spent forming a batch by
the ratio of the windows, and its batch sizes by the ratio of the batch limits; the no-traffic row
is the target's own exact limit. Between server counts the waiting part
(queueing for a free replica) is scaled as the Erlang-C wait of an M/M/c queue at the same load.
The error against the exact tables is measured in docs/simulator.md ("Estimated tables").

A station whose exact table would cost too much to build (:func:`affordable_anchor`: a batch limit in
the hundreds, where every replication moves hundreds of requests per dispatch) is always answered
on an estimate, from the same batcher with its batch limit halved until its table costs about what
a batch limit of 16 costs.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Iterable

import numpy as np

from inferboard.sim.batching import batch_replications as replications
from inferboard.sim.batching.batch_replications import BatchParams, BatchTable, batch_capacity
from inferboard.sim.batching.batch_replications import _no_traffic_row as no_traffic_row  # the exact no-traffic limit

__all__ = ["EXACT_WORK_LIMIT", "affordable_anchor", "estimate_table", "nearest_anchor", "table_work"]

#: Most requests (as :func:`table_work` counts them) an exact table may simulate: about 3 s of CPU on a
#: busy machine. Every batcher up to a batch limit of 256 stays under it.
EXACT_WORK_LIMIT = 7e7


def table_work(servers: int, p: BatchParams) -> float:
    """About how many requests the replications of the table of ``servers`` replicas with ``p``
    simulate (an upper bound: each dispatch is counted at the batch the light-load window or the
    fluid limit gives, at most the batch limit)."""
    big_b = max(int(p.batch_max), 1)
    cap = batch_capacity(int(servers), p)
    if not math.isfinite(cap) or cap <= 0:
        return 0.0
    loads = replications._LOADS
    steps, _ = replications._steps(big_b)
    runs = np.where(loads >= replications._LONG_FROM, replications._LONG_RUNS, 1)
    guess = np.minimum(big_b, np.maximum(1.0 + loads * cap * _window(p), loads * big_b))
    return float(np.sum(replications._replications(p, cap) * steps * runs * guess))


def affordable_anchor(servers: int, p: BatchParams) -> tuple[int, BatchParams] | None:
    """None when the exact table of ``(servers, p)`` is affordable (:data:`EXACT_WORK_LIMIT`); else
    the station its table is estimated from: the same batcher with the batch limit halved until its
    table costs at most a quarter of the limit (about what a batch limit of 16 costs)."""
    if table_work(servers, p) <= EXACT_WORK_LIMIT:
        return None
    anchor = p
    while anchor.batch_max > 1 and table_work(servers, anchor) > EXACT_WORK_LIMIT / 4:
        anchor = replace(anchor, batch_max=max(int(anchor.batch_max) // 2, 1))
    return int(servers), anchor


def _distance(key: tuple[int, BatchParams], servers: int, p: BatchParams) -> float:
    """How far an anchor's station is from the target, in log ratios (0: the same station)."""
    c, q = key
    gaps = [math.log(max(c, 1) / max(servers, 1)) * 0.5,
            math.log(max(q.batch_max, 1) / max(p.batch_max, 1)),
            math.log((q.batch_time(max(q.batch_max, 1)) + 1e-9) / (p.batch_time(max(p.batch_max, 1)) + 1e-9)),
            math.log((_window(q) + 1e-6) / (_window(p) + 1e-6)),
            q.service_scv - p.service_scv, q.arrival_scv - p.arrival_scv]
    return math.fsum(abs(g) for g in gaps) + (0.0 if q == p else 10.0)


def _window(p: BatchParams) -> float:
    return 0.0 if math.isinf(p.delay_s) else p.delay_s


def nearest_anchor(ready: Iterable[tuple[int, BatchParams]], servers: int,
                   p: BatchParams) -> tuple[int, BatchParams] | None:
    """The held table closest to ``(servers, p)``: the same parameters first, then the nearest."""
    usable = [key for key in ready if key[0] > 0 and math.isfinite(batch_capacity(*key))]
    return min(usable, key=lambda key: (_distance(key, servers, p), key[0]), default=None)


def erlang_c(c: int, load: np.ndarray) -> np.ndarray:
    """Probability that an arrival waits in an M/M/c queue at utilisation ``load`` (< 1)."""
    load = np.clip(np.asarray(load, dtype=float), 0.0, 1.0 - 1e-9)
    a = c * load
    term = np.ones_like(a)
    total = np.ones_like(a)
    for k in range(1, c):
        term = term * a / k
        total = total + term
    last = term * a / c / (1.0 - load)
    return last / (total + last)


def _queueing_ratio(c_to: int, c_from: int, load: np.ndarray) -> np.ndarray:
    """Mean wait for a free server with ``c_to`` servers over that with ``c_from``, at the same
    utilisation, in units of the batch time (M/M/c: C(c, a) / (c (1 - load)))."""
    if c_to == c_from:
        return np.ones_like(load)
    to, base = erlang_c(c_to, load) / c_to, erlang_c(c_from, load) / c_from
    return np.where(base > 1e-12, to / np.maximum(base, 1e-12), 1.0)


def estimate_table(anchor: BatchTable, anchor_key: tuple[int, BatchParams], servers: int,
                   p: BatchParams) -> BatchTable:
    """The table of ``servers`` replicas with ``p`` estimated from ``anchor`` (see the module)."""
    c_from, q = anchor_key
    big_b, old_b = max(int(p.batch_max), 1), max(int(q.batch_max), 1)
    time_scale = p.batch_time(big_b) / max(q.batch_time(old_b), 1e-300)
    grow = (big_b - 1) / (old_b - 1) if old_b > 1 else 0.0
    mean_batch = np.clip(1.0 + (anchor.mean_batch - 1.0) * grow, 1.0, big_b)
    # the part of each wait beyond forming the batch is queueing for a replica: rescaled by server count
    ratio = _queueing_ratio(int(servers), int(c_from), anchor.util)
    queued = np.maximum(anchor.mean_wait - anchor.forming_wait, 0.0) * time_scale
    # forming a batch takes about the window when one is set: it scales with the window
    forming = anchor.forming_wait * (_window(p) / _window(q) if _window(p) > 0 and _window(q) > 0 else time_scale)
    mean_wait = forming + queued * ratio
    waits = anchor.wait_q * time_scale * ((forming + queued) / np.maximum(anchor.mean_wait * time_scale, 1e-300))[:, None]
    wait_q = np.maximum(waits + ((ratio - 1.0) * queued)[:, None] * _tail_weight(anchor.wait_q), 0.0)
    service_q = np.maximum(anchor.sojourn_q - anchor.wait_q, 0.0) * time_scale
    table = BatchTable(batch_capacity(int(servers), p), anchor.loads.copy(), mean_batch, anchor.util.copy(),
                       mean_wait, forming, anchor.mean_service * time_scale,
                       anchor.p_wait.copy(), np.maximum.accumulate(service_q + wait_q, axis=1), wait_q)
    _no_traffic_row_from(table, anchor, q, p)
    return table


def _no_traffic_row_from(table: BatchTable, anchor: BatchTable, q: BatchParams, p: BatchParams) -> None:
    """The exact no-traffic row of ``p``: a lone request waits the window D and takes ``tau(1)*g``;
    the anchor's row holds the quantiles of g when its service noise is the same."""
    if q.service_scv != p.service_scv:
        no_traffic_row(table, p)
        return
    noise = (anchor.sojourn_q[0] - _window(q)) / max(q.batch_time(1), 1e-300)
    table.mean_batch[0], table.util[0] = 1.0, 0.0
    table.mean_wait[0] = table.forming_wait[0] = _window(p)
    table.mean_service[0] = p.batch_time(1)
    table.p_wait[0] = 1.0 if _window(p) > 0 else 0.0
    table.sojourn_q[0] = _window(p) + p.batch_time(1) * noise
    table.wait_q[0] = _window(p)


def _tail_weight(wait_q: np.ndarray) -> np.ndarray:
    """How much of the queueing change each wait quantile takes: none at the shortest wait of its
    load, growing to twice the mean change at the longest (the queueing wait's tail is exponential)."""
    low, high = wait_q[:, :1], wait_q[:, -1:]
    span = np.maximum(high - low, 1e-300)
    return 2.0 * (wait_q - low) / span
