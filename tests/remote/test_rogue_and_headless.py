"""Rogue key-exchange values, stalled key exchanges and the headless check on loopback (127.0.0.1
only; every wait is bounded)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from inferboard.practice.library import ScenarioLibrary, user_packs_dir
from inferboard.remote import headless, wire
from inferboard.remote.channel import FrameReader, frame
from inferboard.remote.handshake import HandshakeFailed, HostHandshake, JoinerHandshake
from inferboard.remote.peer import JoinPeer
from tests.practice.conftest import copy_pack
from tests.remote.helpers import LOOPBACK, RemotePair, recv_all

ROOT = Path(__file__).resolve().parents[2]
#: A SPAKE2 message of the right length whose point is not in the group, and one not on the curve.
ROGUE_VALUES = ["41" + "ff" * 32, "41" + "02" * 32]


@pytest.fixture(scope="module")
def library():
    return ScenarioLibrary(user_packs=None).load()


@pytest.fixture
def pair(library, tmp_path):
    made = RemotePair(library.get("fraud-scoring-cpu"), tmp_path / "interviewer")
    yield made
    made.close()


def rogue_hello(value: str) -> bytes:
    return wire.dump(wire.JoinHello(kind="join", protocol=wire.PROTOCOL, pake=value, nonce="00" * 16))


@pytest.mark.parametrize("value", ROGUE_VALUES)
def test_a_value_outside_the_group_is_a_failed_handshake_on_both_sides(value):
    with pytest.raises(HandshakeFailed, match="key exchange failed"):
        HostHandshake("1-acorn-acorn", None).on_hello(rogue_hello(value))
    joiner = JoinerHandshake(code="1-acorn-acorn")
    joiner.hello()
    reply = wire.dump(wire.HostReply(kind="reply", pake=value, nonce="00" * 16))
    with pytest.raises(HandshakeFailed, match="key exchange failed"):
        joiner.on_reply(reply)


@pytest.mark.parametrize("value", ROGUE_VALUES)
def test_the_host_refuses_a_rogue_value_cleanly_and_a_real_join_still_works(pair, value):
    with socket.create_connection((LOOPBACK, pair.host.port), timeout=5) as sock:
        sock.sendall(frame(rogue_hello(value)))
        answers = FrameReader(1 << 20).feed(recv_all(sock))
    assert [json.loads(a)["kind"] for a in answers] == ["refused"]
    assert "key exchange failed" in json.loads(answers[0])["reason"]
    assert any("key exchange failed" in r for r in pair.host.refusals)
    pair.join()
    assert pair.pump(lambda: pair.interviewer is not None and pair.candidate.phase is not None)


def test_an_interviewer_facing_a_rogue_host_sees_refused(tmp_path):
    server = socket.create_server((LOOPBACK, 0))
    port = server.getsockname()[1]

    def rogue_host():
        conn, _ = server.accept()
        with conn:
            conn.settimeout(5)
            FrameReader(1 << 16).feed(conn.recv(65536))
            conn.sendall(frame(wire.dump(wire.HostReply(kind="reply", pake=ROGUE_VALUES[0], nonce="00" * 16))))
            try:
                conn.recv(65536)
            except OSError:
                pass

    thread = threading.Thread(target=rogue_host, daemon=True)
    thread.start()
    statuses = []
    peer = JoinPeer(LOOPBACK, port, "1-acorn-acorn", on_status=statuses.append).start()
    try:
        thread.join(10)
        peer.thread.join(10)
    finally:
        peer.end()
        server.close()
    assert statuses[-1].state == "refused" and "key exchange failed" in statuses[-1].detail


def test_a_stalled_key_exchange_does_not_hold_up_a_real_join(pair):
    stalled = socket.create_connection((LOOPBACK, pair.host.port), timeout=5)
    try:
        stalled.sendall(frame(JoinerHandshake(code="9-acorn-acorn").hello()))
        stalled.settimeout(5)
        assert FrameReader(1 << 16).feed(stalled.recv(65536)), "the host answered the stalled exchange"
        # ... which now never confirms. A real interviewer joins meanwhile:
        pair.join()
        assert pair.pump(lambda: pair.interviewer is not None and pair.candidate.phase is not None)
        assert not any("took too long" in r for r in pair.host.refusals), "joined while the stall was still open"
    finally:
        stalled.close()


# ------------------------------------------------------------------------------ headless
def test_an_unknown_scenario_is_one_line_and_exit_2(capsys):
    assert headless.main(["host", "--scenario", "no-such\x1b[2J", "--seconds", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such scenario" in err[0] and "\x1b" not in err[0] and "fraud-scoring-cpu" in err[0]


@pytest.mark.parametrize("argv, named", [(["join", "--port", "1", "--code", "hello"], "--code"),
                                         (["join", "--port", "1", "--code", "7-amber-falcon", "--seconds", "nan"],
                                          "--seconds"),
                                         (["host", "--scenario", "x", "--port", "70000"], "--port"),
                                         (["join", "--port", "abc", "--code", "7-amber-falcon"], "--port"),
                                         (["join", "--code", "7-amber-falcon"], "--port")])
def test_bad_arguments_are_one_line_and_exit_2(capsys, argv, named):
    assert headless.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and named in err[0]


def test_a_refused_join_says_why_in_one_line(capsys):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind((LOOPBACK, 0))
        port = sock.getsockname()[1]
    assert headless.main(["join", "--port", str(port), "--code", "7-amber-falcon", "--seconds", "5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"{headless.PROG} join: refused: could not reach")


def test_host_finds_an_imported_pack_without_data(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    source = copy_pack(tmp_path / "packs" / "extra", ["fraud-scoring-cpu"])
    zipped = ScenarioLibrary(user_packs=source.parent).load().export("extra", tmp_path / "extra.zip")
    ScenarioLibrary(user_packs=user_packs_dir()).import_pack(zipped)
    assert user_packs_dir().is_relative_to(tmp_path)
    entry = headless.find_scenario(headless.library(None), "extra-fraud-scoring-cpu")
    assert entry.pack_id == "extra"


@pytest.mark.slow  # two Python processes
def test_headless_host_and_join_with_a_spoken_code_both_stop_with_0(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    command = [sys.executable, "-m", "inferboard.remote.headless"]
    host = subprocess.Popen(command + ["host", "--scenario", "fraud-scoring-cpu", "--seconds", "60"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        listening = next(e for e in map(json.loads, host.stdout) if e["event"] == "listening")
        number, first, second = listening["code"].split("-")
        spoken = f"  {number} {first[:3].upper()}   {second.title()} "
        join = subprocess.run(command + ["join", "--port", str(listening["port"]), "--code", spoken, "--seconds", "60",
                                         "--history", str(tmp_path / "history")],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=90)
        host_out, host_err = host.communicate(timeout=30)
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate()
    assert join.returncode == 0, join.stderr[-2000:]
    assert host.returncode == 0, host_err[-2000:]
    events = [json.loads(line) for line in join.stdout.splitlines()]
    assert {"event": "design", "nodes": 0} in events
    assert any(e["event"] == "question" for e in events) and any(e["event"] == "ended" for e in events)
    assert '"interview_ended"' in host_out
