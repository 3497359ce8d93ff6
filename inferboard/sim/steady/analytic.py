"""Steady-state solver: a compiled :class:`~inferboard.sim.design.network.Network` → per-station and
end-to-end figures in milliseconds of CPU.

Stations are solved one by one in ``network.topological_order()``. A station's arrival rate is the
sum of the path flows reaching it after every upstream loss (shed, time-out, error), and its arrival
burstiness (squared CV) follows Whitt's QNA: splitting a stream with SCV c² by fraction p gives
``p*c² + 1 - p``, merging averages by rate, and a station passes on ``qna_departure_scv``.

Each station is solved by ``station_models.solve_station`` (its models are listed there); the
order and the paths through each station come from ``solve_plan``; the figures are returned as
``steady_results`` objects.

An overloaded station's backlog (``backlog_growth_rps``) counts as timed out in the end-to-end
totals (clients give up at the latency cap), so offered = served + shed + timed out + errors holds
exactly. ``network.unrouted_share`` counts as shed.

End-to-end latency percentiles are read from the path-mixture distribution of SERVED requests built
by ``latency_dist`` (convolution along paths, never sums of per-hop percentiles); the mean is exact
(sum of station means per path, weighted by served flow). Every number in ``to_dict()`` is finite.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from inferboard.sim.design.network import Network
from inferboard.sim.queues import latency_dist as ld, sojourn as sj
from inferboard.sim.steady.solve_plan import SolvePlan, plan_for
from inferboard.sim.steady.station_models import StationCalc, solve_station
from inferboard.sim.steady.steady_results import NetworkResult, PathResult, StationResult

#: Reported capacity of stations with no limit (pure delays, zero service time).
UNLIMITED_RPS = 1e12


def solve(network: Network) -> NetworkResult:
    """Steady state of ``network`` (see the module docstring). Never raises for a valid Network."""
    plan = plan_for(network)
    lam0, ca0 = network.arrival_rate, network.arrival_cv ** 2
    paths = network.paths
    flow = [p.share * lam0 for p in paths]
    offered = list(flow)
    calcs: dict[str, StationCalc] = {}
    rates: dict[str, float] = {}
    out_rate: dict[str, float] = {}  # served departures per station (for QNA splitting)
    shed = timed_out = errors = backlog = 0.0
    stations = network.stations
    for sid, ks, groups, category in plan.steps:
        st = stations[sid]
        lam = 0.0
        for k in ks:
            lam += flow[k]
        ca2 = 1.0
        if lam > 0:
            ca2 = 0.0
            for prev, members in groups:
                r = 0.0
                for k in members:
                    r += flow[k]
                src_rate, src_scv = (lam0, ca0) if prev is None else (out_rate[prev], calcs[prev].cd2)
                f = min(1.0, r / src_rate) if src_rate > 0 else 1.0
                ca2 += (r / lam) * (f * src_scv + 1.0 - f)
        calc = solve_station(st, lam, ca2, category)
        calc.info.setdefault("ca2", ca2)
        err = st.error_rate
        pre = 1.0 - calc.shed_f - calc.timeout_f - calc.backlog_f if lam > 0 else 0.0
        if not pre > 0.0:  # = max(0.0, pre), also for -0.0 and NaN
            pre = 0.0
        fr_err = err * pre
        calc.cd2 = err + (1.0 - err) * calc.cd2  # thinning by errors: p*c2 + 1 - p
        shed += lam * calc.shed_f
        timed_out += lam * calc.timeout_f
        backlog += lam * calc.backlog_f
        errors += lam * fr_err
        survive = pre - fr_err  # = 1 - (all loss fractions), so losses + flows add up to the offered rate
        for k in ks:
            flow[k] *= survive
        calcs[sid], rates[sid], out_rate[sid] = calc, lam, lam * survive
    lost = {"shed": shed, "timeout": timed_out, "error": errors, "backlog": backlog}
    return _assemble(network, plan, calcs, rates, flow, offered, lost)


def _station_results(net: Network, plan: SolvePlan, calcs: dict[str, StationCalc],
                     rates: dict[str, float]) -> dict[str, StationResult]:
    """Each station's result from its calc at its arrival rate (the calc's working values become the
    result's explanation)."""
    stations: dict[str, StationResult] = {}
    make = StationResult.adopt
    inf = math.inf
    for sid in plan.order:
        st, calc, lam = net.stations[sid], calcs[sid], rates[sid]
        pre = lam * max(0.0, 1.0 - calc.shed_f - calc.timeout_f - calc.backlog_f)
        cap = calc.cap
        unlimited = cap == inf or cap != cap
        shift = st.fixed_delay_s
        err = st.error_rate
        info = calc.info  # the calc is dropped after this: its working values become the result's
        info["timeout"], info["queue_capacity"], info["fixed"], info["error_rate"] = (
            st.timeout_s, st.queue_capacity, shift, err)
        info["sojourn_spec"] = calc.spec  # the station's wait and service distribution (LLM pools read its wait)
        wait, service, batching = calc.wait, calc.service, calc.batching
        util = calc.util
        stations[sid] = make({
            "id": sid, "node_id": st.node_id or sid, "model": calc.model, "servers": st.servers,
            "arrival_rps": lam, "served_rps": pre * (1.0 - err),
            "capacity_rps": UNLIMITED_RPS if unlimited else cap, "capacity_unlimited": unlimited,
            "utilisation": 0.0 if util < 0.0 else (1.0 if util > 1.0 else util),
            "offered_load": 0.0 if unlimited else (lam / cap if cap > 0 else (1.0 if lam > 0 else 0.0)),
            "p_wait": calc.p_wait, "mean_wait_s": wait, "mean_service_s": service,
            "mean_sojourn_s": shift + wait + service, "batching_wait_s": batching,
            "queue_wait_s": max(wait - batching, 0.0), "mean_batch": calc.batch,
            "shed_rps": lam * calc.shed_f, "timeout_rps": lam * calc.timeout_f, "error_rps": pre * err,
            "backlog_growth_rps": lam * calc.backlog_f, "arrival_scv": info.get("ca2", 1.0),
            "departure_scv": calc.cd2, "saturated": calc.saturated, "latency_capped": calc.capped,
            "_info": info})
    return stations


def _path_results(net: Network, stations: dict[str, StationResult], flow: list[float],
                  offered: list[float]) -> tuple[list[PathResult], list[int]]:
    """Each path's result (mean latency the sum of its stations' sojourns), and the paths that serve."""
    path_results, served_paths = [], []
    make_path = PathResult.adopt
    sojourn = {sid: r.mean_sojourn_s for sid, r in stations.items()}
    for k, path in enumerate(net.paths):
        mean = sum([sojourn[s] for s in path.stations])
        path_results.append(make_path({"label": path.label, "stations": tuple(path.stations), "share": path.share,
                                       "offered_rps": offered[k], "served_rps": flow[k], "mean_s": mean}))
        if flow[k] > 0:
            served_paths.append(k)
    return path_results, served_paths


@dataclass
class _Mixture:
    """The end-to-end latency distribution: the served paths' mixture on one grid, its percentiles
    (p50, p95, p99, p99.9), and what a later reading of the distribution needs."""

    grid: Any = None
    rows: Any = None
    row_of: dict = field(default_factory=dict)
    shift_of: list = field(default_factory=list)
    row_index: Any = None
    pcts: list = field(default_factory=lambda: [0.0, 0.0, 0.0, 0.0])
    station_max: list = field(default_factory=list)


def _mixture(net: Network, plan: SolvePlan, calcs: dict[str, StationCalc], flow: list[float],
             served_paths: list[int]) -> _Mixture:
    """The mixture of the served paths' latency distributions, weighted by their flows."""
    if sum(flow[k] for k in served_paths) <= 0:
        return _Mixture()
    on_path, row_of, pad = plan.layout(net, tuple(served_paths))
    specs = [calcs[s].spec for s in on_path]
    keys, inverse = sj.dedupe(specs)
    table = sj.key_table(keys)
    moments = sj.row_moments(keys, table)
    shift_of = [sp.shift for sp in specs]
    # per station (plus a padding entry): mean, variance, spread of the rough 99.9th percentile
    station_mean = np.append(np.array(shift_of) + moments[inverse, 0], 0.0)
    station_var = np.append(moments[inverse, 1], 0.0)
    station_spread = np.append(moments[inverse, 2], -np.inf)
    mu_p = station_mean[pad].sum(axis=1)  # generous estimate of the slowest path's 99.9th percentile
    horizon = max(0.0, float(np.max(mu_p + 6.0 * np.sqrt(station_var[pad].sum(axis=1)))),
                  float(np.max(mu_p + station_spread[pad].max(axis=1))))
    n_random = int(moments[inverse, 3].sum())
    grid = ld.choose_grid(horizon * 1.05, n_random)
    rows, random, row_index = sj.unique_transforms(grid, specs, keys, inverse, table)
    # Paths whose random rows (as a multiset) and total shift agree have the same latency
    # distribution: they are mixed once, with their flows added.
    unique_row = np.append(np.where(random[inverse], inverse, -1), -1)[pad]
    unique_row.sort(axis=1)
    path_shift = np.append(np.array(shift_of), 0.0)[pad].sum(axis=1)
    merged: dict[tuple, int] = {}
    idx, weights, shifts = [], [], []
    for k, members, shift in zip(served_paths, unique_row.tolist(), path_shift.tolist()):
        key = (tuple(members), shift)
        at = merged.get(key)
        if at is None:
            merged[key] = len(idx)
            idx.append(np.array([r for r in members if r >= 0], dtype=np.int64))
            weights.append(flow[k])
            shifts.append(shift)
        else:
            weights[at] += flow[k]
    pmf = sj.mixture_pmf(grid, rows, idx, weights, shifts)
    pcts = ld.percentiles(grid, pmf, (0.5, 0.95, 0.99, 0.999))
    # no percentile beyond the slowest path's physical maximum (finite rooms with constant
    # service): the grid's rounding may otherwise put it up to a bin further
    station_max = [sj.max_sojourn(sp) for sp in specs]
    longest = max(sum(station_max[row_of[s]] for s in net.paths[k].stations) for k in served_paths)
    pcts = [min(x, longest) for x in pcts]
    return _Mixture(grid, rows, row_of, shift_of, row_index, pcts, station_max)


def _assemble(net: Network, plan: SolvePlan, calcs: dict[str, StationCalc], rates: dict[str, float], flow: list[float],
              offered: list[float], lost: dict[str, float]) -> NetworkResult:
    """The network's result: stations, paths, end-to-end figures and the latency mixture."""
    stations = _station_results(net, plan, calcs, rates)
    path_results, served_paths = _path_results(net, stations, flow, offered)
    lam0 = net.arrival_rate
    served = sum(flow[k] for k in served_paths)
    mean = sum(flow[k] * path_results[k].mean_s for k in served_paths) / served if served > 0 else 0.0
    mix = _mixture(net, plan, calcs, flow, served_paths)
    grid, pcts = mix.grid, mix.pcts
    shed, timed_out = lost["shed"] + net.unrouted_share * lam0, lost["timeout"] + lost["backlog"]
    # fractions of the offered rate, kept in [0, 1]: with a subnormal arrival rate the absolute
    # rates lose precision and their ratio could come out a hair above 1
    frac = (lambda x: min(1.0, max(0.0, x / lam0))) if lam0 > 0 else (lambda x: 0.0)
    busiest = max(stations.values(), key=lambda r: (r.offered_load, r.utilisation), default=None)
    return NetworkResult.build(
        offered_rps=lam0, throughput_rps=served, shed_rps=shed, timeout_rps=timed_out, error_rps=lost["error"],
        backlog_growth_rps=lost["backlog"], shed_rate=frac(shed), timeout_rate=frac(timed_out),
        error_rate=frac(lost["error"]), mean_s=mean, p50_s=float(pcts[0]), p95_s=float(pcts[1]),
        p99_s=float(pcts[2]), p999_s=float(pcts[3]),
        saturated=any(r.saturated for r in stations.values()),
        latency_capped=any(stations[s].latency_capped for k in served_paths for s in net.paths[k].stations),
        bottleneck=busiest.id if busiest is not None and busiest.offered_load > 0 else "",
        bin_width_s=grid.dt if grid else 0.0, bins=grid.n_cover if grid else 0,
        stations=stations, paths=tuple(path_results), _grid=grid, _rows=mix.rows, _row_of=mix.row_of,
        _shifts=mix.shift_of, _row_index=mix.row_index, _max_sojourn=mix.station_max)
