"""Frames on the wire, and the sealed channel that protects every frame after the handshake.

A frame is a 4-byte big-endian length and that many bytes. ``FrameReader`` cuts a byte stream
into frames and refuses one longer than its cap from the length alone, before reading (or
allocating) the body.

``SealedChannel`` encrypts and authenticates each frame with ChaCha20-Poly1305 (from
``cryptography``), one key per direction. A sealed frame is an 8-byte sequence number followed by
the ciphertext; the nonce is that number, and the direction's label and the number are
authenticated data. The receiver takes only the very next number, so a replayed, reordered,
dropped or reflected frame is refused, as is any frame whose bytes were changed.
"""

from __future__ import annotations

import struct

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

HEADER = struct.Struct(">I")
SEQUENCE = struct.Struct(">Q")
TAG_BYTES = 16
#: Frames before the keys exist are tiny: a hello, a reply, a confirmation.
MAX_HANDSHAKE_FRAME = 1024
#: After the handshake: a design file of a few hundred components fits many times over.
MAX_FRAME = 4 * 1024 * 1024


class FrameRefused(Exception):
    """A frame that must not be taken; the message says why (it is logged, the connection closed)."""


def frame(payload: bytes) -> bytes:
    """``payload`` with its length in front, as sent on the socket."""
    return HEADER.pack(len(payload)) + payload


class FrameReader:
    """Incremental frame parser: ``feed`` bytes as they arrive, get whole frames back."""

    def __init__(self, max_frame: int = MAX_HANDSHAKE_FRAME):
        self.max_frame = max_frame
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        """Take bytes from the socket; returns the whole frames they complete. Raises FrameRefused for an oversized
        one."""
        self.buffer += data
        frames = []
        while len(self.buffer) >= HEADER.size:
            (length,) = HEADER.unpack_from(self.buffer)
            if length > self.max_frame:
                self.buffer.clear()
                raise FrameRefused(f"a frame of {length} bytes is over the {self.max_frame}-byte limit")
            if len(self.buffer) < HEADER.size + length:
                break
            frames.append(bytes(self.buffer[HEADER.size:HEADER.size + length]))
            del self.buffer[:HEADER.size + length]
        return frames


class SealedChannel:
    """One connection's encryption, both directions. Not thread-safe: one owner at a time."""

    def __init__(self, send_key: bytes, receive_key: bytes, send_label: bytes, receive_label: bytes):
        if send_key == receive_key or send_label == receive_label:
            raise ValueError("each direction needs its own key and label")
        self.sender = ChaCha20Poly1305(send_key)
        self.receiver = ChaCha20Poly1305(receive_key)
        self.send_label = send_label
        self.receive_label = receive_label
        self.sent = 0
        self.received = 0

    @staticmethod
    def nonce(sequence: int) -> bytes:
        """The ChaCha20-Poly1305 nonce for frame number ``sequence``."""
        return b"\x00\x00\x00\x00" + SEQUENCE.pack(sequence)

    def seal(self, plaintext: bytes) -> bytes:
        """Encrypt and authenticate ``plaintext`` as the next frame."""
        header = SEQUENCE.pack(self.sent)
        body = self.sender.encrypt(self.nonce(self.sent), plaintext, self.send_label + header)
        self.sent += 1
        return header + body

    def open(self, sealed: bytes) -> bytes:
        """Decrypt the next frame; raises FrameRefused if it is forged, replayed, reordered or too short."""
        if len(sealed) < SEQUENCE.size + TAG_BYTES:
            raise FrameRefused(f"a sealed frame of {len(sealed)} bytes is too short")
        (sequence,) = SEQUENCE.unpack_from(sealed)
        if sequence < self.received:
            raise FrameRefused(f"replayed frame: number {sequence} was already taken")
        if sequence > self.received:
            raise FrameRefused(f"out-of-order frame: number {sequence} where {self.received} was due")
        header = sealed[:SEQUENCE.size]
        try:
            plaintext = self.receiver.decrypt(self.nonce(sequence), sealed[SEQUENCE.size:],
                                              self.receive_label + header)
        except InvalidTag:
            raise FrameRefused(f"frame {sequence} failed authentication (tampered, or another key)") from None
        self.received += 1
        return plaintext
