"""What makes a session survive a dropped connection: numbered messages, kept until acknowledged.

Each side numbers the interview messages it sends (``mid``) and keeps them until the other side
acknowledges them. On every new connection each side first says the last number it took; the
other re-sends everything after it. A design supersedes the designs before it, so only the latest
unacknowledged design is kept: a resumed connection carries the design as it is now (a
snapshot), not every edit made while the line was down; the candidate's figures likewise.
Numbers only go up, so a message taken once is never delivered twice.
"""

from __future__ import annotations

from typing import Any

SUPERSEDING = {"design_changed", "figures_shown"}


class SessionLog:
    """The messages sent in a session, kept until acknowledged so they can be sent again after a reconnect."""

    def __init__(self) -> None:
        self.next_mid = 0
        self.kept: list[tuple[int, dict[str, Any]]] = []
        self.received_upto = -1
        self.acked_to_peer = -1

    def add(self, message: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Keep ``message`` under the next id (a newer message of a superseding type replaces the older); returns the
        entry."""
        if message.get("type") in SUPERSEDING:
            self.kept = [(mid, m) for mid, m in self.kept if m.get("type") != message["type"]]
        entry = (self.next_mid, message)
        self.next_mid += 1
        self.kept.append(entry)
        return entry

    def after(self, received: int) -> list[tuple[int, dict[str, Any]]]:
        """The kept messages the other side has not received."""
        return [(mid, m) for mid, m in self.kept if mid > received]

    def acknowledged(self, upto: int) -> None:
        """Forget the messages up to id ``upto``: the other side has them."""
        self.kept = [(mid, m) for mid, m in self.kept if mid > upto]

    def take(self, mid: int) -> bool:
        """True if ``mid`` is new (deliver it); False for a re-sent message already taken."""
        if mid <= self.received_upto:
            return False
        self.received_upto = mid
        return True
