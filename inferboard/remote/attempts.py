"""How many join codes a candidate's machine lets the interviewer's side guess, and how fast
(:class:`AttemptLimiter`): each wrong code doubles the wait before the next attempt, and a code is
replaced after a few wrong guesses, counting exchanges still under way.
"""

from __future__ import annotations

import time
from typing import Callable


class AttemptLimiter:
    """Wrong codes: the n-th wrong code makes the next attempt wait ``base_s * 2**(n-1)`` seconds
    (at most ``max_wait_s``); after ``max_failures`` the code is to be replaced. A guess counts from
    the start of its key exchange (:meth:`begin`): the wrong codes and the exchanges under way
    together never pass ``max_failures``."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, base_s: float = 1.0, max_wait_s: float = 30.0,
                 max_failures: int = 5):
        self.clock = clock
        self.base_s = base_s
        self.max_wait_s = max_wait_s
        self.max_failures = max_failures
        self.failures = 0
        #: Key exchanges under way, each a guess not yet settled.
        self.pending = 0
        self.not_before = 0.0

    def wait_left(self) -> float:
        """Seconds before the next join attempt is allowed."""
        return max(0.0, self.not_before - self.clock())

    def begin(self) -> bool:
        """Count a guess as its key exchange starts; False when the code has no guess left."""
        if self.failures + self.pending >= self.max_failures:
            return False
        self.pending += 1
        return True

    def release(self) -> None:
        """The guess begun is not held against the code: it was the code, or its exchange ended before
        the host's key-exchange message (nothing to test a guess against)."""
        self.pending = max(0, self.pending - 1)

    def failed(self) -> bool:
        """Count a wrong code; True when the code must be replaced (the count starts again)."""
        self.pending = max(0, self.pending - 1)
        self.failures += 1
        self.not_before = self.clock() + min(self.max_wait_s, self.base_s * 2 ** (self.failures - 1))
        if self.failures >= self.max_failures:
            self.failures = 0
            return True
        return False
