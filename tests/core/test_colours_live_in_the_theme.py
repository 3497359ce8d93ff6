"""Colours have one home: desktop/theme.py (and the projector's high-contrast theme). A colour
written anywhere else in the desktop layer, as a hex string, a colour name or RGB numbers, is a
colour the dark theme and the projector cannot change."""

from __future__ import annotations

import ast
import re
from pathlib import Path

DESKTOP = Path(__file__).resolve().parents[2] / "desktop"
THEMES = {DESKTOP / "theme.py", DESKTOP / "workshop" / "projector_theme.py"}
HEX = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")
#: Calls that make a colour, a pen or a brush from their arguments (Qt's and pyqtgraph's).
COLOUR_MAKERS = {"QColor", "fromRgb", "fromRgbF", "fromHsv", "fromHsl", "mkColor", "mkPen", "mkBrush"}
#: Qt's named colours that are not a colour a theme would change.
NOT_A_COLOUR = {"transparent"}


def _literal(node: ast.AST) -> bool:
    """A number or a string written in the code, or a conditional choosing one."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.Tuple):
        return all(_literal(element) for element in node.elts)
    if isinstance(node, ast.IfExp):
        return _literal(node.body) or _literal(node.orelse)
    return False


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def literal_colours(source: str) -> list[int]:
    """Lines of ``source`` that make a colour from literal values or name one of Qt's colours."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _called_name(node) in COLOUR_MAKERS:
            if any(_literal(arg) for arg in node.args) and not (node.args and _is_none(node.args[0])):
                lines.append(node.lineno)
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
              and node.value.attr == "GlobalColor" and node.attr not in NOT_A_COLOUR):
            lines.append(node.lineno)
    return lines


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def colours_outside_the_themes(root: Path) -> list[str]:
    """Every line outside the theme files that writes a colour down, as ``path:line: text``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path in THEMES:
            continue
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        numbers = {number for number, line in enumerate(lines, 1) if HEX.search(line.split("  #", 1)[0])}
        numbers.update(literal_colours(text))
        found += [f"{path.relative_to(root.parent)}:{number}: {lines[number - 1].strip()}" for number in sorted(numbers)]
    return found


def test_no_colour_outside_the_themes():
    assert colours_outside_the_themes(DESKTOP) == []


def test_the_check_sees_a_stray_hex_colour(tmp_path):
    (tmp_path / "desktop").mkdir()
    (tmp_path / "desktop" / "panel.py").write_text('label.setStyleSheet("color: #b91c1c;")\n')
    assert colours_outside_the_themes(tmp_path / "desktop") == [
        'desktop/panel.py:1: label.setStyleSheet("color: #b91c1c;")']


def test_the_check_sees_named_and_numeric_colours():
    source = "\n".join([
        'a = QColor("white")',                      # 1: a colour name
        "b = QColor(0, 0, 0, 60 if dark else 28)",  # 2: RGBA numbers
        "c = pg.mkBrush(225, 29, 72, 28)",          # 3: pyqtgraph numbers
        "d = Qt.GlobalColor.black",                 # 4: one of Qt's named colours
        "e = QColor(theme.card)",                   # a theme's colour: fine
        "f = pg.mkPen(None)",                       # no pen: fine
        "g = Qt.GlobalColor.transparent",           # nothing drawn: fine
    ])
    assert sorted(literal_colours(source)) == [1, 2, 3, 4]
