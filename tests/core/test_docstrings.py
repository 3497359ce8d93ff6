"""Public-docstring coverage per package, measured by tools/docstrings.py: every package reaches
85%. Packages still being brought up to it are held at a floor they may not fall below."""

from __future__ import annotations

import ast
import textwrap

import pytest

from tools import docstrings

TARGET = 85.0
#: Packages not yet at the target, each with the floor it has reached (raise these, never lower).
NOT_YET: dict[str, float] = {}


@pytest.fixture(scope="module")
def coverage():
    return docstrings.measure()


def test_every_package_reaches_the_target_or_its_floor(coverage):
    assert {"desktop", "desktop.editor.canvas", "inferboard", "inferboard.practice"} <= set(coverage)
    short = {name: round(cov.percent, 1) for name, cov in coverage.items()
             if cov.percent < NOT_YET.get(name, TARGET)}
    assert not short, f"public-docstring coverage below the floor: {short} (python -m tools.docstrings)"


def test_a_package_that_reached_the_target_leaves_the_waiting_list(coverage):
    done = [name for name in NOT_YET if name in coverage and coverage[name].percent >= TARGET]
    assert not done, f"{done} reached {TARGET}%: take them out of NOT_YET"


def test_public_names_are_functions_classes_and_their_public_methods():
    tree = ast.parse(textwrap.dedent('''
        def shown():
            """Documented."""
        def _hidden(): pass
        class Box:
            def __init__(self): pass
            def open(self): pass
            @property
            def size(self):
                """Documented."""
            @size.setter
            def size(self, value): pass
            def _inner(self): pass
        LIMIT = 3
    '''))
    assert docstrings.public_names(tree) == [("shown", True), ("Box", False), ("Box.open", False),
                                             ("Box.size", True)]


def test_the_script_fails_when_a_package_is_under_the_minimum(capsys, coverage, monkeypatch):
    monkeypatch.setattr(docstrings, "measure", lambda: coverage)
    assert docstrings.main(["--min", "101"]) == 1
    assert "inferboard.practice" in capsys.readouterr().out
    assert docstrings.main(["--min", "0"]) == 0
