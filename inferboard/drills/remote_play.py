"""A drill over the sealed interview link from two terminals.

    inferboard drill candidate [--address 127.0.0.1] [--port 7000]
    inferboard drill interviewer [ID] --port 7000 --code 7-amber-falcon [--design FILE] [--speed 60]

The candidate's machine hosts the link (as in a mock interview; the link's classes come from the
command line, which sits above both the drills and the link) and prints its join code; the
interviewer's machine joins with it, plants the cause and holds the session (:class:`remote.DrillHost`):
the simulated clock runs there, and every ``--every`` seconds (and after each action) it sends the
candidate a ``drill_view``: the page, the dashboards the design has, the alerts and the change log,
never the cause. The candidate reads them with the commands of ``drill play`` (``dash``, ``alerts``,
``changes``, ``page``) and acts with ``mitigate``, ``symptom``, ``hypothesis``, ``cause`` and
``followup``, each sent as a ``drill_action``; ``quit`` (or the end of input) ends the link. The
interviewer's terminal prints each action as it arrives and, at the end, the score and the cause.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import time
from typing import Any, TextIO

from inferboard.cli_args import EXIT_BAD_INPUT
from inferboard.drills import play
from inferboard.drills.engine import DrillError, DrillSession
from inferboard.drills.remote import DrillHost, view_from_data
from inferboard.printable import shown

SESSION_UID = "d" * 32  #: a drill's link carries no scenario: a fixed session id and digest
WAIT_FOR_PEER_S = 600.0


def drill_session_info(session_info_class):
    """What the candidate's machine announces (a ``wire.SessionInfo``): an incident drill, no scenario."""
    return session_info_class(type="session", scenario_id="drill", scenario_title="Incident drill",
                              digest="0" * 64, session_uid=SESSION_UID)


# ---------------------------------------------------------------------- the candidate's machine
class RemoteCandidate:
    """The candidate's terminal: commands read from the latest view, actions sent to the interviewer."""

    SENT = {"symptom": "state_symptom", "hypothesis": "record_hypothesis", "cause": "name_root_cause",
            "followup": "write_follow_up", "mitigate": "apply_mitigation"}

    def __init__(self, send):
        self.send, self.view = send, None

    def take(self, message: dict[str, Any]) -> str:
        """A message from the interviewer's machine; returns what to print ('' for nothing)."""
        if message.get("type") != "drill_view":
            return ""
        first = self.view is None
        old = len(self.view.notifications) if self.view is not None else 0
        self.view = view_from_data(message["view"])
        if first:
            return f"Minute {self.view.notice_s / 60:.1f}: {self.view.notice}\nPage: {self.view.page}"
        new = self.view.notifications[old:]
        return "\n".join(f"NEW {n.severity} at minute {n.t_s / 60:.1f}: {n.title}" for n in new)

    def handle(self, line: str) -> str:
        """One typed command; returns the reply."""
        verb, _, arg = line.strip().partition(" ")
        if self.view is None:
            return "waiting for the interviewer to start the drill"
        if verb == "dash":
            board = self.view.dashboards.get(arg.strip() or "system")
            return play.render_dashboard(board) if board is not None else \
                f"no dashboard '{arg.strip()}'; there are: {', '.join(self.view.dashboards)}"
        if verb in ("alerts", "changes", "page"):
            return {"alerts": lambda: play.render_alerts(self.view.notifications),
                    "changes": lambda: play.render_changes(self.view.changes),
                    "page": lambda: self.view.page}[verb]()
        if verb in self.SENT:
            args = self._args(verb, arg)
            if isinstance(args, str):
                return args
            self.send({"type": "drill_action", "verb": self.SENT[verb], "args": args})
            return f"sent to the interviewer: {verb}"
        return ("commands: dash [NAME], alerts, changes, page, symptom TEXT [| SCOPE], hypothesis TEXT, "
                "mitigate ACTION [TARGET] [VALUE], cause TEXT, followup FIX | MONITORING, quit")

    @staticmethod
    def _args(verb: str, arg: str) -> dict[str, Any] | str:
        if not arg.strip():
            return f"{verb} needs some text"
        if verb == "mitigate":
            words = arg.split()
            value = play._float_in(words[2]) if len(words) > 2 else None
            return {"action": words[0], "target": words[1] if len(words) > 1 else "", "value": value}
        if verb in ("symptom", "followup"):
            first, _, second = arg.partition("|")
            keys = ("text", "scope") if verb == "symptom" else ("fix", "monitoring")
            return {keys[0]: first.strip(), keys[1]: second.strip()}
        return {"text": arg.strip()}


def run_candidate(peer_factory, lines: TextIO, out: TextIO) -> int:
    """Host the link, print the join code, then play from ``lines`` until ``quit`` or the end."""
    inbox: queue.Queue = queue.Queue()
    peer = peer_factory(inbox.put).start()
    print(json.dumps({"port": peer.port, "code": peer.code}), file=out, flush=True)
    player = RemoteCandidate(peer.send)
    try:
        while player.view is None and peer.status.state != "ended":
            _drain(inbox, player, out, wait_s=1.0)
        for line in lines:
            _drain(inbox, player, out)
            if line.strip() in ("quit", "finish"):
                break
            if line.strip() == "wait":  # until the interviewer's machine sends the next view
                _next_view(inbox, player, out)
                print(f"minute {player.view.now_s / 60:.1f}", file=out, flush=True)
            elif line.strip():
                print(shown(player.handle(line), keep_newlines=True), file=out, flush=True)
        _drain(inbox, player, out, wait_s=0.5)
    finally:
        peer.end("the candidate finished the drill")
    return 0


def _next_view(inbox: queue.Queue, player: RemoteCandidate, out: TextIO, limit_s: float = 60.0) -> None:
    """Wait (at most ``limit_s``) until a view newer than the one shown arrives."""
    shown_view, deadline = player.view, time.monotonic() + limit_s
    while player.view is shown_view and time.monotonic() < deadline:
        _drain(inbox, player, out, wait_s=0.5)


def _drain(inbox: queue.Queue, player: RemoteCandidate, out: TextIO, wait_s: float = 0.0) -> None:
    """Take every message waiting (waiting up to ``wait_s`` for the first)."""
    try:
        message = inbox.get(timeout=wait_s) if wait_s else inbox.get_nowait()
    except queue.Empty:
        return
    while True:
        said = player.take(message)
        if said:
            print(shown(said, keep_newlines=True), file=out, flush=True)
        try:
            message = inbox.get_nowait()
        except queue.Empty:
            return


# ---------------------------------------------------------------------- the interviewer's machine
def run_interviewer(host: DrillHost, peer, inbox: queue.Queue, out: TextIO, speed: float, every_s: float,
                    clock=time.monotonic) -> int:
    """Hold the session: run its clock at ``speed`` simulated seconds per second, send the view every
    ``every_s`` and after each action, do the actions that arrive; at the end print score and cause."""
    session = host.session
    peer.send({"type": "drill_view", "drill_id": session.drill.id, "view": host.view()})
    last = clock()
    while peer.status.state != "ended" and session.now_s < session.horizon_s:
        try:
            message = inbox.get(timeout=every_s)
        except queue.Empty:
            message = None
        now = clock()
        session.advance_to(min(session.horizon_s, session.now_s + (now - last) * speed))
        last = now
        _act(host, message, out)
        if peer.status.state != "ended":
            peer.send({"type": "drill_view", "drill_id": session.drill.id, "view": host.view()})
    while not inbox.empty():  # actions sent just before the candidate left still count
        _act(host, inbox.get_nowait(), out)
    session.finish()
    play.print_result(session, out)
    return 0


def _act(host: DrillHost, message: dict[str, Any] | None, out: TextIO) -> None:
    """Do a ``drill_action`` the candidate sent, and say so on the interviewer's terminal."""
    if message is None or message.get("type") != "drill_action":
        return
    receipt = host.act(str(message.get("verb", "")), dict(message.get("args") or {}))
    print(shown(f"minute {host.session.now_s / 60:.1f}: {message.get('verb')} {message.get('args')}: {receipt}"),
          file=out, flush=True)


def cmd_candidate(args: argparse.Namespace) -> int:
    """``inferboard drill candidate``; ``args.drill_link()`` gives the link's classes (the drills may
    not import the link: the command line joins the two)."""
    link = args.drill_link()
    info = drill_session_info(link.SessionInfo)
    return run_candidate(lambda on_message: link.HostPeer(info, args.address, args.port, on_message=on_message),
                         sys.stdin, sys.stdout)


def cmd_interviewer(args: argparse.Namespace) -> int:
    """``inferboard drill interviewer``."""
    from inferboard.drills.library import get_drill
    from inferboard.paths import data_dir
    from inferboard.store import read_design

    design, _ = read_design(args.design or str(data_dir("assets") / "drills" / "designs" / "ranker-drill.json"))
    try:
        drill = get_drill(args.id) if args.id else play.surprise(design, args.seed)
        session = DrillSession(drill, design, args.seed, mode="interview")
    except KeyError as error:
        print(f"inferboard drill interviewer: {shown(error.args[0])}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except DrillError as error:
        print(f"inferboard drill interviewer: {shown(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    link = args.drill_link()
    try:
        code = link.normalize_code(args.code)
    except link.BadCode as error:
        print(f"inferboard drill interviewer: --code: {shown(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    inbox: queue.Queue = queue.Queue()
    peer = link.JoinPeer(args.address, args.port, code, on_message=inbox.put).start()
    deadline = time.monotonic() + WAIT_FOR_PEER_S
    while time.monotonic() < deadline and peer.status.state not in ("connected", "ended"):
        time.sleep(0.1)
    if peer.status.state != "connected":
        print(f"inferboard drill interviewer: could not join: {shown(peer.status.detail or peer.status.state)}",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"Planted: {session.drill.title} (the candidate sees only the page and the dashboards)", flush=True)
    try:
        return run_interviewer(DrillHost(session), peer, inbox, sys.stdout, args.speed, args.every)
    finally:
        peer.end("the drill is over")
