"""The join code, the sealed channel, the message schemas and the handshake, without a network."""

from __future__ import annotations

import json
import os
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inferboard.remote import wire
from inferboard.remote.channel import MAX_HANDSHAKE_FRAME, FrameReader, FrameRefused, SealedChannel, frame
from inferboard.remote.handshake import HandshakeFailed, HostHandshake, JoinerHandshake, SessionKeys
from inferboard.remote.words import WORDS, BadCode, make_code, normalize_code


# ------------------------------------------------------------------------------ codes
def test_codes_are_a_number_and_two_distinct_sounding_words():
    assert len(WORDS) == 256 == len({w[:3] for w in WORDS}), "a 3-letter prefix names one word"
    assert all(w.isalpha() and w.islower() and 3 <= len(w) <= 8 for w in WORDS)
    codes = {make_code() for _ in range(200)}
    assert len(codes) > 190
    for code in codes:
        number, first, second = code.split("-")
        assert 1 <= int(number) <= 999 and first in WORDS and second in WORDS
        assert normalize_code(code) == code


def test_typed_codes_are_forgiving_but_never_ambiguous():
    assert normalize_code("  07 Amber FALCON ") == "7-amber-falcon"
    assert normalize_code("7.amb.fal") == "7-amber-falcon"
    for bad, why in (("7-amber", "a number and two words"), ("0-amber-falcon", "from 1 to 999"),
                     ("7-am-falcon", "'am' is not one"), ("7-amberx-falcon", "'amberx' is not one"),
                     ("seven-amber-falcon", "starts with a number")):
        with pytest.raises(BadCode, match=why):
            normalize_code(bad)


# ------------------------------------------------------------------------------ channel
def pair_of_channels():
    a, b = os.urandom(32), os.urandom(32)
    return SealedChannel(a, b, b"ab", b"ba"), SealedChannel(b, a, b"ba", b"ab")


def test_sealed_frames_round_trip_and_hide_their_content():
    alice, bob = pair_of_channels()
    sealed = [alice.seal(f"message {n}".encode()) for n in range(3)]
    assert all(b"message" not in s for s in sealed)
    assert [bob.open(s) for s in sealed] == [b"message 0", b"message 1", b"message 2"]
    assert alice.open(bob.seal(b"reply")) == b"reply"


def test_replayed_reordered_tampered_and_reflected_frames_are_refused():
    alice, bob = pair_of_channels()
    first, second, third = (alice.seal(b"one"), alice.seal(b"two"), alice.seal(b"three"))
    with pytest.raises(FrameRefused, match="out-of-order frame: number 1 where 0 was due"):
        bob.open(second)
    assert bob.open(first) == b"one"
    with pytest.raises(FrameRefused, match="replayed frame: number 0"):
        bob.open(first)
    flipped = bytearray(second)
    flipped[-1] ^= 0x01
    with pytest.raises(FrameRefused, match="failed authentication"):
        bob.open(bytes(flipped))
    renumbered = struct.pack(">Q", 1) + third[8:]  # frame 2's body under frame 1's number
    with pytest.raises(FrameRefused, match="failed authentication"):
        bob.open(renumbered)
    assert bob.open(second) == b"two", "a refused frame does not move the sequence on"
    with pytest.raises(FrameRefused, match="failed authentication"):
        alice.open(first)  # reflected back at its sender
    with pytest.raises(FrameRefused, match="too short"):
        bob.open(b"\x00" * 10)


def test_the_frame_reader_refuses_a_huge_frame_from_its_length_alone():
    reader = FrameReader(max_frame=1024)
    assert reader.feed(frame(b"a") + frame(b"bc")[:3]) == [b"a"]
    assert reader.feed(frame(b"bc")[3:]) == [b"bc"]
    with pytest.raises(FrameRefused, match="4294967295 bytes is over the 1024-byte limit"):
        reader.feed(b"\xff\xff\xff\xff")
    assert reader.buffer == bytearray()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chunks=st.lists(st.binary(max_size=600), max_size=12))
def test_fuzz_the_frame_parser_never_fails_any_other_way(chunks):
    """Arbitrary bytes, cut anywhere: frames come out whole or FrameRefused; nothing else."""
    reader = FrameReader(MAX_HANDSHAKE_FRAME)
    stream = b"".join(chunks)
    out = []
    try:
        for chunk in chunks:
            out += reader.feed(chunk)
    except FrameRefused:
        return
    rebuilt = b"".join(frame(f) for f in out)
    assert stream.startswith(rebuilt) and len(stream) - len(rebuilt) == len(reader.buffer)
    assert all(len(f) <= MAX_HANDSHAKE_FRAME for f in out)


@settings(max_examples=300, deadline=None)
@given(body=st.one_of(st.binary(max_size=300), st.builds(lambda v: json.dumps(v).encode(), st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(
        ["mid", "msg", "type", "text", "design_json", "question_id", "upto", "received", "extra"]), inner,
        max_size=4), max_leaves=12))))
def test_fuzz_every_parser_behind_the_frame_refuses_cleanly(body):
    """Whatever a frame holds, the sealed channel, the envelope and the handshake schemas either
    take it or raise their own refusal; no other exception escapes."""
    alice, bob = pair_of_channels()
    for side in (wire.TO_CANDIDATE, wire.TO_INTERVIEWER):
        try:
            wire.envelope(body, side)
        except wire.WireError:
            pass
    with pytest.raises(FrameRefused):
        bob.open(body)
    assert bob.open(alice.seal(body)) == body
    for adapter in (wire.HELLO, wire.HOST_ANSWER, wire.HOST_CONFIRM):
        try:
            wire.load(adapter, body)
        except wire.WireError:
            pass
    host = HostHandshake("7-amber-falcon", None)
    with pytest.raises(HandshakeFailed):
        host.on_hello(body)


# ------------------------------------------------------------------------------ schemas
def test_messages_refuse_unknown_fields_wrong_types_and_the_wrong_direction():
    good = {"mid": 0, "msg": {"type": "question_asked", "question_id": None, "text": "How many users?"}}
    assert wire.envelope(json.dumps(good).encode(), wire.TO_INTERVIEWER).msg.text == "How many users?"
    cases = {
        "extra field": {**good, "msg": {**good["msg"], "admin": True}},
        "string for a number": {**good, "mid": "0"},
        "too long": {**good, "msg": {**good["msg"], "text": "x" * 1001}},
        "no number": {"msg": good["msg"]},
        "number on a control message": {"mid": 3, "msg": {"type": "ping"}},
        "unknown type": {"mid": 0, "msg": {"type": "run_code", "code": "rm -rf /"}},
    }
    for name, data in cases.items():
        with pytest.raises(wire.WireError):
            wire.envelope(json.dumps(data).encode(), wire.TO_INTERVIEWER)
        assert name
    design = {"mid": 1, "msg": {"type": "design_changed", "design_json": "{}"}}
    with pytest.raises(wire.WireError, match="does not take 'design_changed'"):
        wire.envelope(json.dumps(design).encode(), wire.TO_CANDIDATE)  # the interviewer cannot send a design


# ------------------------------------------------------------------------------ handshake
def run(joiner: JoinerHandshake, host: HostHandshake):
    """Drive both sides in memory; returns (joiner channel, host channel, host keys)."""
    reply = host.on_hello(joiner.hello())
    confirm = joiner.on_reply(reply)
    host_confirm, host_channel, keys = host.on_confirm(confirm)
    return joiner.on_confirm(host_confirm), host_channel, keys


def test_the_right_code_gives_both_sides_the_same_keys_and_verification_string():
    code = make_code()
    joiner, host = JoinerHandshake(code=code), HostHandshake(code, None)
    joiner_channel, host_channel, keys = run(joiner, host)
    assert joiner.keys == keys and len(keys.master) == 32
    assert len(keys.verification) == 7 and keys.verification[3] == " "
    assert host_channel.open(joiner_channel.seal(b"hello")) == b"hello"
    assert joiner_channel.open(host_channel.seal(b"back")) == b"back"


def test_a_wrong_code_fails_at_the_host_before_the_host_sends_anything_keyed():
    host = HostHandshake("7-amber-falcon", None)
    joiner = JoinerHandshake(code="7-amber-fable")
    reply = host.on_hello(joiner.hello())
    assert set(json.loads(reply)) == {"kind", "pake", "nonce"}, "only the key-exchange message and a nonce"
    with pytest.raises(HandshakeFailed, match="wrong code") as failed:
        host.on_confirm(joiner.on_reply(reply))
    assert failed.value.wrong_code


def test_resuming_needs_the_session_keys_and_gets_fresh_traffic_keys():
    code = make_code()
    _, first_channel, keys = run(JoinerHandshake(code=code), HostHandshake(code, None))
    joiner_channel, host_channel, again = run(JoinerHandshake(keys=keys), HostHandshake(None, keys))
    assert again == keys
    sealed = joiner_channel.seal(b"after the drop")
    assert host_channel.open(sealed) == b"after the drop"
    with pytest.raises(FrameRefused, match="failed authentication"):
        first_channel.open(sealed)  # the old connection's keys do not open it
    impostor = SessionKeys(os.urandom(32), keys.session_id, keys.verification)  # knows the public handle only
    host = HostHandshake(None, keys)
    with pytest.raises(HandshakeFailed, match="other keys"):
        host.on_confirm(JoinerHandshake(keys=impostor).on_reply(host.on_hello(JoinerHandshake(keys=impostor).hello())))
    with pytest.raises(HandshakeFailed, match="already used"):
        HostHandshake(None, keys).on_hello(JoinerHandshake(code=code).hello())


class MiddleRelay:
    """Sits between the two machines and runs its own exchange with each, with a code it guessed."""

    def __init__(self, guessed_code: str):
        self.towards_host = JoinerHandshake(code=guessed_code)
        self.towards_joiner = HostHandshake(guessed_code, None)


def test_a_relay_in_the_middle_with_a_guessed_code_makes_the_key_exchange_fail_on_both_sides():
    code = "7-amber-falcon"
    host, joiner, relay = HostHandshake(code, None), JoinerHandshake(code=code), MiddleRelay("7-amber-fable")
    # interviewer <-> relay
    relay_confirm_in = relay.towards_joiner.on_hello(joiner.hello())
    joiner_confirm = joiner.on_reply(relay_confirm_in)
    with pytest.raises(HandshakeFailed, match="wrong code"):
        relay.towards_joiner.on_confirm(joiner_confirm)
    # relay <-> candidate
    to_host = relay.towards_host.on_reply(host.on_hello(relay.towards_host.hello()))
    with pytest.raises(HandshakeFailed, match="wrong code"):
        host.on_confirm(to_host)
    # even if the relay passes on a confirmation of its own making, the interviewer refuses it
    with pytest.raises(HandshakeFailed):
        joiner.on_confirm(wire.dump(wire.Confirm(kind="confirm", mac=os.urandom(32).hex())))


def test_a_relay_that_overheard_the_code_is_caught_by_the_verification_strings():
    code = "7-amber-falcon"
    host, joiner, relay = HostHandshake(code, None), JoinerHandshake(code=code), MiddleRelay(code)
    _, _, host_keys = run(relay.towards_host, host)
    _, _, joiner_side_keys = run(joiner, relay.towards_joiner)
    assert host_keys.verification != joiner.keys.verification, "the two people read out different strings"
    assert host_keys.master != joiner_side_keys.master
    assert joiner.keys == joiner_side_keys and relay.towards_host.keys == host_keys
