"""Frames leave in the order they are numbered, whichever task writes them: the receiving side takes
only the next number and closes the connection on any other, so a goodbye overtaken by a ping was
a dropped session instead of an ended one."""

from __future__ import annotations

import asyncio

from inferboard.remote import wire
from inferboard.remote.channel import FrameReader, SealedChannel
from inferboard.remote.peer import Link, Peer


class RecordingWriter:
    """Stands for an asyncio StreamWriter: keeps what is written, in order."""

    def __init__(self):
        self.data = bytearray()
        self.transport = self
        self.closed = False

    def get_extra_info(self, _name):
        return ("127.0.0.1", 1)

    def write(self, data: bytes) -> None:
        self.data += data

    async def drain(self) -> None:
        await asyncio.sleep(0)

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True


def test_a_goodbye_is_not_overtaken_by_a_write_queued_before_it():
    keys = (b"k" * 32, b"K" * 32)
    received = SealedChannel(keys[1], keys[0], b"candidate", b"interviewer")

    async def play() -> bytes:
        peer = Peer()
        peer.stopping = asyncio.Event()
        writer = RecordingWriter()
        peer.link = Link(None, writer)
        peer.channel = SealedChannel(keys[0], keys[1], b"interviewer", b"candidate")
        ping = asyncio.ensure_future(peer._write(peer.link, wire.dump(wire.Envelope(msg=wire.Ping(type="ping")))))
        await peer._end("the interviewer ended the session")
        await ping
        return bytes(writer.data)

    frames = FrameReader(1 << 20).feed(asyncio.run(play()))
    kinds = [wire.envelope(received.open(sealed), (wire.Ping, wire.Bye)).msg.type for sealed in frames]
    assert sorted(kinds) == ["bye", "ping"]
