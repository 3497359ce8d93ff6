"""Regenerate the incident-drill screenshots from the real windows: a solo drill on the bundled
drill design (the slow canary build, deployed at minute 6, told at minute 20.2) at the page, in
the breakdown, and after the rollback; the same drill on the design without observability; the
result; and a drill interview's console, also after the candidate left mid-drill.

The clock is driven by hand (``session.advance_to``) so every run gives the same pictures.
Run on a 1600x1000 display with a window manager (``Xvfb :71 -screen 0 1600x1000x24 &``,
``DISPLAY=:71 openbox &``, then ``DISPLAY=:71 QT_QPA_PLATFORM=xcb python -m tools.screenshots
drills``). The whole screen is captured with ImageMagick's
``import``, as a person would see it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("INFERBOARD_DATA_DIR", tempfile.mkdtemp(prefix="inferboard-shots-"))

from desktop.app import make_application  # noqa: E402
from tools.screenshots.screen import capture, release_windows, wait  # noqa: E402

DRILL = "slow-canary-version"


def design(blind: bool = False):
    from inferboard.paths import data_dir
    from inferboard.store import read_design
    from tests.drills.conftest import without_observability

    found, _ = read_design(data_dir("assets") / "drills" / "designs" / "ranker-drill.json")
    return without_observability(found, "Ranker without observability") if blind else found


def show(window) -> None:
    window.showMaximized()
    wait(600)


def at(window, minutes_after_notice: float) -> None:
    session = window.session
    session.advance_to(session.notice_s + minutes_after_notice * 60.0)
    window.refresh()
    wait(300)


def solo(history) -> None:
    from desktop import drills

    window = drills.open_drill(None, DRILL, design=design(), history=history)
    window.clock.stop()  # driven by hand below
    show(window)
    at(window, 2)
    notebook = window.notebook
    notebook.symptom.setText("p99 about 3x the 150 ms SLO while p50 barely moved")
    notebook.scope.setText("eu-west only, since minute 6")
    notebook.state_symptom()
    window.check_changes()
    window.open_dashboard("system")
    at(window, 4)
    capture("drill-dashboards-alert.png")
    window.open_dashboard("breakdown")
    notebook.hypothesis.setText("the canary build 2.14 is slower per batch")
    notebook.record_hypothesis()
    notebook.setCurrentIndex(1)
    at(window, 6)
    capture("drill-breakdown.png")
    notebook.setCurrentIndex(2)
    notebook.picker.choose("rollback_canary", "eu-west-canary")
    notebook.apply_mitigation()
    window.open_dashboard("system")
    at(window, 22)
    capture("drill-mitigation.png")
    notebook.root_cause.setPlainText("Build 2.14 in the eu-west canary is about 3x slower and automatic rollback "
                                     "was paused for the rollout, so nothing took it out.")
    notebook.name_root_cause()
    notebook.fix.setPlainText("A latency gate in the canary analysis; automatic rollback is never paused.")
    notebook.monitoring.setPlainText("Per-version p99 on the canary, with an alert on the gap to stable.")
    notebook.write_follow_up()
    window.finish()
    result = window.result_window
    result.resize(1200, 760)
    result.move(200, 100)
    wait(500)
    capture("drill-result.png")
    replay = window.open_replay()
    replay.showMaximized()
    replay.actions.setCurrentRow(5)
    replay.dashboards.open("system")
    wait(600)
    capture("drill-replay.png")
    for other in window.windows:
        other.close()
    window.close()


def blind(history) -> None:
    from desktop import drills

    window = drills.open_drill(None, DRILL, design=design(blind=True), history=history)
    window.clock.stop()
    show(window)
    window.check_changes()
    window.open_dashboard("breakdown")
    at(window, 1)
    capture("drill-unavailable.png")
    window.confirm_close = False
    window.close()


def mitigate_at(run, minutes: float, dashboard: str, action: str, target: str, check_changes: bool = False) -> None:
    """``minutes`` after the notice in a drill interview: (check the changes,) open ``dashboard``
    and apply the mitigation ``action`` on ``target``."""
    session = run.session
    session.advance_to(session.notice_s + minutes * 60)
    if check_changes:
        run.candidate.check_changes()
    run.candidate.open_dashboard(dashboard)
    run.candidate.notebook.picker.choose(action, target)
    run.candidate.notebook.apply_mitigation()


def interview(history) -> None:
    from desktop import drills

    run = drills.open_drill_interview(None, DRILL, design=design(), history=history)
    run.clock.stop()
    run.console.hide()
    run.candidate.showMaximized()
    wait(600)
    session = run.session
    mitigate_at(run, 3, "system", "flush_cache", "eu-west-cache", check_changes=True)
    mitigate_at(run, 9, "breakdown", "rollback_canary", "eu-west-canary")
    session.advance_to(session.notice_s + 20 * 60)
    run.candidate.open_dashboard("system")
    run.candidate.notebook.setCurrentIndex(5)  # the log
    wait(400)
    capture("drill-interview-candidate.png")
    run.candidate.hide()
    run.console.showMaximized()
    run.console.refresh()
    wait(600)
    capture("drill-interview-console.png")
    run.candidate.confirm_close = False
    run.candidate.close()  # the candidate leaves before the end: the console says so
    wait(400)
    capture("drill-interview-left.png")
    run.close()


def main() -> None:
    from desktop.practice.common import open_history

    make_application()
    history = open_history()
    solo(history)
    blind(history)
    interview(history)
    history.close()
    release_windows()


if __name__ == "__main__":
    main()
