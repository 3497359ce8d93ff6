"""No function in the core or the desktop layer runs over 100 lines (an AST scan): long ones are
split into named steps. inferboard/sim and inferboard/drills are being split on their own and are
left out until they are."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 100
NOT_YET = ("inferboard/sim/", "inferboard/drills/")


def long_functions(source: str, limit: int = LIMIT) -> list[tuple[str, int]]:
    """(name, lines) of every function or method in ``source`` longer than ``limit`` lines."""
    return [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > limit]


def test_no_function_over_100_lines():
    found = []
    for top in ("inferboard", "desktop", "tools"):
        for path in sorted((ROOT / top).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith(NOT_YET):
                continue
            found += [f"{relative}:{name} ({lines} lines)" for name, lines in long_functions(path.read_text("utf-8"))]
    assert found == []


def test_the_scan_sees_a_long_method():
    body = "\n".join(f"        x{n} = {n}" for n in range(LIMIT))
    source = textwrap.dedent("""
        class Panel:
            def build(self):
        """) + body + "\n"
    assert long_functions(source) == [("build", LIMIT + 1)]
