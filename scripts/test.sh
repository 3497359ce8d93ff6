#!/usr/bin/env bash
# Installs Inferboard with its test tools (see bootstrap.sh) and runs the whole test suite with
# pytest, Qt offscreen, one worker per core (pytest-xdist; pass -n 0 to run in one process).
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export QT_QPA_PLATFORM=offscreen
exec .venv/bin/python -m pytest -n auto "$@"
