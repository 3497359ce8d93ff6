"""The rule engine: declarative rules (``rubrics/``) checked against a design, with scores.

Qt-free. Structural rules read only the design; behaviour rules ask the simulator, which is
imported lazily so that ``check_design(..., behaviour=False)`` never loads it. The names below
are imported on first use (PEP 562), so that importing a submodule such as ``inferboard.rules.cli``
does not load the engine.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inferboard.rules.engine import (CheckReport, Finding, RubricScore, UnknownRubric, check_design,
                                         default_rules, explain_rule, grade_of, overall_of)
    from inferboard.rules.loader import RuleFileError, RuleSet, UnknownRule, load_rules

_HOME = {**dict.fromkeys(["CheckReport", "Finding", "RubricScore", "UnknownRubric", "check_design", "default_rules",
                          "explain_rule", "grade_of", "overall_of"], "inferboard.rules.engine"),
         **dict.fromkeys(["RuleFileError", "RuleSet", "UnknownRule", "load_rules"], "inferboard.rules.loader")}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    """The engine's and the loader's public names, imported when first asked for."""
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_HOME[name]), name)
