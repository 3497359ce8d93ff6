#!/usr/bin/env bash
# Installs everything Inferboard needs on a fresh Debian machine with Python 3.11: the system
# libraries Qt needs (offscreen and on an X display), a virtual environment in .venv, and the
# package itself (editable) with its test tools. Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

QT_LIBS="libgl1 libegl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libfreetype6 libglib2.0-0 libdbus-1-3
libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0
libxcb-xinerama0 libxcb-xkb1 libx11-xcb1 libxrender1 libxi6 fonts-dejavu-core"
EXTRA_LIBS="${INFERBOARD_EXTRA_APT:-}"

if command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1; then
    missing=()
    for pkg in $QT_LIBS $EXTRA_LIBS; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    if ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then
        missing+=(python3-venv python3-pip)
    fi
    if [ "${#missing[@]}" -gt 0 ]; then
        sudo=""
        [ "$(id -u)" -ne 0 ] && sudo="sudo"
        echo "Installing system packages: ${missing[*]}"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".[test,bench]"
