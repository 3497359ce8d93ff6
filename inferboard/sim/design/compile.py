"""Compile a design into a queueing network: who sends how much traffic where, and what each
station is. One compiled form feeds the steady state, the timeline and the load test, so they agree.

Routing rules (documented in docs/simulator.md):
- traffic sources split the required traffic by their ``share`` (as relative weights);
- a global load balancer with the latency or geo policy sends each source's traffic to the
  children in the source's own location, else its continent, else all; ``weighted`` splits by
  capacity, ``round_robin`` evenly; with ``failover`` it skips children that cannot serve
  (region down, no replicas, model does not fit), otherwise their share is lost;
- a regional load balancer splits by capacity (least outstanding requests) and applies its rate limit;
- a cache ends the path for ``hit_ratio`` of requests after its hit latency;
- a canary router sends ``canary_share`` to its canary port;
- a fallback model below a router takes what the primaries cannot: everything above 95% of their
  capacity, or all of it when they are down; admission control sheds (or sends to a fallback, or
  degrades generation to shorter outputs) everything above its utilisation threshold;
- a dynamic batcher or request queue right before a pool makes that pool a batching or bounded station.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from inferboard.model.design import Design
from inferboard.sim.design.design_structure import DesignStructure
from inferboard.sim.design.faults import Fault
from inferboard.sim.design.hardware import PoolPlan, cost_of_node
from inferboard.sim.design.network import Network, Path, Station
from inferboard.sim.design.routing import Routing, degraded_pools, propagate_rates

#: Round-trip network latency between locations, seconds (illustrative public-cloud figures).
SAME_CONTINENT_RTT_S = 0.025
CROSS_RTT_S = {frozenset({"us", "eu"}): 0.08, frozenset({"us", "ap"}): 0.15, frozenset({"eu", "ap"}): 0.2}
MAX_PATHS = 4000
#: Offered load assumed when the requirements declare neither ``mean_rps`` nor ``peak_rps``.
ASSUMED_RPS = 100.0


def default_load(req) -> tuple[float, str]:
    """The offered rps to evaluate when the caller names none, and a note saying where it came from
    when it is not the declared mean (empty when it is)."""
    if req.mean_rps is not None:
        return float(req.mean_rps), ""
    if req.peak_rps is not None:
        return float(req.peak_rps), f"requirements.mean_rps is not declared: evaluated at peak_rps ({req.peak_rps:g} rps)"
    return ASSUMED_RPS, (f"no traffic figures declared (requirements.mean_rps, peak_rps): evaluated at an assumed "
                         f"{ASSUMED_RPS:g} rps")


@dataclass
class Compiled:
    """A design compiled at one offered rate under its faults: the queueing network, each node's rate, pool
    plans and costs, and what was shed or lost on the way."""
    network: Network
    offered_rps: float
    node_rates: dict[str, float]
    plans: dict[str, PoolPlan]
    #: node id -> the station holding its queue (pools; batchers and queues point at their pool)
    station_of: dict[str, str]
    cost_per_hour: float
    cost_items: dict[str, float]
    #: rps lost because a region or pool is down and nothing failed over (reported as errors)
    lost_rps: float
    #: rps shed on purpose before any station (rate limits, admission control)
    shed_rps: dict[str, float]
    down: set[str]
    notes: list[str] = field(default_factory=list)
    path_nodes: list[tuple[tuple[str, ...], float]] = field(default_factory=list)
    #: set when no rps was asked for and the requirements' mean was not there to use (see ``default_load``)
    load_note: str = ""


def rtt_between(a: str | None, b: str | None) -> float:
    """Round-trip network time in seconds between two locations (0 within one, more across continents)."""
    if not a or not b or a == b:
        return 0.0
    ca, cb = a.split("-")[0], b.split("-")[0]
    if ca == cb:
        return SAME_CONTINENT_RTT_S
    return CROSS_RTT_S.get(frozenset({ca, cb}), 0.2)


def compile_design(design: Design, rps: float | None = None, faults: Sequence[Fault] = (),
                   replicas: Mapping[str, int] | None = None, undetected_regions: Sequence[str] = (),
                   structure: DesignStructure | None = None) -> Compiled:
    """Compile ``design`` at ``rps`` offered requests per second (default: ``default_load``, the
    requirements' mean; a design without it says so in ``load_note`` and in its notes).

    ``undetected_regions`` are regions that are down (as if in a region outage) but whose failure
    the load balancers have not detected yet: routers keep sending them their usual share, which is
    lost. The timeline uses it for the health-check detection window of a region outage.

    ``structure`` (from :class:`DesignStructure`) saves redoing the rate-independent work when the
    same design revision is compiled several times; it is rebuilt if it no longer matches.
    """
    load_note = ""
    if rps is None:
        rps, load_note = default_load(design.requirements)
    rps = max(0.0, float(rps))
    c = Routing(design, rps, faults, replicas, undetected_regions, structure)
    if load_note:
        c.notes.append(load_note)
    s = c.s
    weights = {sid: float(s.params[sid]["share"]) for sid in s.sources}
    for fault in faults:
        if fault.kind == "traffic_surge":
            for sid in weights:
                if fault.hits(sid) or fault.target == "*":
                    weights[sid] *= fault.amount
    base_total = sum(float(s.params[sid]["share"]) for sid in s.sources) or 1.0
    source_rates = {sid: rps * w / base_total for sid, w in weights.items()}
    offered = sum(source_rates.values())
    order = s.order
    for node_id in s.pools:
        c.plan(node_id)
    # Pass 1: rates with capacity-independent routing, to size generation pools and overflow.
    rates = propagate_rates(c, order, source_rates)
    degraded = degraded_pools(c, rates)
    for node_id in list(c.plans):
        c.plan(node_id, rates.get(node_id, 0.0), degraded.get(node_id))
    c.forget_capacities()
    rates = propagate_rates(c, order, source_rates)
    generation = [n for n in c.plans if s.kind[n] == "generation_pool"]
    for node_id in generation:
        c.plan(node_id, rates.get(node_id, 0.0), degraded.get(node_id))
    c.forget_capacities()
    if generation:  # their capacity follows their rate: split again with it
        rates = propagate_rates(c, order, source_rates)
    compiled = _build(c, source_rates, offered, order, rates)
    compiled.load_note = load_note
    return compiled


def _station_for_pool(c: Routing, node_id: str) -> Station:
    plan = c.plans[node_id]
    batcher = c.feeder(node_id, "dynamic_batcher")
    queue = c.feeder(node_id, "request_queue")
    holder = batcher or queue
    capacity = timeout = None
    if holder:
        hp = c.s.params[holder]
        capacity = int(hp.get("queue_capacity", hp.get("capacity", 0))) or None
        timeout = float(hp["timeout_ms"]) / 1000
    if batcher and c.kind(node_id) in c.s.batched_kinds:
        bp = c.s.params[batcher]
        return Station(node_id, servers=plan.servers if plan.live else 0, service_mean_s=plan.service_mean_s,
                       service_cv=plan.service_cv, batch_max=int(bp["max_batch_size"]),
                       batch_base_s=plan.batch_base_s, batch_item_s=plan.batch_item_s,
                       batch_timeout_s=float(bp["max_queue_delay_ms"]) / 1000, queue_capacity=capacity,
                       timeout_s=timeout, error_rate=plan.error_rate, node_id=node_id)
    return Station(node_id, servers=plan.servers if plan.live else 0, service_mean_s=plan.service_mean_s,
                   service_cv=plan.service_cv, queue_capacity=capacity, timeout_s=timeout,
                   error_rate=plan.error_rate, node_id=node_id)


def _build(c: Routing, source_rates: dict[str, float], offered: float, order: list[str],
           totals: dict[str, float]) -> Compiled:
    """The request paths (one per route a request can take, with its share), the stations on them,
    shed and lost traffic and costs. Each router splits with its total rate ``totals`` (from
    :func:`propagate_rates`), not the rate of the one path being followed."""
    d, s = c.d, c.s
    stations: dict[str, Station] = {}
    station_of: dict[str, str] = {}
    for node_id in order:
        kind = s.kind[node_id]
        if kind in s.serving_kinds:
            stations[node_id] = _station_for_pool(c, node_id)
            station_of[node_id] = node_id
            for feeder in s.feeder_kinds:
                holder = c.feeder(node_id, feeder)
                if holder:
                    station_of.setdefault(holder, node_id)
        elif node_id in s.delay_stations:
            stations[node_id] = s.delay_stations[node_id]
            station_of[node_id] = node_id
    paths: list[Path] = []
    path_nodes: list[tuple[tuple[str, ...], float]] = []
    shed_rps: dict[str, float] = {}
    lost = 0.0
    rates = dict.fromkeys(s.kind, 0.0)
    total = offered or 1.0
    location = s.location
    stack = [((sid,), (), rate / total, location[sid], location[sid]) for sid, rate in source_rates.items()]
    while stack:
        nodes, seq, prob, origin, here = stack.pop()
        node_id = nodes[-1]
        rates[node_id] += prob * offered
        out, end, shed, lost_here = c.shares(node_id, origin, totals.get(node_id, 0.0))
        if node_id in stations:
            seq = seq + (node_id,)
        if shed:
            shed_rps[node_id] = shed_rps.get(node_id, 0.0) + shed * prob * offered
        lost += lost_here * prob * offered
        finished = end + (1.0 if not out and not (shed or lost_here or end) else 0.0)
        if finished and seq:
            paths.append(Path(seq, prob * finished, " -> ".join(nodes)))
            path_nodes.append((nodes, prob * finished))
        elif finished:
            lost += finished * prob * offered
        for child, frac in out.items():
            child_seq = seq
            there = location[child] or here
            rtt = rtt_between(here, there)
            if rtt > 0:
                # One delay station per wire crossing locations (unique per hop, so paths never
                # share it in different orders).
                net_id = f"net:{node_id}->{child}"
                stations.setdefault(net_id, Station(net_id, fixed_delay_s=rtt, delay_only=True))
                child_seq = seq + (net_id,)
            if len(stack) + len(paths) > MAX_PATHS:
                c.notes.append(f"more than {MAX_PATHS} request paths: the rest are merged into their first branch")
                break
            stack.append((nodes + (child,), child_seq, prob * frac, origin, there))
    cv_weights = [(float(s.params[sid]["arrival_cv"]), r) for sid, r in source_rates.items()]
    arrival_cv = sum(cv * r for cv, r in cv_weights) / total if cv_weights and offered > 0 else 1.0
    paths = [p for p in paths if p.share > 0]
    share_sum = sum(p.share for p in paths)
    if share_sum > 1:
        paths = [Path(p.stations, p.share / share_sum, p.label) for p in paths]
    network = Network(stations, tuple(paths), offered, arrival_cv)
    cost_items = {}
    down_regions = c.down_regions
    for node_id, node in d.nodes.items():
        down = node.region in down_regions or node_id in down_regions
        cost_items[node_id] = cost_of_node(node, d.catalog, c.plans.get(node_id), rates.get(node_id, 0.0), down)
    down_nodes = {n for n in s.kind if c.is_down(n)}
    if not s.sources:
        c.notes.append("no traffic source: nothing is offered")
    return Compiled(network, offered, rates, c.plans, station_of, sum(cost_items.values()), cost_items, lost,
                    shed_rps, down_nodes, c.notes, path_nodes)
