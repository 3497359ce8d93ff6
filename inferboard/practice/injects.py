"""Timed injects: the interviewer's plan of follow-ups to play at chosen minutes of a mock interview.
A scenario may ship a plan (``injects:``); the console copies it, lets the interviewer change it
before and during the round, and plays each entry when its minute comes. A follow-up the
interviewer already played by hand is not played again."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from pydantic import Field

from inferboard.errors import Problem
from inferboard.schema_base import StrictModel

#: The longest plan, and the latest minute an inject may be planned at.
MAX_INJECTS, MAX_MINUTE = 20, 600.0


class PlannedInject(StrictModel):
    """One entry of a scenario's plan: play ``follow_up`` at ``minute`` of the round."""

    minute: float = Field(ge=0, le=MAX_MINUTE)
    follow_up: str = Field(min_length=1, max_length=80)


@dataclass
class Inject:
    """An entry of a round's plan; ``played_s`` is when it went off (None: still to come), and
    ``by_hand`` that its follow-up had already been played by hand, so it was skipped."""

    minute: float
    follow_up: str
    played_s: float | None = None
    by_hand: bool = False

    def done(self) -> bool:
        """Whether the inject has been played."""
        return self.played_s is not None


class InjectPlan:
    """The plan of one round, kept in minute order."""

    def __init__(self, entries: Iterable[tuple[float, str]] = ()):
        self.entries: list[Inject] = []
        for minute, follow_up in entries:
            self.add(minute, follow_up)

    @classmethod
    def of_scenario(cls, scenario) -> "InjectPlan":
        """The plan a scenario's ``injects`` set (minute, follow-up)."""
        return cls((inject.minute, inject.follow_up) for inject in getattr(scenario, "injects", ()))

    def add(self, minute: float, follow_up: str) -> Inject:
        """Plan ``follow_up`` at ``minute`` (clamped to 0..MAX_MINUTE)."""
        if len(self.entries) >= MAX_INJECTS:
            raise ValueError(f"a plan holds at most {MAX_INJECTS} injects")
        entry = Inject(min(MAX_MINUTE, max(0.0, float(minute))), follow_up)
        self.entries.append(entry)
        self._sort()
        return entry

    def remove(self, entry: Inject) -> None:
        """Take ``entry`` off the plan."""
        self.entries.remove(entry)

    def change(self, entry: Inject, minute: float | None = None, follow_up: str | None = None) -> None:
        """Move an entry still to come to another minute or follow-up; a played one stays as it was."""
        if entry.done():
            return
        if minute is not None:
            entry.minute = min(MAX_MINUTE, max(0.0, float(minute)))
        if follow_up is not None:
            entry.follow_up = follow_up
        self._sort()

    def _sort(self) -> None:
        self.entries.sort(key=lambda entry: entry.minute)

    def due(self, elapsed_s: float, played: Iterable[str] = ()) -> list[Inject]:
        """The entries whose minute has come, in order, marked played at ``elapsed_s``; an entry
        whose follow-up is in ``played`` (played by hand) is marked and left out."""
        already = set(played)
        out = []
        for entry in self.entries:
            if entry.done() or entry.minute * 60.0 > elapsed_s:
                continue
            entry.played_s = elapsed_s
            if entry.follow_up in already:
                entry.by_hand = True
                continue
            already.add(entry.follow_up)
            out.append(entry)
        return out

    def next_entry(self) -> Inject | None:
        """The next inject not yet played, or None."""
        return next((entry for entry in self.entries if not entry.done()), None)


def check_injects(injects: Iterable[PlannedInject], follow_up_ids: set[str]) -> list[Problem]:
    """A problem for each planned inject naming a follow-up the scenario lacks."""
    return [Problem("", f"injects.{n}.follow_up", f"unknown follow-up '{inject.follow_up}'")
            for n, inject in enumerate(injects) if inject.follow_up not in follow_up_ids]
