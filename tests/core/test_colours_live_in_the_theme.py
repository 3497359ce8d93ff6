"""Colours have one home: desktop/theme.py (and the projector's high-contrast theme). A hex colour
written anywhere else in the desktop layer is a colour the dark theme and the projector cannot
change."""

from __future__ import annotations

import re
from pathlib import Path

DESKTOP = Path(__file__).resolve().parents[2] / "desktop"
THEMES = {DESKTOP / "theme.py", DESKTOP / "workshop" / "projector_theme.py"}
HEX = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")


def hex_colours_outside_the_themes(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        if path in THEMES:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if HEX.search(line.split("  #", 1)[0]):
                found.append(f"{path.relative_to(root.parent)}:{number}: {line.strip()}")
    return found


def test_no_hex_colour_outside_the_themes():
    assert hex_colours_outside_the_themes(DESKTOP) == []


def test_the_check_sees_a_stray_colour(tmp_path):
    (tmp_path / "desktop").mkdir()
    (tmp_path / "desktop" / "panel.py").write_text('label.setStyleSheet("color: #b91c1c;")\n')
    assert hex_colours_outside_the_themes(tmp_path / "desktop") == [
        'desktop/panel.py:1: label.setStyleSheet("color: #b91c1c;")']
