"""``inferboard simulate``: the simulator on the command line."""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser("simulate", help="simulate a design: latency, throughput, utilisation, cost")
    p.add_argument("file", metavar="FILE")
    load = p.add_mutually_exclusive_group()
    load.add_argument("--rps", type=float, help="offered requests per second (default: the requirements' mean)")
    load.add_argument("--peak", action="store_true", help="simulate at the requirements' peak_rps")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--explain", action="store_true", help="show how every number was computed")
    p.add_argument("--fault", action="append", default=[], metavar="KIND:TARGET@START+DURATION",
                   help="inject a fault (repeatable), e.g. region_outage:us-east@2h+30m")
    p.add_argument("--timeline", action="store_true",
                   help="simulate over time with autoscaling and faults (the design's planned faults, then --fault)")
    p.add_argument("--hours", type=float, default=24.0, help="timeline length in hours (default 24)")
    p.add_argument("--tick", type=float, default=60.0, metavar="SECONDS", help="timeline step (default 60 s)")
    p.add_argument("--pattern", help="traffic pattern for the timeline (default: the requirements')")
    p.add_argument("--load-test", type=int, metavar="N", help="run a request-level simulation of N requests")
    p.add_argument("--seed", type=int, default=0, help="random seed of the load test and bursty traffic")
    p.add_argument("--precision", type=float, default=5.0, metavar="PERCENT",
                   help="load test: warn when a 95%% interval is wider than +/- PERCENT of its value (default 5)")
    p.set_defaults(func=cmd_simulate)


def _num(value, digits=1) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def cmd_simulate(args: argparse.Namespace) -> int:
    from inferboard.sim.design_sim import evaluate
    from inferboard.sim.faults import parse_fault, timed_faults
    from inferboard.store import read_design

    design, _ = read_design(args.file)
    try:
        faults = [parse_fault(text) for text in args.fault]
    except ValueError as error:
        print(str(error), file=sys.stderr)
        return 2
    req = design.requirements
    rps = args.rps if args.rps is not None else (req.peak_rps if args.peak else None)
    if args.hours <= 0 or args.tick <= 0:
        print("--hours and --tick must be positive", file=sys.stderr)
        return 2
    if args.load_test is not None:
        return _load_test(design, args, rps, faults)
    result = evaluate(design, rps, [f for f in faults if f.start_s <= 0] if args.timeline else faults)
    out = result.to_dict()
    timeline = None
    if args.timeline:
        from inferboard.sim.timeline import run_timeline

        timeline = run_timeline(design, hours=args.hours, tick_s=args.tick, pattern=args.pattern,
                                faults=[*timed_faults(design.faults), *faults], seed=args.seed)
        out["timeline"] = timeline.to_dict()
    if args.explain:
        out["explanations"] = result.explanations()
        out["in_words"] = _in_words(result, design)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(result.table())
    if args.explain:
        print("\nIn words:")
        for key, text in _in_words(result, design).items():
            print(f"  {text.replace('**', '')}")
        print("\nHow each number was computed:")
        for key, text in result.explanations().items():
            print(f"  {key}: {text}")
    if timeline is not None:
        series = timeline.series
        print(f"\nTimeline: {args.hours:g} h at {args.tick:g} s ticks; worst p99 {_num(max(series['p99_ms']))} ms, "
              f"peak cost {_num(max(series['cost_per_hour']), 2)} $/h")
        for event in timeline.events[:60]:
            print(f"  {event.time_s / 3600:6.2f} h  {event.kind:<18} {event.message}")
        if len(timeline.events) > 60:
            print(f"  ... {len(timeline.events) - 60} more events (use --json for all)")
    return 0


def _in_words(result, design) -> dict[str, str]:
    """The headline figures in plain words (node labels, units people use)."""
    from inferboard.sim.plain_words import steady_words

    keys = ("p50_ms", "p95_ms", "p99_ms", "throughput_rps", "shed_rate", "error_rate", "cost_per_hour", "cost_per_1k")
    return {key: steady_words(result, design, key) for key in keys}


def _load_test(design, args, rps, faults) -> int:
    from inferboard.sim.design_loadtest import run_design_load_test

    if args.load_test < 1 or args.load_test > 50_000_000:
        print("--load-test N must be between 1 and 50,000,000", file=sys.stderr)
        return 2
    if not 0 < args.precision < 100:
        print("--precision must be a percentage between 0 and 100", file=sys.stderr)
        return 2
    summary = run_design_load_test(design, args.load_test, seed=args.seed, rps=rps, faults=faults,
                                   target_precision=args.precision / 100.0)
    if args.json:
        print(json.dumps(summary.to_dict(), indent=2))
    else:
        print(summary.table())
    return 0
