"""Prints how many public names in each package carry a docstring:

    python -m tools.docstrings [--min 85] [--missing PACKAGE]

Public names are module-level functions and classes whose names do not start with ``_``, and the
methods of those classes that do not start with ``_``; a property's setter and a ``typing.overload``
stub are the same name as what they decorate and are not counted twice. Modules whose own name
starts with ``_`` (other than ``__init__`` and ``__main__``) are private and skipped. A package is
one folder with an ``__init__.py``; its sub-packages are counted on their own lines.

Exit 0 when every package reaches ``--min`` percent (default 0: just print), 1 otherwise.
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOP_PACKAGES = ("inferboard", "desktop")


@dataclass
class Coverage:
    """The public names of one package, split into documented and missing (``module:qualname``)."""

    package: str
    documented: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        """How many public names the package has."""
        return len(self.documented) + len(self.missing)

    @property
    def percent(self) -> float:
        """Documented names as a percentage of all public names (100 for a package with none)."""
        return 100.0 * len(self.documented) / self.total if self.total else 100.0


def _is_public(name: str) -> bool:
    return not name.startswith("_")


def _counts_once(node: ast.AST) -> bool:
    """False for a property setter/deleter or an overload stub, which repeat a counted name."""
    for decorator in getattr(node, "decorator_list", []):
        if isinstance(decorator, ast.Attribute) and decorator.attr in ("setter", "deleter"):
            return False
        if isinstance(decorator, (ast.Name, ast.Attribute)):
            name = decorator.id if isinstance(decorator, ast.Name) else decorator.attr
            if name == "overload":
                return False
    return True


def public_names(tree: ast.Module) -> list[tuple[str, bool]]:
    """Every public name a module defines, as ``(qualified name, has a docstring)``."""
    found = []
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in tree.body:
        if not isinstance(node, defs) or not _is_public(node.name) or not _counts_once(node):
            continue
        found.append((node.name, ast.get_docstring(node) is not None))
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, defs) and _is_public(member.name) and _counts_once(member):
                    found.append((f"{node.name}.{member.name}", ast.get_docstring(member) is not None))
    return found


def package_of(path: Path, root: Path) -> str:
    """The dotted package a module file belongs to (the folder holding it)."""
    return ".".join(path.parent.relative_to(root).parts)


def measure(root: Path = ROOT, tops: tuple[str, ...] = TOP_PACKAGES) -> dict[str, Coverage]:
    """Docstring coverage for every package under ``tops``, keyed by dotted package name."""
    result: dict[str, Coverage] = {}
    for top in tops:
        for path in sorted((root / top).rglob("*.py")):
            if not (path.parent / "__init__.py").exists():
                continue
            if path.stem.startswith("_") and path.stem not in ("__init__", "__main__"):
                continue
            package = package_of(path, root)
            coverage = result.setdefault(package, Coverage(package))
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for name, documented in public_names(tree):
                (coverage.documented if documented else coverage.missing).append(f"{path.stem}:{name}")
    return result


def main(argv: list[str] | None = None) -> int:
    """Print one line per package (percent, documented/total); return 1 if any is under ``--min``."""
    parser = argparse.ArgumentParser(prog="python -m tools.docstrings", description=__doc__.splitlines()[0])
    parser.add_argument("--min", type=float, default=0.0, help="lowest acceptable percent per package")
    parser.add_argument("--missing", metavar="PACKAGE", help="also list the undocumented names of a package")
    args = parser.parse_args(argv)
    coverage = measure()
    below = []
    for package, cov in sorted(coverage.items()):
        flag = "" if cov.percent >= args.min else "  < min"
        print(f"{cov.percent:5.1f}%  {len(cov.documented):4d}/{cov.total:<4d}  {package}{flag}")
        if flag:
            below.append(package)
    if args.missing:
        for name in coverage[args.missing].missing if args.missing in coverage else []:
            print(f"  missing: {args.missing}.{name}")
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
