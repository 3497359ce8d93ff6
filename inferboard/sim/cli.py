"""``inferboard simulate``: the simulator on the command line.

Its imports of the simulator, the model and the store sit inside the functions that use them:
``inferboard --help`` must not load them (tests/core/test_startup.py)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from inferboard.cli_args import EXIT_BAD_INPUT, number
from inferboard.printable import shown

#: the requirements' own limit on a rate, and the timeline's longest run the command line offers
MAX_RPS = 10_000_000
MAX_HOURS = 7 * 24
MAX_TIMELINE_TICKS = 100_000
TIMELINE_ONLY = ("pattern", "hours", "tick")


def register(subparsers) -> None:
    """Add the ``simulate`` command and its options to the command line."""
    p = subparsers.add_parser("simulate", help="simulate a design: latency, throughput, utilisation, cost")
    p.add_argument("file", metavar="FILE")
    load = p.add_mutually_exclusive_group()
    load.add_argument("--rps", type=number(0, MAX_RPS, above=True),
                      help="offered requests per second (default: the requirements' mean)")
    load.add_argument("--peak", action="store_true", help="simulate at the requirements' peak_rps")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--explain", action="store_true", help="show how every number was computed")
    p.add_argument("--fault", action="append", default=[], metavar="KIND:TARGET@START+DURATION",
                   help="inject a fault (repeatable), e.g. region_outage:us-east@2h+30m or "
                        "input_drift:segment=mobile,magnitude=0.3@2h+6h (also concept_drift, bad_model)")
    p.add_argument("--timeline", action="store_true",
                   help="simulate over time with autoscaling and faults (the design's planned faults, then --fault)")
    p.add_argument("--hours", type=number(0, MAX_HOURS, above=True),
                   help="timeline length in hours (default 24, at most a week)")
    p.add_argument("--tick", type=number(1, 3600), metavar="SECONDS", help="timeline step (default 60 s)")
    p.add_argument("--pattern", help="traffic pattern for the timeline (default: the requirements')")
    p.add_argument("--load-test", type=number(1, 50_000_000, whole=True), metavar="N",
                   help="run a request-level simulation of N requests")
    p.add_argument("--seed", type=number(0, 2 ** 63 - 1, whole=True), default=0,
                   help="random seed of the load test and bursty traffic")
    p.add_argument("--precision", type=number(0, 100, above=True), default=5.0, metavar="PERCENT",
                   help="load test: warn when a 95%% interval is wider than +/- PERCENT of its value (default 5)")
    p.set_defaults(func=cmd_simulate)


def _num(value, digits=1) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def flag_problem(args: argparse.Namespace) -> str:
    """'' when the timeline flags fit together, else the one line saying what is wrong."""
    from inferboard.sim.timeline.traffic import PATTERNS

    given = [f"--{name}" for name in TIMELINE_ONLY if getattr(args, name) is not None]
    if given and not args.timeline:
        return f"{', '.join(given)}: only used with --timeline"
    patterns = [p for p in PATTERNS if p != "replay"]  # a replay needs a trace file
    if args.pattern is not None and args.pattern not in patterns:
        return f"--pattern: unknown pattern '{shown(args.pattern)}'; choose one of: {', '.join(patterns)}"
    args.hours = 24.0 if args.hours is None else args.hours
    args.tick = 60.0 if args.tick is None else args.tick
    ticks = math.ceil(args.hours * 3600 / args.tick)
    if ticks > MAX_TIMELINE_TICKS:
        return (f"--hours {args.hours:g} at --tick {args.tick:g} is {ticks:,} ticks, more than {MAX_TIMELINE_TICKS:,}; "
                "use a longer tick")
    return ""


def checked_fault(design, text: str):
    """The simulator fault for ``--fault`` text, checked against ``design`` (kind, times, magnitude,
    target by node id, label or region location); raise ValueError with one line otherwise."""
    from inferboard.model.faults import FAULT_KINDS, PlannedFault
    from inferboard.sim.design.faults import TimedFault, parse_fault

    fault = parse_fault(text)
    quoted = f"--fault '{shown(text[:80])}'"
    planned = PlannedFault(fault.kind, fault.target, fault.start_s, fault.duration_s, fault.magnitude)
    problem = planned.problem()
    if not problem and fault.magnitude is not None:
        high = 1.0 if "error rate" in FAULT_KINDS[fault.kind].magnitude else 1_000_000.0
        problem = "" if fault.magnitude <= high else f"magnitude: {fault.magnitude:g} is above {high:g}"
    if problem:
        field, _, reason = problem.partition(": ")
        raise ValueError(f"{quoted}: {field}: {reason}")
    target = _fault_target(design, fault.kind, fault.target)
    if target is None:
        raise ValueError(f"{quoted}: target: {_target_choices(design, fault.kind)}")
    return TimedFault(fault.kind, target, fault.magnitude, fault.start_s, fault.duration_s)


def _fault_target(design, kind: str, target: str) -> str | None:
    from inferboard.model.faults import fault_targets

    for node_id, _ in fault_targets(design, kind):
        node = design.nodes.get(node_id)
        names = {node_id} if node is None else {node_id, node.label, str(node.params.get("location", ""))}
        if target in names - {""}:
            return node_id
    return None


def _target_choices(design, kind: str) -> str:
    from inferboard.model.faults import FAULT_KINDS, fault_targets

    choices = [node_id for node_id, _ in fault_targets(design, kind)]
    if not choices:
        return f"this design has no node a {kind} can hit ({FAULT_KINDS[kind].target})"
    more = f" and {len(choices) - 8} more" if len(choices) > 8 else ""
    return f"{kind} needs {FAULT_KINDS[kind].target}: one of {', '.join(shown(c) for c in choices[:8])}{more}"


def finite_json(value: Any) -> Any:
    """``value`` with every NaN or infinite float replaced by None, so the JSON printed is standard."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(item) for item in value]
    return value


def cmd_simulate(args: argparse.Namespace) -> int:
    """Run ``inferboard simulate``: the steady state, a timeline or a load test of a design file; returns
    the exit status."""
    from inferboard.sim.steady.design_sim import evaluate
    from inferboard.sim.design.faults import timed_faults
    from inferboard.sim.explain.trust import steady_trust, timeline_trust
    from inferboard.store import read_design

    problem = flag_problem(args)
    if problem:
        print(shown(f"inferboard simulate: {problem}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    design, _ = read_design(args.file)
    try:
        faults = [checked_fault(design, text) for text in args.fault]
    except ValueError as error:
        print(f"inferboard simulate: {shown(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    req = design.requirements
    rps = args.rps if args.rps is not None else (req.peak_rps if args.peak else None)
    if args.load_test is not None:
        return _load_test(design, args, rps, faults)
    from inferboard.model.faults import is_quality_fault  # here, not above: --help must not load the model

    system = [f for f in faults if not is_quality_fault(f.kind)]
    result = evaluate(design, rps, [f for f in system if f.start_s <= 0] if args.timeline else system)
    out = result.to_dict()
    out["trust"] = {key: trust.to_dict() for key, trust in steady_trust(result).items()}
    timeline = None
    if args.timeline:
        from inferboard.sim.timeline.timeline import run_timeline

        timeline = run_timeline(design, hours=args.hours, tick_s=args.tick, pattern=args.pattern,
                                faults=[*timed_faults(design.faults), *faults], seed=args.seed)
        out["timeline"] = timeline.to_dict()
        out["timeline"]["trust"] = {key: trust.to_dict() for key, trust in timeline_trust().items()}
    if args.explain:
        out["explanations"] = result.explanations()
        out["in_words"] = _in_words(result, design)
    if args.json:
        print(json.dumps(finite_json(out), indent=2, allow_nan=False))
        return 0
    print(shown(result.table(), keep_newlines=True))
    if args.explain:
        print("\nIn words:")
        for key, text in _in_words(result, design).items():
            print(f"  {shown(text.replace('**', ''))}")
        print("\nHow each number was computed:")
        for key, text in result.explanations().items():
            print(f"  {key}: {shown(text)}")
    if timeline is not None:
        series = timeline.series
        print(f"\nTimeline: {args.hours:g} h at {args.tick:g} s ticks; worst p99 {_num(max(series['p99_ms']))} ms, "
              f"peak cost {_num(max(series['cost_per_hour']), 2)} $/h")
        if "accuracy_pct" in series:
            print(shown(quality_table(design, timeline), keep_newlines=True))
        for event in timeline.events[:60]:
            print(f"  {event.time_s / 3600:6.2f} h  {event.kind:<18} {shown(event.message)}")
        if len(timeline.events) > 60:
            print(f"  ... {len(timeline.events) - 60} more events (use --json for all)")
    return 0


QUALITY_ROWS = 12  #: rows of the timeline's quality table


def quality_table(design, timeline) -> str:
    """The quality series of a timeline as a table (about :data:`QUALITY_ROWS` rows, evenly spaced):
    accuracy overall and per segment, as labels show it, each detector's statistic and the business
    metric; then a line per detector saying when it alerted, or that it did not."""
    series, times = timeline.series, timeline.times_s
    segments = sorted(name for name in series if name.startswith("accuracy_pct:"))
    detectors = sorted(name for name in series if name.startswith("drift_stat:"))
    business = next((name for name in series if name.endswith("_pct") and not name.startswith("accuracy")), None)
    columns = [("accuracy_pct", "acc %"), *((n, n.split(":", 1)[1]) for n in segments),
               ("accuracy_labelled_pct", "labelled"), *((n, n.split(":", 1)[1]) for n in detectors)]
    columns += [(business, business.removesuffix("_pct") + " %")] if business else []
    target = design.requirements.accuracy_target_pct
    lines = [f"\nModel quality (accuracy target {'none' if target is None else f'{target:g}%'}; "
             "detector statistics against their thresholds):",
             "  time     " + " ".join(f"{shown(title)[:10]:>10}" for _, title in columns)]
    step = max(1, len(times) // QUALITY_ROWS)
    for i in [*range(0, len(times), step)][:QUALITY_ROWS + 1]:
        digits = {name: 3 if name.startswith("drift_stat:") else 2 for name, _ in columns}
        lines.append(f"  {times[i] / 3600:5.1f} h " + " ".join(f"{series[name][i]:>10.{digits[name]}f}"
                                                           for name, _ in columns))
    lines.append(f"  lowest accuracy {_num(min(series['accuracy_pct']), 2)}%")
    for name in detectors:
        node = design.nodes[name.split(":", 1)[1]]
        alert = next((e for e in timeline.events if e.node_id == node.id and e.kind.startswith("drift_")), None)
        said = (f"alerted at {alert.time_s / 3600:.2f} h ({alert.message})" if alert else
                f"no alert: its statistic peaked at {max(series[name]):.3f}")
        lines.append(f"  {node.id} ({node.params.get('test', 'psi')} over {node.params.get('window_hours', 24):g} h, "
                     f"threshold {node.params.get('threshold', 0.2):g}): {said}")
    return "\n".join(lines)


def _in_words(result, design) -> dict[str, str]:
    """The headline figures in plain words (node labels, units people use)."""
    from inferboard.sim.explain.plain_words import steady_words

    keys = ("p50_ms", "p95_ms", "p99_ms", "throughput_rps", "shed_rate", "error_rate", "cost_per_hour", "cost_per_1k")
    return {key: steady_words(result, design, key) for key in keys}


def _load_test(design, args, rps, faults) -> int:
    from inferboard.sim.loadtest.design_loadtest import run_design_load_test

    if not 0 < args.precision < 100:
        print("inferboard simulate: --precision must be a percentage between 0 and 100", file=sys.stderr)
        return EXIT_BAD_INPUT
    summary = run_design_load_test(design, args.load_test, seed=args.seed, rps=rps, faults=faults,
                                   target_precision=args.precision / 100.0)
    if args.json:
        print(json.dumps(finite_json(summary.to_dict()), indent=2, allow_nan=False))
    else:
        print(shown(summary.table(), keep_newlines=True))
    return 0
