"""The core's import contracts bite: an import that points up a floor of the simulator, the timeline
or the drills, or that closes a circle anywhere in the core, breaks its contract. Checked on a copy
of the tree with the bad import added, each contract on its own (``lint-imports --contract``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def lint_with(tmp_path: Path, module: str, line: str | None, *contracts: str) -> subprocess.CompletedProcess:
    """``lint-imports`` on a copy of the core with ``line`` appended to ``module``, ``contracts`` only."""
    shutil.copytree(ROOT / "inferboard", tmp_path / "inferboard", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "desktop", tmp_path / "desktop", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    if line is not None:
        target = tmp_path / Path(*module.split(".")).with_suffix(".py")
        target.write_text(target.read_text() + f"\n{line}\n")
    lint = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    chosen = [arg for contract in contracts for arg in ("--contract", contract)]
    return subprocess.run([lint, "--no-cache", *chosen], cwd=tmp_path, capture_output=True, text=True, env=env)


PLANTS = [
    # queueing mathematics reaching up into the steady-state solver
    ("sim-floors", "inferboard.sim.queues.queueing", "from inferboard.sim.steady import analytic  # noqa"),
    # the compiled design reaching up into the timeline
    ("sim-floors", "inferboard.sim.design.routing", "from inferboard.sim.timeline import traffic  # noqa"),
    # the old circle: one stretch importing the stepped state that runs it
    ("timeline-floors", "inferboard.sim.timeline.timeline_stations",
     "from inferboard.sim.timeline import timeline_state  # noqa"),
    # the old circle: the views importing the engine that shows them
    ("drills-floors", "inferboard.drills.views", "from inferboard.drills import engine  # noqa"),
    # a circle between two modules of one package, and one between two packages
    ("core-acyclic", "inferboard.sim.timeline.timeline_events",
     "from inferboard.sim.timeline import timeline_stations  # noqa"),
    ("core-acyclic", "inferboard.catalog.roles", "import inferboard.model.design  # noqa"),
]


@pytest.mark.parametrize("contract, module, line", PLANTS)
def test_a_planted_import_breaks_its_contract(tmp_path, contract, module, line):
    result = lint_with(tmp_path, module, line, contract)
    assert result.returncode != 0 and "BROKEN" in result.stdout, result.stdout + result.stderr


def test_the_contracts_hold_on_the_tree_as_it_is(tmp_path):
    contracts = sorted({plant[0] for plant in PLANTS})
    result = lint_with(tmp_path, "", None, *contracts)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(contracts)} kept, 0 broken" in result.stdout, result.stdout


def test_every_simulator_and_drills_module_is_on_a_floor():
    """A new package of sim/ or module of drills/ must be placed on a floor, or the layers contract
    would not see it."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    for contract_id, folder in (("sim-floors", "sim"), ("drills-floors", "drills")):
        layers = next(c for c in contracts if c.get("id") == contract_id)["layers"]
        placed = {name.strip() for layer in layers for name in layer.split("|")}
        here = ROOT / "inferboard" / folder
        present = {p.stem for p in here.glob("*.py") if p.stem != "__init__"}
        present |= {p.parent.name for p in here.glob("*/__init__.py")}
        assert present - placed == set(), (contract_id, present - placed)
