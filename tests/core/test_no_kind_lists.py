"""Which kinds play which part is the catalog's to say (``roles:`` in components/*.yaml): no code
outside the catalog and the tests spells a group of kind names, and the simulator reads no catalog
while it is imported."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KINDS = frozenset(p.stem for p in (ROOT / "components").glob("*.yaml") if p.stem != "gpu_types")
SCANNED = ("inferboard", "desktop")


def kind_groups(tree: ast.AST) -> list[tuple[int, list[str]]]:
    """Collection literals that group kinds: two or more kind names making up most of its strings,
    or one kind name beside a starred group (``("regional_load_balancer", *POOLS)``)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            continue
        strings = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        kinds = [s for s in strings if s in KINDS]
        starred = any(isinstance(e, ast.Starred) for e in node.elts)
        if (len(set(kinds)) >= 2 and 2 * len(kinds) > len(strings)) or (kinds and starred):
            found.append((node.lineno, kinds))
    return found


def test_no_literal_group_of_kinds_outside_the_catalog():
    offenders = [f"{path.relative_to(ROOT)}:{line}: {kinds}"
                 for top in SCANNED for path in sorted((ROOT / top).rglob("*.py"))
                 for line, kinds in kind_groups(ast.parse(path.read_text(encoding="utf-8")))]
    assert not offenders, "group kinds by their catalog roles (catalog.kinds_with_role):\n" + "\n".join(offenders)


def test_the_scan_finds_a_group_of_kinds():
    tree = ast.parse(textwrap.dedent('''
        POOLS = ("gpu_pool", "cpu_pool")
        ROLES = ("pool", "cache", "region", "canary", "gateway")  # drill roles that share two names
        ONE = ("cache",)
        def f(kind, more):
            return kind in {"gpu_pool", "generation_pool"} or kind in ("regional_load_balancer", *more)
    '''))
    assert [line for line, _ in kind_groups(tree)] == [2, 6, 6]


def test_importing_the_simulator_reads_no_catalog():
    code = textwrap.dedent('''
        import importlib, pkgutil
        import inferboard.catalog.loader as loader
        calls = []
        real_load = loader.Catalog.load.__func__
        loader.Catalog.load = classmethod(lambda cls, *a, **k: calls.append(a) or real_load(cls, *a, **k))
        import inferboard.sim
        for m in pkgutil.walk_packages(inferboard.sim.__path__, "inferboard.sim."):
            importlib.import_module(m.name)
        print(len(calls))
    ''')
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0", out.stdout + out.stderr
