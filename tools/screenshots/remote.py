"""Regenerate docs/screenshots/remote-*.png: the host dialog (setting up, joined, with a new code
after the interviewer's app went away), the join dialog, the interviewer console, the candidate.

Run on a display at 1600x1000 (Xvfb works):

    Xvfb :98 -screen 0 1600x1000x24 &
    DISPLAY=:98 QT_QPA_PLATFORM=xcb python -m tools.screenshots remote

Both ends run in this process and meet on 127.0.0.1 (any free port); each has its own data folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
DATA = Path(tempfile.mkdtemp(prefix="inferboard-remote-shots-"))
os.environ["INFERBOARD_DATA_DIR"] = str(DATA / "candidate")

from desktop.app import make_application  # noqa: E402
from tools.screenshots.practice import settle  # noqa: E402
from tools.screenshots.screen import release_windows, save  # noqa: E402


def shoot(widget, name: str) -> None:
    """Save ``widget`` as docs/screenshots/``name``."""
    save(widget.grab(), name)


def main() -> None:
    make_application()
    from desktop import practice
    from desktop.practice.common import open_library
    from tests.desktop_practice.conftest import add_node, connect

    library = open_library(DATA / "candidate")
    host = practice.host_interview(None, "fraud-scoring-cpu", library=library, data_folder=DATA / "candidate")
    host.port.setValue(0)
    host.move(40, 40)
    settle(300)
    shoot(host, "remote-host-setup.png")
    remote = host.start_hosting()
    remote.candidate.hide()
    settle(300)
    join = practice.join_interview(None, library=library, data_folder=DATA / "interviewer")
    join.port.setValue(remote.port)
    join.code.setText(host.code_label.text())
    shoot_join_code = host.code_label.text()
    settle(200)
    shoot(join, "remote-join.png")
    join.join()
    settle(300, until=lambda: join.remote.console is not None and remote.candidate.link.phase is not None)
    console = join.remote.console
    candidate = remote.candidate
    add_node(candidate.document, "traffic_source", -300, 0, "users")
    add_node(candidate.document, "regional_load_balancer", 0, 0, "lb")
    add_node(candidate.document, "cpu_pool", 300, 0, "cpus")
    connect(candidate.document, "users", "lb")
    connect(candidate.document, "lb", "cpus")
    candidate.ask(console.scenario.questions[0].id)
    settle(600, until=lambda: len(console.mirror.node_ids()) == 3 and console.checklist.grade is not None)
    console.move(0, 0)
    console.resize(1600, 1000)
    console.mirror.view.fit_all()
    settle(500)
    shoot(host, "remote-host-joined.png")
    shoot(console, "remote-console.png")
    candidate.show()
    candidate.move(0, 0)
    candidate.resize(1600, 1000)
    settle(800, until=lambda: not candidate.evaluator.busy())
    candidate.view.fit_all()
    settle(300)
    shoot(candidate, "remote-candidate.png")
    # the interviewer's app goes away without a goodbye: the candidate gives them a new code
    join.remote.closed = True
    join.remote.peer.ended = True
    join.remote.peer.cut_connection()
    settle(300, until=lambda: host.new_code_button.isEnabled())
    host.issue_new_code()
    settle(300)
    shoot(host, "remote-host-new-code.png")
    print("code was", shoot_join_code)
    join.remote.close()
    remote.close(discard=True)
    release_windows()


if __name__ == "__main__":
    main()
