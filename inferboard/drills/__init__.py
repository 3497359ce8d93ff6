"""Incident drills on the user's own design: the drill files, a session that plants the cause on
the timeline and the quality layer, what the candidate can see, mitigations, scoring and records
(see docs/drills.md)."""
