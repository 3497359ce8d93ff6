"""The Practice menu: a solo round, a mock interview on one machine or two, and the history. Handed
to the main window by ``desktop.app`` (see ``desktop.shell.features``)."""

from __future__ import annotations

from functools import partial
from typing import Sequence

from desktop.practice import host_interview, join_interview, open_history, open_mock_interview, open_practice
from desktop.practice.history_extra_views import HistoryView
from desktop.shell.actions import ActionSpec
from desktop.shell.features import Feature

PRACTICE = "&Practice"

PRACTICE_ACTIONS = (
    ActionSpec("practice.start", "&Practise a Scenario…", PRACTICE, "", "open_practice",
               "Pick a scenario and practise it against the clock"),
    ActionSpec("practice.mock", "&Mock Interview…", PRACTICE, "", "open_mock_interview",
               "Open the candidate window and the interviewer console"),
    ActionSpec("practice.host", "Host &Interview…", PRACTICE, "", "host_interview",
               "Be the candidate in a mock interview run from another machine"),
    ActionSpec("practice.join", "&Join Interview…", PRACTICE, "", "join_interview",
               "Be the interviewer of a candidate on another machine"),
    ActionSpec("practice.history", "Practice &History…", PRACTICE, "", "open_practice_history",
               "Past attempts, scores over time, replays and reports", separator_after=True),
    ActionSpec("practice.inject_plan", "Interviewer console: Plan tab (timed follow-ups)", PRACTICE, "Alt+L", None,
               "Follow-ups played by themselves at chosen minutes; change the plan before or during the round",
               scope="console"),
)


def practice_feature(history_views: Sequence[HistoryView] = ()) -> Feature:
    """The Practice menu; the history window it opens offers ``history_views`` too."""
    return Feature("practice", actions=PRACTICE_ACTIONS, handlers={
        "open_practice": open_practice,
        "open_mock_interview": open_mock_interview,
        "host_interview": host_interview,
        "join_interview": join_interview,
        "open_practice_history": partial(open_history, views=tuple(history_views)),
    })
