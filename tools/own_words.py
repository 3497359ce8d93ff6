"""Checks that the prose Inferboard ships is in the project's own words: no run of eight words from
the interview notes the content is grounded in appears in a scenario, a drill, a rubric, the help,
the docs or the README. A developer's check, not part of the test suite (the notes are kept beside
the repository, not in it):

    python -m tools.own_words [--seed PATH]

Exit 0 when nothing is copied, 1 naming each file and a copied run, 2 when the notes are missing.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SEED = ROOT.parent / "shared" / "seed" / "interview-insights.txt"
PROSE_GLOBS = ("assets/scenarios/*/scenario.yaml", "assets/drills/*.yaml", "rubrics/**/*.yaml",
               "assets/help/*.md", "docs/*.md", "README.md")
RUN_LENGTH = 8


def shingles(text: str, size: int = RUN_LENGTH) -> set[tuple[str, ...]]:
    """Every run of ``size`` consecutive words in ``text``, lower-cased, punctuation dropped."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(words[i:i + size]) for i in range(len(words) - size + 1)}


def shipped_prose(root: Path = ROOT) -> list[Path]:
    """The files whose text the app or the repository shows to people."""
    return sorted({path for pattern in PROSE_GLOBS for path in root.glob(pattern)})


def copied_runs(seed_text: str, paths: list[Path]) -> dict[Path, list[str]]:
    """For each file sharing a run of words with the notes, those runs (sorted)."""
    seed = shingles(seed_text)
    found = {}
    for path in paths:
        shared = seed & shingles(path.read_text(encoding="utf-8"))
        if shared:
            found[path] = sorted(" ".join(run) for run in shared)
    return found


def main(argv: list[str] | None = None) -> int:
    """Runs the check; see the module docstring for the exit codes."""
    parser = argparse.ArgumentParser(prog="python -m tools.own_words", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=Path, default=DEFAULT_SEED, help="the interview notes (default: %(default)s)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to check (default: this one)")
    args = parser.parse_args(argv)
    if not args.seed.is_file():
        print(f"own words: the interview notes are missing: expected {args.seed} (pass --seed PATH)", file=sys.stderr)
        return 2
    paths = shipped_prose(args.root)
    found = copied_runs(args.seed.read_text(encoding="utf-8"), paths)
    for path, runs in found.items():
        print(f"{path.relative_to(args.root)}: {len(runs)} run(s) copied from the notes, e.g. \"{runs[0]}\"")
    if not found:
        print(f"own words: {len(paths)} files checked, no run of {RUN_LENGTH} words copied from the notes")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
