"""Regenerate the cohort-view screenshots from the real window: a graded room of 24 learners (made
like the grading benchmark's, plus two broken files) compared with an earlier session.

Run on a 1920x1080 display with a window manager (``Xvfb :99 -screen 0 1920x1080x24 &``,
``DISPLAY=:99 openbox &``, then ``DISPLAY=:99 QT_QPA_PLATFORM=xcb python -m tools.screenshots cohort``).
The whole screen is captured with ImageMagick's ``import``, as a person would see it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("INFERBOARD_DATA_DIR", tempfile.mkdtemp(prefix="inferboard-shots-"))

from PySide6.QtCore import QItemSelectionModel  # noqa: E402

from bench_grade import vary  # noqa: E402
from desktop.app import make_application  # noqa: E402
from inferboard.practice.library import ScenarioLibrary  # noqa: E402
from inferboard.workshop.cohorts import CohortStore  # noqa: E402
from inferboard.workshop.grading import grade_submissions  # noqa: E402
from inferboard.workshop.submissions import Submission  # noqa: E402

from tools.screenshots.screen import capture, release_windows, wait  # noqa: E402
SCENARIO = "fraud-scoring-cpu"
NAMES = ["amara", "bogdan", "chen", "dalia", "emeka", "fatima", "goran", "hana", "ines", "jonas", "kiri", "lena",
         "mateo", "nadia", "oskar", "priya", "quinn", "rosa", "sami", "tomas", "uma", "viktor", "wen", "yusuf"]


def room(entry, seed: int, broken: bool) -> list[Submission]:
    reference = json.loads(entry.reference_bytes)
    subs = [Submission(f"room/{name}.json", json.dumps(vary(reference, seed + n)).encode())
            for n, name in enumerate(NAMES)]
    if broken:
        subs.append(Submission("room/xavier.json", b'{"format": "inferboard-design", "nodes": ['))
        subs.append(Submission("room/class.zip!../../zoe.json", error="entry '../../zoe.json': '..' would write "
                                                                       "outside the pack"))
    return subs


def grading_dialog(entry, store) -> None:
    """The dialog half-way through a room of 120 (the same learners several times over)."""
    from desktop.workshop.grading_dialog import GradeSubmissionsDialog
    from inferboard.practice.library import ScenarioLibrary as Library

    folder = Path(tempfile.mkdtemp(prefix="inferboard-")) / "wednesday-room"
    folder.mkdir()
    for n in range(5):
        for sub in room(entry, 100 * n, broken=n == 0):
            if sub.data is not None:
                (folder / f"{Path(sub.name).stem}-{n}.json").write_bytes(sub.data)
    dialog = GradeSubmissionsDialog(Library().load(), store, scenario_id=SCENARIO)
    dialog.add_paths([folder])
    dialog.name.setText("Wednesday group")
    dialog.resize(900, 560)
    dialog.move(500, 240)
    dialog.show()
    dialog.start()
    waited = 0
    while dialog.progress.value() < 50 and waited < 60000:
        wait(50)
        waited += 50
    capture("grading-dialog.png")
    dialog.cancel()
    while dialog.running():
        wait(100)
    dialog.close()


def main() -> int:
    make_application()
    entry = ScenarioLibrary().load().get(SCENARIO)
    store = CohortStore(os.environ["INFERBOARD_DATA_DIR"])
    earlier = grade_submissions(entry.scenario, entry.reference_bytes, room(entry, 500, False), jobs=2)
    store.save(earlier, "Monday group")
    now = grade_submissions(entry.scenario, entry.reference_bytes, room(entry, 0, True), jobs=2)
    cohort_id = store.save(now, "Tuesday group")
    from desktop.workshop.cohort_view import CohortWindow

    window = CohortWindow(store, cohort_id=cohort_id)
    window.resize(1900, 1040)
    window.move(0, 0)
    window.show()
    window.compare.setCurrentIndex(1)
    wait(800)
    capture("cohort-table.png")
    window.tabs.setCurrentWidget(window.plots)
    wait(800)
    capture("cohort-distributions.png")
    window.tabs.setCurrentWidget(window.findings)
    wait(500)
    capture("cohort-findings.png")
    window.tabs.setCurrentIndex(0)
    ranked = sorted(now.graded, key=lambda r: r.overall)
    selection = window.table.selectionModel()
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    window.table.clearSelection()
    for row in range(window.table.rowCount()):
        if window.table.item(row, 0).text() in (ranked[0].name, ranked[-1].name):
            selection.select(window.table.model().index(row, 0), flags)
    window.compare_selected()
    wait(800)
    capture("cohort-side-by-side.png")
    window.close()
    grading_dialog(entry, store)
    store.close()
    release_windows()
    return 0


if __name__ == "__main__":
    sys.exit(main())
