"""Regenerate the workshop screenshots (the scenario form, projector mode) from the real window.

Run on a 1920x1080 display with a window manager (``Xvfb :99 -screen 0 1920x1080x24 &``,
``DISPLAY=:99 openbox &``, then ``DISPLAY=:99 QT_QPA_PLATFORM=xcb python -m tools.screenshots workshop``).
The whole screen is captured with ImageMagick's ``import``, as a person would see it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("INFERBOARD_DATA_DIR", tempfile.mkdtemp(prefix="inferboard-shots-"))

from PySide6.QtCore import QPointF  # noqa: E402

from desktop.app import make_application, open_window  # noqa: E402
from tools.screenshots.editor import close, settle  # noqa: E402

from tools.screenshots.screen import capture, release_windows, wait  # noqa: E402
EXAMPLES = ROOT / "assets" / "examples"


def authoring_form(app) -> None:
    from desktop.workshop.authoring import open_authoring
    from tests.practice.authored import complete_draft

    window = open_window(str(EXAMPLES / "cpu-small.json"), restore_layout=False, theme_mode="light")
    window.resize(1900, 1040)
    window.move(0, 0)
    window.default_dock_sizes()
    settle(app, window)
    window.view.fit_all()
    dialog = open_authoring(window)
    draft = complete_draft(window.document.design)
    draft["follow_ups"][0].update(
        id="features-fail", title="The feature store fails", faults=[], phase="deep_dive",
        prompt="The feature store starts failing one request in five. What does a payment see?",
        look_for="A fallback that scores with the features at hand, alerts on the error budget, failover.")
    dialog.fill(draft)
    dialog.tabs.setCurrentIndex(3)
    item = dialog.follow_ups.items[0]
    window.scene.select_ids(["features"])
    # The component picked for the fault stays in sight, left of the form.
    features = window.scene.nodes["features"]
    shown = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    window.view.centerOn(features.sceneBoundingRect().center() + QPointF(shown.width() * 0.3, 0))
    kind = item.widgets["_fault_kind"]
    kind.setCurrentIndex(kind.findData("dependency_errors"))
    item.widgets["_magnitude"].setText("0.2")
    item.widgets["_on_selected"].click()
    dialog.follow_ups.add_button.click()
    second = dialog.follow_ups.items[1]
    second.widgets["id"].setText("stricter")
    second.widgets["title"].setText("The bank tightens the SLO")
    second.widgets["prompt"].setPlainText("The bank now wants 40 ms at p99. What changes in your design?")
    second.widgets["requirement_changes"].setText("slo_p99_ms=40")
    dialog.resize(1240, 960)
    dialog.move(670, 60)
    wait(600)
    capture("workshop-authoring.png")
    dialog.close()
    close(window)


def projector_mode(app) -> None:
    import numpy as np

    from inferboard.model import PlannedFault, ops

    window = open_window(str(EXAMPLES / "multi-region.json"), restore_layout=False, theme_mode="light")
    window.resize(1600, 1000)
    settle(app, window)
    design = window.document.design
    region = next(n.id for n in design.nodes.values() if n.kind == "region")
    window.document.execute(ops.SetFaults((PlannedFault("region_outage", region, 11 * 3600.0, 3 * 3600.0),)),
                            "Plan a region outage")
    stage = window.enter_projector()
    loop_until(lambda: stage.report is not None and stage.timeline is not None and not stage.evaluator.busy())
    while stage.finding_index < len(stage.findings) - 1:
        stage.next_finding()
        finding = stage.current_finding()
        if finding is not None and len(finding.node_ids) >= 2:
            break
    stage.set_tick(int(np.searchsorted(stage.timeline.times_s, 11.5 * 3600)))
    stage.set_playing(True)
    wait(500)
    capture("workshop-projector.png")
    stage.leave_requested.emit()
    close(window)


def loop_until(condition, timeout_ms: int = 60000) -> None:
    waited = 0
    while not condition() and waited < timeout_ms:
        wait(100)
        waited += 100


SHOTS = {"workshop-authoring.png": authoring_form, "workshop-projector.png": projector_mode}


def main(names: list[str]) -> int:
    app = make_application()
    for name in names or list(SHOTS):
        SHOTS[name](app)
    release_windows()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
