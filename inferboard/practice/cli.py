"""Practice subcommands: ``scenarios`` (list) and ``pack export`` / ``pack import`` (share scenario
packs as zip files). ``cmd_grade`` prints one design file's grade; the ``grade`` command itself is
registered by ``inferboard.workshop.cli``, which grades whole rooms too."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from inferboard.cli_args import EXIT_BAD_INPUT
from inferboard.printable import shown

if TYPE_CHECKING:  # the command imports its heavy parts only when it runs
    from inferboard.practice.library import ScenarioLibrary


def load_library(args: argparse.Namespace) -> ScenarioLibrary:
    """The shipped scenarios and the user's packs (under ``--data-dir`` when given)."""
    # loaded only when the command runs, so --help stays light
    from inferboard.practice.library import ScenarioLibrary, user_packs_dir

    user_data = Path(args.data_dir) if getattr(args, "data_dir", None) else None
    return ScenarioLibrary(user_packs=user_packs_dir(user_data)).load()


def warn_problems(library: ScenarioLibrary) -> None:
    """Print the library's loading problems to stderr."""
    for problem in library.problems:
        print(f"warning: {shown(problem, keep_newlines=True)}", file=sys.stderr)


def cmd_scenarios(args: argparse.Namespace) -> int:
    """``inferboard scenarios``: list the scenarios by pack (``--json`` for machines)."""
    library = load_library(args)
    warn_problems(library)
    entries = sorted(library.entries.values(), key=lambda e: (e.pack_id != "core", e.id))
    if args.json:
        print(json.dumps([{"id": e.id, "title": e.scenario.title, "difficulty": e.scenario.difficulty,
                           "pack": e.pack_id, "summary": e.scenario.summary, "minutes": e.scenario.total_minutes,
                           "rubrics": e.scenario.rubric_weights(), "tags": e.scenario.tags,
                           "follow_ups": [f.id for f in e.scenario.follow_ups]} for e in entries], indent=2))
        return 0
    width = max((len(e.id) for e in entries), default=10)
    for entry in entries:
        s = entry.scenario
        print(shown(f"{entry.id:<{width}}  {s.difficulty:<6}  {s.total_minutes:>3g} min  {s.title}"))
    return 0


def cmd_grade(args: argparse.Namespace) -> int:
    """One design file (``args.file``) against ``args.scenario``."""
    # loaded only when the command runs, so --help stays light
    from inferboard.practice.grading import grade_design
    from inferboard.store import read_design

    library = load_library(args)
    try:
        entry = library.get(args.scenario)
    except KeyError as error:
        warn_problems(library)
        print(shown(error.args[0]), file=sys.stderr)
        return EXIT_BAD_INPUT
    design, _ = read_design(args.file)
    grade = grade_design(entry.scenario, design, entry.reference_design(), behaviour=not args.no_sim)
    if args.json:
        print(json.dumps({"scenario": entry.id, "file": str(args.file), **grade.to_dict()}, indent=2))
        return 0
    print(shown(f"{args.file} against '{entry.id}': {grade.overall:.1f} ({grade.grade}); "
                f"the design alone {grade.design_overall:.1f}"))
    for line in grade.rubrics:
        percent = "n/a" if line.percent is None else f"{line.percent:5.1f}%"
        print(shown(f"  {line.title:<32} {percent}  (weight {line.weight:g})"))
    if grade.lost:
        print("Lost points:")
        for lost in grade.lost:
            print(shown(f"  -{lost.points:g} {lost.source}: {lost.message}"))
    if grade.diff.missing:
        print(shown("Missing compared with the reference: "
                    + ", ".join(f"{kind} x{count}" for kind, count in grade.diff.missing.items())))
    for rule_id, reason in grade.skipped:
        print(shown(f"  (skipped {rule_id}: {reason})"), file=sys.stderr)
    return 0


def cmd_pack_export(args: argparse.Namespace) -> int:
    """``inferboard pack export ID -o ZIP``: write a pack or one scenario as a zip."""
    # loaded only when the command runs, so --help stays light
    from inferboard.practice.packzip import PackError

    library = load_library(args)
    try:
        path = library.export(args.id, Path(args.output))
    except PackError as error:
        print(shown(error, keep_newlines=True), file=sys.stderr)
        return EXIT_BAD_INPUT
    print(shown(f"{path}: exported '{args.id}'"))
    return 0


def cmd_pack_import(args: argparse.Namespace) -> int:
    """``inferboard pack import ZIP``: add a pack to the user's library; 2 with one line when refused."""
    # loaded only when the command runs, so --help stays light
    from inferboard.practice.packzip import PackError

    library = load_library(args)
    try:
        pack = library.import_pack(Path(args.file), replace=args.replace)
    except PackError as error:
        print(shown(error, keep_newlines=True), file=sys.stderr)
        return EXIT_BAD_INPUT
    print(shown(f"{args.file}: imported pack '{pack.info.id}' ({len(pack.scenario_ids)} scenarios) into {pack.folder}"))
    return 0


def cmd_check_in_scenario(args: argparse.Namespace) -> int:
    """``inferboard check FILE --scenario ID``: the rule report of the design as that scenario scores it
    (the same figures as the findings dock during that scenario and ``inferboard grade``)."""
    # loaded only when the command runs, so --help stays light
    from inferboard.rules.cli import EXIT_BLOCKER, EXIT_OK, EXIT_UNREADABLE, cmd_check, format_report

    if not args.scenario:
        return cmd_check(args)
    from inferboard.practice.grading import score_design
    from inferboard.store import read_design

    if args.rubric:
        print("--rubric cannot be combined with --scenario: the scenario chooses the rubrics", file=sys.stderr)
        return EXIT_UNREADABLE
    library = load_library(args)
    try:
        entry = library.get(args.scenario)
    except KeyError as error:
        print(shown(error.args[0]), file=sys.stderr)
        return EXIT_UNREADABLE
    design, _ = read_design(args.file)
    report = score_design(design, entry.scenario, behaviour=not args.no_behaviour)
    if args.json:
        print(json.dumps({"file": args.file, "scenario": entry.id, **report.to_dict()}, indent=2))
    else:
        print(format_report(report, f"{shown(args.file)} in '{entry.id}'"))
    return EXIT_BLOCKER if report.blockers else EXIT_OK


def register(subparsers) -> None:
    """Add the practice subcommands (scenarios, grade, pack) and teach ``check`` to score as a scenario does."""
    check = subparsers.choices.get("check")
    if check is not None:  # the rules' check command, taught to score in a scenario's terms
        check.add_argument("--scenario", metavar="ID", help="score as practice scenario ID does (its rubrics, "
                           "weights and real requirements)")
        check.add_argument("--data-dir", help=argparse.SUPPRESS)
        check.set_defaults(func=cmd_check_in_scenario)

    p = subparsers.add_parser("scenarios", help="list the practice scenarios")
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.add_argument("--data-dir", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_scenarios)

    pack = subparsers.add_parser("pack", help="import or export scenario packs (zip files)")
    pack_sub = pack.add_subparsers(dest="pack_command", metavar="ACTION", required=True)
    p = pack_sub.add_parser("export", help="write a pack, or one scenario as a pack, to a zip file")
    p.add_argument("id", metavar="ID", help="a pack id or a scenario id")
    p.add_argument("-o", "--output", required=True, metavar="FILE.zip")
    p.add_argument("--data-dir", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_pack_export)
    p = pack_sub.add_parser("import", help="check and install a pack zip")
    p.add_argument("file", metavar="FILE.zip")
    p.add_argument("--replace", action="store_true", help="replace an imported pack with the same id")
    p.add_argument("--data-dir", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_pack_import)
