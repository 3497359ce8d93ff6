"""Either end of a remote mock interview without the app: to check a path before an interview.

    python -m inferboard.remote.headless host --scenario fraud-scoring-cpu --address 127.0.0.1 --port 7000
    python -m inferboard.remote.headless join --address 127.0.0.1 --port 7000 --code 7-amber-falcon

``host`` prints the join code, then the verification string once someone joined, and asks the
first panel question; ``join`` runs a real interviewer's end (it starts the interview and answers
every panel question by itself) and reports each design it mirrors. Both print one JSON object a
line on standard output and stop when the session ends (or after ``--seconds``). Exit status: 0
after a session that ended normally, 2 when the join was refused, 3 on a time-out.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from inferboard.practice.history import History
from inferboard.practice.interview_link import CANDIDATE, INTERVIEWER, CandidateBrief, CandidateLink, InterviewerLink
from inferboard.practice.library import ScenarioLibrary, user_packs_dir
from inferboard.remote.interview import CandidateGuard, MessagePump, RemoteTransport, resolve_session, session_info
from inferboard.remote.peer import HostPeer, JoinPeer, Status
from inferboard.store.design_files import parse_design


def say(**fields: Any) -> None:
    print(json.dumps(fields), flush=True)


def library(data: str | None) -> ScenarioLibrary:
    return ScenarioLibrary(user_packs=user_packs_dir(Path(data)) if data else None).load()


def on_status(pump: MessagePump):
    def report(status: Status) -> None:
        say(event="status", state=status.state, detail=status.detail, verification=status.verification)
        pump.status(status)
    return report


def run_host(args: argparse.Namespace) -> int:
    entry = library(args.data).get(args.scenario)
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
    asked = False
    while time.monotonic() < deadline and not peer.ended:
        pump.pump(lambda: False, timeout=0.2)
        if link.phase is not None and not asked and entry.scenario.questions:
            link.ask(entry.scenario.questions[0].id)
            asked = True
        if link.ended:
            break
    peer.end("the candidate's check is over")
    return 0 if link.ended or link.phase is not None else 3


def run_join(args: argparse.Namespace) -> int:
    scenarios = library(args.data)
    transport = RemoteTransport(INTERVIEWER, hold=True)
    pump = MessagePump(transport)
    peer = JoinPeer(args.address, args.port, args.code, on_message=pump.put, on_status=on_status(pump))
    transport.attach(peer)
    folder = Path(args.history or tempfile.mkdtemp(prefix="inferboard-check-"))
    history = History(folder)
    state: dict[str, Any] = {}

    def on_session(info: dict[str, Any]) -> None:
        entry = resolve_session(scenarios, info)
        link = InterviewerLink(transport, entry, history, auto_answer=True)
        link.on_message(lambda m: say(event="design", nodes=len(parse_design(
            m.design_json.encode("utf-8"), "<candidate>").nodes)) if m.type == "design_changed"
            else say(event="question", question_id=m.question_id))
        link.start()
        transport.release()
        state["link"] = link
        say(event="session", scenario_id=entry.id)

    transport.on_session = on_session
    peer.start()
    deadline = time.monotonic() + args.seconds
    try:
        while time.monotonic() < deadline and not peer.ended:
            pump.pump(lambda: False, timeout=0.2)
        pump.pump(lambda: False, timeout=0.1)
    finally:
        link = state.get("link")
        if link is not None and link.session.state == "running":
            result = link.end()
            say(event="ended", attempt_id=result.result.attempt_id)
        peer.end("the interviewer's check is over")
        history.close()
    if peer.status.state == "refused":
        return 2
    return 0 if time.monotonic() < deadline else 3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m inferboard.remote.headless", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="role", required=True)
    host = sub.add_parser("host", help="the candidate's end: listen and show a join code")
    host.add_argument("--scenario", required=True)
    host.add_argument("--code", default=None, help=argparse.SUPPRESS)
    join = sub.add_parser("join", help="the interviewer's end: join with the code")
    join.add_argument("--code", required=True)
    join.add_argument("--history", default=None, help="folder of the practice history to write (default: a temp one)")
    for each in (host, join):
        each.add_argument("--address", default="127.0.0.1")
        each.add_argument("--port", type=int, default=0 if each is host else None, required=each is join)
        each.add_argument("--data", default=None, help="the app's data folder (for imported scenario packs)")
        each.add_argument("--seconds", type=float, default=600.0)
    args = parser.parse_args(argv)
    return run_host(args) if args.role == "host" else run_join(args)


if __name__ == "__main__":
    sys.exit(main())
