#!/usr/bin/env bash
# Makes sure everything Inferboard needs is installed: the system libraries Qt needs (offscreen
# and on an X display), a virtual environment in .venv, and the package itself (editable) with its
# test and bench tools. When .venv is complete and pyproject.toml has not changed since the last
# install (the stamp .venv/.inferboard-stamp says so), it installs nothing and makes no network
# call. Otherwise it installs what is missing, or says what it needs if it cannot.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv
STAMP="$VENV/.inferboard-stamp"

QT_LIBS="libgl1 libegl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libfreetype6 libglib2.0-0 libdbus-1-3
libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0
libxcb-xinerama0 libxcb-xkb1 libx11-xcb1 libxrender1 libxi6 fonts-dejavu-core"
EXTRA_LIBS="${INFERBOARD_EXTRA_APT:-}"

# What the stamp must say for .venv to count as installed from this checkout's pyproject.toml.
wanted_stamp() {
    local version
    version="$("$VENV/bin/python" -c 'import sys; print(sys.version.split()[0])' 2>/dev/null)" || return 1
    echo "pyproject $(sha256sum pyproject.toml | cut -d' ' -f1) python $version at $(pwd)"
}

# True when every distribution the package and its test and bench extras require is present.
requirements_present() {
    "$VENV/bin/python" - <<'EOF' 2>/dev/null
import re
import sys
from importlib import metadata

try:
    needed = metadata.requires("inferboard") or []
except metadata.PackageNotFoundError:
    sys.exit(1)
for line in needed:
    extras = re.findall(r"extra\s*==\s*['\"]([^'\"]+)['\"]", line)
    if extras and not set(extras) & {"test", "bench"}:
        continue
    name = re.match(r"[A-Za-z0-9._-]+", line).group(0)
    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        sys.exit(1)
EOF
}

environment_complete() {
    [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] || return 1
    local wanted
    wanted="$(wanted_stamp)" || return 1
    [ "$(cat "$STAMP")" = "$wanted" ] && requirements_present
}

cannot_install() {
    echo "bootstrap: cannot install $1." >&2
    echo "bootstrap: $2" >&2
    exit 1
}

install_system_libraries() {
    command -v dpkg >/dev/null 2>&1 || return 0
    local missing=()
    for pkg in $QT_LIBS $EXTRA_LIBS; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    if ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then
        missing+=(python3-venv python3-pip)
    fi
    [ "${#missing[@]}" -eq 0 ] && return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || cannot_install "the system packages ${missing[*]}" \
            "Ask an administrator to run: apt-get install ${missing[*]}"
        sudo="sudo"
    fi
    command -v apt-get >/dev/null 2>&1 || cannot_install "the system packages ${missing[*]}" \
        "This machine has no apt-get; install them with its package manager."
    echo "Installing system packages: ${missing[*]}"
    if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
            $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
        cannot_install "the system packages ${missing[*]}" \
            "apt-get failed (no network or no package mirror?). Install them, then run this again."
    fi
}

install_python_packages() {
    if [ ! -x "$VENV/bin/python" ]; then
        python3 -m venv "$VENV" || cannot_install "a virtual environment in $VENV" \
            "python3 -m venv failed; Inferboard needs Python 3.11 or newer with its venv module."
    fi
    local isolation=()
    # With hatchling already in .venv the package builds without fetching it again.
    "$VENV/bin/python" -c "import hatchling" >/dev/null 2>&1 && isolation=(--no-build-isolation)
    echo "Installing Inferboard and its Python packages into $VENV (pyproject.toml changed or something is missing)"
    if ! "$VENV/bin/python" -m pip install -q --retries 2 --timeout 15 "${isolation[@]}" -e ".[test,bench]"; then
        cannot_install "Inferboard's Python packages into $VENV" \
            "pip could not fetch them from the package index (pypi.org, or PIP_INDEX_URL). Connect to the network or set PIP_INDEX_URL / PIP_FIND_LINKS to a mirror or a folder of wheels, then run this again."
    fi
}

if environment_complete; then
    exit 0
fi
install_system_libraries
install_python_packages
wanted_stamp > "$STAMP"
