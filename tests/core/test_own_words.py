"""Everything we ship as prose is in our own words: no run of eight words from the interview notes
the content is grounded in appears in a drill, a rubric, the help or the docs (the scenarios have
their own check in tests/practice)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT.parent / "shared" / "seed" / "interview-insights.txt"
PROSE = sorted([*ROOT.glob("assets/drills/*.yaml"), *ROOT.glob("rubrics/**/*.yaml"), *ROOT.glob("assets/help/*.md"),
                *ROOT.glob("docs/*.md"), ROOT / "README.md"])


def shingles(text: str, size: int = 8) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(words[i:i + size]) for i in range(len(words) - size + 1)}


@pytest.fixture(scope="module")
def seed() -> set[tuple[str, ...]]:
    if not SEED.is_file():
        assert not os.environ.get("CI"), f"the interview notes are missing: expected {SEED}"
        pytest.skip("the interview notes are not beside this checkout")
    return shingles(SEED.read_text(encoding="utf-8"))


def test_there_is_prose_to_check():
    assert len([p for p in PROSE if "drills" in p.parts]) >= 12 and any("rubrics" in p.parts for p in PROSE)


@pytest.mark.parametrize("path", PROSE, ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_prose_is_in_our_own_words(seed, path):
    copied = seed & shingles(path.read_text(encoding="utf-8"))
    assert not copied, [" ".join(c) for c in sorted(copied)[:3]]


def test_the_check_catches_a_copied_sentence(seed):
    words = sorted(seed)[len(seed) // 2]
    assert seed & shingles("We wrote: " + " ".join(words) + ".")
