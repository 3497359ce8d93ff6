"""Inferboard's desktop layer (Qt). Nothing in the core imports it."""
