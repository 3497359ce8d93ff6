"""Workshops: a room of learners' designs collected safely, graded in bulk against one scenario,
kept as cohorts and exported as CSV and HTML reports (Qt-free; the desktop reuses all of it)."""
