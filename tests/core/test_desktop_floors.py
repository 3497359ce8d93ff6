"""The desktop floors are enforced: an import that points up a floor, or closes a circle between
two modules of one package, breaks a contract. Checked on a copy of the tree with the bad import
added, so the contracts are shown to bite, not only to pass."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def lint_copy(tmp_path: Path, module: str, line: str) -> str:
    for name in ("inferboard", "desktop"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / Path(*module.split(".")).with_suffix(".py")
    target.write_text(target.read_text() + f"\n{line}\n")
    lint = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    result = subprocess.run([lint, "--no-cache"], cwd=tmp_path, capture_output=True, text=True, env=env)
    return result.stdout + result.stderr


def broken(output: str) -> list[str]:
    return [line[: -len(" BROKEN")].strip() for line in output.splitlines() if line.endswith(" BROKEN")]


@pytest.mark.parametrize("module, line", [
    ("desktop.editor.document", "from desktop.shell.main_window import MainWindow  # noqa"),
    ("desktop.shell.window_commands", "from desktop.practice import open_practice  # noqa"),
    ("desktop.readouts.dock", "from desktop.findings.dock import FindingsPanel  # noqa"),
])
def test_an_import_up_a_floor_breaks_the_layers(tmp_path, module, line):
    out = lint_copy(tmp_path, module, line)
    assert any(name.startswith("Desktop floors") for name in broken(out)), out


def test_a_circle_inside_a_package_breaks_the_acyclic_contract(tmp_path):
    # commands <- document is the one-way dependency; closing it was a circle once.
    out = lint_copy(tmp_path, "desktop.editor.commands", "from desktop.editor.document import DesignDocument  # noqa")
    assert "No import circles anywhere in the desktop layer" in broken(out), out
    assert re.search(r"No cycles are allowed in desktop\.editor", out), out


def test_every_desktop_module_is_on_a_floor():
    """A new top-level module or package of desktop/ must be placed on a floor, or the layers
    contract would not see it."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    floors = next(c for c in contracts if c["name"].startswith("Desktop floors"))["layers"]
    placed = {name.strip() for layer in floors for name in layer.split("|")}
    present = {f"desktop.{p.stem}" for p in (ROOT / "desktop").glob("*.py") if p.stem != "__init__"}
    present |= {f"desktop.{p.parent.name}" for p in (ROOT / "desktop").glob("*/__init__.py")}
    assert present - placed == set()
