"""``inferboard drill list`` and ``inferboard drill run ID --design FILE --script ACTIONS.yaml``:
incident drills without the window, for tests and for instructors checking a drill.

A script is a YAML list of steps: ``{at_min: M, do: VERB, ...arguments}`` (``at_min`` optional:
minutes since the drill started; the clock runs to it first). Verbs and arguments are the
engine's (:data:`inferboard.drills.engine.VERBS`).

Its imports of the drills, the simulator and the store sit inside the commands that use them:
``inferboard --help`` must not load them (tests/core/test_startup.py)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from inferboard.cli_args import EXIT_BAD_INPUT, number
from inferboard.errors import InferboardError
from inferboard.printable import shown

#: a step's text arguments; ``value`` and ``minutes`` are numbers
TEXT_ARGS = ("text", "scope", "name", "action", "target", "fix", "monitoring")
MAX_TEXT = 2000


class ScriptError(InferboardError):
    """A drill script is not valid; the message names the file and the step."""

    exit_code = EXIT_BAD_INPUT


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _argument_problem(verb: str, args: dict[str, Any]) -> str:
    """'' when a step's arguments have the right types and names, else what is wrong."""
    from inferboard.drills.schema import MITIGATIONS
    from inferboard.drills.views import DASHBOARDS

    for name, value in args.items():
        if name in TEXT_ARGS and not (isinstance(value, str) and len(value) <= MAX_TEXT):
            return f"'{name}' must be text of at most {MAX_TEXT} characters"
        if name == "value" and value is not None and not (_is_number(value) and value >= 0):
            return "'value' must be a number of 0 or more"
        if name == "minutes" and not (_is_number(value) and value > 0):
            return "'minutes' must be a number of minutes > 0"
    if verb == "open_dashboard" and args.get("name") not in DASHBOARDS:
        return f"unknown dashboard '{args.get('name')}'; there are {', '.join(DASHBOARDS)}"
    if verb == "apply_mitigation" and args.get("action") not in MITIGATIONS:
        return f"unknown mitigation '{args.get('action')}'; known: {', '.join(MITIGATIONS)}"
    return ""


def check_script(steps: list[dict[str, Any]], horizon_min: float, source: str) -> None:
    """Refuse a script whose times go backwards or run past the drill's ``horizon_min`` minutes."""
    now = 0.0
    for i, step in enumerate(steps, start=1):
        at = step["at_min"]
        if at is not None:
            if at < now:
                raise ScriptError(f"{shown(source)}: step {i} ({step['verb']}): 'at_min' {at:g} is before "
                                  f"minute {now:g}, where the script already is")
            now = float(at)
        if step["verb"] == "wait":
            now += float(step["args"]["minutes"])
        if now > horizon_min:
            raise ScriptError(f"{shown(source)}: step {i} ({step['verb']}): minute {now:g} is past the drill's "
                              f"end at minute {horizon_min:g}")


def read_script(path: Path) -> list[dict[str, Any]]:
    """The steps of a drill script file (YAML: a list of verbs with their arguments), checked against the
    verbs."""
    from inferboard.drills.engine import VERBS
    from inferboard.safe_yaml import YamlFileError, load_yaml_file

    try:
        raw = load_yaml_file(path)
    except YamlFileError as error:
        raise ScriptError(str(error)) from None
    path = shown(path)
    if not isinstance(raw, list):
        raise ScriptError(f"{path}: a drill script is a YAML list of steps")
    steps = []
    for i, step in enumerate(raw, start=1):
        if not isinstance(step, dict) or not isinstance(step.get("do"), str):
            raise ScriptError(f"{path}: step {i}: each step is a mapping with 'do: VERB'")
        verb = step["do"]
        if verb not in VERBS:
            raise ScriptError(f"{path}: step {i}: unknown action '{shown(verb[:64])}'; known: {', '.join(VERBS)}")
        args = {k: v for k, v in step.items() if k not in ("do", "at_min")}
        unknown = set(args) - set(VERBS[verb])
        if unknown:
            names = shown(", ".join(sorted(map(str, unknown))))
            raise ScriptError(f"{path}: step {i} ({verb}): unknown field(s) {names}")
        problem = _argument_problem(verb, args)
        if problem:
            raise ScriptError(f"{path}: step {i} ({verb}): {shown(problem)}")
        at = step.get("at_min")
        if at is not None and (not _is_number(at) or at < 0):
            raise ScriptError(f"{path}: step {i} ({verb}): 'at_min' must be a number of minutes >= 0")
        steps.append({"at_min": at, "verb": verb, "args": args})
    return steps


def run_script(session, steps: list[dict[str, Any]], source: str = "script") -> None:
    """Perform each step of ``steps`` on ``session`` in order; a refused step names its place in ``source``."""
    from inferboard.drills.engine import DrillError

    for i, step in enumerate(steps, start=1):
        if step["at_min"] is not None:
            session.advance_to(float(step["at_min"]) * 60.0)
        try:
            session.perform(step["verb"], dict(step["args"]))
        except (DrillError, TypeError) as error:
            raise ScriptError(f"{shown(source)}: step {i} ({step['verb']}): {shown(error)}") from None
    session.finish()


def folder_problem(folder: str | None) -> str:
    """'' when ``--folder`` is absent or a folder holding drill files, else the one line saying why not."""
    if folder is None:
        return ""
    if not Path(folder).is_dir():
        return f"--folder {shown(folder)}: no such folder"
    if not any(Path(folder).glob("*.yaml")):
        return f"--folder {shown(folder)}: holds no drill files (*.yaml)"
    return ""


def cmd_list(args: argparse.Namespace) -> int:
    """Run ``inferboard drill list``: every drill with its title; returns the exit status."""
    from inferboard.drills.library import load_drills

    problem = folder_problem(args.folder)
    if problem:
        print(shown(f"inferboard drill list: {problem}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    drills = load_drills(args.folder)
    if args.json:
        print(json.dumps([{"id": d.id, "title": d.title, "kind": d.kind, "difficulty": d.difficulty,
                           "summary": d.summary, "requires": d.requires} for d in drills.values()], indent=2))
        return 0
    width = max((len(i) for i in drills), default=10)
    for drill in drills.values():
        print(shown(f"{drill.id:<{width}}  {drill.kind:<7}  {drill.difficulty:<6}  {drill.title}"))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """Run ``inferboard drill run``: a drill played headless with a script, its report printed or saved;
    returns the exit status."""
    from dataclasses import asdict

    from inferboard.drills.engine import DrillError, DrillSession
    from inferboard.drills.library import get_drill
    from inferboard.drills.record import json_default, save_drill, save_drill_report, session_report_html
    from inferboard.store import read_design

    problem = folder_problem(args.folder)
    if problem:
        print(shown(f"inferboard drill run: {problem}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        drill = get_drill(args.id, args.folder)
    except KeyError as error:
        print(shown(error.args[0]), file=sys.stderr)
        return EXIT_BAD_INPUT
    design, _ = read_design(args.design)
    steps = read_script(Path(args.script))
    check_script(steps, drill.horizon_h * 60.0, args.script)
    try:
        session = DrillSession(drill, design, seed=args.seed)
    except DrillError as error:
        print(shown(error, keep_newlines=True), file=sys.stderr)
        return EXIT_BAD_INPUT
    run_script(session, steps, args.script)
    result = session.result()
    if args.html:
        save_drill_report(args.html, session_report_html(session, with_truth=args.truth))
    if args.history:
        from inferboard.practice.history import History

        with History(args.history) as history:
            save_drill(history, session)
    if args.json:
        out: dict[str, Any] = {"result": result.to_dict(), "notice": session.notice}
        if args.truth:
            truth = asdict(session.truth())
            truth.pop("events")
            out["truth"] = truth
        print(json.dumps(out, indent=2, default=json_default))
        return 0
    print(shown(f"{drill.title}: {result.grade} ({result.percent:.0f}%), told at minute {result.notice_min:g} "
                f"({session.notice}); " + ("restored" if result.restored else "NOT restored")))
    for line in result.lines:
        print(f"  {line.criterion:<17} {line.points:>6g} / {line.max_points:<3g} {shown(line.reason)}")
    for item in result.missing:
        print(f"  missing: {shown(item.what)}: {shown(item.why)} (cost {item.cost_min:g} min)")
    if args.truth:
        print(shown(f"  root cause: {session.truth().root_cause}"))
    return 0


def register(sub) -> None:
    """Add the ``drill`` command and its subcommands to the command line."""
    p = sub.add_parser("drill", help="incident drills: list them, or run one headless with a script")
    drill_sub = p.add_subparsers(dest="drill_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])
    q = drill_sub.add_parser("list", help="the drill library")
    q.add_argument("--json", action="store_true")
    q.add_argument("--folder", help="a folder of drill files instead of the bundled library")
    q.set_defaults(func=cmd_list)
    q = drill_sub.add_parser("run", help="run a drill on a design with a script of actions")
    q.add_argument("id")
    q.add_argument("--design", required=True, metavar="FILE")
    q.add_argument("--script", required=True, metavar="ACTIONS.yaml")
    q.add_argument("--seed", type=number(0, 2 ** 63 - 1, whole=True), default=0)
    q.add_argument("--json", action="store_true", help="print the result as JSON")
    q.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    q.add_argument("--truth", action="store_true", help="also show the hidden truth (interviewer view)")
    q.add_argument("--history", metavar="DIR", help="keep the drill in the practice history in DIR")
    q.add_argument("--folder", help="a folder of drill files instead of the bundled library")
    q.set_defaults(func=cmd_run)
    _register_play(drill_sub)
    _register_remote(drill_sub)


def _register_remote(drill_sub) -> None:
    """Add ``drill candidate`` and ``drill interviewer``: a drill over the sealed interview link."""
    q = drill_sub.add_parser("candidate", help="host the link for a remote drill and play it from this terminal")
    q.add_argument("--address", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    q.add_argument("--port", type=number(0, 65535, whole=True), default=0, help="port (default: any free one)")
    q.set_defaults(func=_cmd_remote, side="candidate")
    q = drill_sub.add_parser("interviewer", help="join a candidate's link, plant a drill and run it there")
    q.add_argument("id", nargs="?", help="the drill (leave it out for one picked by the seed)")
    q.add_argument("--address", default="127.0.0.1", help="the candidate's address (default 127.0.0.1)")
    q.add_argument("--port", type=number(1, 65535, whole=True), required=True, help="the candidate's port")
    q.add_argument("--code", required=True, help="the join code the candidate's terminal printed")
    q.add_argument("--design", metavar="FILE", help="the design to plant it in (default: the bundled ranker design)")
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--speed", type=number(0, 3600), default=60.0,
                   help="simulated seconds per second (default 60)")
    q.add_argument("--every", type=number(0.1, 60), default=2.0, help="seconds between views sent (default 2)")
    q.set_defaults(func=_cmd_remote, side="interviewer")


def _cmd_remote(args: argparse.Namespace) -> int:
    from inferboard.drills import remote_play  # the simulator loads only for the command that needs it

    return remote_play.cmd_candidate(args) if args.side == "candidate" else remote_play.cmd_interviewer(args)


def _register_play(drill_sub) -> None:
    """Add ``drill play``; the player (and the simulator under it) is imported only when it runs,
    so ``inferboard --help`` stays light."""
    q = drill_sub.add_parser("play", help="play a drill interactively in the terminal")
    q.add_argument("id", nargs="?", help="the drill (leave it out for one picked at random, its cause unknown)")
    q.add_argument("--design", metavar="FILE", help="the design to plant it in (default: the bundled ranker design)")
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--step-min", type=float, default=1.0,
                   help="simulated minutes each command takes (default 1; 0 stops the clock between waits)")
    q.add_argument("--folder", help="a folder of drill files instead of the bundled library")
    q.set_defaults(func=_cmd_play)


def _cmd_play(args: argparse.Namespace) -> int:
    from inferboard.drills import play  # the simulator loads only for the command that needs it

    return play.cmd_play(args)
