"""Runs a bench script as it was at another git revision, side by side with today's run: the
revision is checked out in a temporary worktree and its own script run there in a subprocess (same
machine, same load), so that each bench can print its figures as ratios to a named baseline."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_at(revision: str, script: str, args: tuple[str, ...] = (), timeout_s: float = 1800.0) -> str | None:
    """The standard output of ``bench/<script>`` at ``revision`` (None, with the reason printed,
    when the revision cannot be checked out or the script fails)."""
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "baseline"
        made = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), revision],
                              capture_output=True, text=True)
        if made.returncode:
            print(f"baseline {revision}: {made.stderr.strip()}")
            return None
        try:
            run = subprocess.run([sys.executable, str(tree / "bench" / script), *args], capture_output=True,
                                 text=True, cwd=str(tree), timeout=timeout_s, env=_own_tables(folder))
        except subprocess.TimeoutExpired:
            print(f"baseline {revision}: {script} took longer than {timeout_s:.0f} s")
            return None
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True)
        if not run.stdout.strip():
            print(f"baseline {revision}: no output ({run.stderr.strip()[-300:]})")
            return None
        return run.stdout


def _own_tables(folder: str) -> dict[str, str]:
    """The environment for the baseline's run: when this run builds its batching tables in a folder
    of its own (a bench's ``bench-tables-`` folder), the baseline gets another, so that neither reads
    back tables the other built and both pay for the same builds."""
    env = dict(os.environ)
    mine = env.get("INFERBOARD_CACHE_DIR", "")
    if Path(mine).name.startswith("bench-tables-"):
        env["INFERBOARD_CACHE_DIR"] = str(Path(folder) / "tables")
    return env


def figures_by_title(text: str, titles: list[str]) -> dict[str, float]:
    """From a bench's table, the first number after each row title (rows that are missing are left out)."""
    found = {}
    for title in titles:
        match = re.search(r"^" + re.escape(title) + r"\s+([-+\d.eE]+)", text, flags=re.M)
        if match:
            found[title] = float(match.group(1))
    return found
