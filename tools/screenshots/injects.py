"""Regenerate docs/screenshots/interview-plan.png: the interviewer's Plan tab of a mock interview
on llm-cost-cut, the shipped surge played by itself at minute 25, the candidate's notice beside it.

    DISPLAY=:98 QT_QPA_PLATFORM=xcb python -m tools.screenshots injects
"""

from __future__ import annotations

import sys

from tools.screenshots.practice import OUT, Clock, settle, shoot
from tools.screenshots.screen import release_windows

from desktop.app import make_application


def main() -> int:
    from desktop.practice.common import open_history, open_library
    from desktop.practice.mock import MockInterview

    make_application()
    clock = Clock()
    mock = MockInterview(open_library().get("llm-cost-cut"), open_history(), clock=clock, theme_mode="light")
    for window in (mock.candidate, mock.console):
        window.resize(1600, 1000)
        window.move(0, 0)
    mock.show()
    mock.start()
    console = mock.console
    console.private.setChecked(True)
    console.tabs.setCurrentWidget(console.injects)
    clock.t += 25 * 60 + 4
    console.tick.timeout.emit()
    settle(800)
    shoot(console, "interview-plan.png")
    mock.candidate.raise_()
    settle(400)
    shoot(mock.candidate, "interview-plan-candidate.png")
    mock.close(discard=True)
    print(f"in {OUT}")
    release_windows()
    return 0


if __name__ == "__main__":
    sys.exit(main())
