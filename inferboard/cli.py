"""The ``inferboard`` command line (Qt-free): validate, catalog, new, and the subcommands that the
simulator, rules and practice packages register (each module imports its heavy parts only when its
command runs, so ``inferboard --help`` loads neither the catalog nor the simulator)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Sequence

from inferboard import __version__
from inferboard.cli_args import EXIT_BAD_INPUT, OneLineParser
from inferboard.errors import InferboardError
from inferboard.paths import data_dir
from inferboard.printable import shown
from inferboard.safe_read import FileRefused
from inferboard.drills import cli as drills_cli
from inferboard.practice import cli as practice_cli
from inferboard.rules import cli as rules_cli
from inferboard.sim import cli as sim_cli
from inferboard.workshop import cli as workshop_cli


BLANK_TEMPLATE = "blank"


def templates() -> dict[str, Path]:
    """Template name -> example design file. ``blank`` is an empty design."""
    return {path.stem: path for path in sorted((data_dir("assets") / "examples").glob("*.json"))}


def first_sentence(text: str) -> str:
    """The first sentence of ``text``, its whitespace collapsed."""
    text = " ".join(text.split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def cmd_validate(args: argparse.Namespace) -> int:
    """``inferboard validate FILE...``: check design files; 0 when all are sound, 2 naming the first fault of each bad
    one."""
    # loaded only when the command runs, so --help stays light
    from inferboard.store import DesignFileError, read_design

    ok = True
    for name in args.files:
        try:
            design, _ = read_design(name)
        except DesignFileError as error:
            ok = False
            print(shown(error, keep_newlines=True), file=sys.stderr)  # one line a problem
            continue
        print(f"{shown(name)}: valid ({len(design.nodes)} nodes, {len(design.edges)} edges)")
    return 0 if ok else EXIT_BAD_INPUT


def cmd_catalog(args: argparse.Namespace) -> int:
    """``inferboard catalog``: list the component kinds by category with their first sentence."""
    # loaded only when the command runs, so --help stays light
    from inferboard.catalog import default_catalog

    catalog = default_catalog()
    if args.json:
        out = {
            "kinds": [{"id": k.id, "title": k.title, "category": k.category, "summary": first_sentence(k.description),
                       "description": k.description,
                       "when_to_use": k.when_to_use, "params": [p.model_dump() for p in k.params],
                       "inputs": [p.model_dump() for p in k.inputs],
                       "outputs": [p.model_dump() for p in k.outputs]} for k in catalog.kinds.values()],
            "gpus": [g.model_dump() for g in catalog.gpus.values()],
        }
        print(json.dumps(out, indent=2))
        return 0
    width = max(len(k) for k in catalog.kinds)
    for category, kinds in sorted(catalog.by_category().items()):
        print(f"{category}:")
        for kind in sorted(kinds, key=lambda k: k.id):
            print(f"  {kind.id:<{width}}  {first_sentence(kind.description)}")
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    """``inferboard new``: write a new design file from a template."""
    # loaded only when the command runs, so --help stays light
    from inferboard.model import Design
    from inferboard.store import read_design, save_design

    output = Path(args.output)
    if output.exists() and not args.force:
        print(f"{shown(output)}: already exists (use --force to overwrite)", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.template == BLANK_TEMPLATE:
        design = Design()
    else:
        available = templates()
        if args.template not in available:
            names = ", ".join([BLANK_TEMPLATE, *available])
            print(f"unknown template '{shown(args.template)}'; choose one of: {names}", file=sys.stderr)
            return EXIT_BAD_INPUT
        design, _ = read_design(available[args.template])
    if args.title:
        # loaded only when the command runs, so --help stays light
        from inferboard.model import ops

        design.apply(ops.SetMetadata({**design.metadata, "title": args.title}))
    save_design(design, output)
    print(shown(f"{output}: created from template '{args.template}'"))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``inferboard`` argument parser with every subcommand (each subcommand's code is loaded only when it runs)."""
    parser = OneLineParser(prog="inferboard", description="Inferboard: a whiteboard trainer for "
                                     "ML-inference system design. With no command, opens the desktop app.")
    parser.add_argument("--version", action="version", version=f"inferboard {__version__}")
    parser.set_defaults(func=None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("validate", help="check design files; exit 2 if any cannot be used")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("catalog", help="list the component kinds")
    p.add_argument("--json", action="store_true", help="print the whole catalog as JSON")
    p.set_defaults(func=cmd_catalog)

    p = sub.add_parser("new", help="create a design file from a template")
    p.add_argument("--template", default="starter", help="blank, or the name of an example design")
    p.add_argument("-o", "--output", required=True, metavar="FILE")
    p.add_argument("--title", help="the new design's title")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.set_defaults(func=cmd_new)

    for module in (sim_cli, rules_cli, practice_cli, workshop_cli, drills_cli):  # each adds its subcommands
        module.register(sub)
    parser.set_defaults(drill_link=drill_link)  # drills and the link are siblings: joined here, above both
    return parser


def drill_link() -> SimpleNamespace:
    """The sealed interview link for ``drill candidate`` / ``drill interviewer`` (drills may not import it)."""
    from inferboard.remote import wire
    from inferboard.remote.peer import HostPeer, JoinPeer
    from inferboard.remote.words import BadCode, normalize_code

    return SimpleNamespace(HostPeer=HostPeer, JoinPeer=JoinPeer, SessionInfo=wire.SessionInfo,
                           normalize_code=normalize_code, BadCode=BadCode)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``inferboard`` command line; returns the exit status (2 for bad input)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help, --version, or a bad flag value already told in one line
        return stop.code if isinstance(stop.code, int) else EXIT_BAD_INPUT
    if args.func is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stdout = open(os.devnull, "w")
        return 0
    except InferboardError as error:  # bad input, a broken catalog or a failed save is 2, the rest 1
        print(shown(error, keep_newlines=True), file=sys.stderr)
        return error.exit_code
    except FileRefused as error:  # a file that cannot be read: one line naming it
        print(shown(error), file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
