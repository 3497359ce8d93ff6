"""Layering, the shipped data and the generated schema."""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from inferboard.store.json_schema import design_file_schema_text

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts_hold():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    result = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    kept = re.search(r"Contracts: (\d+) kept, (\d+) broken", result.stdout)
    assert kept, result.stdout
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert (int(kept.group(1)), int(kept.group(2))) == (len(declared), 0), result.stdout


CORE_IMPORT_CHECK = """
import importlib, pkgutil, sys
import inferboard
names = [m.name for m in pkgutil.walk_packages(inferboard.__path__, "inferboard.")
         if not m.name.endswith("__main__")]
for name in names:
    importlib.import_module(name)
assert {"inferboard.sim", "inferboard.rules", "inferboard.practice", "inferboard.cli"} <= set(sys.modules)
bad = [m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "desktop")]
print(bad)
sys.exit(1 if bad else 0)
"""


def test_core_imports_no_qt_at_runtime():
    """Every core module imports without pulling in Qt, pyqtgraph or the desktop layer."""
    code = CORE_IMPORT_CHECK
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_checked_in_json_schema_is_current():
    checked_in = (ROOT / "docs" / "design-file.schema.json").read_text()
    assert checked_in == design_file_schema_text(), (
        "docs/design-file.schema.json is stale: run python -m inferboard.store.json_schema "
        "> docs/design-file.schema.json")


@pytest.mark.slow
def test_plain_install_finds_the_shipped_data_outside_the_source_tree(tmp_path):
    target = tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(ROOT)],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    assert (target / "inferboard" / "_data" / "components" / "gpu_pool.yaml").is_file()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    script = ("import inferboard, inferboard.paths as p, sys;"
              "from inferboard.catalog import default_catalog;"
              "from inferboard.cli import main;"
              "assert str(p.data_dir('components')).startswith(sys.argv[1]), p.data_dir('components');"
              "assert len(default_catalog().kinds) >= 19;"
              "sys.exit(main(['validate', *[str(x) for x in (p.data_dir('assets') / 'examples').glob('*.json')]]))")
    result = subprocess.run([sys.executable, "-c", script, str(target)], cwd=outside, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(": valid") >= 3
