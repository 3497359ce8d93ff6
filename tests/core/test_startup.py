"""Start-up stays light: ``inferboard --help`` loads neither the simulator, the rules, the catalog
nor Qt, and importing the core (simulator, rules, practice, the desktop's readouts) reads no
catalog file: the catalog is read once, on first use, through ``default_catalog()``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HELP = """
import json, sys
from desktop.launcher import main
try:
    main(["--help"])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""

IMPORTS = """
import json, sys
from inferboard.catalog import loader
import inferboard.sim.design.hardware, inferboard.sim.steady.design_sim, inferboard.sim.timeline.timeline, inferboard.rules.engine
import inferboard.practice.grading, inferboard.cli, desktop.readouts.moment
print(json.dumps(loader.default_catalog.cache_info().currsize))
"""


def _run(code: str):
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_help_loads_no_simulator_rules_catalog_or_qt():
    loaded = _run(HELP)
    heavy = [m for m in loaded if m.startswith(("inferboard.sim.", "inferboard.rules.engine", "inferboard.catalog",
                                                "inferboard.store", "PySide6", "pydantic", "numpy"))
             and m != "inferboard.sim.cli"]
    assert heavy == []
    assert "inferboard.cli" in loaded


def test_importing_the_core_reads_no_catalog():
    assert _run(IMPORTS) == 0


def test_the_kind_groups_read_the_catalog_on_first_use():
    from inferboard.catalog import default_catalog
    from inferboard.catalog.roles import kind_group

    pools = kind_group("serving_pool")
    expected = default_catalog().kinds_with_role("serving_pool")
    assert tuple(pools) == expected and len(pools) == len(expected) >= 3
    assert "gpu_pool" in pools and "regional_load_balancer" not in pools
    assert pools == expected and pools[0] == expected[0]
