"""scripts/bootstrap.sh (what start.sh and test.sh run first) installs only when something is
missing or pyproject.toml changed, makes no network call when the environment is complete, and
says what it needs when it must install and cannot.

Each test runs the script on a copy of the checkout whose .venv/bin/python is a wrapper around
the interpreter running the tests, so the packages are all there; every installer (pip, venv,
apt-get, sudo, curl, wget) is replaced by a stand-in that records its call and, when told to,
fails; the package index and proxies point at a closed port."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALLERS = ("apt-get", "sudo", "pip", "pip3", "curl", "wget")
RECORDER = """#!/bin/sh
echo "{name} $*" >> "$INSTALL_CALLS"
exit "${{INSTALL_EXIT:-0}}"
"""
PYTHON_WRAPPER = """#!/bin/sh
case "$1 $2" in
    "-m pip"|"-m venv"|"-m ensurepip")
        echo "python $*" >> "$INSTALL_CALLS"
        exit "${{INSTALL_EXIT:-0}}";;
esac
exec {python} "$@"
"""


def _script(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the checkout's bootstrap and pyproject, with a .venv that has everything."""
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "bootstrap.sh", repo / "scripts")
    shutil.copy(ROOT / "pyproject.toml", repo)
    (repo / ".venv" / "bin").mkdir(parents=True)
    wrapper = PYTHON_WRAPPER.format(python=sys.executable)
    _script(repo / ".venv" / "bin" / "python", wrapper)
    fakebin = tmp_path / "bin"
    fakebin.mkdir()
    _script(fakebin / "python3", wrapper)
    for name in INSTALLERS:
        _script(fakebin / name, RECORDER.format(name=name))
    return repo


def _bootstrap(repo: Path, fail_installs: bool = False) -> tuple[subprocess.CompletedProcess, list[str]]:
    calls = repo.parent / "calls.log"
    calls.write_text("", encoding="utf-8")
    closed = "http://127.0.0.1:9"
    env = {**os.environ, "PATH": f"{repo.parent / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "INSTALL_CALLS": str(calls), "INSTALL_EXIT": "97" if fail_installs else "0",
           "PIP_INDEX_URL": closed, "http_proxy": closed, "https_proxy": closed,
           "HTTP_PROXY": closed, "HTTPS_PROXY": closed}
    done = subprocess.run(["bash", str(repo / "scripts" / "bootstrap.sh")], env=env, capture_output=True,
                          text=True, timeout=120)
    return done, calls.read_text(encoding="utf-8").splitlines()


def test_the_second_run_installs_nothing_and_calls_no_installer(checkout):
    first, first_calls = _bootstrap(checkout)
    assert first.returncode == 0, first.stderr
    assert any("-m pip install" in call for call in first_calls), first_calls
    assert (checkout / ".venv" / ".inferboard-stamp").is_file()
    second, second_calls = _bootstrap(checkout, fail_installs=True)
    assert second.returncode == 0, second.stderr
    assert second_calls == []
    assert second.stdout == "" and second.stderr == ""


def test_a_changed_pyproject_installs_again(checkout):
    assert _bootstrap(checkout)[0].returncode == 0
    with (checkout / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write("\n# a new dependency\n")
    again, calls = _bootstrap(checkout)
    assert again.returncode == 0, again.stderr
    assert any("-m pip install" in call for call in calls), calls


def test_an_install_that_cannot_reach_the_index_says_what_it_needs(checkout):
    failed, calls = _bootstrap(checkout, fail_installs=True)
    assert failed.returncode == 1
    assert any("-m pip install" in call for call in calls), calls
    assert "cannot install Inferboard's Python packages" in failed.stderr
    assert "PIP_INDEX_URL" in failed.stderr
    assert not (checkout / ".venv" / ".inferboard-stamp").exists()
