"""The steady state of a whole design: compile it, solve the network, and report per node.

This is what the GUI's readouts, the rule engine's behaviour rules and ``inferboard simulate``
show, so the numbers a user sees are the same everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from inferboard.model.design import Design
from inferboard.sim.design.compile import Compiled, compile_design
from inferboard.sim.design.design_structure import DesignStructure
from inferboard.sim.design.faults import Fault
from inferboard.sim.design.hardware import PoolPlan
from inferboard.sim.explain.explain import Figure, fmt
from inferboard.sim.llm.llm import ttft_quantiles
from inferboard.sim.steady.analytic import solve
from inferboard.sim.steady.steady_results import NetworkResult

__all__ = ["DesignResult", "DesignStructure", "Fault", "NodeResult", "evaluate"]


def _finite(value: float | None) -> float | None:
    if value is None:
        return None
    return float(value) if math.isfinite(value) else 0.0


@dataclass(frozen=True)
class NodeResult:
    """One node at steady state. Pools have utilisation and capacity; routers only a rate."""

    node_id: str
    kind: str
    arrival_rps: float
    utilisation: float | None = None
    replicas: int | None = None
    servers: int | None = None
    capacity_rps: float | None = None
    queue_ms: float | None = None
    sojourn_ms: float | None = None
    saturated: bool = False
    memory_fit: bool | None = None
    memory_needed_gb: float | None = None
    memory_available_gb: float | None = None
    cost_per_hour: float = 0.0
    shed_rps: float = 0.0
    #: LLM pools: time to first token (mean and percentiles) and time per output token, ms
    ttft_ms: float | None = None
    ttft_p50_ms: float | None = None
    ttft_p95_ms: float | None = None
    ttft_p99_ms: float | None = None
    tpot_ms: float | None = None
    down: bool = False
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The node's figures as plain values for JSON (infinities made finite)."""
        out = {}
        for key, value in self.__dict__.items():
            out[key] = list(value) if isinstance(value, tuple) else (
                _finite(value) if isinstance(value, float) else value)
        return out


@dataclass
class DesignResult:
    """The steady state of a design: end-to-end latency, throughput, shed, error and timeout rates, cost,
    per-node figures and how each was computed."""
    offered_rps: float
    throughput_rps: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    shed_rate: float
    error_rate: float
    timeout_rate: float
    cost_per_hour: float
    cost_per_1k: float | None
    saturated: bool
    bottleneck: str
    nodes: dict[str, NodeResult]
    faults: tuple[Fault, ...] = ()
    notes: tuple[str, ...] = ()
    #: non-empty when the load was not the declared mean (no traffic figures): every readout shows it
    load_note: str = ""
    network: NetworkResult | None = field(default=None, repr=False)
    compiled: Compiled | None = field(default=None, repr=False)

    def figure(self, key: str) -> Figure | None:
        """The Figure behind a reported number: ``p99_ms``, ``cost_per_1k``, ``nodes.<id>.utilisation``..."""
        if key.startswith("nodes."):
            _, node_id, name = key.split(".", 2)
            return self._node_figure(node_id, name)
        if key in ("cost_per_hour", "cost_per_1k"):
            return self._cost_figure(key)
        if key == "error_rate":
            return self._error_figure()
        if key == "shed_rate":
            return self._shed_figure()
        return self.network.figures.get(key) if self.network is not None else None

    def explain(self, key: str) -> str:
        """How the figure ``key`` was computed, in one line."""
        figure = self.figure(key)
        if figure is None:
            return f"{key}: no explanation recorded"
        return figure.text()

    def explanations(self) -> dict[str, str]:
        """Every headline and per-node figure's explanation, keyed by figure."""
        keys = ["p50_ms", "p95_ms", "p99_ms", "throughput_rps", "shed_rate", "error_rate", "cost_per_hour",
                "cost_per_1k"]
        for node_id, node in self.nodes.items():
            if node.utilisation is not None:
                keys += [f"nodes.{node_id}.utilisation", f"nodes.{node_id}.queue_ms"]
            if node.ttft_ms is not None:
                keys += [f"nodes.{node_id}.{name}" for name in LLM_FIGURES]
        return {key: self.explain(key) for key in keys}

    def _node_figure(self, node_id: str, name: str) -> Figure | None:
        node = self.nodes.get(node_id)
        if node is None:
            return None
        station_id = self.compiled.station_of.get(node_id) if self.compiled else None
        station = self.network.stations.get(station_id) if self.network and station_id else None
        if name == "cost_per_hour":
            return Figure(node.cost_per_hour, "$/h", "catalog cost model", {}, "; ".join(node.notes[:2]),
                          model=node.kind)
        if station is None:
            return None
        plan = self.compiled.plans.get(node_id) if self.compiled else None
        if plan is not None and plan.replica is not None and node.ttft_ms is not None and (
                name in LLM_FIGURES or name in ("utilisation", "capacity_rps")):
            return llm_figure(node, plan, name)
        mapping = {"utilisation": "utilisation", "queue_ms": "mean_wait_ms", "sojourn_ms": "mean_sojourn_ms",
                   "capacity_rps": "capacity_rps"}
        figure = station.figures.get(mapping.get(name, name))
        if figure is not None and node.notes:
            figure = Figure(figure.value, figure.unit, figure.formula, figure.inputs,
                            (figure.assumption + " " + " ".join(f"[{n}]" for n in node.notes)).strip(),
                            figure.model, figure.note)
        return figure

    def _cost_figure(self, key: str) -> Figure:
        items = {k: v for k, v in (self.compiled.cost_items.items() if self.compiled else []) if v > 0}
        if key == "cost_per_hour":
            top = dict(sorted(items.items(), key=lambda kv: -kv[1])[:6])
            return Figure(self.cost_per_hour, "$/h", "Σ nodes (replicas × $/h, fixed, per-request)",
                          {f"{k} [$/h]": v for k, v in top.items()},
                          "Catalog list prices; spot replicas at the spot price; regions that are down are not billed.",
                          model="cost")
        return Figure(self.cost_per_1k or 0.0, "$", "cost/h ÷ (served rps × 3600) × 1000",
                      {"cost [$/h]": self.cost_per_hour, "served [rps]": self.throughput_rps},
                      "Counts successful requests only." if self.cost_per_1k is not None
                      else "Nothing is served, so there is no cost per request.", model="cost")

    def _error_figure(self) -> Figure:
        lost = self.compiled.lost_rps if self.compiled else 0.0
        errors = self.network.error_rps if self.network else 0.0
        return Figure(self.error_rate, "", "(server errors + traffic sent to dead capacity) / offered",
                      {"errors [rps]": errors, "lost [rps]": lost, "offered [rps]": self.offered_rps},
                      "Traffic is lost when nothing can fail over: a region down without failover, a pool with "
                      "no replicas or whose model does not fit.", model="network")

    def _shed_figure(self) -> Figure:
        shed = (self.network.shed_rps + self.network.timeout_rps if self.network else 0.0)
        lost = self.compiled.lost_rps if self.compiled else 0.0
        return Figure(self.shed_rate, "", "(shed + timed out − lost) / offered",
                      {"shed [rps]": self.network.shed_rps if self.network else 0.0,
                       "timed out [rps]": self.network.timeout_rps if self.network else 0.0,
                       "lost [rps]": lost, "offered [rps]": self.offered_rps},
                      "Shed: full queues, rate limits, admission control; timed out: waited past the queue "
                      f"timeout. {fmt(shed)} rps in all.", model="network")

    def to_dict(self) -> dict[str, Any]:
        """The result as plain values for JSON (infinities made finite)."""
        return {
            "offered_rps": _finite(self.offered_rps), "throughput_rps": _finite(self.throughput_rps),
            "p50_ms": _finite(self.p50_ms), "p95_ms": _finite(self.p95_ms), "p99_ms": _finite(self.p99_ms),
            "mean_ms": _finite(self.mean_ms), "shed_rate": _finite(self.shed_rate),
            "error_rate": _finite(self.error_rate), "timeout_rate": _finite(self.timeout_rate),
            "cost_per_hour": _finite(self.cost_per_hour), "cost_per_1k": _finite(self.cost_per_1k),
            "saturated": self.saturated, "bottleneck": self.bottleneck,
            "faults": [{"kind": f.kind, "target": f.target, "magnitude": f.amount} for f in self.faults],
            "notes": list(self.notes), "load_note": self.load_note,
            "nodes": {k: v.to_dict() for k, v in self.nodes.items()},
        }

    def table(self) -> str:
        """The result as a text table for the command line."""
        lines = [f"offered {self.offered_rps:,.1f} rps -> served {self.throughput_rps:,.1f} rps",
                 f"latency  p50 {self.p50_ms:,.1f} ms   p95 {self.p95_ms:,.1f} ms   p99 {self.p99_ms:,.1f} ms",
                 f"shed {self.shed_rate:.2%}   errors {self.error_rate:.2%}   timed out {self.timeout_rate:.2%}",
                 f"cost {self.cost_per_hour:,.2f} $/h   "
                 + (f"{self.cost_per_1k:,.4f} $ per 1k inferences" if self.cost_per_1k is not None else "nothing served"),
                 ""]
        lines.append(f"{'node':<24} {'kind':<22} {'rps':>9} {'util':>6} {'replicas':>8} {'queue ms':>9} "
                     f"{'$/h':>8}")
        for node in self.nodes.values():
            if node.arrival_rps <= 0 and node.utilisation is None and node.cost_per_hour <= 0:
                continue
            util = f"{node.utilisation:.0%}" if node.utilisation is not None else ""
            reps = str(node.replicas) if node.replicas is not None else ""
            queue = f"{node.queue_ms:,.2f}" if node.queue_ms is not None else ""
            mark = " SATURATED" if node.saturated else (" DOWN" if node.down else "")
            lines.append(f"{node.node_id[:24]:<24} {node.kind[:22]:<22} {node.arrival_rps:>9,.1f} {util:>6} "
                         f"{reps:>8} {queue:>9} {node.cost_per_hour:>8.2f}{mark}")
        llm = [node for node in self.nodes.values() if node.ttft_ms is not None]
        if llm:
            lines.append("")
            lines += [f"{node.node_id[:24]:<24} time to first token mean {node.ttft_ms:,.0f} ms, p50 {node.ttft_p50_ms:,.0f}"
                      f" / p95 {node.ttft_p95_ms:,.0f} / p99 {node.ttft_p99_ms:,.0f} ms; {node.tpot_ms:,.1f} ms per "
                      f"output token" for node in llm]
        if self.notes:
            lines += [""] + [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


def evaluate(design: Design, rps: float | None = None, faults: Sequence[Fault] = (),
             structure: DesignStructure | None = None) -> DesignResult:
    """Steady state of ``design`` at ``rps`` (default: the requirements' mean) with ``faults`` in force.

    Pass the same ``structure`` (``DesignStructure(design)``) to several evaluations of one design
    revision to compile the rate-independent parts once (it is rebuilt if the design changed)."""
    compiled = compile_design(design, rps, faults, structure=structure)
    return result_from(design, compiled, solve(compiled.network), tuple(faults))


#: The LLM pool figures that have their own explanation (besides utilisation and capacity).
LLM_FIGURES = ("ttft_ms", "ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms", "tpot_ms")


def llm_figure(node: NodeResult, plan: PoolPlan, name: str) -> Figure:
    """How an LLM pool's TTFT, TPOT, utilisation or capacity was computed (see ``llm``)."""
    r, e = plan.replica, plan.engine
    inputs = {"P [parameters]": e.params, "F [TFLOP/s]": e.flops / 1e12, "B [TB/s]": e.bandwidth / 1e12,
              "e_p": e.prefill_efficiency, "e_d": e.decode_efficiency, "λ per replica [rps]": r.rate,
              "t_prefill [ms]": r.prefill_s * 1000, "ρ_prefill": r.prefill_share, "n running": r.running,
              "slots": r.slots, "t_step [ms]": r.step_s * 1000}
    assumption = (f"{e.gpus} GPU(s) per replica at {e.compute_precision.upper()}; prefills go ahead of decode "
                  "steps and queue among themselves (M/D/1); the slot wait is the pool's M/G/c wait. "
                  + " ".join(f"[{n}]" for n in node.notes))
    if name == "tpot_ms":
        return Figure(node.tpot_ms, "ms", "TPOT = t_step(n+1) / (1 − ρ_prefill), t_step = max((w + n·C·kv)/(B·e_d), "
                      "2·P·n/(F·e_p))", inputs, assumption, model="LLM decode (HBM roofline)")
    if name == "utilisation":
        return Figure(node.utilisation, "", "λ / capacity; capacity = replicas × the λ at which n = λ·S(n) fills "
                      "the slots", {**inputs, "capacity [rps]": plan.capacity_rps}, assumption,
                      model="LLM continuous batching")
    if name == "capacity_rps":
        return Figure(node.capacity_rps, "rps", "replicas × λ at which n = λ·S(n) reaches the KV slots",
                      inputs, assumption, model="LLM continuous batching")
    value = getattr(node, name)
    which = {"ttft_ms": "mean", "ttft_p50_ms": "p50", "ttft_p95_ms": "p95", "ttft_p99_ms": "p99"}[name]
    return Figure(value, "ms", f"TTFT {which} of slot wait ⊛ M/D/1 prefill wait + t_prefill (its logits give the first token); "
                  "t_prefill = 2·P·L/(F·e_p)", {**inputs, "W_prefill mean [ms]": r.prefill_wait_s * 1000},
                  assumption, model="LLM time to first token")


def _generation_figures(plan: PoolPlan, station) -> dict[str, float]:
    """TTFT (mean, p50/p95/p99) and TPOT of an LLM pool: slot wait from the station's solved
    distribution, then the prefill engine's M/D/1 wait and the prefill (whose logits give the first token)."""
    replica = plan.replica
    fixed = replica.prefill_s
    p50, p95, p99 = ttft_quantiles(station.sojourn_spec, replica.prefill_share, replica.prefill_s, fixed)
    out = {"ttft_ms": (station.mean_wait_s + plan.ttft_s) * 1000, "ttft_p50_ms": p50 * 1000,
           "ttft_p95_ms": p95 * 1000, "ttft_p99_ms": p99 * 1000, "tpot_ms": plan.tpot_s * 1000,
           "capacity_rps": plan.capacity_rps}
    if plan.capacity_rps:
        # the pool's load against its capacity: the station's server occupancy (running sequences
        # over KV slots) understates it, because each request's service time grows with the load
        out["utilisation"] = min(1.0, station.arrival_rps / plan.capacity_rps)
    return out


def result_from(design: Design, compiled: Compiled, net: NetworkResult, faults: tuple = ()) -> DesignResult:
    """The design's result from its compile and the solved network: end-to-end rates (losses before any
    station count as errors), cost and per-node figures."""
    offered = compiled.offered_rps
    lost = min(compiled.lost_rps, net.shed_rps)
    error_rate = (net.error_rps + lost) / offered if offered > 0 else 0.0
    shed_rate = max(0.0, net.shed_rps - lost) / offered if offered > 0 else 0.0
    nodes: dict[str, NodeResult] = {}
    serving_kinds = design.catalog.kinds_with_role("serving_pool")
    for node_id, node in design.nodes.items():
        station_id = compiled.station_of.get(node_id)
        station = net.stations.get(station_id) if station_id else None
        plan = compiled.plans.get(node_id)
        values: dict[str, Any] = {"arrival_rps": compiled.node_rates.get(node_id, 0.0),
                                  "cost_per_hour": compiled.cost_items.get(node_id, 0.0),
                                  "down": node_id in compiled.down,
                                  "shed_rps": compiled.shed_rps.get(node_id, 0.0)}
        if station is not None and not station.capacity_unlimited and node_id not in compiled.down:
            values.update(queue_ms=station.mean_wait_s * 1000, saturated=station.saturated)
            if node.kind in serving_kinds:
                values.update(utilisation=station.utilisation, capacity_rps=station.capacity_rps,
                              sojourn_ms=station.mean_sojourn_s * 1000,
                              shed_rps=station.shed_rps + station.timeout_rps)
        if plan is not None:
            values.update(replicas=plan.replicas, servers=plan.servers, memory_fit=plan.memory_fit,
                          memory_needed_gb=plan.memory_needed_gb, memory_available_gb=plan.memory_available_gb,
                          notes=tuple(plan.notes))
            if plan.replica is not None and station is not None and "utilisation" in values:
                values.update(_generation_figures(plan, station))
            if node.kind in serving_kinds and "utilisation" not in values:
                values.update(utilisation=0.0, capacity_rps=0.0)
        nodes[node_id] = NodeResult(node_id, node.kind, **values)
    cost = compiled.cost_per_hour
    served = net.throughput_rps
    cost_per_1k = cost / (served * 3600) * 1000 if served > 0 else None
    return DesignResult(offered, served, net.p50_s * 1000, net.p95_s * 1000, net.p99_s * 1000, net.mean_s * 1000,
                        shed_rate, error_rate, net.timeout_rate, cost, cost_per_1k, net.saturated,
                        net.bottleneck, nodes, faults, tuple(compiled.notes), compiled.load_note, net, compiled)
