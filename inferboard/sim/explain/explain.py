"""Explanations: every number the solver reports carries how it was computed.

A :class:`Figure` is a value plus the model, the formula, the inputs that went into it and the
assumption behind it, rendered for people as, for example::

    M/M/4: λ=3.28 rps, μ=1.00/s, ρ=0.82, Erlang C P(wait)=0.41 → E[Wq] = C/(cμ − λ) = 120 ms.
    Assumes Poisson arrivals, exponential service, FCFS.

All numbers in a Figure are finite: a non-finite value or input is replaced by ``±FIGURE_CAP``
(NaN by 0) and the text says so. Input keys may carry a unit in brackets, ``"λ [rps]"``, which is
shown after the number (``"/s"`` is appended without a space).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

#: Replacement for non-finite numbers in figures (magnitude), flagged in the text.
FIGURE_CAP = 1e12


def fmt(x: float) -> str:
    """About three significant figures, no exponent for everyday magnitudes; ints as ints."""
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)
    ax = abs(x)
    if ax == 0:
        return "0"
    if ax >= 1e7 or ax < 1e-3:
        return f"{x:.3g}"
    if ax >= 100:
        return f"{x:.0f}"
    if ax >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def _finite(x: float) -> tuple[float, bool]:
    if isinstance(x, int) and not isinstance(x, bool):
        return x, False  # counts (servers, bins) stay integers and print without decimals
    x = float(x)
    if math.isfinite(x):
        return x, False
    if math.isnan(x):
        return 0.0, True
    return math.copysign(FIGURE_CAP, x), True


def _with_unit(number: str, unit: str) -> str:
    if not unit:
        return number
    return number + unit if unit.startswith("/") or unit == "%" else f"{number} {unit}"


@dataclass(frozen=True)
class Figure:
    """One reported number and how it was obtained."""

    value: float
    unit: str
    formula: str
    inputs: dict[str, float]
    assumption: str
    #: The model the formula belongs to, e.g. "M/M/4" (shown first in the text).
    model: str = ""
    #: Filled in when a non-finite number had to be replaced (see module docstring).
    note: str = field(default="")

    def __post_init__(self) -> None:
        replaced = []
        value, bad = _finite(self.value)
        if bad:
            replaced.append("the result")
        inputs = {}
        for key, v in self.inputs.items():
            fv, b = _finite(v)
            inputs[str(key)] = fv
            if b:
                replaced.append(key.split(" [")[0])
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "inputs", inputs)
        if replaced:
            extra = f"Not finite, shown as ±{fmt(FIGURE_CAP)} (or 0 for NaN): {', '.join(replaced)}."
            object.__setattr__(self, "note", (self.note + " " + extra).strip())

    def text(self) -> str:
        """The figure in one line: its model, formula, inputs with their units, and the value."""
        parts = []
        for key, v in self.inputs.items():
            name, _, unit = key.partition(" [")
            parts.append(f"{name}={_with_unit(fmt(v), unit.rstrip(']'))}")
        head = f"{self.model}: " if self.model else ""
        body = ", ".join(parts)
        arrow = f"{body} → " if body else ""
        out = f"{head}{arrow}{self.formula} = {_with_unit(fmt(self.value), self.unit)}."
        if self.assumption:
            out += f" {self.assumption}"
        if self.note:
            out += f" {self.note}"
        return out

    def to_dict(self) -> dict:
        """The figure as plain values for JSON, with its one-line text."""
        return {"value": self.value, "unit": self.unit, "formula": self.formula, "inputs": dict(self.inputs),
                "assumption": self.assumption, "model": self.model, "note": self.note, "text": self.text()}


_MARKOV = "Assumes Poisson arrivals, exponential service, FCFS."
_GG = ("Allen–Cunneen approximation (exact for M/M/c, P-K for M/G/1): arrival and service "
       "variability enter as (ca² + cs²)/2; FCFS; approximate.")
_BATCH = ("Shared-queue dynamic batching: all replicas take batches from one FIFO queue; a batch leaves when a "
          "replica is free and the queue holds B requests or its oldest has waited D. Solved numerically by "
          "side-by-side replications of exactly these rules over a grid of loads (Monte Carlo, common random "
          "numbers), renewal arrivals; measured against the request-level load test to within 5% on p99 up to "
          "90% of capacity and 10% above, extrapolated beyond 95% (docs/simulator.md, 'Dynamic batcher').")


def _assumption(info: dict, model: str) -> str:
    if model == "delay":
        return "Pure delay: no queueing."
    if model.startswith("batch"):
        return _BATCH
    return _MARKOV if model.startswith("M/M/") else _GG


def _gimc_note(info: dict) -> str:
    """Where the renewal-arrival result is exact and, measured against the load test, how far off
    it is otherwise (tests/sim/test_smooth_arrivals.py)."""
    exact = ("Exact GI/M/c (Kleinrock §6.4) for renewal arrivals with gamma interarrival times"
             if info.get("exact", True) else
             "Erlang C × the Halfin–Whitt ratio for GI/M/c above 128 servers (about 7% off at ρ = 0.9)")
    if info.get("markov", False):
        return exact + " and exponential service; downstream of another station the arrival SCV is a QNA estimate."
    return (exact + " gives P(wait) for exponential service; with this service CV the mean is Allen–Cunneen and "
            "the wait given a wait is taken as exponential: measured against the load test p50–p99 are within "
            "about 15% at ρ ≥ 0.8, but up to 30–60% too high at ρ ≈ 0.5 with very smooth or very variable "
            "service, and 10–25% too low with bursty arrivals (ca² > 1) at ρ ≈ 0.5.")


def station_figures(r, info: dict) -> dict[str, Figure]:
    """Figures for a StationResult ``r`` (duck-typed) from the solver's working values ``info``."""
    model, case = r.model, info.get("case", "")
    lam, c = r.arrival_rps, r.servers
    assume = _assumption(info, model)
    figs: dict[str, Figure] = {}
    ms = 1000.0
    if model == "delay" or model == "no servers":
        figs["mean_sojourn_ms"] = Figure(r.mean_sojourn_s * ms, "ms", "E[T] = fixed delay + wait",
                                         {"λ [rps]": lam, "delay [ms]": info.get("fixed", 0.0) * ms}, assume,
                                         model=model)
        if model == "no servers":
            figs["capacity_rps"] = Figure(0.0, "rps", "capacity = 0 (no servers)", {"λ [rps]": lam},
                                          "Every arrival is shed, times out or waits forever.", model=model)
        return _common(figs, r, info, model)
    if model.startswith("batch"):
        ins = {"λ [rps]": lam, "c": c, "B": info["B"], "τ0 [ms]": info["tau0"] * ms, "α [ms]": info["alpha"] * ms}
        figs["capacity_rps"] = Figure(r.capacity_rps, "rps", "capacity = c·B/(τ0 + α·B)", ins, assume, model=model)
        figs["utilisation"] = Figure(
            r.utilisation, "", "busy = batches per second × mean batch time / c = (λ/E[b])·E[τ(b)·g]/c",
            {"λ [rps]": lam, "E[b]": r.mean_batch, "c": c, "load λ/capacity": info.get("rho", 0.0)}, assume,
            model=model, note="Utilisation, batch size and waits come from the same solution: more traffic makes "
                              "batches bigger, so the replicas are less busy than λ·τ(1)/c would suggest.")
        figs["mean_batch"] = Figure(
            r.mean_batch, "", "E[b] = mean of min(queue at dispatch, B)",
            {"λ [rps]": lam, "B": info["B"], "D [ms]": info["D"] * ms, "c": c}, assume, model=model,
            note="A batch leaves as soon as a replica is free and it is full or its oldest request has waited D; "
                 "while no replica is free it keeps growing up to B.")
        figs["mean_wait_ms"] = Figure(
            r.mean_wait_s * ms, "ms", "E[W] = wait for the batch to be ready + wait for a free replica",
            {"forming [ms]": r.batching_wait_s * ms, "wait for a replica [ms]": r.queue_wait_s * ms,
             "p50 sojourn [ms]": info.get("p50", 0.0) * ms, "p99 sojourn [ms]": info.get("p99", 0.0) * ms,
             "load λ/capacity": info.get("rho", 0.0)}, assume, model=model)
    else:
        rho, pw, g = info.get("rho", 0.0), info.get("pw", r.p_wait), info.get("g", 1.0)
        mu = info.get("mu", 0.0)
        base = {"λ [rps]": lam, "μ [/s]": mu, "ρ": rho}
        figs["capacity_rps"] = Figure(r.capacity_rps, "rps", "capacity = c·μ", {"c": c, "μ [/s]": mu}, assume,
                                      model=model)
        figs["utilisation"] = Figure(r.utilisation, "", "ρ = served λ / (c·μ)", base, assume, model=model)
        if case == "erlang":
            formula = "E[Wq] = C/(cμ − λ)" if g == 1.0 else "E[Wq] = C/(cμ − λ)·(ca² + cs²)/2"
            ins = {**base, "Erlang C P(wait)": pw}
            if g != 1.0:
                ins.update({"ca²": info["ca2"], "cs²": info["cs2"]})
            figs["p_wait"] = Figure(pw, "", "C = B/(1 − ρ(1 − B)), B = Erlang B", base, assume, model=model)
        elif case == "gimc":
            markov = info.get("markov", False)
            formula = ("E[Wq] = P(wait)/(cμ(1 − σ)), σ = A*(cμ(1 − σ))" if markov else
                       "E[Wq] = C/(cμ − λ)·(ca² + cs²)/2, spread over P(wait) from GI/M/c")
            ins = {**base, "ca²": info["ca2"], "cs²": info["cs2"], "σ": info["sigma"], "P(wait)": pw,
                   "Erlang C": info["erlang_pw"]}
            figs["p_wait"] = Figure(pw, "", "P(wait) = J/(1 − σ), GI/M/c with gamma interarrival times",
                                    {**base, "ca²": info["ca2"], "σ": info["sigma"]}, _gimc_note(info), model=model)
            assume = _gimc_note(info)
        elif case == "patience":
            formula = "E[Wq | served] from M/M/c+D (wait cut at the time-out T)"
            ins = {**base, "T [ms]": info["timeout"] * ms, "P(wait)": pw}
            assume = assume + " Requests leave after waiting T (Zeltyn–Mandelbaum M/M/n+G, exact for M/M/c+D)."
        elif case == "bounded":
            if g == 1.0:
                formula = "E[Wq | admitted]: M/M/c/K, position j waits Erlang(j + 1, cμ)"
                assume = assume + " Exact M/M/c/K waiting-time distribution (mixture over the position joined at)."
            else:
                formula = ("E[Wq | admitted]: wait by position joined (weights ρ^(j/g)), blocking from M/M/c/K' "
                           "with room m/g, g = (ca² + cs²)/2")
                assume = assume + (" Finite room: waits never exceed ceil(m/c) service times with constant service;"
                                   " measured against the load test p95/p99 within about 4%, p50 up to 10% low for "
                                   "one server at moderate load.")
            ins = {**base, "K": info["K"], "P(full)": info["blocking"], "P(wait)": pw}
        else:
            formula = "wait = time-out T (the excess times out)" if not r.latency_capped else \
                "wait = latency cap (queue grows without bound)"
            ins = {**base}
            assume = "Overload: λ ≥ capacity, so no steady state exists; the station is capped at its capacity."
        figs["mean_wait_ms"] = Figure(r.mean_wait_s * ms, "ms", formula, ins, assume, model=model)
    figs["mean_sojourn_ms"] = Figure(r.mean_sojourn_s * ms, "ms", "E[T] = delay + E[W] + E[S]",
                                     {"delay [ms]": info.get("fixed", 0.0) * ms, "E[W] [ms]": r.mean_wait_s * ms,
                                      "E[S] [ms]": r.mean_service_s * ms}, assume, model=model)
    return _common(figs, r, info, model)


def _common(figs: dict, r, info: dict, model: str) -> dict[str, Figure]:
    lam = r.arrival_rps
    if r.shed_rps > 0 or info.get("queue_capacity") is not None:
        figs["shed_rps"] = Figure(r.shed_rps, "rps",
                                  "shed = λ·P(waiting room full) (M/M/c/K blocking, ≥ λ − capacity)",
                                  {"λ [rps]": lam, "queue capacity": info.get("queue_capacity") or 0},
                                  "Arrivals that find the queue full are rejected.", model=model)
    if r.timeout_rps > 0 or info.get("timeout") is not None:
        figs["timeout_rps"] = Figure(r.timeout_rps, "rps", "timed out = λ·P(wait > T)",
                                     {"λ [rps]": lam, "T [ms]": (info.get("timeout") or 0.0) * 1000.0},
                                     "A request still waiting after T leaves before service.", model=model)
    if r.backlog_growth_rps > 0:
        figs["backlog_growth_rps"] = Figure(
            r.backlog_growth_rps, "rps", "backlog growth = λ − capacity",
            {"λ [rps]": lam, "capacity [rps]": r.capacity_rps},
            "Unbounded queue, no time-out: the queue grows without limit; served requests are shown at the "
            "latency cap and the excess counts as timed out in the totals.", model=model)
    figs["error_rps"] = Figure(r.error_rps, "rps", "errors = served before errors × error rate",
                               {"error rate": info.get("error_rate", 0.0)}, "Failed requests still used the server.",
                               model=model)
    figs["served_rps"] = Figure(r.served_rps, "rps", "served = λ − shed − timed out − backlog − errors",
                                {"λ [rps]": lam, "shed [rps]": r.shed_rps, "timed out [rps]": r.timeout_rps,
                                 "errors [rps]": r.error_rps}, "Flow conservation.", model=model)
    return figs


def network_figures(n) -> dict[str, Figure]:
    """Figures for a NetworkResult ``n`` (duck-typed)."""
    ms = 1000.0
    served_paths = sum(1 for p in n.paths if p.served_rps > 0)
    grid_in = {"paths": served_paths, "bin [ms]": n.bin_width_s * ms, "bins": n.bins}
    assume = ("Served requests only; each path's latency is the convolution of its stations' sojourn-time "
              "distributions (independent stations), mixed over paths by served flow.")
    if n.latency_capped:
        assume += " Some path crosses an overloaded unbounded queue: its wait is the latency cap."
    figs = {}
    for key, value, label in (("p50_ms", n.p50_s, "p50"), ("p95_ms", n.p95_s, "p95"), ("p99_ms", n.p99_s, "p99"),
                              ("p999_ms", n.p999_s, "p99.9")):
        figs[key] = Figure(value * ms, "ms", f"{label} of the path mixture of convolved distributions", grid_in,
                           assume, model="network")
    figs["mean_ms"] = Figure(n.mean_s * ms, "ms", "E[T] = Σ paths (served share × Σ station E[T])",
                             {"paths": served_paths}, "Exact given the station means (Jackson/QNA).", model="network")
    base = {"offered [rps]": n.offered_rps}
    figs["throughput_rps"] = Figure(n.throughput_rps, "rps", "served = offered − shed − timed out − errors",
                                    {**base, "shed [rps]": n.shed_rps, "timed out [rps]": n.timeout_rps,
                                     "errors [rps]": n.error_rps}, "Flow conservation.", model="network")
    figs["shed_rate"] = Figure(n.shed_rate, "", "shed / offered (incl. unrouted traffic)",
                               {**base, "shed [rps]": n.shed_rps}, "", model="network")
    figs["timeout_rate"] = Figure(n.timeout_rate, "", "timed out / offered (incl. backlog growth)",
                                  {**base, "timed out [rps]": n.timeout_rps, "backlog [rps]": n.backlog_growth_rps},
                                  "", model="network")
    figs["error_rate"] = Figure(n.error_rate, "", "errors / offered", {**base, "errors [rps]": n.error_rps}, "",
                                model="network")
    return figs
