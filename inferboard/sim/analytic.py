"""Steady-state solver: a compiled :class:`~inferboard.sim.network.Network` → per-station and
end-to-end figures in milliseconds of CPU.

Stations are solved one by one in ``network.topological_order()``. A station's arrival rate is the
sum of the path flows reaching it after every upstream loss (shed, time-out, error), and its arrival
burstiness (squared CV) follows Whitt's QNA: splitting a stream with SCV c² by fraction p gives
``p*c² + 1 - p``, merging averages by rate, and a station passes on ``qna_departure_scv``.

Per station (all formulas in ``queueing.py``):

* pure delay → a shift; no queue.
* c servers, unbounded queue, no time-out → Erlang C / Allen–Cunneen (exact for M/M/c); with
  non-Poisson arrivals P(wait) and the exponential shape of the wait come from GI/M/c (``gimc``;
  exact for exponential service), the mean from Allen–Cunneen for other service times.
* unbounded queue with time-out T → M/M/c+D (exact for Poisson/exponential, Allen–Cunneen scaled
  otherwise): time-outs, and the served requests' wait truncated at T. Continuous through ρ = 1.
* bounded queue (m places) → blocking from M/M/c/K' with room m/g, g = (ca² + cs²)/2 (diffusion
  scaling; exact for M/M/c/K), shed; the admitted wait is a mixture over the position joined at
  (``waiting_room``): exactly Erlang(j + 1, cμ) with weights ρ^j for M/M/c/K, otherwise weights
  ρ^(j/g) and waits that stop at the room's physical maximum for constant service, so no
  percentile exceeds the maximum sojourn. A time-out then removes ``P(W > T)`` (exact Erlang mixture of M/M/c/K), each time-out
  freeing a place an arrival would have been refused; if T is shorter than the time to drain a
  full room (m / capacity) the room never fills and the station is solved as M/M/c+D instead.
* dynamic batcher → ``batching.batch_steady`` (shared queue on c replicas; its sojourn distribution
  enters the path convolution as a tabulated distribution).
* overload (λ ≥ capacity) is a result, not an error: a bounded queue sheds the excess; an unbounded
  one times the excess out if it has a time-out (served requests then wait about T), otherwise the
  excess is reported as ``backlog_growth_rps`` and the served requests are given the documented
  latency cap ``LATENCY_CAP_S`` (``latency_capped=True``). In the end-to-end totals that backlog is
  counted as timed out (clients give up at the cap), so offered = served + shed + timed out + errors
  holds exactly. ``network.unrouted_share`` counts as shed.

End-to-end latency percentiles are read from the path-mixture distribution of SERVED requests built
by ``latency_dist`` (convolution along paths, never sums of per-hop percentiles); the mean is exact
(sum of station means per path, weighted by served flow). Every number in ``to_dict()`` is finite.
"""

from __future__ import annotations

import heapq
import math
import weakref
from dataclasses import dataclass, field, fields
from functools import cached_property

import numpy as np

from inferboard.sim import batching as bt, explain, latency_dist as ld, queueing as q, sojourn as sj
from inferboard.sim.gimc import gimc
from inferboard.sim.waiting_room import room_wait_moments
from inferboard.sim.network import Network, Station

#: Latency given to requests served by an overloaded station with an unbounded queue and no time-out.
LATENCY_CAP_S = 60.0
#: Reported capacity of stations with no limit (pure delays, zero service time).
UNLIMITED_RPS = 1e12


def _clean(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else 0.0
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


class _Result:
    @classmethod
    def _make(cls, **values):
        """Build without the frozen-dataclass ``__init__`` (one ``object.__setattr__`` per field is
        the slowest part of a 200-station solve); every field must be given."""
        obj = object.__new__(cls)
        obj.__dict__.update(values)
        return obj

    @classmethod
    def _from_dict(cls, values: dict):
        """``_make`` taking ownership of ``values`` (a fresh dict with every field) as the instance dict."""
        obj = object.__new__(cls)
        object.__setattr__(obj, "__dict__", values)
        return obj

    def to_dict(self) -> dict:
        out = {f.name: _clean(getattr(self, f.name)) for f in fields(self) if not f.name.startswith("_")}
        out["figures"] = {k: fig.to_dict() for k, fig in getattr(self, "figures", {}).items()}
        return out


@dataclass(frozen=True, eq=False)
class StationResult(_Result):
    """One station in steady state. Rates in requests/s, times in seconds, fractions in [0, 1]."""

    id: str
    node_id: str
    model: str
    servers: int
    arrival_rps: float
    served_rps: float
    capacity_rps: float
    capacity_unlimited: bool
    utilisation: float  #: busy fraction of the servers (carried load)
    offered_load: float  #: arrival rate / capacity (may exceed 1)
    p_wait: float  #: P(a served request waited)
    mean_wait_s: float  #: served requests' mean time before service (batching + queueing)
    mean_service_s: float
    mean_sojourn_s: float
    batching_wait_s: float
    queue_wait_s: float
    mean_batch: float
    shed_rps: float
    timeout_rps: float
    error_rps: float
    backlog_growth_rps: float
    arrival_scv: float
    departure_scv: float
    saturated: bool
    latency_capped: bool
    _info: dict = field(default_factory=dict, repr=False)

    @cached_property
    def figures(self) -> dict[str, explain.Figure]:
        return explain.station_figures(self, self._info)

    @property
    def sojourn_spec(self) -> sj.SojournSpec:
        """How the station's sojourn time is distributed (its wait and its service)."""
        return self._info["sojourn_spec"]


@dataclass(frozen=True, eq=False)
class PathResult(_Result):
    label: str
    stations: tuple[str, ...]
    share: float
    offered_rps: float
    served_rps: float
    mean_s: float


@dataclass(frozen=True, eq=False)
class NetworkResult(_Result):
    """End-to-end steady state. ``*_rate`` fields are fractions of the offered rate."""

    offered_rps: float
    throughput_rps: float
    shed_rps: float
    timeout_rps: float
    error_rps: float
    backlog_growth_rps: float
    shed_rate: float
    timeout_rate: float
    error_rate: float
    mean_s: float
    p50_s: float
    p95_s: float
    p99_s: float
    p999_s: float
    saturated: bool
    latency_capped: bool
    bottleneck: str
    bin_width_s: float
    bins: int
    stations: dict[str, StationResult]
    paths: tuple[PathResult, ...]
    _grid: object = field(default=None, repr=False)
    _rows: object = field(default=None, repr=False)
    _row_of: dict = field(default_factory=dict, repr=False)
    _shifts: list = field(default_factory=list, repr=False)
    _row_index: object = field(default=None, repr=False)  #: station row -> row of ``_rows`` (equal rows shared)
    _max_sojourn: list = field(default_factory=list, repr=False)  #: per station row, its largest sojourn

    @cached_property
    def figures(self) -> dict[str, explain.Figure]:
        return explain.network_figures(self)

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["stations"] = {k: s.to_dict() for k, s in self.stations.items()}
        out["paths"] = [p.to_dict() for p in self.paths]
        return out

    def station_quantiles(self, station_id: str, ps=(0.5, 0.95, 0.99)) -> list[float]:
        """Sojourn-time quantiles (seconds) of one station's served requests, from its distribution."""
        row = self._row_of.get(station_id)
        if row is None or self._grid is None:
            s = self.stations[station_id]
            return [s.mean_sojourn_s for _ in ps]
        grid = self._grid
        shift = self._shifts[row]
        top = self._max_sojourn[row] if self._max_sojourn else math.inf
        return [min(shift + x, top) for x in ld.percentiles(grid, ld.to_pmf(grid, self._rows[self._row_index[row]]), ps)]


def _station_order(net: Network) -> list[str]:
    """``net.topological_order()`` without building a graph: the lexicographically smallest order
    every path respects (Kahn's algorithm with a heap, as networkx's lexicographical sort; that
    order is unique). The Network has already refused loops and repeated stations."""
    succ: dict[str, set[str]] = {s: set() for s in net.stations}
    for path in net.paths:
        for a, b in zip(path.stations, path.stations[1:]):
            succ[a].add(b)
    indegree = dict.fromkeys(net.stations, 0)
    for children in succ.values():
        for b in children:
            indegree[b] += 1
    ready = [s for s, d in indegree.items() if d == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        node = heapq.heappop(ready)
        order.append(node)
        for child in succ[node]:
            indegree[child] -= 1
            if indegree[child] == 0:
                heapq.heappush(ready, child)
    if len(order) != len(indegree):  # unreachable for a valid Network; keep its error
        return net.topological_order()
    return order


class _Plan:
    """What solve() needs about a network's structure, computed once per Network object."""

    def __init__(self, net: Network) -> None:
        self.order = _station_order(net)
        self.position = {sid: i for i, sid in enumerate(self.order)}
        self.visits: dict[str, list[tuple[int, str | None]]] = {s: [] for s in net.stations}
        for k, path in enumerate(net.paths):
            prev = None
            for sid in path.stations:
                self.visits[sid].append((k, prev))
                prev = sid
        #: per station in order: (id, paths through it, [(predecessor or None, paths from it)], category)
        self.steps: list[tuple[str, list[int], list[tuple[str | None, list[int]]], str]] = []
        for sid in self.order:
            groups: dict[str | None, list[int]] = {}
            for k, prev in self.visits[sid]:
                groups.setdefault(prev, []).append(k)
            self.steps.append((sid, [k for k, _ in self.visits[sid]], list(groups.items()),
                               _category(net.stations[sid])))
        #: served paths -> (stations on them in order, station -> row, path x hop matrix of rows padded
        #: with len(stations)); see ``_assemble``
        self.layouts: dict[tuple[int, ...], tuple[list[str], dict[str, int], np.ndarray]] = {}

    def layout(self, net: Network, served: tuple[int, ...]) -> tuple[list[str], dict[str, int], np.ndarray]:
        found = self.layouts.get(served)
        if found is None:
            on_path = sorted({s for k in served for s in net.paths[k].stations}, key=self.position.__getitem__)
            row_of = {s: i for i, s in enumerate(on_path)}
            longest = max(len(net.paths[k].stations) for k in served)
            pad = np.full((len(served), longest), len(on_path), dtype=np.int64)
            for j, k in enumerate(served):
                stations = net.paths[k].stations
                pad[j, :len(stations)] = [row_of[s] for s in stations]
            found = (on_path, row_of, pad)
            if len(self.layouts) > 16:
                self.layouts.clear()
            self.layouts[served] = found
        return found


_PLANS: dict[int, tuple[weakref.ref, _Plan]] = {}


def _plan(net: Network) -> _Plan:
    hit = _PLANS.get(id(net))
    if hit is not None and hit[0]() is net:
        return hit[1]
    plan = _Plan(net)
    for key in [k for k, (ref, _) in _PLANS.items() if ref() is None] if len(_PLANS) > 256 else ():
        del _PLANS[key]
    _PLANS[id(net)] = (weakref.ref(net), plan)
    return plan


class _Calc:
    """Mutable per-station working values (turned into a StationResult at the end)."""

    __slots__ = ("model", "shed_f", "timeout_f", "backlog_f", "served_pre", "util", "p_wait", "wait",
                 "service", "batching", "batch", "saturated", "capped", "cd2", "spec", "cap", "info")

    def __init__(self, model: str, cap: float, info: dict | None = None) -> None:
        self.model, self.cap, self.batch, self.cd2, self.spec = model, cap, 1.0, 1.0, None
        self.info = {} if info is None else info
        self.shed_f = self.timeout_f = self.backlog_f = self.served_pre = self.util = self.p_wait = 0.0
        self.wait = self.service = self.batching = 0.0
        self.saturated = self.capped = False


def _overload(calc: _Calc, st: Station, lam: float, served_cap: float) -> float:
    """Excess beyond capacity on an unbounded queue: time-outs if any, else backlog. Returns the
    deterministic wait given to served requests."""
    calc.saturated = lam > 0
    calc.served_pre = served_cap
    excess = max(0.0, 1.0 - served_cap / lam) if lam > 0 else 0.0
    if st.timeout_s is not None:
        calc.timeout_f = excess
        return st.timeout_s
    calc.backlog_f, calc.capped = excess, True
    return LATENCY_CAP_S


def _ggc(st: Station, lam: float, ca2: float) -> _Calc:
    c, s, cv = st.servers, st.service_mean_s, st.service_cv
    mu, cs2 = 1.0 / s, cv * cv
    g = 0.5 * (ca2 + cs2)
    poisson = abs(ca2 - 1) < 1e-9
    cap, t, m = c * mu, st.timeout_s, st.queue_capacity
    # inputs for the explanations
    info = {"lam": lam, "mu": mu, "c": c, "rho": lam / cap, "ca2": ca2, "cs2": cs2, "g": g}
    calc = _Calc(("M/M/" if poisson and abs(cs2 - 1) < 1e-9 else ("M/G/" if poisson else "G/G/")) + str(c), cap,
                 info)
    calc.service = s
    shift, kind, p0, rate, wmean, wcv, trunc = st.fixed_delay_s, "exp", 1.0, 1.0, 0.0, 1.0, math.inf
    if m is not None and (t is None or t >= m / cap):
        # G/G/c/K ≈ g × M/M/c/K' with room m/g (diffusion scaling: a reflected Brownian motion with
        # variance g on [0, m] is one with variance 1 on [0, m/g], time and space scaled by g)
        g_room = max(g, 1e-3)  # constant arrivals and service: a room 1000x the real one is already deterministic
        room = min(max(int(round(m / g_room)), 1 if m else 0), 10 ** 9)
        mk = q.mmck(lam, mu, c, room)
        calc.shed_f = max(mk.blocking, 1.0 - cap / lam if lam > cap else 0.0)
        # the wait by the position joined at, on the physical room (waiting_room): exact Erlang
        # mixture for M/M/c/K, never beyond the room's maximum wait for constant service
        load = lam / cap
        ratio = math.exp(min(max(math.log(load) / max(g, 1e-12), -700.0), 700.0)) if load > 0 else 0.0
        pw, wcv, p_out = mk.p_wait, math.sqrt(mk.wait_scv), 0.0
        wmean = room_wait_moments(ratio, m, c, s, cs2)[0] if pw > 0 else 0.0
        if t is not None and pw > 0 and wmean > 0:
            gg = g_room
            p_out, cut = q.mmck_wait_cut(lam, mu, c, room, t / gg)
            # the cut's effect on the mean from the scaled M/M/c/K', applied to the room's own mean
            uncut = mk.mean_wait / mk.p_wait
            wmean, trunc = (wmean * min(cut * gg / (uncut * gg), 1.0) if uncut > 0 else wmean), t
        calc.timeout_f = (1.0 - calc.shed_f) * pw * p_out
        # each time-out frees a place that an arrival would otherwise have been refused (served stays
        # <= capacity because M/M/c/K blocking is >= 1 - capacity/λ)
        calc.shed_f = max(0.0, calc.shed_f - calc.timeout_f)
        calc.served_pre = lam * (1.0 - calc.shed_f - calc.timeout_f)
        p_served = pw * (1.0 - p_out) / max(1.0 - pw * p_out, 1e-300)
        calc.p_wait, calc.wait = p_served, p_served * wmean
        kind, p0 = "room", 1.0 - p_served
        calc.saturated = lam >= cap
        info.update(case="bounded", blocking=mk.blocking, pw=pw, K=c + room, wcv=wcv, p_out=p_out,
                    max_wait=math.ceil(m / c) * s if cs2 == 0 else math.inf)
    elif t is not None:  # (a bounded queue whose time-out empties it before it fills lands here too)
        pt = q.mmc_patience(lam, mu, c, t, g)
        calc.timeout_f, calc.served_pre = pt.p_abandon, lam * (1.0 - pt.p_abandon)
        if calc.served_pre > cap:
            calc.served_pre, calc.timeout_f = cap, 1.0 - cap / lam
        calc.p_wait, calc.wait, p0, rate, trunc = pt.p_wait, pt.mean_wait, 1.0 - pt.p_wait, pt.rate, t
        calc.saturated = lam >= cap
        info.update(case="patience", pw=pt.p_wait)
    elif lam < cap and (poisson or lam <= 0.0):
        pw = q.erlang_c(c, lam / mu)
        # = q.allen_cunneen_mean_wait(c, lam, s, ca2, cs2), reusing Erlang C
        calc.wait = pw / (c * mu - lam) * 0.5 * (ca2 + cs2) if lam > 0.0 else 0.0
        calc.p_wait, p0, rate, calc.served_pre = pw, 1.0 - pw, (cap - lam) / g, lam
        info.update(case="erlang", pw=pw)
    elif lam < cap:
        # renewal arrivals: P(wait) and the exponential wait of GI/M/c (exact for exponential
        # service); other service times keep the Allen–Cunneen mean, spread over those who wait
        gi = gimc(lam, mu, c, ca2)
        pw = gi.p_wait
        markov = abs(cs2 - 1.0) < 1e-9
        calc.wait = pw / gi.rate if markov else q.erlang_c(c, lam / mu) / (cap - lam) * g
        if calc.wait <= 0.0:  # constant arrivals and service: nobody waits
            pw = 0.0
        rate = gi.rate if markov or calc.wait <= 0 else pw / calc.wait
        calc.p_wait, p0, calc.served_pre = pw, 1.0 - pw, lam
        info.update(case="gimc", pw=pw, sigma=gi.sigma, exact=gi.exact, markov=markov,
                    erlang_pw=q.erlang_c(c, lam / mu))
    else:
        d = _overload(calc, st, lam, cap)
        calc.p_wait, calc.wait, shift = 1.0, d, shift + d
        info.update(case="overload")
    calc.util = min(calc.served_pre / cap, 1.0) if cap > 0 else 0.0
    calc.cd2 = q.qna_departure_scv(calc.util, ca2, cs2, c)
    calc.spec = sj.SojournSpec(shift, kind, p0, rate, wmean, wcv, trunc, s, cv)
    if kind == "room":
        calc.spec.room_ratio, calc.spec.room_places, calc.spec.room_servers = ratio, m, c
    return calc


def batch_params(st: Station, ca2: float = 1.0) -> bt.BatchParams:
    """The batching parameters of a batching station; the arrival SCV is rounded to 0.05 so that
    nearby values share one solved table."""
    return bt.BatchParams(st.batch_max, st.batch_timeout_s, st.batch_base_s, st.batch_item_s, st.service_cv ** 2,
                          round(min(max(ca2, 0.0), 20.0) * 20.0) / 20.0)


def _batch(st: Station, lam: float, ca2: float) -> _Calc:
    c, bmax, t = st.servers, st.batch_max, st.timeout_s
    params = batch_params(st, ca2)
    cap = bt.batch_capacity(c, params)
    info = {"lam": lam, "c": c, "B": bmax, "tau0": st.batch_base_s, "alpha": st.batch_item_s,
            "D": st.batch_timeout_s, "ca2": ca2, "cs2": params.service_scv}
    calc = _Calc(f"batch B={bmax} ×{c}", cap, info)
    unlimited = not math.isfinite(cap)
    # the room limits the queue only if the time-out does not empty it first
    bounded = st.queue_capacity is not None and not unlimited and (t is None or t >= st.queue_capacity / cap)
    if bounded:  # M/M/c/K blocking with servers of rate capacity/c (approximate; exact room effects not modelled)
        block = q.mmck(lam, cap / c, c, st.queue_capacity).blocking
        calc.shed_f = max(block, 1.0 - cap / lam if lam > cap else 0.0)
    admitted = lam * (1.0 - calc.shed_f)
    calc.cd2 = ca2
    if not unlimited and admitted >= cap * (1.0 - 1e-9):
        tau_b = st.batch_time(bmax)
        calc.batch, calc.service, calc.util = float(bmax), tau_b, 1.0
        if bounded:
            calc.saturated, calc.served_pre = True, min(admitted, cap)
            d = st.queue_capacity / cap + st.batch_timeout_s
        else:
            d = _overload(calc, st, admitted, cap)
        calc.p_wait, calc.wait = 1.0, d
        calc.spec = sj.SojournSpec(shift=st.fixed_delay_s + d, service_mean=tau_b, service_cv=st.service_cv)
        info.update(case="overload", rho=lam / cap)
        return calc
    sol = bt.batch_steady(admitted, c, params)
    calc.batch, calc.service, calc.util = sol.mean_batch, sol.mean_service, sol.utilisation
    calc.batching, calc.wait, calc.p_wait = sol.forming_wait, sol.mean_wait, sol.p_wait
    calc.spec = sj.SojournSpec(st.fixed_delay_s, "table", table_id=sj.register_table(sol.probs, sol.sojourn_q))
    p_out = sol.wait_tail(t) if t is not None else 0.0
    calc.timeout_f = (1.0 - calc.shed_f) * p_out
    calc.served_pre = admitted * (1.0 - p_out)
    info.update(case="batch", rho=sol.load, p_out=p_out, p99=sol.quantile(0.99), p50=sol.quantile(0.5),
                forming=sol.forming_wait)
    return calc


def _category(st: Station) -> str:
    """Which model ``_station`` applies: delay, none (no servers), batch or ggc."""
    if st.delay_only or (not st.is_batching and st.servers > 0 and st.service_mean_s <= 0):
        return "delay"
    if st.servers <= 0:
        return "none"
    return "batch" if st.is_batching else "ggc"


def _station(st: Station, lam: float, ca2: float, category: str | None = None) -> _Calc:
    category = category or _category(st)
    if category == "ggc":
        return _ggc(st, lam, ca2)
    if category == "batch":
        return _batch(st, lam, ca2)
    if category == "delay":
        calc = _Calc("delay", math.inf)
        calc.served_pre, calc.cd2 = lam, ca2
        calc.spec = sj.SojournSpec(shift=st.fixed_delay_s)
        return calc
    calc = _Calc("no servers", 0.0)
    if st.queue_capacity is not None:
        calc.shed_f, calc.saturated = (1.0, True) if lam > 0 else (0.0, False)
    else:
        calc.wait = _overload(calc, st, lam, 0.0)
    calc.spec = sj.SojournSpec(shift=st.fixed_delay_s + calc.wait)
    return calc


def solve(network: Network) -> NetworkResult:
    """Steady state of ``network`` (see the module docstring). Never raises for a valid Network."""
    plan = _plan(network)
    lam0, ca0 = network.arrival_rate, network.arrival_cv ** 2
    paths = network.paths
    flow = [p.share * lam0 for p in paths]
    offered = list(flow)
    calcs: dict[str, _Calc] = {}
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
        calc = _station(st, lam, ca2, category)
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


def _assemble(net: Network, plan: _Plan, calcs: dict[str, _Calc], rates: dict[str, float], flow: list[float],
              offered: list[float], lost: dict[str, float]) -> NetworkResult:
    stations: dict[str, StationResult] = {}
    make = StationResult._from_dict
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
    lam0, path_results, served_paths = net.arrival_rate, [], []
    make_path = PathResult._from_dict
    sojourn = {sid: r.mean_sojourn_s for sid, r in stations.items()}
    for k, path in enumerate(net.paths):
        mean = sum([sojourn[s] for s in path.stations])
        path_results.append(make_path({"label": path.label, "stations": tuple(path.stations), "share": path.share,
                                       "offered_rps": offered[k], "served_rps": flow[k], "mean_s": mean}))
        if flow[k] > 0:
            served_paths.append(k)
    served = sum(flow[k] for k in served_paths)
    mean = sum(flow[k] * path_results[k].mean_s for k in served_paths) / served if served > 0 else 0.0
    grid, rows, row_of, shift_of, row_index, pcts = None, None, {}, [], None, [0.0, 0.0, 0.0, 0.0]
    station_max: list[float] = []
    if served > 0:
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
    shed, timed_out = lost["shed"] + net.unrouted_share * lam0, lost["timeout"] + lost["backlog"]
    # fractions of the offered rate, kept in [0, 1]: with a subnormal arrival rate the absolute
    # rates lose precision and their ratio could come out a hair above 1
    frac = (lambda x: min(1.0, max(0.0, x / lam0))) if lam0 > 0 else (lambda x: 0.0)
    busiest = max(stations.values(), key=lambda r: (r.offered_load, r.utilisation), default=None)
    return NetworkResult._make(
        offered_rps=lam0, throughput_rps=served, shed_rps=shed, timeout_rps=timed_out, error_rps=lost["error"],
        backlog_growth_rps=lost["backlog"], shed_rate=frac(shed), timeout_rate=frac(timed_out),
        error_rate=frac(lost["error"]), mean_s=mean, p50_s=float(pcts[0]), p95_s=float(pcts[1]),
        p99_s=float(pcts[2]), p999_s=float(pcts[3]),
        saturated=any(r.saturated for r in stations.values()),
        latency_capped=any(stations[s].latency_capped for k in served_paths for s in net.paths[k].stations),
        bottleneck=busiest.id if busiest is not None and busiest.offered_load > 0 else "",
        bin_width_s=grid.dt if grid else 0.0, bins=grid.n_cover if grid else 0,
        stations=stations, paths=tuple(path_results), _grid=grid, _rows=rows, _row_of=row_of,
        _shifts=shift_of, _row_index=row_index, _max_sojourn=station_max)
