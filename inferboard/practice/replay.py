"""Replay: the design snapshots of a session in time order, to scrub through the edits, and what
was said on the way: the questions, their answers, the phase changes and the follow-ups.

A frame is the whole design (file bytes) at a moment, so scrubbing to any time is a lookup, not a
re-application of edits. ``changes(i)`` says what frame ``i`` changed against the one before it.
A moment is one thing said, at its time; ``said_until(t)`` is what had been said by then.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from inferboard.model.design import Design
from inferboard.safe_read import FileRefused, parse_json
from inferboard.store.design_files import parse_design


@dataclass(frozen=True)
class Frame:
    """The design as recorded at ``t_s``, in phase ``phase``."""

    t_s: float
    phase: str
    label: str
    design_bytes: bytes


#: What each kind of moment is called on the timeline.
MOMENT_TITLES = {"question": "Question", "answer": "Answer", "phase": "Phase", "follow_up": "Follow-up",
                 "note": "Note"}


@dataclass(frozen=True)
class Moment:
    """One thing said during the session: ``kind`` one of ``MOMENT_TITLES``."""

    t_s: float
    kind: str
    text: str

    def title(self) -> str:
        """The moment's kind in words ("Question asked", ...)."""
        return MOMENT_TITLES.get(self.kind, self.kind.replace("_", " ").capitalize())


def _worded(identifier: str) -> str:
    """An id from the history (a phase, a fact, a follow-up) as words."""
    return identifier.replace("_", " ").replace("-", " ").capitalize()


def moments_from_rows(questions: Iterable[Mapping[str, Any]], events: Iterable[Mapping[str, Any]]) -> list[Moment]:
    """Moments from history ``questions`` and ``events`` rows (facts and follow-ups by their id)."""
    kinds = {"phase": "phase", "fact": "answer", "follow_up": "follow_up", "note": "note"}
    out = [Moment(float(q["t_s"]), "question", str(q.get("text") or q.get("question_id") or "")) for q in questions]
    for event in events:
        kind = kinds.get(str(event.get("kind")))
        if kind is not None:
            detail = str(event.get("detail") or "")
            out.append(Moment(float(event["t_s"]), kind, detail if kind == "note" else _worded(detail)))
    return sorted(out, key=lambda m: m.t_s)


@dataclass
class EditSummary:
    """What one frame changed against the previous one, by node and edge id."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # params, label, region or size
    moved: list[str] = field(default_factory=list)
    wires_added: int = 0
    wires_removed: int = 0
    requirements_changed: bool = False

    def text(self) -> str:
        """What changed between two frames in words ("added lb-1; changed gpus")."""
        parts = []
        for verb, ids in (("added", self.added), ("removed", self.removed), ("changed", self.changed),
                          ("moved", self.moved)):
            if ids:
                shown = ", ".join(ids[:4]) + (f" and {len(ids) - 4} more" if len(ids) > 4 else "")
                parts.append(f"{verb} {shown}")
        if self.wires_added:
            parts.append(f"{self.wires_added} wire(s) drawn")
        if self.wires_removed:
            parts.append(f"{self.wires_removed} wire(s) removed")
        if self.requirements_changed:
            parts.append("requirements edited")
        return "; ".join(parts) or "no change"


def _as_dict(data: bytes) -> dict[str, Any]:
    try:
        raw = parse_json(data, "snapshot")
    except FileRefused:
        return {}
    return raw if isinstance(raw, dict) else {}


def diff_designs(before: Mapping[str, Any], after: Mapping[str, Any]) -> EditSummary:
    """Compare two design-file dicts."""
    old = {n.get("id"): n for n in before.get("nodes", []) if isinstance(n, dict)}
    new = {n.get("id"): n for n in after.get("nodes", []) if isinstance(n, dict)}
    summary = EditSummary(added=[i for i in new if i not in old], removed=[i for i in old if i not in new])
    for node_id in new:
        if node_id not in old:
            continue
        a, b = old[node_id], new[node_id]
        position = lambda n: (n.get("x"), n.get("y"))  # noqa: E731
        rest = lambda n: {k: v for k, v in n.items() if k not in ("x", "y")}  # noqa: E731
        if rest(a) != rest(b):
            summary.changed.append(node_id)
        elif position(a) != position(b):
            summary.moved.append(node_id)
    wire = lambda e: (e.get("source"), e.get("source_port"), e.get("target"), e.get("target_port"))  # noqa: E731
    old_wires = {wire(e) for e in before.get("edges", []) if isinstance(e, dict)}
    new_wires = {wire(e) for e in after.get("edges", []) if isinstance(e, dict)}
    summary.wires_added = len(new_wires - old_wires)
    summary.wires_removed = len(old_wires - new_wires)
    summary.requirements_changed = before.get("requirements") != after.get("requirements")
    return summary


class Replay:
    """Frames in time order; identical consecutive designs are kept once."""

    def __init__(self, frames: Iterable[Frame] = (), moments: Iterable[Moment] = ()):
        self.frames: list[Frame] = []
        self.moments: list[Moment] = []
        for frame in sorted(frames, key=lambda f: f.t_s):
            self.add(frame.t_s, frame.design_bytes, frame.phase, frame.label)
        for moment in moments:
            self.mark(moment.t_s, moment.kind, moment.text)

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]], questions: Iterable[Mapping[str, Any]] = (),
                  events: Iterable[Mapping[str, Any]] = ()) -> "Replay":
        """From history ``snapshots`` rows (t_s, phase, label, design), with what was said from its
        ``questions`` and ``events`` rows."""
        return cls((Frame(float(r["t_s"]), r.get("phase") or "", r.get("label") or "",
                          r["design"].encode("utf-8") if isinstance(r["design"], str) else r["design"])
                    for r in rows), moments_from_rows(questions, events))

    def mark(self, t_s: float, kind: str, text: str) -> Moment:
        """Keep one thing said at ``t_s`` (in time order, after any said at the same time)."""
        moment = Moment(float(t_s), kind, text)
        self.moments.insert(bisect.bisect_right([m.t_s for m in self.moments], moment.t_s), moment)
        return moment

    def said_until(self, t_s: float) -> list[Moment]:
        """The moments at or before ``t_s``."""
        return [m for m in self.moments if m.t_s <= t_s]

    def add(self, t_s: float, design_bytes: bytes, phase: str = "", label: str = "edit") -> bool:
        """Append a frame; False (and nothing kept) when the design did not change."""
        if self.frames and t_s < self.frames[-1].t_s:
            raise ValueError(f"frame at {t_s:.3f}s is older than the last one at {self.frames[-1].t_s:.3f}s")
        if self.frames and self.frames[-1].design_bytes == design_bytes:
            return False
        self.frames.append(Frame(float(t_s), phase, label, bytes(design_bytes)))
        return True

    def __len__(self) -> int:
        return len(self.frames)

    @property
    def times(self) -> list[float]:
        """Each frame's time."""
        return [f.t_s for f in self.frames]

    @property
    def duration(self) -> float:
        """The last frame's or moment's time."""
        return max([f.t_s for f in self.frames[-1:]] + [m.t_s for m in self.moments[-1:]], default=0.0)

    def index_at(self, t_s: float) -> int | None:
        """The frame in force at ``t_s`` (the last one at or before it); None before the first."""
        index = bisect.bisect_right(self.times, t_s) - 1
        return index if index >= 0 else None

    def design(self, index: int) -> Design:
        """The design of frame ``index``."""
        frame = self.frames[index]
        return parse_design(frame.design_bytes, f"<replay frame {index} at {frame.t_s:.1f}s>")

    def design_at(self, t_s: float) -> Design | None:
        """The design as it was at ``t_s``, or None before the first frame."""
        index = self.index_at(t_s)
        return None if index is None else self.design(index)

    def bytes_at(self, t_s: float) -> bytes | None:
        """The design file bytes as at ``t_s``, or None before the first frame."""
        index = self.index_at(t_s)
        return None if index is None else self.frames[index].design_bytes

    def changes(self, index: int) -> EditSummary:
        """What frame ``index`` changed; the first frame is compared with an empty design."""
        after = _as_dict(self.frames[index].design_bytes)
        before = (_as_dict(self.frames[index - 1].design_bytes) if index > 0
                  else {"requirements": after.get("requirements")})
        return diff_designs(before, after)

    def timeline(self) -> list[tuple[float, str, str]]:
        """(time, phase, what changed) for every frame: the list a scrubber shows."""
        return [(f.t_s, f.phase, self.changes(i).text()) for i, f in enumerate(self.frames)]

    def at_phase_ends(self, phase_ends: Mapping[str, float]) -> dict[str, Frame]:
        """The frame in force at the end of each phase (phases with nothing drawn yet are left out)."""
        out = {}
        for phase, end in phase_ends.items():
            index = self.index_at(end)
            if index is not None:
                out[phase] = self.frames[index]
        return out
