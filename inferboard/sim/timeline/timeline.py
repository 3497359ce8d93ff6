"""A day (or any horizon) of the design tick by tick: traffic, faults, autoscaling, latency, cost.

1. Offered traffic per tick comes from :mod:`traffic` (mean rate over the tick).
2. The design is compiled once per distinct set of active faults (a "regime"), never per tick (at
   the rates where a rate-dependent router starts to act too, for the station parameters that
   follow the rate, as an LLM pool's). A region outage is "undetected" (its traffic still sent
   there and lost) until health_check_interval_s × unhealthy_threshold of the global load balancer
   in front of it has passed; then the routing fails over.
3. Routing is evaluated per tick (:mod:`tick_routing`): the tick's rate, and each pool's capacity
   per replica × the replicas ready at the end of the tick before, so load-balancer weights by
   capacity, fallback overflow, admission control and rate limits act in the ticks whose rate and
   ready capacity call for it, whether the rate comes from the traffic pattern or a surge fault.
   Each pool's replicas come from :class:`autoscaling.PoolController` (HPA/KEDA/Knative rules,
   provisioning, GPU shortage caps, spot reclaims); pools whose routing reads each other's
   capacity run their loops together with the routing (:mod:`timeline_routing`). The autoscaler
   reads its metric from the pool's own queue at the rate routed to it (before losses upstream),
   via per-replica-count tables over load (:class:`metric_tables.MetricTable`), with the pool's
   carried backlog added (:class:`metric_tables.BacklogMetric`): queue depth counts the backlog,
   utilisation is 100% while one exists.
4. Each pool carries a backlog from tick to tick (:mod:`fluid`): a fluid queue with abandonment,
   ``b[k+1] = min(max(0, b[k] + (arrivals - capacity) dt), capacity × time-out)``, the part cut off
   timing out (the stationary-backlog-carry-over idea of Stolletz 2008). Where no backlog exists
   or forms, a tick is the steady-state queue at the tick's arrival rate and ready servers
   (:func:`tickqueue.station_state`): utilisation, mean wait, queue length (Little), requests shed
   by timeouts, a full waiting room or missing capacity. Where one does, the wait is the backlog's
   (of the requests completing in the tick) plus the steady wait at 90% load at most, and losses
   are the fluid ones. Stations are taken in topological order and each path's traffic is thinned
   by the losses and errors upstream.
5. End-to-end percentiles: a path's sojourn is the sum of its stations' sojourns plus its fixed
   delays (load balancers, cache hits, network); its mean and variance are sums along the path
   (stations independent) and it is approximated by a moment-matched gamma. The end-to-end
   distribution is the mixture of the paths' gammas weighted by the traffic each serves;
   p50/p95/p99 come from vectorised bisection on t^(1/3) (:func:`gamma_mixture.mixture_quantiles`).
   Per-hop percentiles are never added. This is an approximation for speed; the steady-state
   solver's full convolution of the station distributions is the reference.
6. ``shed_rate`` = shed at routers + timed out / rejected at pools; ``error_rate`` = lost to dead
   regions or unrouted + failed by servers; both fractions of the offered traffic. Percentiles
   are over served requests and 0 in a tick where nothing is served.
7. Cost per hour = replicas (starting ones included) × the pool's on-demand/spot price per replica
   (spot share as configured, none while a spot reclaim fault lasts) + the other nodes' fixed costs
   and per-request charges (scaled with the tick's rate); a dead region costs nothing.
8. Burn rate = bad fraction / (1 - availability SLO), 99.9% when none is declared. Bad = errors +
   shed + the share of requests slower than the p99 SLO beyond the 1% the p99 target allows, so a
   design exactly at its p99 target burns nothing for latency. Alerts follow the SRE workbook's
   multi-window table: page when the 1 h and 5 min means both exceed 14.4× (fast burn) or the 6 h
   and 30 min means both exceed 6× (slow burn); windows trail and are partial at the start.

Every series is finite: no NaN or infinity, nothing negative, fractions in [0, 1], latencies at
most one hour.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from inferboard.model.design import Design
from inferboard.sim.design.faults import Fault
from inferboard.sim.quality.quality import measures_quality, quality_timeline
from inferboard.sim.timeline.series import TimelineEvent, TimelineResult, finite
from inferboard.sim.timeline.timeline_state import Timeline


def run_timeline(design: Design, hours: float = 24.0, tick_s: float = 60.0, pattern: str | None = None,
                 faults: Sequence[Fault] = (), seed: int = 0, replay_csv: Path | str | None = None) -> TimelineResult:
    """Simulate ``hours`` of the design at ``tick_s`` resolution (see the module docstring): a
    :class:`timeline_state.TimelineState` advanced over the whole horizon at once. A plain
    :class:`Fault` (no timing) lasts the whole run; ``pattern`` defaults to the requirements' (or
    ``replay`` when a CSV is given)."""
    state = Timeline.start(design, pattern, faults, hours, tick_s, seed, replay_csv)
    return with_quality(design, faults, state.advance_ticks(state.count).result(), seed)


def with_quality(design: Design, faults: Sequence[Fault], result: TimelineResult, seed: int = 0,
                 accuracy_target: float | None = None) -> TimelineResult:
    """``result`` with the model-quality series and events (:func:`quality.quality_timeline`) added,
    when the design has quality to measure; otherwise ``result`` itself, at no cost.
    ``accuracy_target`` judges by another target than the design's (a scenario's own)."""
    if not measures_quality(design, faults) and accuracy_target is None:
        return result
    series, events = quality_timeline(design, faults, result.times_s, result.series, seed, accuracy_target)
    result.series.update({name: finite(values) for name, values in series.items()})
    merged = [*result.events, *(TimelineEvent(t, kind, node, message) for t, kind, node, message in events)]
    result.events[:] = sorted(merged, key=lambda e: e.time_s)
    return result


