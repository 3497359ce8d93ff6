"""Views of the practice history offered by floors above practice (the drill history): a button in
the history window opens each. Kept apart from the history window so that naming a view at
start-up loads nothing of the history."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from inferboard.practice.history import History


@dataclass(frozen=True)
class HistoryView:
    """A view of the history another floor offers (the drill history): its name, button title, tooltip and opener."""

    name: str
    title: str
    tip: str
    open: Callable[["History"], "QWidget"]
