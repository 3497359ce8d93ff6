"""Workshop subcommands: ``grade`` (one design file, or a room's files, folders and zips) and
``scenario check`` (validate a hand-written scenario and score its reference design)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from inferboard.cli_args import EXIT_BAD_INPUT, number
from inferboard.practice import cli as practice_cli
from inferboard.printable import shown

if TYPE_CHECKING:  # the command imports its heavy parts only when it runs
    from inferboard.workshop.grading import GradingRun, SubmissionResult

EXIT_OK, EXIT_SOME_ERRORS = 0, 1


class ProgressBar:
    """A one-line progress bar on a terminal (nothing when ``stream`` is not one)."""

    def __init__(self, stream: TextIO, width: int = 30):
        self.stream = stream
        self.width = width
        self.enabled = bool(getattr(stream, "isatty", lambda: False)())
        self.shown = False

    def __call__(self, done: int, total: int, row: SubmissionResult) -> None:
        if not self.enabled or total <= 0:
            return
        filled = int(self.width * done / total)
        name = shown(row.name if len(row.name) <= 40 else "…" + row.name[-39:])
        self.stream.write(f"\r[{'#' * filled}{'-' * (self.width - filled)}] {done}/{total} {name:<40}")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """Wipe the progress line, if one was drawn."""
        if self.shown:
            self.stream.write("\r" + " " * (self.width + 56) + "\r")
            self.stream.flush()


def _single_file(args: argparse.Namespace) -> bool:
    """One plain design file and no report: the original one-file output."""
    # loaded only when the command runs, so --help stays light
    from inferboard.workshop.submissions import ZIP_SUFFIX

    if len(args.submissions) != 1 or args.csv or args.html:
        return False
    path = Path(args.submissions[0])
    return path.is_file() and not path.is_symlink() and path.suffix.lower() != ZIP_SUFFIX


def cmd_grade(args: argparse.Namespace) -> int:
    """``inferboard grade``: grade design files, folders or zips against a scenario; 1 when one could not be graded."""
    # loaded only when the command runs, so --help stays light
    from inferboard.workshop.grading import grade_submissions
    from inferboard.workshop.submissions import collect

    if _single_file(args):
        args.file = args.submissions[0]
        return practice_cli.cmd_grade(args)
    library = practice_cli.load_library(args)
    try:
        entry = library.get(args.scenario)
    except KeyError as error:
        practice_cli.warn_problems(library)
        print(shown(error.args[0]), file=sys.stderr)
        return EXIT_BAD_INPUT
    found = collect(args.submissions)
    if not found.submissions:
        print("no design files (.json) or zips found in " + ", ".join(shown(s) for s in args.submissions),
              file=sys.stderr)
        return EXIT_BAD_INPUT
    bar = ProgressBar(sys.stderr)
    try:
        run = grade_submissions(entry.scenario, entry.reference_bytes, found.submissions, jobs=args.jobs,
                                progress=bar, behaviour=not args.no_sim, skipped=found.skipped)
    finally:
        bar.close()
    # loaded only when the command runs, so --help stays light
    from inferboard.workshop import reports

    if args.csv:
        reports.write_csv(run, args.csv)
    if args.html:
        reports.write_html(run, args.html)
    if args.json:
        print(json.dumps({"scenario": entry.id, **run.to_dict()}, indent=2))
    else:
        print_run(run)
    for path, what in ((args.csv, "CSV"), (args.html, "HTML report")):
        if path:
            print(shown(f"{path}: {what} written"), file=sys.stderr)
    return EXIT_SOME_ERRORS if run.errors else EXIT_OK


def print_run(run: GradingRun, out: TextIO | None = None) -> None:
    """Print a grading run as a table, its common findings and its errors."""
    out = out or sys.stdout
    # loaded only when the command runs, so --help stays light
    from inferboard.workshop.reports import common_findings

    width = min(48, max((len(r.name) for r in run.results), default=10))
    short = [name[:10] for name, _, _ in run.rubrics]
    print(shown(f"{len(run.results)} submissions against '{run.scenario_id}': {len(run.graded)} graded, "
                f"{len(run.errors)} not graded ({run.duration_s:.1f} s, {run.jobs} process(es))"), file=out)
    print(f"{'submission':<{width}} {'overall':>7} gr  " + " ".join(f"{s:>10}" for s in short)
          + f" {'p99/SLO ms':>13} {'$/1k':>8} {'region':>6} {'follow':>6}", file=out)
    for row in run.results:
        name = shown(row.name if len(row.name) <= width else "…" + row.name[-(width - 1):])
        if not row.ok:
            print(f"{name:<{width}} ERROR: {shown(row.error)}", file=out)
            continue
        f = row.figures
        scores = " ".join(f"{'n/a' if row.rubrics.get(n) is None else format(row.rubrics[n], '.0f'):>10}"
                          for n, _, _ in run.rubrics)
        p99 = "n/a" if f.get("p99_ms") is None else f"{f['p99_ms']:.0f}"
        slo = "-" if f.get("slo_p99_ms") is None else f"{f['slo_p99_ms']:g}"
        cost = "n/a" if f.get("cost_per_1k") is None else f"{f['cost_per_1k']:.4f}"
        region = "n/a" if f.get("region_loss_served_pct") is None else f"{f['region_loss_served_pct']:.0f}%"
        follow = f"{row.follow_ups_held}/{len(row.follow_ups)}" if row.follow_ups else "-"
        print(f"{name:<{width}} {row.overall:7.1f} {row.grade:<2}  {scores} {p99 + '/' + slo:>13} {cost:>8} "
              f"{region:>6} {follow:>6}", file=out)
    ranked = common_findings(run.results, limit=5)
    if ranked:
        print("Most common findings:", file=out)
        for rule, title, count, _ in ranked:
            print(shown(f"  {count:>3} of {len(run.graded)}  {rule}: {title}"), file=out)
    # loaded only when the command runs, so --help stays light
    from inferboard.workshop.reports import identical_groups

    for names in identical_groups(run.results):
        print(shown(f"Identical files: {', '.join(names)}"), file=out)
    if run.skipped:
        print(f"({len(run.skipped)} other files in the folders were not design files and were skipped)", file=out)


# ------------------------------------------------------------------------------ scenario check
def cmd_scenario_check(args: argparse.Namespace) -> int:
    """``inferboard scenario check``: validate a scenario file and grade its reference design."""
    # loaded only when the command runs, so --help stays light
    from inferboard.workshop.scenario_check import check_scenario_file

    report = check_scenario_file(Path(args.file), behaviour=not args.no_sim)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        for problem in report.problems:
            print(shown(problem), file=sys.stderr)
        for warning in report.warnings:
            print(f"warning: {shown(warning)}", file=sys.stderr)
        if report.grade is not None:
            print(shown(report.summary(), keep_newlines=True))
    return 0 if report.ok else EXIT_BAD_INPUT


def register(subparsers) -> None:
    """Add the workshop subcommands (grade, scenario check) to the ``inferboard`` parser."""
    p = subparsers.add_parser("grade", help="score design files, folders or zips of them against a practice "
                              "scenario", description="Grade one design file (the original output) or a room's "
                              "submissions: files, folders and zips. Exit 1 when a submission could not be graded.")
    p.add_argument("submissions", nargs="+", metavar="SUBMISSION", help="a design file, a folder or a zip")
    p.add_argument("--scenario", required=True, metavar="ID")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--csv", metavar="FILE", help="write one row per submission to FILE")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report with each design's picture")
    p.add_argument("--jobs", type=number(1, 256, whole=True), default=None, metavar="N",
                   help="worker processes (default: every core)")
    p.add_argument("--no-sim", action="store_true", help="skip the rules and figures that need the simulator")
    p.add_argument("--data-dir", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_grade)

    scenario = subparsers.add_parser("scenario", help="work with hand-written scenario files")
    sub = scenario.add_subparsers(dest="scenario_command", metavar="ACTION", required=True)
    p = sub.add_parser("check", help="validate a scenario YAML and report what its reference design scores")
    p.add_argument("file", metavar="FILE", help="a scenario.yaml, or the folder holding one")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-sim", action="store_true", help="skip the rules and follow-ups that need the simulator")
    p.set_defaults(func=cmd_scenario_check)
