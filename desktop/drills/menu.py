"""The drill entries of the Practice menu, and the drill history as a view of the practice
history. Handed to the main window by ``desktop.app`` (see ``desktop.shell.features``)."""

from __future__ import annotations

from desktop.drills import open_drill, open_drill_history, open_drill_interview
from desktop.practice.history_extra_views import HistoryView
from desktop.practice.menu import PRACTICE
from desktop.shell.actions import ActionSpec
from desktop.shell.features import Feature


def _drill_history(history):
    # loaded when first opened, not with the first window
    from desktop.drills.history import DrillHistoryWindow

    return DrillHistoryWindow(history)


#: The "Drills…" button of the practice history.
DRILL_HISTORY_VIEW = HistoryView("drills", "Dr&ills…", "The incident drills kept in this history", _drill_history)

DRILLS_FEATURE = Feature("drills", actions=(
    ActionSpec("practice.drill", "Incident &Drill…", PRACTICE, "", "open_drill",
               "A live incident planted in the open design: the clock runs while you read the dashboards, alerts "
               "and recent changes, mitigate, name the root cause and write the follow-up"),
    ActionSpec("practice.drill_interview", "Drill I&nterview…", PRACTICE, "", "open_drill_interview",
               "Plant an incident for a candidate: their drill window shows only what the design shows, your "
               "console shows the hidden truth"),
    ActionSpec("practice.drill_history", "D&rill History…", PRACTICE, "", "open_drill_history",
               "Drills done: results traced to actions, replays and HTML reports"),
), handlers={
    "open_drill": open_drill,
    "open_drill_interview": open_drill_interview,
    "open_drill_history": open_drill_history,
})
