"""A drill over the interview link: the session runs on the interviewer's machine (who planted the
cause); the candidate's machine gets only what the candidate may see, as plain data, and sends
back the candidate's actions.

- :func:`view_to_data` / :func:`view_from_data`: a :class:`views.CandidateView` as JSON-ready
  data (NaN as ``null``) and back, so the candidate's window can draw it as it draws a local one;
- :class:`DrillHost`: the interviewer's side. ``act(verb, args)`` performs one of the candidate's
  actions on the session and answers with a short receipt that never says whether a mitigation
  was the right one (the dashboards show what it did); ``view()`` is the data to send.

The messages themselves are ``drill_view`` (to the candidate) and ``drill_action`` (to the
interviewer) in :mod:`inferboard.remote.wire`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from inferboard.drills import views
from inferboard.drills.engine import VERBS, DrillError, DrillSession

#: what a candidate may do from afar: everything but letting the clock run (the interviewer's
#: machine keeps the time)
REMOTE_VERBS = tuple(v for v in VERBS if v != "wait")
#: significant digits a plotted value keeps on the wire
DIGITS = 5


def _values(array: np.ndarray) -> list[float | None]:
    return [float(f"{v:.{DIGITS}g}") if math.isfinite(v) else None for v in np.asarray(array, dtype=float)]


def _array(values: list[float | None]) -> np.ndarray:
    return np.array([math.nan if v is None else float(v) for v in values], dtype=float)


def _board_to_data(board: views.Dashboard | views.Unavailable) -> dict[str, Any]:
    if isinstance(board, views.Unavailable):
        return {"name": board.name, "unavailable": board.reason}
    return {"name": board.name, "title": board.title, "times_min": _values(board.times_min),
            "panels": {panel: {label: _values(v) for label, v in lines.items()}
                       for panel, lines in board.panels.items()},
            "notes": list(board.notes)}


def _board_from_data(data: dict[str, Any]) -> views.Dashboard | views.Unavailable:
    if "unavailable" in data:
        return views.Unavailable(str(data["name"]), str(data["unavailable"]))
    return views.Dashboard(str(data["name"]), str(data["title"]), _array(data["times_min"]),
                           {panel: {label: _array(v) for label, v in lines.items()}
                            for panel, lines in data["panels"].items()}, [str(n) for n in data["notes"]])


def view_to_data(view: views.CandidateView) -> dict[str, Any]:
    """The candidate's view as JSON-ready data (the only drill data that leaves the interviewer's machine)."""
    return {
        "now_s": view.now_s, "page": view.page, "notice_s": view.notice_s, "notice": view.notice,
        "dashboards": [_board_to_data(b) for b in view.dashboards.values()],
        "notifications": [{"t_s": n.t_s, "severity": n.severity, "title": n.title,
                           "alerts": [{"t_s": a.t_s, "rule": a.rule, "severity": a.severity, "message": a.message}
                                      for a in n.alerts]} for n in view.notifications],
        "changes": [{"at_min": c["at_min"], "kind": c["kind"], "text": c["text"]} for c in view.changes],
        "missing": list(view.missing),
    }


def view_from_data(data: dict[str, Any]) -> views.CandidateView:
    """The view the interviewer's machine sent, for the candidate's window."""
    boards = [_board_from_data(b) for b in data["dashboards"]]
    notes = [views.Notification(float(n["t_s"]), str(n["severity"]), str(n["title"]),
                                tuple(views.Alert(float(a["t_s"]), str(a["rule"]), str(a["severity"]),
                                                  str(a["message"])) for a in n["alerts"]))
             for n in data["notifications"]]
    return views.CandidateView(float(data["now_s"]), str(data["page"]), float(data["notice_s"]), str(data["notice"]),
                               {b.name: b for b in boards}, notes, [dict(c) for c in data["changes"]],
                               [str(m) for m in data["missing"]])


class DrillHost:
    """The interviewer's side of a remote drill: the session, and the candidate's actions applied to it."""

    def __init__(self, session: DrillSession):
        if session.mode != "interview":
            raise DrillError("a remote drill runs in interview mode (the candidate cannot stop the clock)")
        self.session = session

    def act(self, verb: str, args: dict[str, Any]) -> str:
        """Do the candidate's action now; the receipt says it was done or why not, never its effect."""
        if verb not in REMOTE_VERBS:
            return f"not done: '{verb}' cannot be done from the candidate's machine"
        try:
            self.session.perform(verb, dict(args))
        except (DrillError, TypeError) as error:
            return f"not done: {error}"
        return "done"

    def view(self, dashboards: list[str] | None = None) -> dict[str, Any]:
        """The data of a ``drill_view`` message: what the candidate may see now."""
        return view_to_data(self.session.view(dashboards))
