"""Regenerate the screenshots in docs/screenshots from the real windows, one group per process.

Run on an X display with a window manager, as large as the largest group asks for::

    Xvfb :99 -screen 0 1920x1080x24 &
    DISPLAY=:99 openbox &
    DISPLAY=:99 QT_QPA_PLATFORM=xcb .venv/bin/python -m tools.screenshots [GROUP ...] [-- SHOT.png ...]

With no group, every group runs. Shot names after ``--`` go to the groups that take them (editor,
workshop). Each group sizes its own windows; those that capture the whole screen want the screen
size given beside them below.
"""

from __future__ import annotations

import subprocess
import sys

#: Group -> (what it makes, the screen it wants).
GROUPS = {
    "editor": ("the main window on the examples: canvas, findings, readouts, light and dark", "1600x1000"),
    "practice": ("solo practice and the mock interview windows", "1600x1000"),
    "remote": ("a remote mock interview: the host dialog and the joined console", "1600x1000"),
    "workshop": ("scenario authoring and projector mode (whole screen)", "1920x1080"),
    "cohort": ("grading a room and the cohort view (whole screen)", "1920x1080"),
    "injects": ("the interviewer's plan of timed follow-ups and the candidate's notice", "1600x1000"),
    "drills": ("an incident drill: dashboards, alert, change log, mitigation, result, interviewer", "1600x1000"),
    "screens": ("every window and dialog as placed on the screen it runs on, into a folder per size",
                "1366x768 and 1600x1000"),
}
TAKES_NAMES = {"editor", "workshop"}


def main(argv: list[str]) -> int:
    names: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, names = argv[:at], argv[at + 1:]
    unknown = [group for group in argv if group not in GROUPS]
    if unknown:
        lines = [f"  {group:<9} {what} ({screen})" for group, (what, screen) in GROUPS.items()]
        print(f"unknown group {', '.join(unknown)}; the groups:\n" + "\n".join(lines), file=sys.stderr)
        return 2
    failed = []
    for group in argv or list(GROUPS):
        extra = names if group in TAKES_NAMES else []
        print(f"== {group}: {GROUPS[group][0]}", flush=True)
        if subprocess.run([sys.executable, "-m", f"tools.screenshots.{group}", *extra]).returncode != 0:
            failed.append(group)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
