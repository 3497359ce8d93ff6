"""The example designs in assets/examples are what tools/make_examples.py builds, at the current
file version (so opening one never needs a migration)."""

from __future__ import annotations

import json

import pytest

from inferboard.store import design_to_bytes
from inferboard.store.records import CURRENT_VERSION
from tools import make_examples

BUILDERS = {"starter": make_examples.starter, "multi-region": make_examples.multi_region,
            "cpu-small": make_examples.cpu_small}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_example_is_current_and_matches_its_builder(name):
    shipped = (make_examples.OUT / f"{name}.json").read_bytes()
    assert json.loads(shipped)["version"] == CURRENT_VERSION
    assert design_to_bytes(BUILDERS[name]()) == shipped, "stale: run python -m tools.make_examples"
