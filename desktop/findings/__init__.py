"""The rule engine's findings and scores."""
