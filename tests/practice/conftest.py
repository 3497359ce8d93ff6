"""Fixtures for the practice tests: the shipped library, a hand-driven clock, temporary packs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from inferboard.practice.library import ScenarioLibrary, shipped_pack_dir
from tests.fakes import FakeClock

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = shipped_pack_dir()


@pytest.fixture(scope="session")
def library() -> ScenarioLibrary:
    return ScenarioLibrary(user_packs=None).load()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def copy_pack(target: Path, scenario_ids: list[str], pack_id: str = "extra", title: str = "Extra pack") -> Path:
    """A pack folder at ``target`` holding copies of shipped scenarios, renamed with a prefix."""
    target.mkdir(parents=True)
    (target / "pack.yaml").write_text(f"id: {pack_id}\ntitle: {title}\nversion: '1'\n")
    for scenario_id in scenario_ids:
        new_id = f"{pack_id}-{scenario_id}"[:60]
        folder = target / new_id
        shutil.copytree(SHIPPED / scenario_id, folder)
        text = (folder / "scenario.yaml").read_text()
        (folder / "scenario.yaml").write_text(text.replace(f"id: {scenario_id}\n", f"id: {new_id}\n", 1))
    return target


@pytest.fixture
def extra_pack(tmp_path) -> Path:
    return copy_pack(tmp_path / "packs" / "extra", ["fraud-scoring-cpu", "bursty-speech"])
