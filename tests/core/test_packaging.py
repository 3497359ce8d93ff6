"""Layering, the shipped data and the generated schema."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from inferboard.store.json_schema import design_file_schema_text

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts_hold():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    result = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 0 broken" in result.stdout or "KEPT" in result.stdout


def test_core_imports_no_qt_at_runtime():
    code = ("import sys, inferboard.cli, inferboard.store, inferboard.model, inferboard.catalog;"
            "import importlib.util as u;"
            "[importlib.import_module(m) for m in ('inferboard.sim', 'inferboard.rules') if u.find_spec(m)]"
            " if False else None;"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'desktop')];"
            "print(bad); sys.exit(1 if bad else 0)")
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
