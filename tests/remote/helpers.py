"""Test doubles for the remote link: a frame-aware relay that can replay, tamper and cut, and a
candidate/interviewer pair on loopback driven from the test's thread. Everything listens on
127.0.0.1 only and every wait is bounded."""

from __future__ import annotations

import socket
import threading
import time
from typing import Callable

from inferboard.model import Design
from inferboard.practice.history import History
from inferboard.practice.interview_link import CANDIDATE, INTERVIEWER, CandidateBrief, CandidateLink, InterviewerLink
from inferboard.remote.channel import FrameReader, FrameRefused, frame
from inferboard.remote.interview import CandidateGuard, MessagePump, RemoteTransport, resolve_session, session_info
from inferboard.remote.attempts import AttemptLimiter
from inferboard.remote.peer import HostPeer, JoinPeer

LOOPBACK = "127.0.0.1"
#: direction, index of the frame in that direction on this connection, the frame -> frames to forward
Transform = Callable[[str, int, bytes], list[bytes]]
TO_HOST, TO_JOINER = "to_host", "to_joiner"


class Relay:
    """Listens on loopback and forwards whole frames to ``target_port``, through ``transform``."""

    def __init__(self, target_port: int, transform: Transform | None = None):
        self.target_port = target_port
        self.transform = transform or (lambda _d, _n, f: [f])
        self.server = socket.create_server((LOOPBACK, 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.sockets: list[socket.socket] = []
        self.connections = 0
        self.frames: dict[str, list[bytes]] = {TO_HOST: [], TO_JOINER: []}
        self.stopped = False
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.stopped:
            try:
                client, _ = self.server.accept()
            except (socket.timeout, OSError):
                continue
            try:
                upstream = socket.create_connection((LOOPBACK, self.target_port), timeout=5)
            except OSError:
                client.close()
                continue
            self.connections += 1
            self.sockets += [client, upstream]
            for source, sink, direction in ((client, upstream, TO_HOST), (upstream, client, TO_JOINER)):
                threading.Thread(target=self._pump, args=(source, sink, direction), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, direction: str) -> None:
        reader = FrameReader(64 * 1024 * 1024)
        count = 0
        try:
            source.settimeout(None)
            while True:
                data = source.recv(65536)
                if not data:
                    break
                for payload in reader.feed(data):
                    self.frames[direction].append(payload)
                    for out in self.transform(direction, count, payload):
                        sink.sendall(frame(out))
                    count += 1
        except (OSError, FrameRefused):
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        """Drop every connection going through, as a network fault would."""
        for s in self.sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.sockets = []

    def close(self) -> None:
        self.stopped = True
        self.cut()
        self.server.close()
        self.thread.join(2)


class RemotePair:
    """A candidate (host) and an interviewer (joiner) in this process, over loopback TCP."""

    def __init__(self, entry, history_folder, via_relay: Transform | bool = False, clock=time.monotonic,
                 limiter: AttemptLimiter | None = None):
        self.entry = entry
        self.candidate_design = Design()
        self.host_transport = RemoteTransport(CANDIDATE, CandidateGuard(entry.scenario,
                                                                        lambda: set(self.candidate_design.nodes)))
        self.host_pump = MessagePump(self.host_transport)
        self.host = HostPeer(session_info(entry), LOOPBACK, 0, limiter=limiter, on_message=self.host_pump.put,
                             on_status=self.host_pump.status)
        self.host_transport.attach(self.host)
        self.candidate = CandidateLink(self.host_transport, CandidateBrief.of(entry.scenario))
        self.host.start()
        self.relay = None
        if via_relay:
            self.relay = Relay(self.host.port, via_relay if callable(via_relay) else None)
        self.history = History(history_folder)
        self.clock = clock
        self.join_transport = RemoteTransport(INTERVIEWER, hold=True)
        self.join_pump = MessagePump(self.join_transport)
        self.interviewer: InterviewerLink | None = None
        self.join_transport.on_session = self._on_session
        self.joiner: JoinPeer | None = None
        self.library = None

    def join(self, code: str | None = None, library=None) -> JoinPeer:
        from inferboard.practice.library import ScenarioLibrary

        self.library = library or ScenarioLibrary(user_packs=None).load()
        port = self.relay.port if self.relay is not None else self.host.port
        self.joiner = JoinPeer(LOOPBACK, port, code or self.host.code, on_message=self.join_pump.put,
                               on_status=self.join_pump.status)
        self.join_transport.attach(self.joiner)
        return self.joiner.start()

    def _on_session(self, info) -> None:
        entry = resolve_session(self.library, info)
        self.interviewer = InterviewerLink(self.join_transport, entry, self.history, clock=self.clock)
        self.interviewer.start()
        self.join_transport.release()

    def pump(self, until: Callable[[], bool], timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                return False
            self.host_pump.pump(timeout=0.01)
            self.join_pump.pump(timeout=0.01)
        return True

    def edit(self, design: Design) -> None:
        self.candidate_design = design
        self.candidate.design_changed(design)

    def states(self, which: str) -> list[str]:
        pump = self.host_pump if which == "host" else self.join_pump
        return [s.state for s in pump.statuses]

    def close(self) -> None:
        for peer in (self.joiner, self.host):
            if peer is not None:
                peer.end("test over")
        if self.relay is not None:
            self.relay.close()
        self.history.close()


def chain(n: int, prefix: str = "n") -> Design:
    """A design of ``n`` components in a row: a traffic source and n-1 CPU pools."""
    design = Design()
    design.add_node("traffic_source", 0, 0, {}, node_id=f"{prefix}0")
    for i in range(1, n):
        design.add_node("cpu_pool", 120 * i, 0, {}, node_id=f"{prefix}{i}")
    return design


def recv_all(sock: socket.socket) -> bytes:
    """Everything the other side sends until it closes (or 5 s of silence)."""
    sock.settimeout(5)
    chunks = []
    while True:
        try:
            data = sock.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)
