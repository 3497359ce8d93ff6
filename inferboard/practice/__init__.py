"""Practice and mock interviews (Qt-free): scenario packs, solo sessions and their scoring, the
attempt history, the candidate/interviewer link, replay and HTML reports.

The desktop windows sit on top of this package; nothing here imports Qt.
"""

from inferboard.practice.scenario import (FollowUp, HiddenFact, Phase, Question, RubricWeight, Scenario,
                                          ScenarioError, load_scenario)

__all__ = ["FollowUp", "HiddenFact", "Phase", "Question", "RubricWeight", "Scenario", "ScenarioError",
           "load_scenario"]
