"""A child process saving in a loop is SIGKILLed at random moments; the file always survives."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inferboard.store import design_to_bytes, read_design, save_design
from inferboard.store.atomic import TEMP_SUFFIX, backup_path

CHILD = r"""
import sys
from inferboard.store import read_design, save_design
path = sys.argv[1]
design, _ = read_design(path)
n = design.node("gpus").params["replicas"]
while True:
    n = n % 1000 + 1
    design.set_params("gpus", replicas=n)
    save_design(design, path)
    sys.stdout.write(f"{n}\n")
    sys.stdout.flush()
"""

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # 30 child processes, about 20 s
def test_sigkill_at_random_moments_never_corrupts_the_file(tmp_path):
    from tests.core.helpers import serving_chain

    path = tmp_path / "design.json"
    path.write_bytes(design_to_bytes(serving_chain()))
    rng = random.Random(20261202)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    for _ in range(30):
        before = read_design(path)[0].node("gpus").params["replicas"]
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, env=env)
        # Wait until it has saved at least once, then kill it at a random moment.
        first = child.stdout.readline()
        assert first, "the saving child died before saving"
        time.sleep(rng.uniform(0, 0.03))
        child.send_signal(signal.SIGKILL)
        written = [int(first)] + [int(line) for line in child.stdout.read().split()]
        child.wait()
        design, _ = read_design(path)  # parses and validates
        value = design.node("gpus").params["replicas"]
        # Either the last completed save, or the one that was in flight when it was killed.
        last = written[-1]
        assert value in (last, last % 1000 + 1), (value, written[-3:], before)
        assert json.loads(path.read_bytes())["format"] == "inferboard-design"
    # The backup a kill leaves is always a whole design too.
    backup = backup_path(path)
    if backup.exists():
        read_design(backup)
    # The next ordinary save after all those kills succeeds, and is what is read back.
    design, _ = read_design(path)
    design.set_params("gpus", replicas=7)
    save_design(design, path)
    assert read_design(path)[0].node("gpus").params["replicas"] == 7
    # ... and removes the temporary files the kills left behind.
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(TEMP_SUFFIX)] == []
