"""Subcommands ``check``, ``explain`` and ``rules`` for the ``inferboard`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from inferboard.printable import shown

if TYPE_CHECKING:  # the command imports its heavy parts only when it runs
    from inferboard.rules.engine import CheckReport


EXIT_OK, EXIT_BLOCKER, EXIT_UNREADABLE = 0, 1, 2


def register(subparsers) -> None:
    """Add the rules subcommands (check, explain, rules) to the ``inferboard`` parser."""
    p = subparsers.add_parser("check", help="check a design against the rubrics; exit 1 if a blocker fires")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--json", action="store_true", help="print the full report as JSON")
    p.add_argument("--rubric", action="append", metavar="NAME", help="only this rubric (repeatable)")
    p.add_argument("--no-behaviour", action="store_true", help="structural rules only (no simulator runs)")
    p.set_defaults(func=cmd_check)

    p = subparsers.add_parser("explain", help="explain a rule: what it checks, why, the trade-off, the fix")
    p.add_argument("rule_id", metavar="RULE-ID")
    p.set_defaults(func=cmd_explain)

    p = subparsers.add_parser("rules", help="list every rule")
    p.add_argument("--json", action="store_true", help="print the rules as JSON")
    p.set_defaults(func=cmd_rules)


def cmd_check(args: argparse.Namespace) -> int:
    """``inferboard check FILE``: the findings and grade; 1 when a blocker fires, 2 for a bad file."""
    # loaded only when the command runs, so --help stays light
    from inferboard.rules.engine import check_design, default_rules
    from inferboard.rules.loader import RuleFileError
    from inferboard.store import DesignFileError, read_design

    try:
        design, _ = read_design(args.file)
    except DesignFileError as error:  # one line a problem, each already escaped
        print(shown(error, keep_newlines=True), file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        rules = default_rules()
    except RuleFileError as error:
        print(shown(error), file=sys.stderr)
        return EXIT_UNREADABLE
    if args.rubric:
        unknown = [name for name in args.rubric if name not in rules.rubrics]
        if unknown:
            print(shown(f"unknown rubric '{unknown[0]}'; choose from: {', '.join(rules.rubrics)}"), file=sys.stderr)
            return EXIT_UNREADABLE
    report = check_design(design, rules, rubrics=args.rubric, behaviour=not args.no_behaviour)
    if args.json:
        print(json.dumps({"file": args.file, **report.to_dict()}, indent=2))
    else:
        print(format_report(report, shown(args.file)))
    return EXIT_BLOCKER if report.blockers else EXIT_OK


def format_report(report: CheckReport, source: str) -> str:
    """A check report as text: the grade line, then one line per finding."""
    lines = [f"{source}: grade {report.grade} ({report.overall:.0f}/100), {len(report.findings)} finding(s)"]
    for finding in report.findings:
        where = f" [{', '.join(finding.node_ids)}]" if finding.node_ids else ""
        lines.append(f"  {finding.severity:<7} {finding.rule_id:<11} -{finding.points:g}  {finding.title}{where}")
        lines.append(f"          {finding.message}")
    lines.append("")
    lines.append("Scores:")
    for score in report.scores.values():
        earned = "n/a" if score.percent is None else f"{score.earned:g}/{score.applicable:g} ({score.percent:.0f}%)"
        lost = ", ".join(f"{rule_id} -{points:g}" for rule_id, points in score.lost)
        lines.append(f"  {score.title:<28} {earned}" + (f"  lost: {lost}" if lost else ""))
    for rule_id, reason in report.skipped:
        lines.append(f"  skipped {rule_id}: {reason}")
    if not report.behaviour:
        lines.append("  (structural rules only: behaviour rules were not run)")
    lines.append("Run `inferboard explain RULE-ID` for the reasoning behind a finding.")
    return "\n".join(shown(line) for line in lines)  # titles, messages and ids quote the design


def cmd_explain(args: argparse.Namespace) -> int:
    """``inferboard explain RULE``: what a rule checks, why, and how to fix it."""
    # loaded only when the command runs, so --help stays light
    from inferboard.rules.engine import explain_rule
    from inferboard.rules.loader import UnknownRule

    try:
        print(explain_rule(args.rule_id), end="")
    except UnknownRule as error:
        print(shown(error), file=sys.stderr)
        return EXIT_UNREADABLE
    return EXIT_OK


def cmd_rules(args: argparse.Namespace) -> int:
    """``inferboard rules``: every rule with its rubric and severity."""
    # loaded only when the command runs, so --help stays light
    from inferboard.rules.engine import default_rules

    rules = default_rules()
    if args.json:
        out = [{"id": r.id, "rubric": r.rubric, "severity": r.severity, "points": r.points, "title": r.title,
                "topics": r.topics, "behaviour": r.behaviour, "explanation": r.explanation.model_dump()}
               for r in rules]
        print(json.dumps(out, indent=2))
        return EXIT_OK
    for rubric in rules.rubrics.values():
        print(f"{rubric.title} ({rubric.id}):")
        for rule in rules.of_rubric(rubric.id):
            kind = " (behaviour)" if rule.behaviour else ""
            print(f"  {rule.id:<11} {rule.severity:<7} {rule.points:>3g}  {rule.title}{kind}")
    return EXIT_OK
