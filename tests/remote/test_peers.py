"""The two machines on loopback: joining, mirroring, refusing, resuming. 127.0.0.1 only."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from inferboard.practice.library import ScenarioLibrary
from inferboard.remote import wire
from inferboard.remote.channel import FrameReader, frame
from inferboard.remote.handshake import HandshakeFailed, HostHandshake, JoinerHandshake
from inferboard.remote.attempts import AttemptLimiter
from inferboard.store import design_to_bytes
from tests.fakes import FakeClock
from tests.remote.helpers import LOOPBACK, TO_HOST, TO_JOINER, RemotePair, chain, recv_all

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def library():
    return ScenarioLibrary(user_packs=None).load()


@pytest.fixture
def make_pair(library, tmp_path):
    pairs = []

    def make(scenario_id="eu-medical-imaging", **kwargs) -> RemotePair:
        pair = RemotePair(library.get(scenario_id), tmp_path / f"interviewer-{len(pairs)}", **kwargs)
        pairs.append(pair)
        return pair

    yield make
    for pair in pairs:
        pair.close()


def joined(pair: RemotePair, **kwargs) -> RemotePair:
    pair.join(**kwargs)
    assert pair.pump(lambda: pair.interviewer is not None and pair.candidate.phase is not None), \
        (pair.join_pump.statuses, pair.host.refusals)
    return pair


# ------------------------------------------------------------------------------ joining
def test_the_right_code_joins_mirrors_edits_and_carries_the_whole_interview(make_pair):
    pair = joined(make_pair(via_relay=True))
    host, joiner, candidate = pair.host, pair.joiner, pair.candidate
    assert host.keys.verification == joiner.keys.verification and "connected" in pair.states("host")
    interviewer = pair.interviewer
    assert candidate.phase.phase == "clarify"
    # edits mirror
    for n in (1, 4, 9):
        pair.edit(chain(n))
        assert pair.pump(lambda: interviewer.latest is not None and len(interviewer.latest.nodes) == n)
    # questions, answers, reveals
    candidate.ask("residency")
    assert pair.pump(lambda: len(interviewer.questions) == 1)
    interviewer.answer("residency")
    interviewer.reveal("model")
    assert pair.pump(lambda: [f.fact_id for f in candidate.facts] == ["residency", "model"])
    # a follow-up with its faults resolved to the candidate's own components
    reference = pair.entry.reference_design()
    pair.edit(reference)
    assert pair.pump(lambda: len(interviewer.latest.nodes) == len(reference.nodes))
    interviewer.play_follow_up("eu-west-down")
    assert pair.pump(lambda: len(candidate.follow_ups) == 1)
    played = candidate.follow_ups[0]
    assert played.faults and all(f[0] == "region_outage" and f[1] in reference.nodes for f in played.faults)
    # notes stay on the interviewer's machine, in its history
    interviewer.add_note("Kept EU data in EU regions")
    result = interviewer.end()
    assert pair.pump(lambda: candidate.ended)
    record = pair.history.attempt(result.result.attempt_id)
    assert record.attempt["mode"] == "mock" and record.attempt["status"] == "submitted"
    assert any(e["kind"] == "note" and "Kept EU data" in e["detail"] for e in record.events)
    # nothing readable crossed the wire: no scenario, fact, note or component name in the clear
    wire_bytes = b"".join(pair.relay.frames[TO_HOST] + pair.relay.frames[TO_JOINER])
    for secret in (pair.entry.id, "residency", "Kept EU data", next(iter(reference.nodes)), "design_changed"):
        assert secret.encode() not in wire_bytes, secret
    assert pair.host_transport.problems == [] and pair.join_transport.problems == []


def test_a_wrong_code_is_refused_and_learns_nothing_then_attempts_are_rate_limited(make_pair):
    clock = FakeClock(100.0)
    pair = make_pair(via_relay=True, limiter=AttemptLimiter(clock=clock, base_s=5, max_failures=3))
    right = pair.host.code
    number, first, second = right.split("-")
    wrong = f"{number}-{first}-{'acorn' if second != 'acorn' else 'apple'}"
    pair.join(code=wrong)
    assert pair.pump(lambda: "refused" in pair.states("join"))
    assert "wrong code" in pair.joiner.status.detail
    sent_back = [json.loads(f) for f in pair.relay.frames[TO_JOINER]]
    assert [f["kind"] for f in sent_back] == ["reply", "refused"], "a key-exchange message, then no"
    assert pair.join_transport.session is None and pair.interviewer is None
    assert any("wrong code" in r for r in pair.host.refusals)
    # a second guess straight away is turned down before any key exchange
    pair.relay.frames[TO_JOINER].clear()
    pair.joiner.end()
    pair.join_pump.statuses.clear()
    pair.join(code=wrong)
    assert pair.pump(lambda: "refused" in pair.states("join"))
    assert "too many wrong codes: try again in 5 s" in pair.joiner.status.detail
    assert [json.loads(f)["kind"] for f in pair.relay.frames[TO_JOINER]] == ["refused"]
    # once the wait is over the right code still joins, and only once
    clock.advance(5)
    pair.joiner.end()
    joined(pair, code=right)
    assert "already used" in raw_join(pair, right)
    assert pair.host.keys is not None and pair.host.code is None


def raw_join(pair: RemotePair, code: str) -> str:
    """Run a second, raw join against the host; return what the host said."""
    with socket.create_connection((LOOPBACK, pair.host.port), timeout=5) as sock:
        sock.sendall(frame(JoinerHandshake(code=code).hello()))
        return recv_all(sock).decode("utf-8", "replace")


def test_too_many_wrong_codes_retire_the_code(make_pair):
    clock = FakeClock(100.0)
    pair = make_pair(limiter=AttemptLimiter(clock=clock, base_s=1, max_failures=2))
    old = pair.host.code
    for guess in ("1-acorn-acorn", "2-acorn-acorn"):
        pair.join(code=guess)
        assert pair.pump(lambda: pair.joiner.status.state == "refused")
        pair.joiner.end()
        clock.advance(10)
    assert pair.pump(lambda: "code_replaced" in pair.states("host"))
    assert pair.host.code != old
    pair.join_pump.statuses.clear()
    pair.join(code=old)
    assert pair.pump(lambda: pair.joiner.status.state == "refused")
    assert "wrong code" in pair.joiner.status.detail, "the retired code is just another wrong one"
    pair.joiner.end()
    clock.advance(10)
    joined(pair, code=pair.host.code)


def test_exchanges_side_by_side_never_give_one_code_more_guesses_than_the_limit(make_pair):
    """Each guess counts from the start of its key exchange: with three wrong codes allowed, three
    exchanges held open use them all; a fourth is refused before any key-exchange message, and when
    the three fail the code is replaced."""
    clock = FakeClock()
    pair = make_pair(limiter=AttemptLimiter(clock=clock, base_s=1, max_failures=3))
    old = pair.host.code
    held = []
    try:
        for n in range(3):  # each sends its hello and gets the host's SPAKE2 message: one guess each
            sock = socket.create_connection((LOOPBACK, pair.host.port), timeout=5)
            sock.sendall(frame(JoinerHandshake(code=f"{n + 1}-acorn-acorn").hello()))
            reply = json.loads(FrameReader().feed(sock.recv(65536))[0])
            assert reply["kind"] == "reply"
            held.append(sock)
        assert pair.host.limiter.pending == 3
        fourth = raw_join(pair, "4-acorn-acorn")
        assert "too many guesses under way" in fourth and '"reply"' not in fourth
    finally:
        for sock in held:
            sock.close()
    assert pair.pump(lambda: "code_replaced" in pair.states("host"))
    assert pair.host.code != old and pair.host.limiter.pending == 0


# ------------------------------------------------------------------------------ frames in flight
class OneShot:
    """A relay transform that, once armed, does something to the next sealed frame to the host."""

    def __init__(self) -> None:
        self.action = None

    def __call__(self, direction, index, payload):
        if direction != TO_HOST or index < 2 or self.action is None:  # frames 0 and 1 are the handshake
            return [payload]
        action, self.action = self.action, None
        if action == "replay":
            return [payload, payload]
        if action == "swap":
            self.held = payload
            self.action = "release"
            return []
        if action == "release":
            return [payload, self.held]
        tampered = bytearray(payload)
        tampered[len(tampered) // 2] ^= 0x40
        return [bytes(tampered)]


@pytest.mark.parametrize("attack, reason", [("replay", "replayed frame"), ("tamper", "failed authentication"),
                                            ("swap", "out-of-order frame")])
def test_replayed_tampered_and_reordered_frames_are_refused_and_the_session_resumes(make_pair, attack, reason):
    transform = OneShot()
    pair = joined(make_pair(via_relay=transform))
    interviewer, candidate = pair.interviewer, pair.candidate
    transform.action = attack
    interviewer.reveal("model")
    interviewer.reveal("residency")
    assert pair.pump(lambda: any(reason in r for r in pair.host.refusals)), pair.host.refusals
    assert pair.pump(lambda: pair.relay.connections >= 2 and pair.joiner.status.state == "connected")
    assert pair.pump(lambda: len(candidate.facts) == 2)
    assert sorted(f.fact_id for f in candidate.facts) == ["model", "residency"]
    assert [f.fact_id for f in candidate.facts].count("model") == 1
    pair.edit(chain(3))
    assert pair.pump(lambda: interviewer.latest is not None and len(interviewer.latest.nodes) == 3)


# ------------------------------------------------------------------------------ someone in the middle
def relay_with_its_own_exchanges(host_port: int, code: str) -> tuple[socket.socket, dict]:
    """Listen for the interviewer; on a connection, run a host's exchange with it and a joiner's
    exchange with the candidate's machine, both with ``code``. Returns the listening socket and a
    dict the thread fills with what each exchange gave."""
    import threading

    server = socket.create_server((LOOPBACK, 0))
    out: dict = {}

    def read_frame(sock, reader, pending):
        while not pending:
            data = sock.recv(65536)
            if not data:
                raise ConnectionError("closed")
            pending.extend(reader.feed(data))
        return pending.pop(0)

    def work():
        server.settimeout(10)
        victim, _ = server.accept()
        upstream = socket.create_connection((LOOPBACK, host_port), timeout=10)
        victim.settimeout(10)
        v_reader, v_pending, u_reader, u_pending = FrameReader(), [], FrameReader(), []
        as_host, as_joiner = HostHandshake(code, None), JoinerHandshake(code=code)
        try:
            upstream.sendall(frame(as_joiner.hello()))
            victim.sendall(frame(as_host.on_hello(read_frame(victim, v_reader, v_pending))))
            upstream.sendall(frame(as_joiner.on_reply(read_frame(upstream, u_reader, u_pending))))
            confirm, _, keys = as_host.on_confirm(read_frame(victim, v_reader, v_pending))
            out["with_interviewer"] = keys.verification
            victim.sendall(frame(confirm))
            as_joiner.on_confirm(read_frame(upstream, u_reader, u_pending))
            out["with_candidate"] = as_joiner.keys.verification
        except (HandshakeFailed, ConnectionError, OSError) as error:
            out["failed"] = str(error)
        out["done"] = True

    threading.Thread(target=work, daemon=True).start()
    return server, out


def test_a_relay_running_its_own_exchange_without_the_code_fails_on_both_sides(make_pair):
    pair = make_pair()
    server, out = relay_with_its_own_exchanges(pair.host.port, "1-acorn-acorn")
    pair.joiner = None
    from inferboard.remote.peer import JoinPeer

    joiner = JoinPeer(LOOPBACK, server.getsockname()[1], pair.host.code, on_status=pair.join_pump.status)
    joiner.start()
    assert pair.pump(lambda: joiner.status.state == "refused" and out.get("done"))
    server.close()
    assert "wrong code" in out["failed"] or "refused" in out["failed"]
    assert any("wrong code" in r for r in pair.host.refusals), "the candidate's machine caught it"
    assert joiner.status.state == "refused" and joiner.keys is None, "the interviewer's machine got no session"
    assert pair.host.keys is None and pair.join_transport.session is None


def test_a_relay_that_overheard_the_code_shows_as_different_verification_strings(make_pair):
    pair = make_pair()
    server, out = relay_with_its_own_exchanges(pair.host.port, pair.host.code)
    from inferboard.remote.peer import JoinPeer

    joiner = JoinPeer(LOOPBACK, server.getsockname()[1], pair.host.code, on_status=pair.join_pump.status)
    joiner.start()
    assert pair.pump(lambda: out.get("done") and joiner.keys is not None and pair.host.keys is not None)
    server.close()
    assert "failed" not in out
    assert out["with_candidate"] == pair.host.keys.verification
    assert out["with_interviewer"] == joiner.keys.verification
    assert pair.host.keys.verification != joiner.keys.verification, "the two people read out different strings"
    joiner.end()


# ------------------------------------------------------------------------------ malformed input
def junk_frames(count: int, joiner_session: str):
    """Frames a stranger (or a broken client) might send: every kind refused, none a code guess."""
    hello = json.loads(JoinerHandshake(code="1-acorn-acorn").hello())
    kinds = [
        lambda n: b"\xff\xff\xff\xff" + os.urandom(16),  # a length of 4 GiB
        lambda n: (2_000_000 + n).to_bytes(4, "big") + b"{",  # over the handshake cap
        lambda n: frame(os.urandom(n % 700)),
        lambda n: frame(b"{" * (n % 300)),
        lambda n: frame(json.dumps({**hello, "extra": n}).encode()),
        lambda n: frame(json.dumps({**hello, "pake": "zz" * 33}).encode()),
        lambda n: frame(json.dumps({"kind": "resume", "protocol": wire.PROTOCOL, "session": f"{n:032x}",
                                    "nonce": "00" * 16}).encode()),
        lambda n: frame(json.dumps({"kind": "resume", "protocol": wire.PROTOCOL, "session": joiner_session,
                                    "nonce": "00" * 16}).encode()) + frame(b'{"kind":"confirm","mac":"' +
                                                                            b"0" * 64 + b'"}'),
        lambda n: frame(json.dumps({"mid": n, "msg": {"type": "design_changed", "design_json": "{}"}}).encode()),
        lambda n: frame(b""),
    ]
    return [kinds[n % len(kinds)](n) for n in range(count)]


def test_a_thousand_malformed_and_huge_frames_are_refused_while_the_session_carries_on(make_pair):
    pair = joined(make_pair())
    interviewer = pair.interviewer
    pair.edit(chain(2))
    assert pair.pump(lambda: interviewer.latest is not None and len(interviewer.latest.nodes) == 2)
    before = len(pair.host.refusals)
    frames = junk_frames(1000, pair.host.keys.session_id.hex())
    for n, data in enumerate(frames):
        with socket.create_connection((LOOPBACK, pair.host.port), timeout=5) as sock:
            try:
                sock.sendall(data)
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            answer = recv_all(sock)
        assert b"design" not in answer and len(answer) < 600, n
        if n % 100 == 0:
            pair.pump(lambda: False, timeout=0.01)
    assert pair.pump(lambda: len(pair.host.refusals) - before >= 1000, timeout=20), len(pair.host.refusals)
    # An authenticated interviewer that tries to send a design (to edit the candidate's): refused too.
    attempt = wire.dump(wire.Envelope(mid=99, msg=wire.DesignChanged(type="design_changed", design_json="{}")))
    asyncio.run_coroutine_threadsafe(pair.joiner._write(pair.joiner.link, attempt), pair.joiner.loop).result(5)
    assert pair.pump(lambda: any("does not take 'design_changed'" in r for r in pair.host.refusals))
    # The session carried on: still joined (resumed), the code spent, the design untouched, edits mirror.
    assert pair.pump(lambda: pair.joiner.status.state == "connected")
    assert pair.host.code is None and pair.host.keys is not None
    assert design_to_bytes(pair.candidate_design) == design_to_bytes(chain(2))
    pair.edit(chain(6))
    assert pair.pump(lambda: len(interviewer.latest.nodes) == 6)
    assert pair.interviewer.session.state == "running" and pair.candidate.ended is False
    reasons = {r.split(": ", 1)[1].split(" ")[0] for r in pair.host.refusals[before:]}
    assert len(reasons) >= 5, reasons


# ------------------------------------------------------------------------------ drops
def test_a_dropped_connection_shows_on_both_sides_and_resumes_without_losing_work(make_pair):
    pair = joined(make_pair(via_relay=True))
    interviewer, candidate = pair.interviewer, pair.candidate
    verification = pair.host.keys.verification
    pair.edit(chain(3))
    assert pair.pump(lambda: interviewer.latest is not None and len(interviewer.latest.nodes) == 3)
    pair.relay.cut()
    assert pair.pump(lambda: "lost" in pair.states("host") and "lost" in pair.states("join"))
    # both sides keep working while the line is down
    for n in (4, 5, 7):
        pair.edit(chain(n))
    candidate.ask("residency")
    interviewer.reveal("model")
    assert pair.pump(lambda: interviewer.latest is not None and len(interviewer.latest.nodes) == 7)
    assert pair.pump(lambda: [f.fact_id for f in candidate.facts] == ["model"]
                     and [q.question_id for _, q in interviewer.questions] == ["residency"])
    assert "reconnecting" in pair.states("join") and pair.states("host")[-1] == "connected"
    assert pair.joiner.keys.verification == verification, "the same session keys"
    assert pair.relay.connections == 2
    # the end of the session forgets the keys: no more resuming
    pair.host.end("candidate ended the session")
    assert pair.pump(lambda: pair.joiner.status.state == "ended")
    assert "candidate ended the session" in pair.joiner.status.detail
    assert pair.host.keys is None and pair.host.code is None


def raw_resume(pair: RemotePair, keys) -> str:
    """Try to resume the session with ``keys`` over a raw connection; return what the host said."""
    with socket.create_connection((LOOPBACK, pair.host.port), timeout=5) as sock:
        sock.sendall(frame(JoinerHandshake(keys=keys).hello()))
        return recv_all(sock).decode("utf-8", "replace")


def test_an_interviewer_whose_app_restarted_joins_again_with_a_new_code(make_pair):
    from inferboard.practice.interview_link import INTERVIEWER
    from inferboard.remote.interview import MessagePump, RemoteTransport

    pair = joined(make_pair())
    pair.edit(chain(3))
    assert pair.pump(lambda: pair.interviewer.latest is not None and len(pair.interviewer.latest.nodes) == 3)
    uid = pair.join_transport.session["session_uid"]
    first_code, old_keys = pair.joiner.code, pair.joiner.keys
    with pytest.raises(RuntimeError, match="is connected"):
        pair.host.new_code()
    # the interviewer's app stops without saying goodbye: the keys are gone with it
    pair.joiner.ended = True
    pair.joiner.cut_connection()
    assert pair.pump(lambda: "lost" in pair.states("host"))
    code = pair.host.new_code()
    assert pair.pump(lambda: "rejoin" in pair.states("host")) and pair.host.code == code != first_code
    # the restarted app: a new transport, link and peer, joining with the new code
    pair.join_transport = RemoteTransport(INTERVIEWER, hold=True)
    pair.join_pump = MessagePump(pair.join_transport)
    pair.join_transport.on_session = pair._on_session
    pair.interviewer = None
    joined(pair, code=code)
    assert pair.join_transport.session["session_uid"] == uid, "the same session, for the record to carry on"
    assert pair.joiner.keys.verification == pair.host.keys.verification != old_keys.verification
    assert pair.host.joins == 2 and pair.host.code is None
    pair.edit(chain(4))  # the candidate's window sends its design again when the interviewer is back
    assert pair.pump(lambda: pair.interviewer.latest is not None and len(pair.interviewer.latest.nodes) == 4)
    pair.candidate.ask("residency")
    assert pair.pump(lambda: [q.question_id for _, q in pair.interviewer.questions] == ["residency"])
    pair.interviewer.answer("residency")
    assert pair.pump(lambda: "residency" in [f.fact_id for f in pair.candidate.facts])
    # the old keys resume nothing, and the new code was single-use
    assert "no such session to resume" in raw_resume(pair, old_keys)
    assert "already used" in raw_join(pair, code)


def test_a_new_code_is_withdrawn_when_the_interviewer_comes_back_by_themselves(make_pair, monkeypatch):
    from inferboard.remote import peer

    monkeypatch.setattr(peer, "RECONNECT_DELAYS_S", (1.5,))  # time to ask for a new code meanwhile
    pair = joined(make_pair(via_relay=True))
    pair.relay.cut()
    assert pair.pump(lambda: "lost" in pair.states("host"))
    code = pair.host.new_code()
    assert pair.host.code == code
    assert pair.pump(lambda: pair.states("host")[-1] == "connected" and pair.states("join")[-1] == "connected")
    assert pair.host.code is None and pair.host.joins == 1, "resumed with the old keys; the new code is void"
    assert "already used" in raw_join(pair, code)


# ------------------------------------------------------------------------------ two processes
@pytest.mark.slow
def test_two_processes_join_and_mirror(make_pair, tmp_path):
    pair = make_pair("fraud-scoring-cpu")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "inferboard.remote.headless", "join", "--address", LOOPBACK,
                              "--port", str(pair.host.port), "--code", pair.host.code, "--seconds", "60",
                              "--history", str(tmp_path / "child-history")],
                             cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert pair.pump(lambda: pair.candidate.phase is not None, timeout=30), pair.host.refusals
        pair.edit(chain(7))
        pair.candidate.ask(pair.entry.scenario.questions[0].id)
        reveals = pair.entry.scenario.questions[0].reveals
        assert pair.pump(lambda: {f.fact_id for f in pair.candidate.facts} == set(reveals), timeout=20)
        verification = pair.host.keys.verification
        pair.host.end("done")
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 0, err[-2000:]
    events = [json.loads(line) for line in out.splitlines()]
    assert {"event": "design", "nodes": 7} in events
    assert any(e.get("verification") == verification and e.get("state") == "connected" for e in events)
    assert any(e["event"] == "ended" for e in events), "the interviewer's machine stored the attempt"
