"""Workshops: windows for an instructor running a session for a room."""
