"""The designs projector mode steps through: slides made from design files, a folder, a graded
room or the open design, and the order their findings are shown in."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from inferboard.model import Design
from inferboard.store import DesignFileError, design_to_bytes, read_design

SEVERITY_ORDER = {"blocker": 0, "major": 1, "minor": 2, "advice": 3}


@dataclass
class Slide:
    """One design to show: its file bytes, or why it could not be read."""

    title: str
    data: bytes | None = None
    path: Path | None = None
    error: str = ""


def slide_of(design: Design, title: str = "") -> Slide:
    """A projector slide of ``design`` (its file bytes), titled ``title`` or the design's own title."""
    return Slide(title or design.metadata.get("title", "") or "This design", design_to_bytes(design))


def slides_from_paths(paths: Iterable[Path | str]) -> list[Slide]:
    """Design files in the order given; a folder adds its ``*.json`` files by name. A file that
    cannot be read becomes a slide saying why (the room goes on to the next one)."""
    files: list[Path] = []
    for path in map(Path, paths):
        files += sorted(p for p in path.glob("*.json") if p.is_file()) if path.is_dir() else [path]
    slides = []
    for path in files:
        try:
            design, _stamp = read_design(path)
        except (DesignFileError, OSError) as error:
            slides.append(Slide(path.name, None, path, str(error).replace(str(path), path.name)))
            continue
        slides.append(Slide(design.metadata.get("title", "") or path.stem, design_to_bytes(design), path))
    return slides


def slides_from_run(run) -> list[Slide]:
    """A graded room (a cohort: ``inferboard.workshop.grading.GradingRun``), one slide per
    submission in the room's order; a submission that could not be graded shows its error."""
    slides = []
    for row in run.results:
        title = row.title or row.name
        if row.error or not row.design:
            slides.append(Slide(title, None, None, row.error or "This submission holds no design."))
        else:
            slides.append(Slide(title, row.design.encode("utf-8")))
    return slides


def ordered_findings(report) -> list:
    """Biggest losses first, blockers before others at equal points."""
    findings = list(report.findings) if report is not None else []
    return sorted(findings, key=lambda f: (-f.points, SEVERITY_ORDER.get(f.severity, 9), f.rule_id))
