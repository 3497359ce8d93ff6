"""Edit-to-mirror latency of a remote mock interview on loopback, for a 100-node design.

    .venv/bin/python bench/bench_link.py

One edit = the candidate's link serialises the design and sends it; the time runs until the
interviewer's link has parsed it into its own copy (what the mirror then draws). Printed side by
side: the in-process transport of the local mode, and the sealed network link on 127.0.0.1
(both ends in this process, each network end on its own thread). Target: p99 under 200 ms.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_model import build  # noqa: E402
from inferboard.model import ops  # noqa: E402
from inferboard.practice.interview_link import (CANDIDATE, INTERVIEWER, CandidateBrief, CandidateLink,  # noqa: E402
                                                InProcessTransport, InterviewerLink)
from inferboard.practice.library import ScenarioLibrary  # noqa: E402
from inferboard.remote.interview import RemoteTransport, resolve_session, session_info  # noqa: E402
from inferboard.remote.peer import HostPeer, JoinPeer  # noqa: E402

EDITS = 200


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def retitle(design, n: int) -> None:
    """An edit the mirror must show: here the title, so the test can see which edit arrived."""
    design.apply(ops.SetMetadata({"title": f"edit {n}", "notes": ""}))


def in_process(entry, design) -> list[float]:
    transport = InProcessTransport()
    interviewer = InterviewerLink(transport, entry, None)
    candidate = CandidateLink(transport, interviewer.brief())
    interviewer.start()
    times = []
    for n in range(EDITS):
        retitle(design, n)
        start = time.perf_counter()
        candidate.design_changed(design)
        assert interviewer.latest.metadata["title"] == f"edit {n}"
        times.append((time.perf_counter() - start) * 1000)
    return times


def over_loopback(entry, design, library) -> list[float]:
    arrived = threading.Event()
    host_transport = RemoteTransport(CANDIDATE)
    host = HostPeer(session_info(entry), "127.0.0.1", 0, on_message=host_transport.deliver)
    host_transport.attach(host)
    candidate = CandidateLink(host_transport, CandidateBrief.of(entry.scenario))
    host.start()
    join_transport = RemoteTransport(INTERVIEWER, hold=True)
    links: list[InterviewerLink] = []

    def on_session(info) -> None:
        link = InterviewerLink(join_transport, resolve_session(library, info), None)
        link.on_message(lambda m: arrived.set() if m.type == "design_changed" else None)
        link.start()
        join_transport.release()
        links.append(link)

    join_transport.on_session = on_session
    joiner = JoinPeer("127.0.0.1", host.port, host.code, on_message=join_transport.deliver)
    join_transport.attach(joiner)
    joiner.start()
    deadline = time.monotonic() + 10
    while candidate.phase is None and time.monotonic() < deadline:
        time.sleep(0.01)
    times = []
    try:
        for n in range(EDITS):
            retitle(design, n)
            arrived.clear()
            start = time.perf_counter()
            candidate.design_changed(design)
            if not arrived.wait(5):
                raise TimeoutError(f"edit {n} never arrived")
            times.append((time.perf_counter() - start) * 1000)
            assert links[0].latest.metadata["title"] == f"edit {n}"
    finally:
        joiner.end("bench over")
        host.end("bench over")
    return times


def app_windows(entry, design, library, edits: int = 60, warm_up: int = 3) -> list[float]:
    """Candidate editor -> interviewer mirror through the real windows (offscreen Qt)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    folder = Path(tempfile.mkdtemp(prefix="inferboard-bench-link-"))
    os.environ.setdefault("INFERBOARD_DATA_DIR", str(folder))
    from PySide6.QtWidgets import QApplication

    from desktop.app import make_application
    from desktop.practice.remote_session import RemoteCandidate, RemoteInterviewer
    from inferboard.practice.history import History

    make_application()
    app = QApplication.instance()

    def spin(until, timeout=10.0) -> None:
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise TimeoutError("the mirror did not follow")
            app.processEvents()
            time.sleep(0.0005)

    candidate = RemoteCandidate(entry, "127.0.0.1", 0, folder / "candidate", "light")
    candidate.start()
    history = History(folder / "interviewer")
    interviewer = RemoteInterviewer(library, history, "127.0.0.1", candidate.port, candidate.code, show=False)
    interviewer.start()
    spin(lambda: interviewer.console is not None and candidate.link.phase is not None)
    console = interviewer.console
    candidate.candidate.document.set_design(design)
    spin(lambda: len(console.mirror.node_ids()) == len(design.nodes))
    node_id = next(iter(design.nodes))
    times = []
    try:
        for n in range(warm_up + edits):
            x = 5000 + 10 * n
            start = time.perf_counter()
            candidate.candidate.document.execute(ops.MoveNodes({node_id: (x, 0)}), "Move")
            spin(lambda: console.mirror.document.design.nodes[node_id].x == x)
            app.processEvents()  # the mirror redraws in the same turn of the event loop
            times.append((time.perf_counter() - start) * 1000)
    finally:
        interviewer.close()
        candidate.close(discard=True)
        history.close()
    return times[warm_up:]  # the first edits also start the candidate's first simulation


def main() -> None:
    library = ScenarioLibrary(user_packs=None).load()
    entry = library.get("fraud-scoring-cpu")
    design = build(100)
    while len(design.nodes) < 100:  # the stacks come in sevens: top up to exactly 100
        design.add_node("traffic_source", 0, 100 * len(design.nodes), node_id=f"extra{len(design.nodes)}")
    with tempfile.TemporaryDirectory():
        local = in_process(entry, design)
        remote = over_loopback(entry, design, library)
        windows = app_windows(entry, design, library)
    print(f"{len(design.nodes)}-node design, {EDITS} edits each ({len(windows)} through the app windows); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'path':<40} {'median ms':>10} {'p99 ms':>8}")
    for name, times in (("link, in-process (local mode)", local), ("link, sealed TCP loopback", remote),
                        ("app windows, editor -> mirror, loopback", windows)):
        print(f"{name:<40} {statistics.median(times):>10.2f} {percentile(times, 0.99):>8.2f}")
    print(f"ratio loopback / in-process: median {statistics.median(remote) / statistics.median(local):.2f}x, "
          f"p99 {percentile(remote, 0.99) / percentile(local, 0.99):.2f}x")


if __name__ == "__main__":
    main()
