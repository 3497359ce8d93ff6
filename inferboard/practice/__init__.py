"""Practice and mock interviews (Qt-free): scenario packs, solo sessions and their scoring, the
attempt history, the candidate/interviewer link, replay and HTML reports.

The desktop windows sit on top of this package; nothing here imports Qt. The scenario names below
are imported on first use (PEP 562), so that importing ``inferboard.practice.cli`` stays light.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inferboard.practice.scenario import (FollowUp, HiddenFact, Phase, Question, RubricWeight, Scenario,
                                              ScenarioError, load_scenario)

__all__ = ["FollowUp", "HiddenFact", "Phase", "Question", "RubricWeight", "Scenario", "ScenarioError",
           "load_scenario"]


def __getattr__(name: str) -> Any:
    """The scenario schema's public names, imported when first asked for."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module("inferboard.practice.scenario"), name)
