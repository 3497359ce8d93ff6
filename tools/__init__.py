"""Generators and maintenance scripts run from a source checkout (not shipped in the wheel)."""
