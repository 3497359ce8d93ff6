"""Test doubles shared by several test folders."""

from __future__ import annotations


class FakeClock:
    """A clock the test moves by hand: ``clock.advance(60)`` is one minute later."""

    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds
