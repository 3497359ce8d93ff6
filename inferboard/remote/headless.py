"""Either end of a remote mock interview without the app: to check a path before an interview.

    python -m inferboard.remote.headless host --scenario fraud-scoring-cpu --address 127.0.0.1 --port 7000
    python -m inferboard.remote.headless join --address 127.0.0.1 --port 7000 --code 7-amber-falcon

``host`` prints the join code, then the verification string once someone joined, sends a design
(an empty one) and asks the first panel question; ``join`` runs a real interviewer's end (it
starts the interview and answers every panel question by itself), reports each design it mirrors
and each question, and ends the session once it has mirrored a design and answered a question.
Both print one JSON object a line on standard output and stop when the session ends (or after
``--seconds``). Exit status: 0 once the session ran (ended by either side, or still running at
``--seconds``), 2 when the join was refused or an argument is wrong (one line on standard error),
3 when no session started within ``--seconds``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from inferboard.cli_args import OneLineParser
from inferboard.errors import InferboardError
from inferboard.model import Design
from inferboard.practice.history import History
from inferboard.practice.interview_link import CANDIDATE, INTERVIEWER, CandidateBrief, CandidateLink, InterviewerLink
from inferboard.practice.library import ScenarioEntry, ScenarioLibrary, user_packs_dir
from inferboard.printable import shown
from inferboard.remote.interview import CandidateGuard, MessagePump, RemoteTransport, resolve_session, session_info
from inferboard.remote.peer import HostPeer, JoinPeer, Status
from inferboard.remote.words import BadCode, normalize_code

PROG = "python -m inferboard.remote.headless"
EXIT_OK, EXIT_REFUSED, EXIT_TIMEOUT = 0, 2, 3


class BadArgument(Exception):
    """A command-line value that cannot be used; the message is the one line to print."""


def say(**fields: Any) -> None:
    """One event as a JSON line (control characters in names come out escaped)."""
    print(json.dumps(fields), flush=True)


def library(data: str | None) -> ScenarioLibrary:
    """The scenarios this machine has: shipped ones and the packs imported into the data folder
    (``--data``, or the app's own data folder by default)."""
    return ScenarioLibrary(user_packs=user_packs_dir(Path(data) if data else None)).load()


def find_scenario(scenarios: ScenarioLibrary, scenario_id: str) -> ScenarioEntry:
    """The scenario named by ``--scenario``, or BadArgument listing the ones there are."""
    entry = scenarios.entries.get(scenario_id)
    if entry is None:
        raise BadArgument(f"--scenario {json.dumps(scenario_id)}: no such scenario; known: "
                          f"{', '.join(sorted(scenarios.entries))}")
    return entry


def on_status(pump: MessagePump):
    """A status callback that prints each status and hands it to ``pump``."""
    def report(status: Status) -> None:
        say(event="status", state=status.state, detail=status.detail, verification=status.verification)
        pump.status(status)
    return report


def run_host(args: argparse.Namespace) -> int:
    """The candidate's end: listen, send a design and ask a question once joined, stop at the end."""
    entry = find_scenario(library(args.data), args.scenario)
    transport = RemoteTransport(CANDIDATE, CandidateGuard(entry.scenario, lambda: set()))
    pump = MessagePump(transport)
    peer = HostPeer(session_info(entry), args.address, args.port, code=args.code,
                    on_message=pump.put, on_status=on_status(pump))
    transport.attach(peer)
    link = CandidateLink(transport, CandidateBrief.of(entry.scenario))
    link.on_message(lambda message: say(event="received", type=message.type))
    peer.start()
    say(event="listening", address=args.address, port=peer.port, code=peer.code)
    deadline = time.monotonic() + args.seconds
    started = False
    while time.monotonic() < deadline and not peer.ended and not link.ended:
        pump.pump(lambda: False, timeout=0.2)
        if link.phase is not None and not started:
            link.design_changed(Design())
            if entry.scenario.questions:
                link.ask(entry.scenario.questions[0].id)
            started = True
    peer.end("the candidate's check is over")
    return EXIT_OK if link.ended or link.phase is not None else EXIT_TIMEOUT


class JoinCheck:
    """The interviewer's end of a check: mirrors designs, answers questions, ends when both came."""

    def __init__(self, scenarios: ScenarioLibrary, transport: RemoteTransport, history: History):
        self.scenarios = scenarios
        self.transport = transport
        self.history = history
        self.link: InterviewerLink | None = None
        self.designs = self.answered = 0
        self.problem = ""

    def on_session(self, info: dict[str, Any]) -> None:
        """The candidate's session info: start the interview on this machine's copy of its scenario."""
        try:
            entry = resolve_session(self.scenarios, info)
        except InferboardError as error:
            self.problem = str(error)
            return
        self.link = InterviewerLink(self.transport, entry, self.history, auto_answer=True)
        self.link.on_message(self._report)
        self.link.start()
        self.transport.release()
        say(event="session", scenario_id=entry.id)

    def _report(self, message: Any) -> None:
        if message.type == "design_changed" and self.link is not None and self.link.latest is not None:
            self.designs += 1
            say(event="design", nodes=len(self.link.latest.nodes))
        elif message.type == "question_asked":
            self.answered += bool(message.question_id)
            say(event="question", question_id=message.question_id)

    @property
    def done(self) -> bool:
        """True once a design was mirrored and a question answered (or the session was refused)."""
        return bool(self.problem) or (self.designs > 0 and self.answered > 0)

    def finish(self) -> None:
        """End the interview on this machine (recording it) if it is still running."""
        if self.link is not None and self.link.session.state == "running":
            result = self.link.end()
            say(event="ended", attempt_id=result.result.attempt_id)


def run_join(args: argparse.Namespace) -> int:
    """The interviewer's end: join with the (normalised) code, run the check, end the session."""
    scenarios = library(args.data)
    transport = RemoteTransport(INTERVIEWER, hold=True)
    pump = MessagePump(transport)
    peer = JoinPeer(args.address, args.port, args.code, on_message=pump.put, on_status=on_status(pump))
    transport.attach(peer)
    history = History(Path(args.history or tempfile.mkdtemp(prefix="inferboard-check-")))
    check = JoinCheck(scenarios, transport, history)
    transport.on_session = check.on_session
    peer.start()
    deadline = time.monotonic() + args.seconds
    try:
        while time.monotonic() < deadline and not peer.ended and not check.done:
            pump.pump(lambda: False, timeout=0.2)
    finally:
        check.finish()
        peer.end("the interviewer's check is over")
        history.close()
    if check.problem:
        print(shown(f"{PROG} join: {check.problem}"), file=sys.stderr)
        return EXIT_REFUSED
    if peer.status.state == "refused":
        print(shown(f"{PROG} join: refused: {peer.status.detail}"), file=sys.stderr)
        return EXIT_REFUSED
    return EXIT_OK if check.link is not None else EXIT_TIMEOUT


def parser() -> argparse.ArgumentParser:
    """The command line of both ends."""
    parser = OneLineParser(prog=PROG, description=__doc__.split("\n")[0])  # a bad flag: one line, status 2
    sub = parser.add_subparsers(dest="role", required=True)
    host = sub.add_parser("host", help="the candidate's end: listen and show a join code")
    host.add_argument("--scenario", required=True)
    host.add_argument("--code", default=None, help=argparse.SUPPRESS)
    join = sub.add_parser("join", help="the interviewer's end: join with the code")
    join.add_argument("--code", required=True, help="the code as spoken: case, spaces and 3-letter prefixes are fine")
    join.add_argument("--history", default=None, help="folder of the practice history to write (default: a temp one)")
    for each in (host, join):
        each.add_argument("--address", default="127.0.0.1")
        each.add_argument("--port", type=int, default=0 if each is host else None, required=each is join)
        each.add_argument("--data", default=None, help="the app's data folder (default: the app's own)")
        each.add_argument("--seconds", type=float, default=600.0)
    return parser


def check_arguments(args: argparse.Namespace) -> None:
    """Refuse values no run can use, before anything listens or connects."""
    if not (math.isfinite(args.seconds) and args.seconds > 0):
        raise BadArgument(f"--seconds {args.seconds}: must be a positive number of seconds")
    if not 0 <= args.port <= 65535:
        raise BadArgument(f"--port {args.port}: must be from 0 to 65535")
    if args.code is not None:
        try:
            args.code = normalize_code(args.code)
        except BadCode as error:
            raise BadArgument(f"--code {json.dumps(args.code)}: {error}") from None


def main(argv: list[str] | None = None) -> int:
    """Run one end; returns the exit status."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as stop:  # --help, or a bad flag already told in one line
        return stop.code if isinstance(stop.code, int) else EXIT_REFUSED
    try:
        check_arguments(args)
        return run_host(args) if args.role == "host" else run_join(args)
    except BadArgument as error:
        print(shown(f"{PROG} {args.role}: {error}"), file=sys.stderr)
        return EXIT_REFUSED


if __name__ == "__main__":
    sys.exit(main())
