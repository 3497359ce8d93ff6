#!/usr/bin/env bash
# Installs Inferboard (see bootstrap.sh) and opens it on an example design.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec .venv/bin/inferboard "${1:-assets/examples/multi-region.json}"
