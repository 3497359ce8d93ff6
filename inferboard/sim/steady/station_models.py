"""One station of the network in steady state, given its arrival rate and arrival burstiness
(squared CV): which queueing model applies and its working values (``StationCalc``), which
``analytic.solve`` turns into a ``StationResult``.

The models (all formulas in ``queueing.py``):

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
  latency cap ``LATENCY_CAP_S`` (``latency_capped=True``).
"""

from __future__ import annotations

import math
from functools import lru_cache

from inferboard.sim.batching import batching as bt
from inferboard.sim.design.network import Station
from inferboard.sim.queues import queueing as q, sojourn as sj
from inferboard.sim.queues.gimc import gimc
from inferboard.sim.queues.waiting_room import room_wait_moments

#: Latency given to requests served by an overloaded station with an unbounded queue and no time-out.
LATENCY_CAP_S = 60.0


class StationCalc:
    """Mutable per-station working values (turned into a StationResult at the end)."""

    __slots__ = ("model", "shed_f", "timeout_f", "backlog_f", "served_pre", "util", "p_wait", "wait",
                 "service", "batching", "batch", "saturated", "capped", "cd2", "spec", "cap", "info")

    def __init__(self, model: str, cap: float, info: dict | None = None) -> None:
        self.model, self.cap, self.batch, self.cd2, self.spec = model, cap, 1.0, 1.0, None
        self.info = {} if info is None else info
        self.shed_f = self.timeout_f = self.backlog_f = self.served_pre = self.util = self.p_wait = 0.0
        self.wait = self.service = self.batching = 0.0
        self.saturated = self.capped = False


def overload_wait(calc: StationCalc, st: Station, lam: float, served_cap: float) -> float:
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


def queue_station(st: Station, lam: float, ca2: float) -> StationCalc:
    """A G/G/c station (finite room, timeouts, errors) at arrival rate ``lam`` with arrival squared CV
    ``ca2``."""
    c, s, cv = st.servers, st.service_mean_s, st.service_cv
    mu, cs2 = 1.0 / s, cv * cv
    g = 0.5 * (ca2 + cs2)
    poisson = abs(ca2 - 1) < 1e-9
    cap, t, m = c * mu, st.timeout_s, st.queue_capacity
    # inputs for the explanations
    info = {"lam": lam, "mu": mu, "c": c, "rho": lam / cap, "ca2": ca2, "cs2": cs2, "g": g}
    calc = StationCalc(("M/M/" if poisson and abs(cs2 - 1) < 1e-9 else ("M/G/" if poisson else "G/G/")) + str(c), cap,
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
        d = overload_wait(calc, st, lam, cap)
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


@lru_cache(maxsize=1024)
def _table_estimated(servers: int, params: bt.BatchParams) -> bool:
    """``batching.table_estimated``, kept per station (it weighs the table's cost on every solve otherwise)."""
    return bt.table_estimated(servers, params)


def batch_station(st: Station, lam: float, ca2: float) -> StationCalc:
    """A batching station at arrival rate ``lam`` with arrival squared CV ``ca2``, from the shared-queue
    batch model's tables."""
    c, bmax, t = st.servers, st.batch_max, st.timeout_s
    params = batch_params(st, ca2)
    cap = bt.batch_capacity(c, params)
    info = {"lam": lam, "c": c, "B": bmax, "tau0": st.batch_base_s, "alpha": st.batch_item_s,
            "D": st.batch_timeout_s, "ca2": ca2, "cs2": params.service_scv}
    estimated = " (estimated table)" if _table_estimated(c, params) else ""
    calc = StationCalc(f"batch B={bmax} ×{c}{estimated}", cap, info)
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
            d = overload_wait(calc, st, admitted, cap)
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


def station_category(st: Station) -> str:
    """Which model ``solve_station`` applies: delay, none (no servers), batch or ggc."""
    if st.delay_only or (not st.is_batching and st.servers > 0 and st.service_mean_s <= 0):
        return "delay"
    if st.servers <= 0:
        return "none"
    return "batch" if st.is_batching else "ggc"


def solve_station(st: Station, lam: float, ca2: float, category: str | None = None) -> StationCalc:
    """The station's steady state by its category (queue, batch or delay), at ``lam`` and ``ca2``."""
    category = category or station_category(st)
    if category == "ggc":
        return queue_station(st, lam, ca2)
    if category == "batch":
        return batch_station(st, lam, ca2)
    if category == "delay":
        calc = StationCalc("delay", math.inf)
        calc.served_pre, calc.cd2 = lam, ca2
        calc.spec = sj.SojournSpec(shift=st.fixed_delay_s)
        return calc
    calc = StationCalc("no servers", 0.0)
    if st.queue_capacity is not None:
        calc.shed_f, calc.saturated = (1.0, True) if lam > 0 else (0.0, False)
    else:
        calc.wait = overload_wait(calc, st, lam, 0.0)
    calc.spec = sj.SojournSpec(shift=st.fixed_delay_s + calc.wait)
    return calc

