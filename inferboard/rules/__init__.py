"""The rule engine: declarative rules (``rubrics/``) checked against a design, with scores.

Qt-free. Structural rules read only the design; behaviour rules ask the simulator, which is
imported lazily so that ``check_design(..., behaviour=False)`` never loads it.
"""

from inferboard.rules.engine import (CheckReport, Finding, RubricScore, UnknownRubric, check_design,
                                     default_rules, explain_rule, grade_of, overall_of)
from inferboard.rules.loader import RuleFileError, RuleSet, UnknownRule, load_rules

__all__ = ["CheckReport", "Finding", "RubricScore", "RuleFileError", "RuleSet", "UnknownRubric", "UnknownRule",
           "check_design", "default_rules", "explain_rule", "grade_of", "load_rules",
           "overall_of"]
