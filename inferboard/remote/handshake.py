"""The handshake: SPAKE2 keyed by the join code, then HKDF for every key, then key confirmation.

Sans-IO: these classes turn received bytes into bytes to send, so the same code runs on a socket,
in a test's memory, or through a relay that tries to sit in the middle.

A fresh join::

    interviewer -> candidate   JoinHello   (SPAKE2 message A, nonce)
    candidate   -> interviewer HostReply   (SPAKE2 message B, nonce)
    interviewer -> candidate   Confirm     (MAC under the interviewer's confirmation key)
    candidate   -> interviewer Confirm     (MAC under the candidate's confirmation key)

Both sides get the SPAKE2 key only if both typed the same code; the candidate's machine checks the
interviewer's MAC before it sends anything derived from that key, so a wrong code learns nothing
but "wrong". The SPAKE2 key is the session's master key: HKDF (SHA-256) derives from it a public
session handle, the verification string, and per connection (salted with both nonces) the two
traffic keys and the two confirmation keys. A resumed connection skips SPAKE2 and proves it holds
the same master key by the same confirmation step, so a reconnect needs no code and gets fresh
traffic keys (its frame numbers start again without ever reusing a nonce under a key).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from spake2 import SPAKE2_A, SPAKE2_B

from inferboard.remote import wire
from inferboard.remote.channel import SealedChannel
from inferboard.remote.words import verification_string

INTERVIEWER_ID = b"inferboard-interviewer"
CANDIDATE_ID = b"inferboard-candidate"
TO_CANDIDATE = b"inferboard interviewer->candidate"
TO_INTERVIEWER = b"inferboard candidate->interviewer"


class HandshakeFailed(Exception):
    """The exchange did not end with shared keys. ``wrong_code`` tells a bad guess from a bad message."""

    def __init__(self, reason: str, wrong_code: bool = False):
        super().__init__(reason)
        self.wrong_code = wrong_code


def hkdf(key: bytes, info: bytes, salt: bytes | None = None, length: int = 32) -> bytes:
    """HKDF-SHA256 of ``key`` for purpose ``info``."""
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(key)


def mac(key: bytes, data: bytes) -> bytes:
    """HMAC-SHA256 of ``data`` under ``key``."""
    h = hmac.HMAC(key, hashes.SHA256())
    h.update(data)
    return h.finalize()


def mac_ok(key: bytes, data: bytes, tag: bytes) -> bool:
    """Whether ``tag`` is the HMAC of ``data`` under ``key`` (compared in constant time)."""
    h = hmac.HMAC(key, hashes.SHA256())
    h.update(data)
    try:
        h.verify(tag)  # constant time
    except Exception:
        return False
    return True


@dataclass(frozen=True)
class SessionKeys:
    """What both machines hold after a successful join, for as long as the session lasts."""

    master: bytes
    session_id: bytes
    verification: str

    @classmethod
    def from_master(cls, master: bytes) -> "SessionKeys":
        """The session's handle and verification string, derived from the shared master key."""
        return cls(master, hkdf(master, b"inferboard session handle", length=16),
                   verification_string(hkdf(master, b"inferboard verification string", length=8)))


@dataclass(frozen=True)
class ConnectionKeys:
    """The keys of one connection: one per direction and one per side's confirmation."""

    to_candidate: bytes
    to_interviewer: bytes
    interviewer_confirm: bytes
    candidate_confirm: bytes
    transcript: bytes

    @classmethod
    def derive(cls, master: bytes, interviewer_nonce: bytes, candidate_nonce: bytes) -> "ConnectionKeys":
        """Derive a connection's keys from the master key and both sides' fresh nonces."""
        salt = interviewer_nonce + candidate_nonce
        return cls(hkdf(master, TO_CANDIDATE, salt), hkdf(master, TO_INTERVIEWER, salt),
                   hkdf(master, b"inferboard interviewer confirms", salt),
                   hkdf(master, b"inferboard candidate confirms", salt), salt)

    def channel(self, side: str) -> SealedChannel:
        """The sealed channel for ``side`` ("candidate" or "interviewer")."""
        if side == "candidate":
            return SealedChannel(self.to_interviewer, self.to_candidate, TO_INTERVIEWER, TO_CANDIDATE)
        return SealedChannel(self.to_candidate, self.to_interviewer, TO_CANDIDATE, TO_INTERVIEWER)


def _load(adapter, data: bytes, what: str):
    try:
        return wire.load(adapter, data)
    except wire.WireError as error:
        raise HandshakeFailed(f"malformed {what}: {error}") from None


def _finish(pake: SPAKE2_A | SPAKE2_B, message_hex: str) -> bytes:
    """The SPAKE2 key from the other side's message; HandshakeFailed when that message is not a
    valid group element (or not even hex), so it goes down the same refusal path as a bad code."""
    try:
        return pake.finish(bytes.fromhex(message_hex))
    except Exception as error:  # SPAKEError, ValueError, or the point decoder's NotOnCurve
        raise HandshakeFailed(f"key exchange failed: {type(error).__name__}") from None


# ------------------------------------------------------------------------------ interviewer
class JoinerHandshake:
    """The interviewer's side. With ``keys`` it resumes that session instead of joining with a code."""

    def __init__(self, code: str | None = None, keys: SessionKeys | None = None):
        if (code is None) == (keys is None):
            raise ValueError("join with a code, or resume with session keys")
        self.code = code
        self.keys = keys
        self.nonce = os.urandom(16)
        self.pake = SPAKE2_A(code.encode("utf-8"), idA=INTERVIEWER_ID, idB=CANDIDATE_ID) if code else None
        self.connection: ConnectionKeys | None = None

    def hello(self) -> bytes:
        """The first message: a join (with the PAKE's first half) or a resume of a known session."""
        if self.pake is not None:
            return wire.dump(wire.JoinHello(kind="join", protocol=wire.PROTOCOL, pake=self.pake.start().hex(),
                                            nonce=self.nonce.hex()))
        return wire.dump(wire.ResumeHello(kind="resume", protocol=wire.PROTOCOL, session=self.keys.session_id.hex(),
                                          nonce=self.nonce.hex()))

    def on_reply(self, data: bytes) -> bytes:
        """The candidate's reply -> our confirmation to send."""
        reply = _load(wire.HOST_ANSWER, data, "reply")
        if isinstance(reply, wire.Refused):
            raise HandshakeFailed(f"the candidate's machine refused: {reply.reason}")
        if self.pake is not None:
            if reply.pake is None:
                raise HandshakeFailed("the reply has no key-exchange message")
            self.keys = SessionKeys.from_master(_finish(self.pake, reply.pake))
        elif reply.pake is not None:
            raise HandshakeFailed("a key-exchange message in a resumed connection")
        self.connection = ConnectionKeys.derive(self.keys.master, self.nonce, bytes.fromhex(reply.nonce))
        tag = mac(self.connection.interviewer_confirm, b"interviewer" + self.connection.transcript)
        return wire.dump(wire.Confirm(kind="confirm", mac=tag.hex()))

    def on_confirm(self, data: bytes) -> SealedChannel:
        """The candidate's confirmation -> the sealed channel; HandshakeFailed if the keys differ."""
        answer = _load(wire.HOST_CONFIRM, data, "confirmation")
        if isinstance(answer, wire.Refused):
            raise HandshakeFailed(f"the candidate's machine refused: {answer.reason}",
                                  wrong_code=answer.reason.startswith("wrong code"))
        assert self.connection is not None
        if not mac_ok(self.connection.candidate_confirm, b"candidate" + self.connection.transcript,
                      bytes.fromhex(answer.mac)):
            raise HandshakeFailed("the other machine does not hold the same key: wrong code, or someone in between",
                                  wrong_code=True)
        return self.connection.channel("interviewer")


# ------------------------------------------------------------------------------ candidate
class HostHandshake:
    """The candidate's side of one connection. ``code`` is None once it was used; ``keys`` are the
    session's keys once someone joined (only a resume is taken then)."""

    def __init__(self, code: str | None, keys: SessionKeys | None):
        self.code = code
        self.keys = keys
        self.nonce = os.urandom(16)
        self.resuming = False
        self.connection: ConnectionKeys | None = None
        self.new_keys: SessionKeys | None = None

    def on_hello(self, data: bytes) -> bytes:
        """Answer a join or resume; raises HandshakeRefused for an unknown session or a bad message."""
        hello = _load(wire.HELLO, data, "hello")
        if isinstance(hello, wire.ResumeHello):
            if self.keys is None or hello.session != self.keys.session_id.hex():
                raise HandshakeFailed("no such session to resume")
            self.resuming = True
            keys, pake_out = self.keys, None
        else:
            if self.code is None:
                raise HandshakeFailed("the join code was already used or has expired")
            pake = SPAKE2_B(self.code.encode("utf-8"), idA=INTERVIEWER_ID, idB=CANDIDATE_ID)
            pake_out = pake.start().hex()
            keys = SessionKeys.from_master(_finish(pake, hello.pake))
        self.new_keys = keys
        self.connection = ConnectionKeys.derive(keys.master, bytes.fromhex(hello.nonce), self.nonce)
        return wire.dump(wire.HostReply(kind="reply", pake=pake_out, nonce=self.nonce.hex()))

    def on_confirm(self, data: bytes) -> tuple[bytes, SealedChannel, SessionKeys]:
        """The interviewer's confirmation -> (our confirmation, the channel, the session keys)."""
        confirm = _load(wire.CONFIRM, data, "confirmation")
        assert self.connection is not None and self.new_keys is not None
        if not mac_ok(self.connection.interviewer_confirm, b"interviewer" + self.connection.transcript,
                      bytes.fromhex(confirm.mac)):
            raise HandshakeFailed("wrong code" if not self.resuming else "the resumed connection holds other keys",
                                  wrong_code=not self.resuming)
        tag = mac(self.connection.candidate_confirm, b"candidate" + self.connection.transcript)
        return (wire.dump(wire.Confirm(kind="confirm", mac=tag.hex())), self.connection.channel("candidate"),
                self.new_keys)


def refusal(reason: str) -> bytes:
    """A refusal message giving ``reason`` (cut to 200 characters)."""
    return wire.dump(wire.Refused(kind="refused", reason=reason[:200]))
