"""``inferboard drill list`` and ``inferboard drill run ID --design FILE --script ACTIONS.yaml``:
incident drills without the window, for tests and for instructors checking a drill.

A script is a YAML list of steps: ``{at_min: M, do: VERB, ...arguments}`` (``at_min`` optional:
minutes since the drill started; the clock runs to it first). Verbs and arguments are the
engine's (:data:`inferboard.drills.engine.VERBS`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from inferboard.errors import InferboardError


class ScriptError(InferboardError):
    """A drill script is not valid; the message names the file and the step."""


def read_script(path: Path) -> list[dict[str, Any]]:
    from inferboard.drills.engine import VERBS
    from inferboard.safe_yaml import YamlFileError, load_yaml_file

    try:
        raw = load_yaml_file(path)
    except YamlFileError as error:
        raise ScriptError(str(error)) from None
    if not isinstance(raw, list):
        raise ScriptError(f"{path}: a drill script is a YAML list of steps")
    steps = []
    for i, step in enumerate(raw, start=1):
        if not isinstance(step, dict) or not isinstance(step.get("do"), str):
            raise ScriptError(f"{path}: step {i}: each step is a mapping with 'do: VERB'")
        verb = step["do"]
        if verb not in VERBS:
            raise ScriptError(f"{path}: step {i}: unknown action '{verb}'; known: {', '.join(VERBS)}")
        args = {k: v for k, v in step.items() if k not in ("do", "at_min")}
        unknown = set(args) - set(VERBS[verb])
        if unknown:
            raise ScriptError(f"{path}: step {i} ({verb}): unknown field(s) {', '.join(sorted(unknown))}")
        at = step.get("at_min")
        if at is not None and (not isinstance(at, (int, float)) or isinstance(at, bool) or at < 0):
            raise ScriptError(f"{path}: step {i} ({verb}): 'at_min' must be a number of minutes >= 0")
        steps.append({"at_min": at, "verb": verb, "args": args})
    return steps


def run_script(session, steps: list[dict[str, Any]], source: str = "script") -> None:
    from inferboard.drills.engine import DrillError

    for i, step in enumerate(steps, start=1):
        if step["at_min"] is not None:
            session.advance_to(float(step["at_min"]) * 60.0)
        try:
            session.perform(step["verb"], dict(step["args"]))
        except (DrillError, TypeError) as error:
            raise ScriptError(f"{source}: step {i} ({step['verb']}): {error}") from None
    session.finish()


def cmd_list(args: argparse.Namespace) -> int:
    from inferboard.drills.library import load_drills

    drills = load_drills(args.folder)
    if args.json:
        print(json.dumps([{"id": d.id, "title": d.title, "kind": d.kind, "difficulty": d.difficulty,
                           "summary": d.summary, "requires": d.requires} for d in drills.values()], indent=2))
        return 0
    width = max((len(i) for i in drills), default=10)
    for drill in drills.values():
        print(f"{drill.id:<{width}}  {drill.kind:<7}  {drill.difficulty:<6}  {drill.title}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from inferboard.drills.engine import DrillError, DrillSession
    from inferboard.drills.library import get_drill
    from inferboard.drills.record import json_default, save_drill, save_drill_report, session_report_html
    from inferboard.store import read_design

    try:
        drill = get_drill(args.id, args.folder)
    except KeyError as error:
        print(error.args[0], file=sys.stderr)
        return 1
    design, _ = read_design(args.design)
    steps = read_script(Path(args.script))
    try:
        session = DrillSession(drill, design, seed=args.seed)
    except DrillError as error:
        print(str(error), file=sys.stderr)
        return 1
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
    print(f"{drill.title}: {result.grade} ({result.percent:.0f}%), told at minute {result.notice_min:g} "
          f"({session.notice}); " + ("restored" if result.restored else "NOT restored"))
    for line in result.lines:
        print(f"  {line.criterion:<17} {line.points:>6g} / {line.max_points:<3g} {line.reason}")
    for item in result.missing:
        print(f"  missing: {item.what}: {item.why} (cost {item.cost_min:g} min)")
    if args.truth:
        print(f"  root cause: {session.truth().root_cause}")
    return 0


def register(sub) -> None:
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
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--json", action="store_true", help="print the result as JSON")
    q.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    q.add_argument("--truth", action="store_true", help="also show the hidden truth (interviewer view)")
    q.add_argument("--history", metavar="DIR", help="keep the drill in the practice history in DIR")
    q.add_argument("--folder", help="a folder of drill files instead of the bundled library")
    q.set_defaults(func=cmd_run)
