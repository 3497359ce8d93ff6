"""Incident drills in the desktop app, on top of the Qt-free ``inferboard.drills``: the drill window,
the interviewer's console and the drill history. The entry points live in ``launch``."""

from desktop.drills.launch import drill_design, forget, open_drill, open_drill_history, open_drill_interview

__all__ = ["drill_design", "forget", "open_drill", "open_drill_history", "open_drill_interview"]
