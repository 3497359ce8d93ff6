"""Every message that crosses the network, as a pydantic schema with unknown fields refused.

Handshake messages travel in the clear (they carry nothing secret: a SPAKE2 element, a nonce, a
MAC, a public session handle). Everything else travels sealed, as an ``Envelope``: control
messages (ping, ack, resume, bye), the session description the candidate's machine sends first,
and the mock interview's own messages, each checked field by field and by direction.
"""

from __future__ import annotations

import functools
import json
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError

PROTOCOL = "inferboard-interview/2"
HEX16 = Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")]
HEX32 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
PAKE = Annotated[str, Field(pattern=r"^[0-9a-f]{66}$")]  # SPAKE2 on Ed25519: a side byte and 32 bytes
ID = Annotated[str, Field(min_length=1, max_length=200)]
SHORT = Annotated[str, Field(max_length=200)]
TEXT = Annotated[str, Field(max_length=4000)]
MAX_DESIGN_CHARS = 3_500_000


class Wire(BaseModel):
    """The base of every message on the link: unknown fields refused, values immutable, types strict."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class WireError(Exception):
    """A message that is not valid JSON, not of a known shape, or not allowed this way."""


# ------------------------------------------------------------------------------ handshake
class JoinHello(Wire):
    """A joiner's first message: the PAKE's first half and a fresh nonce."""

    kind: Literal["join"]
    protocol: Literal["inferboard-interview/2"]
    pake: PAKE
    nonce: HEX16


class ResumeHello(Wire):
    """A joiner coming back to a known session with a fresh nonce."""

    kind: Literal["resume"]
    protocol: Literal["inferboard-interview/2"]
    session: HEX16
    nonce: HEX16


class HostReply(Wire):
    """The host's answer: the PAKE's second half (on a join) and its fresh nonce."""

    kind: Literal["reply"]
    pake: PAKE | None = None
    nonce: HEX16


class Confirm(Wire):
    """Each side's proof that it derived the same keys."""

    kind: Literal["confirm"]
    mac: HEX32


class Refused(Wire):
    """The host refuses the connection, saying why."""

    kind: Literal["refused"]
    reason: SHORT


Hello = Annotated[Union[JoinHello, ResumeHello], Field(discriminator="kind")]
HostAnswer = Annotated[Union[HostReply, Refused], Field(discriminator="kind")]
HostConfirm = Annotated[Union[Confirm, Refused], Field(discriminator="kind")]


# ------------------------------------------------------------------------------ control
class Ping(Wire):
    """Keeps the link alive."""

    type: Literal["ping"]


class Ack(Wire):
    """The other side has every message up to id ``upto``."""

    type: Literal["ack"]
    upto: int = Field(ge=-1)


class Resume(Wire):
    """First sealed message on every connection: the last message number taken from the peer."""

    type: Literal["resume"]
    received: int = Field(ge=-1)


class Bye(Wire):
    """The other side is leaving, saying why."""

    type: Literal["bye"]
    reason: SHORT


class SessionInfo(Wire):
    """The candidate's machine tells the interviewer's which scenario (and which version of it)."""

    type: Literal["session"]
    scenario_id: ID
    scenario_title: SHORT
    digest: HEX32
    #: Random, one per hosting: lets the interviewer's machine carry on its record of this
    #: session when it joins again (after its app restarted). Grants nothing by itself.
    session_uid: HEX16


# ------------------------------------------------------------------------------ interview
class DesignChanged(Wire):
    """The candidate's design, as design-file JSON."""

    type: Literal["design_changed"]
    design_json: Annotated[str, Field(max_length=MAX_DESIGN_CHARS)]


class QuestionAsked(Wire):
    """The candidate asked a question (a scenario question's id, or their own words)."""

    type: Literal["question_asked"]
    question_id: ID | None
    text: Annotated[str, Field(max_length=1000)]


class FiguresShown(Wire):
    """The candidate's headline figures as their tiles show them (mode, status line, values)."""

    type: Literal["figures_shown"]
    mode: ID
    line: Annotated[str, Field(max_length=1000)]
    values: Annotated[dict[ID, Annotated[float, Field(allow_inf_nan=False)] | None],
                      Field(max_length=16)] = Field(default_factory=dict)


class FactRevealed(Wire):
    """The interviewer revealed a hidden fact of the scenario."""

    type: Literal["fact_revealed"]
    fact_id: ID
    category: SHORT
    text: TEXT
    values: Annotated[dict[str, JsonValue], Field(max_length=64)] = Field(default_factory=dict)
    t_s: float = Field(ge=0, allow_inf_nan=False)


class FollowUpPlayed(Wire):
    """The interviewer played a follow-up."""

    type: Literal["follow_up_played"]
    follow_up_id: ID
    title: SHORT
    prompt: TEXT
    requirement_changes: Annotated[dict[str, JsonValue], Field(max_length=64)] = Field(default_factory=dict)
    t_s: float = Field(ge=0, allow_inf_nan=False)
    faults: Annotated[list[tuple[ID, ID, float | None]], Field(max_length=32)] = Field(default_factory=list)
    note: TEXT = ""


class PhaseChanged(Wire):
    """The interview moved to another phase."""

    type: Literal["phase_changed"]
    phase: ID
    title: SHORT
    goal: TEXT
    minutes: float = Field(ge=0, le=24 * 60, allow_inf_nan=False)
    t_s: float = Field(ge=0, allow_inf_nan=False)


class InterviewEnded(Wire):
    """The interviewer ended the interview at ``t_s``."""

    type: Literal["interview_ended"]
    t_s: float = Field(ge=0, allow_inf_nan=False)


# ------------------------------------------------------------------------------ drill (inferboard.drills.remote)
class DrillView(Wire):
    """What the candidate may see of a drill running on the interviewer's machine."""

    type: Literal["drill_view"]
    drill_id: ID
    view: Annotated[dict[str, JsonValue], Field(max_length=16)]


class DrillAction(Wire):
    """One of the candidate's drill actions, for the session on the interviewer's machine."""

    type: Literal["drill_action"]
    verb: ID
    args: Annotated[dict[str, JsonValue], Field(max_length=8)] = Field(default_factory=dict)


CONTROL = (Ping, Ack, Resume, Bye)
TO_INTERVIEWER = (SessionInfo, DesignChanged, QuestionAsked, FiguresShown, DrillAction)
TO_CANDIDATE = (FactRevealed, FollowUpPlayed, PhaseChanged, InterviewEnded, DrillView)
APP_TYPES = {m.model_fields["type"].annotation.__args__[0] for m in TO_INTERVIEWER + TO_CANDIDATE}

Message = Annotated[Union[CONTROL + TO_INTERVIEWER + TO_CANDIDATE], Field(discriminator="type")]


class Envelope(Wire):
    """A sealed frame's plaintext: interview messages carry ``mid``, the sender's running number
    (kept across reconnections, so a resumed connection re-sends what was not yet taken)."""

    mid: int | None = Field(default=None, ge=0)
    msg: Message


ENVELOPE = TypeAdapter(Envelope)
HELLO = TypeAdapter(Hello)
HOST_ANSWER = TypeAdapter(HostAnswer)
HOST_CONFIRM = TypeAdapter(HostConfirm)
CONFIRM = TypeAdapter(Confirm)


def dump(model: BaseModel) -> bytes:
    """A wire message as JSON bytes."""
    return model.model_dump_json(exclude_none=False).encode("utf-8")


def load(adapter: TypeAdapter, data: bytes) -> Any:
    """Parse bytes with a schema; a WireError names what was wrong (never echoes the bytes)."""
    try:
        return adapter.validate_json(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "message"
        raise WireError(f"{where}: {first.get('msg', 'invalid')} ({error.error_count()} problem(s))") from None


def envelope(data: bytes, accepts: tuple[type, ...]) -> Envelope:
    """Parse a sealed frame's plaintext and check that this side takes its type."""
    parsed = load(ENVELOPE, data)
    if not isinstance(parsed.msg, CONTROL + accepts):
        raise WireError(f"this side does not take '{parsed.msg.type}' messages")
    is_app = parsed.msg.type in APP_TYPES
    if is_app != (parsed.mid is not None):
        raise WireError("interview messages carry a number and control messages none")
    return parsed


def app_message(data: dict[str, Any], accepts: tuple[type, ...]) -> BaseModel:
    """Check an outgoing interview message (a dict from ``interview_link.encode``) before it is sent."""
    return load(_adapter_for(accepts), json.dumps(data).encode("utf-8"))


@functools.lru_cache(maxsize=4)
def _adapter_for(accepts: tuple[type, ...]) -> TypeAdapter:
    return TypeAdapter(Annotated[Union[accepts], Field(discriminator="type")])  # type: ignore[valid-type]
