"""The two network ends of a remote mock interview, each running its own asyncio loop in a thread.

``HostPeer`` (the candidate's machine) listens on the address and port the user chose and shows
a join code; ``JoinPeer`` (the interviewer's machine) connects with that code. Neither blocks
its caller: ``send`` and ``end`` are thread-safe, and ``on_message`` / ``on_status`` are called
on the peer's own thread (a GUI hands them to its main thread).

What the host promises:
- the join code is taken once; after a join only a resume of that session is accepted, and the
  code is forgotten when the session ends; while the interviewer is disconnected the candidate
  may issue a new code (``new_code``) with which they join again, under new session keys;
- a wrong code ends that attempt; each further attempt waits longer (``AttemptLimiter``), and
  after ``max_failures`` wrong codes the code is replaced by a new one; a guess is counted when
  its key exchange starts, so exchanges side by side never give one code more guesses than that;
- key exchanges run side by side (at most ``MAX_JOINS_AT_ONCE``), each closed when it does not
  finish within ``HOST_HANDSHAKE_S``, so a stalled one never holds up a real join; the first to
  complete with the right code takes the session, and any other finishing later is refused;
- a frame that is too big, fails authentication, is out of sequence, does not parse, or is not a
  message this side takes closes that connection with the reason logged (``refusals``); the
  session itself carries on, and the interviewer's machine reconnects and resumes.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import json
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from inferboard.remote import wire
from inferboard.remote.channel import MAX_FRAME, MAX_HANDSHAKE_FRAME, FrameReader, FrameRefused, SealedChannel, frame
from inferboard.remote.handshake import HandshakeFailed, HostHandshake, JoinerHandshake, SessionKeys, refusal
from inferboard.remote.attempts import AttemptLimiter
from inferboard.remote.session_log import SessionLog
from inferboard.remote.words import make_code

log = logging.getLogger("inferboard.remote")

DEFAULT_PORT = 47800
HANDSHAKE_TIMEOUT_S = 10.0
#: How long the candidate's machine gives one incoming connection to finish its handshake.
HOST_HANDSHAKE_S = 4.0
#: Key exchanges with a join code the candidate's machine runs at the same time.
MAX_JOINS_AT_ONCE = 4
PING_S = 1.0
LOST_AFTER_S = 6.0
RECONNECT_DELAYS_S = (0.1, 0.3, 0.6, 1.0, 2.0, 3.0)
GIVE_UP_AFTER_S = 15 * 60.0


@dataclass(frozen=True)
class Status:
    """``state``: listening, handshake, connected, lost, reconnecting, refused, code_replaced, rejoin
    (a new code waits for the interviewer to join again), ended."""

    state: str
    detail: str = ""
    verification: str = ""


class ConnectionClosed(Exception):
    """The other side closed the connection."""

    pass


class Link:
    """One TCP connection: frames in, frames out."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer
        self.frames = FrameReader(MAX_HANDSHAKE_FRAME)
        self.pending: collections.deque[bytes] = collections.deque()
        self.name = _name(writer.get_extra_info("peername"))
        #: Whether this side's key-exchange message was sent (from then on a join is a guess).
        self.replied = False

    async def read(self, timeout: float) -> bytes:
        """The next whole frame, waiting up to ``timeout`` seconds; raises ConnectionClosed at the end."""
        while not self.pending:
            data = await asyncio.wait_for(self.reader.read(65536), timeout)
            if not data:
                raise ConnectionClosed("the other side closed the connection")
            self.pending.extend(self.frames.feed(data))
        return self.pending.popleft()

    async def write(self, payload: bytes) -> None:
        """Send ``payload`` as one frame."""
        self.writer.write(frame(payload))
        await self.writer.drain()

    async def write_sealed(self, channel: SealedChannel, plaintext: bytes) -> None:
        """Seal ``plaintext`` as ``channel``'s next frame and queue it in the same step, then wait for
        the socket: frames leave in the order they are numbered, however many tasks write at once
        (the other side takes only the next number and closes the connection on any other)."""
        self.writer.write(frame(channel.seal(plaintext)))
        await self.writer.drain()

    def close(self) -> None:
        """Close the socket."""
        self.writer.close()


def _name(peer: Any) -> str:
    return f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else "?"


class Peer:
    """What both ends share: the loop thread, the session log, one live connection at a time."""

    side = ""
    takes: tuple[type, ...] = ()
    sends: tuple[type, ...] = ()

    def __init__(self, on_message: Callable[[dict[str, Any]], None] | None = None,
                 on_status: Callable[[Status], None] | None = None):
        self.on_message = on_message or (lambda _m: None)
        self.on_status = on_status or (lambda _s: None)
        self.log = SessionLog()
        self.keys: SessionKeys | None = None
        self.refusals: list[str] = []
        self.status = Status("idle")
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None
        self.link: Link | None = None
        self.channel: SealedChannel | None = None
        self.synced = False
        self.ended = False
        self.finished = False
        self.stopping: asyncio.Event | None = None
        self.ready = threading.Event()
        self.error: BaseException | None = None

    # ------------------------------------------------------------------ thread
    def start(self, timeout: float = 10.0) -> "Peer":
        """Start the link's thread and wait until it listens or connects; returns the peer."""
        self.thread = threading.Thread(target=self._run, name=f"inferboard-{self.side}-link", daemon=True)
        self.thread.start()
        if not self.ready.wait(timeout):
            raise TimeoutError("the network thread did not start")
        if self.error is not None:
            raise self.error
        return self

    def _run(self) -> None:
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._main_guarded())
            left = asyncio.all_tasks(self.loop)
            for task in left:
                task.cancel()
            if left:
                self.loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
        finally:
            self.loop.close()
            self.ready.set()

    async def _main_guarded(self) -> None:
        self.stopping = asyncio.Event()
        try:
            await self._main()
        except Exception as error:  # a failure to bind is reported to start()
            if not self.ready.is_set():
                self.error = error
            else:
                log.exception("the %s link stopped", self.side)
                self._set_status(Status("ended", f"network error: {error}"))
        finally:
            self.finished = True
            self.ready.set()

    async def _main(self) -> None:
        raise NotImplementedError

    def send(self, message: dict[str, Any]) -> None:
        """Queue an interview message for the other side (validated here, in the caller's thread)."""
        wire.app_message(message, self.sends)
        if self.ended or self.loop is None:
            return
        self.loop.call_soon_threadsafe(self._queue, dict(message))

    def end(self, reason: str = "the session has ended", timeout: float = 5.0) -> None:
        """Say goodbye, close, forget the keys and the code. Safe to call more than once."""
        if self.loop is not None and self.thread is not None and self.thread.is_alive() and not self.finished \
                and not self.ended:
            ending = self._end(reason)
            try:
                asyncio.run_coroutine_threadsafe(ending, self.loop).result(timeout)
            except RuntimeError:
                ending.close()  # the loop had already stopped
            except (TimeoutError, asyncio.CancelledError, concurrent.futures.CancelledError):
                pass  # the loop was stopping
        if self.thread is not None:
            self.thread.join(timeout)
        self.ended = True
        self.keys = None

    def cut_connection(self) -> None:
        """Drop the live connection as a network fault would (the session then resumes)."""
        if self.loop is not None and self.link is not None:
            self.loop.call_soon_threadsafe(lambda: self.link is not None and self.link.writer.transport.abort())

    # ------------------------------------------------------------------ loop side
    def _set_status(self, status: Status) -> None:
        self.status = status
        try:
            self.on_status(status)
        except Exception:
            log.exception("status callback failed")

    def _refuse(self, who: str, reason: str) -> None:
        text = f"closed the connection from {who}: {reason}"
        self.refusals.append(text)
        log.warning("%s link %s", self.side, text)

    def _queue(self, message: dict[str, Any]) -> None:
        if self.ended:
            return
        mid, message = self.log.add(message)
        if self.synced and self.link is not None:
            asyncio.ensure_future(self._write_app(self.link, mid, message))

    async def _write_app(self, link: Link, mid: int, message: dict[str, Any]) -> None:
        # ``send`` validated the message already (as JSON, the way the other side will read it)
        await self._write(link, json.dumps({"mid": mid, "msg": message}, separators=(",", ":")).encode("utf-8"))

    async def _write(self, link: Link, plaintext: bytes) -> None:
        if link is not self.link or self.channel is None:
            return
        try:
            await link.write_sealed(self.channel, plaintext)
        except (ConnectionError, OSError, RuntimeError):
            link.writer.transport.abort()

    async def _end(self, reason: str) -> None:
        self.ended = True
        link = self.link
        if link is not None and self.channel is not None:
            self.synced = False
            try:
                await asyncio.wait_for(link.write_sealed(self.channel, wire.dump(wire.Envelope(
                    msg=wire.Bye(type="bye", reason=reason[:200])))), 2.0)
            except (ConnectionError, OSError, RuntimeError, asyncio.TimeoutError):
                pass
            link.close()
        self.keys = None
        self._set_status(Status("ended", reason))
        assert self.stopping is not None
        self.stopping.set()

    async def _serve(self, link: Link, channel: SealedChannel) -> str:
        """Run one authenticated connection until it drops; returns why it ended."""
        if self.link is not None and self.link is not link:
            self.link.writer.transport.abort()  # a resumed connection replaces a stale one
        self.link, self.channel, self.synced = link, channel, False
        link.frames.max_frame = MAX_FRAME
        assert self.keys is not None
        self._set_status(Status("connected", link.name, self.keys.verification))
        await self._write(link, wire.dump(wire.Envelope(msg=wire.Resume(type="resume",
                                                                      received=self.log.received_upto))))
        beat = asyncio.ensure_future(self._heartbeat(link))
        try:
            while True:
                data = await link.read(LOST_AFTER_S)
                self._take(wire.envelope(channel.open(data), self.takes))
                if self.ended:
                    return "ended"
        except (FrameRefused, wire.WireError) as error:
            self._refuse(link.name, str(error))
            return f"refused: {error}"
        except asyncio.TimeoutError:
            return f"nothing heard for {LOST_AFTER_S:g} s"
        except (ConnectionClosed, ConnectionError, OSError, asyncio.IncompleteReadError) as error:
            return str(error) or type(error).__name__
        finally:
            beat.cancel()
            link.writer.transport.abort()
            if self.link is link:
                self.link, self.channel, self.synced = None, None, False

    def _take(self, envelope: wire.Envelope) -> None:
        message = envelope.msg
        if isinstance(message, wire.Resume):
            for mid, kept in self.log.after(message.received):
                asyncio.ensure_future(self._write_app(self.link, mid, kept))
            self.log.acknowledged(message.received)
            self.synced = True
        elif isinstance(message, wire.Ack):
            self.log.acknowledged(message.upto)
        elif isinstance(message, wire.Bye):
            self.ended = True
            self.keys = None
            self._set_status(Status("ended", f"the other side ended the session: {message.reason}"))
            assert self.stopping is not None
            self.stopping.set()
        elif isinstance(message, wire.Ping):
            pass
        elif self.log.take(envelope.mid):
            try:
                self.on_message(message.model_dump(mode="json"))
            except Exception:
                log.exception("the %s side could not take a %s message", self.side, message.type)

    async def _heartbeat(self, link: Link) -> None:
        while link is self.link:
            await self._write(link, wire.dump(wire.Envelope(msg=wire.Ping(type="ping"))))
            if self.log.acked_to_peer != self.log.received_upto:
                self.log.acked_to_peer = self.log.received_upto
                await self._write(link, wire.dump(wire.Envelope(msg=wire.Ack(type="ack", upto=self.log.received_upto))))
            await asyncio.sleep(PING_S)


# ------------------------------------------------------------------------------ candidate
class HostPeer(Peer):
    """The candidate's machine: listens, checks the code, serves one interviewer."""

    side = "candidate"
    takes = wire.TO_CANDIDATE
    sends = wire.TO_INTERVIEWER

    def __init__(self, session: wire.SessionInfo, address: str = "127.0.0.1", port: int = 0,
                 code: str | None = None, limiter: AttemptLimiter | None = None, **callbacks):
        super().__init__(**callbacks)
        self.address = address
        self.port = port
        self.code: str | None = code or make_code()
        self.limiter = limiter or AttemptLimiter()
        self.joins_in_flight = 0
        self.tasks: set[asyncio.Task] = set()
        self.session = session.model_dump(mode="json")
        self.log.add(dict(self.session))  # always the interviewer's first message
        #: How many times an interviewer joined this session with a code (more than once after
        #: ``new_code``: the interviewer's machine came back without the session keys).
        self.joins = 0

    async def _main(self) -> None:
        server = await asyncio.start_server(self._accept, self.address, self.port)
        self.port = server.sockets[0].getsockname()[1]
        self._set_status(Status("listening", f"{self.address}:{self.port}"))
        self.ready.set()
        assert self.stopping is not None
        async with server:
            await self.stopping.wait()
            server.close()
            for task in list(self.tasks):
                task.cancel()
        self.code = None

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self.tasks.add(task)
        link = Link(reader, writer)
        try:
            if self.ended:
                return
            try:
                channel = await asyncio.wait_for(self._handshake(link), HOST_HANDSHAKE_S)
            except asyncio.TimeoutError:
                self._refuse(link.name, "the handshake took too long")
                return
            except (HandshakeFailed, FrameRefused) as error:
                self._refuse(link.name, str(error))
                return
            except (ConnectionClosed, ConnectionError, OSError, asyncio.IncompleteReadError) as error:
                self._refuse(link.name, f"left during the handshake ({error or type(error).__name__})")
                return
            why = await self._serve(link, channel)
            if not self.ended and self.link is None:
                self._set_status(Status("lost", why, self.keys.verification if self.keys else ""))
        finally:
            writer.transport.abort()
            self.tasks.discard(task)

    async def _handshake(self, link: Link) -> SealedChannel:
        hello_bytes = await link.read(HOST_HANDSHAKE_S)
        try:
            hello = wire.load(wire.HELLO, hello_bytes)
        except wire.WireError as error:
            raise HandshakeFailed(f"malformed hello: {error}") from None
        joining = isinstance(hello, wire.JoinHello)
        if joining:
            reason = ("the join code was already used" if self.code is None
                      else "the interviewer is still connected" if self.link is not None
                      else "too many joins at once: try again in a moment"
                      if self.joins_in_flight >= MAX_JOINS_AT_ONCE
                      else f"too many wrong codes: try again in {self.limiter.wait_left():.0f} s"
                      if self.limiter.wait_left() > 0
                      else "too many guesses under way: try again in a moment" if not self.limiter.begin() else "")
            if reason:
                await link.write(refusal(reason))
                raise HandshakeFailed(reason)
            self.joins_in_flight += 1
        settled = False
        try:
            channel = await self._exchange(link, hello_bytes, joining)
            settled = True
            return channel
        finally:
            if joining:  # the guess counted at its start: given back when it was the code or none was made
                self.joins_in_flight -= 1
                if settled or not link.replied:
                    self.limiter.release()
                else:
                    self._count_wrong_code()

    async def _exchange(self, link: Link, hello_bytes: bytes, joining: bool) -> SealedChannel:
        handshake = HostHandshake(self.code, self.keys)
        try:
            reply = handshake.on_hello(hello_bytes)
        except HandshakeFailed as error:
            await link.write(refusal(str(error)))
            raise
        if joining:
            self._set_status(Status("handshake", link.name))
        link.replied = True
        await link.write(reply)
        try:
            confirm = await link.read(HOST_HANDSHAKE_S)
            mine, channel, keys = handshake.on_confirm(confirm)
        except (HandshakeFailed, ConnectionClosed, asyncio.TimeoutError, OSError) as error:
            if isinstance(error, HandshakeFailed):
                await link.write(refusal(str(error)))
            raise
        if joining and (handshake.code != self.code or self.link is not None):
            reason = "another interviewer joined first" if self.code is None else "the join code was replaced"
            await link.write(refusal(reason))
            raise HandshakeFailed(reason)
        if not joining:
            self.code = None  # the interviewer came back by themselves: a new code is withdrawn
        else:
            self.code = None  # single use
            if self.keys is not None:  # joined again: a new interviewer's machine, a new start
                self.log = SessionLog()
                self.log.add(dict(self.session))
            self.keys = keys
            self.joins += 1
        await link.write(mine)
        return channel

    def new_code(self) -> str:
        """A fresh code with which the interviewer joins this session again, while their machine
        is disconnected (after its app restarted, it holds no session keys). Joining with it
        replaces the session keys: the old ones can no longer resume. Thread-safe."""
        if self.ended or self.keys is None or self.loop is None:
            raise RuntimeError("a new code is for an interviewer who joined and was disconnected")
        code = make_code()

        async def issue() -> bool:
            if self.link is not None or self.ended:
                return False
            self.code = code
            self.limiter.failures = 0
            self._set_status(Status("rejoin", code))
            return True

        if not asyncio.run_coroutine_threadsafe(issue(), self.loop).result(5):
            raise RuntimeError("the interviewer is connected: no new code is needed")
        return code

    def _count_wrong_code(self) -> None:
        if self.limiter.failed() and self.code is not None:  # a used code is not brought back
            self.code = make_code()
            self._set_status(Status("code_replaced", self.code))
        elif self.keys is None:
            self._set_status(Status("listening", f"{self.address}:{self.port}"))
        elif self.link is None:
            self._set_status(Status("rejoin", self.code or ""))


# ------------------------------------------------------------------------------ interviewer
class JoinPeer(Peer):
    """The interviewer's machine: joins with the code, then reconnects and resumes on a drop."""

    side = "interviewer"
    takes = wire.TO_INTERVIEWER
    sends = wire.TO_CANDIDATE

    def __init__(self, address: str, port: int, code: str, **callbacks):
        super().__init__(**callbacks)
        self.address = address
        self.port = port
        self.code = code

    async def _open(self) -> Link:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(self.address, self.port),
                                                HANDSHAKE_TIMEOUT_S)
        return Link(reader, writer)

    async def _handshake(self, link: Link, handshake: JoinerHandshake) -> SealedChannel:
        await link.write(handshake.hello())
        await link.write(handshake.on_reply(await link.read(HANDSHAKE_TIMEOUT_S)))
        try:
            confirm = await link.read(HANDSHAKE_TIMEOUT_S)
        except ConnectionClosed:
            raise HandshakeFailed("the candidate's machine closed the connection during the handshake") from None
        return handshake.on_confirm(confirm)

    async def _main(self) -> None:
        self.ready.set()
        self._set_status(Status("handshake", f"{self.address}:{self.port}"))
        link: Link | None = None
        try:
            link = await self._open()
            handshake = JoinerHandshake(code=self.code)
            channel = await asyncio.wait_for(self._handshake(link, handshake), HANDSHAKE_TIMEOUT_S)
        except (HandshakeFailed, FrameRefused, ConnectionClosed, OSError, asyncio.TimeoutError) as error:
            if link is not None:
                link.writer.transport.abort()
            detail = str(error) or type(error).__name__
            if isinstance(error, OSError) and not isinstance(error, ConnectionClosed):
                detail = f"could not reach {self.address}:{self.port} ({detail})"
            self.ended = True
            self._set_status(Status("refused", detail))
            return
        finally:
            self.code = ""  # used: never kept past the first attempt
        self.keys = handshake.keys
        why = await self._serve(link, channel)
        lost_at = time.monotonic()
        attempt = 0
        while not self.ended:
            self._set_status(Status("lost", why, self.keys.verification if self.keys else ""))
            await self._pause(RECONNECT_DELAYS_S[min(attempt, len(RECONNECT_DELAYS_S) - 1)])
            attempt += 1
            if self.ended or self.keys is None:
                break
            if time.monotonic() - lost_at > GIVE_UP_AFTER_S:
                self.ended = True
                self._set_status(Status("ended", "the candidate's machine did not come back"))
                break
            self._set_status(Status("reconnecting", f"attempt {attempt}", self.keys.verification))
            try:
                link = await self._open()
                channel = await asyncio.wait_for(self._handshake(link, JoinerHandshake(keys=self.keys)),
                                                 HANDSHAKE_TIMEOUT_S)
            except HandshakeFailed as error:
                self.ended = True
                self._set_status(Status("ended", f"the session can no longer be resumed: {error}"))
                break
            except (FrameRefused, ConnectionClosed, OSError, asyncio.TimeoutError) as error:
                why = str(error) or type(error).__name__
                continue
            attempt = 0
            why = await self._serve(link, channel)
            lost_at = time.monotonic()

    async def _pause(self, seconds: float) -> None:
        assert self.stopping is not None
        try:
            await asyncio.wait_for(self.stopping.wait(), seconds)
        except asyncio.TimeoutError:
            pass

