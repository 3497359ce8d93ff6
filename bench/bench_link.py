"""Edit-to-mirror latency of a remote mock interview on loopback, for a 100-node design.

    .venv/bin/python bench/bench_link.py

The link alone: the candidate's link serialises the design and sends it; the time runs until the
interviewer's link has parsed it into its own copy. Side by side: the in-process transport of the
local mode, and the sealed network link on 127.0.0.1 (each network end on its own thread).

The app: a component moved in the candidate's editor until the interviewer's mirror shows it,
through the real windows, mid-interview (both sides have evaluated the design once), one edit
every 100 ms at most. The interviewer's console runs in a process of its own, as on its own
machine, or in the candidate's process (where each side's evaluation also holds up the other's);
each both with the candidate's window sending as it did before (100 ms after the last edit) and
as it does now (as each edit completes, at most every 40 ms). Target: p99 under 200 ms.
"""

from __future__ import annotations

import os
import statistics
import subprocess
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
#: Edits through the app windows start at least this far apart.
PACE_S = 0.1


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


def _qt():
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from desktop.app import make_application

    make_application()
    return QApplication.instance()


def _spin(app, until, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise TimeoutError("the mirror did not follow")
        app.processEvents()
        time.sleep(0.0005)


def app_windows(entry, design, library, edits: int = 60, warm_up: int = 3, two_processes: bool = False,
                **sending) -> list[float]:
    """A component moved in the candidate's editor until the interviewer's mirror shows it, through
    the real windows (offscreen Qt). The interviewer's console runs in this process, or with
    ``two_processes`` in a process of its own, as on its own machine (it reports when its mirror
    shows each edit; both processes read the same monotonic clock). ``sending`` goes to
    ``RemoteCandidate`` (``send_ms``, ``send_at_once``)."""
    from desktop.practice.remote_session import RemoteCandidate, RemoteInterviewer
    from inferboard.practice.history import History

    app = _qt()
    folder = Path(tempfile.mkdtemp(prefix="inferboard-bench-link-"))
    candidate = RemoteCandidate(entry, "127.0.0.1", 0, folder / "candidate", "light", **sending)
    candidate.start()
    node_id = next(iter(design.nodes))
    shown: dict[float, float] = {}
    child = interviewer = history = None
    if two_processes:
        child = subprocess.Popen([sys.executable, __file__, "--interviewer", str(candidate.port), candidate.code,
                                  node_id, str(folder / "interviewer")], stdout=subprocess.PIPE, text=True,
                                 env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})

        settled = threading.Event()

        def read() -> None:
            for line in child.stdout:
                if line.strip() == "settled":
                    settled.set()
                    continue
                x, t = line.split()
                shown[float(x)] = float(t)

        threading.Thread(target=read, daemon=True).start()

        def mirror_x():
            return max(shown, key=shown.get) if shown else None

        def interviewer_settled() -> bool:
            return settled.is_set()
    else:
        history = History(folder / "interviewer")
        interviewer = RemoteInterviewer(library, history, "127.0.0.1", candidate.port, candidate.code, show=False)
        interviewer.start()
        _spin(app, lambda: interviewer.console is not None)

        def mirror_x():
            nodes = interviewer.console.mirror.document.design.nodes
            return nodes[node_id].x if node_id in nodes else None

        def interviewer_settled() -> bool:
            return settled_console(interviewer.console)
    times = []
    try:
        _spin(app, lambda: candidate.link.phase is not None, 30.0)
        candidate.candidate.document.set_design(design)
        _spin(app, lambda: mirror_x() is not None, 30.0)
        # Mid-interview, not its first minute: both sides have evaluated the design once (the first
        # grading loads the rules and builds the batching model's tables: seconds, once a session).
        _spin(app, lambda: interviewer_settled() and not candidate.candidate.evaluator.busy(), 120.0)
        for n in range(warm_up + edits):
            x = 5000 + 10 * n
            if times:  # a quick hand makes an edit every 100 ms at most
                _spin(app, lambda: time.perf_counter() - start >= PACE_S)
            start = time.perf_counter()
            candidate.candidate.document.execute(ops.MoveNodes({node_id: (x, 0)}), "Move")
            _spin(app, lambda: mirror_x() == x)
            if two_processes:
                times.append((shown[x] - start) * 1000)
            else:
                app.processEvents()  # the mirror redraws in the same turn of the event loop
                times.append((time.perf_counter() - start) * 1000)
    finally:
        if interviewer is not None:
            interviewer.close()
        candidate.close(discard=True)
        if history is not None:
            history.close()
        if child is not None:
            child.wait(10)
    return times[warm_up:]  # the first edits also start the candidate's first simulation


def settled_console(console) -> bool:
    """The interviewer console has graded the mirrored design and has nothing left to grade."""
    return "grade" in console.evaluator.latest and not console.evaluator.busy()


def interviewer_process(port: int, code: str, node_id: str, folder: str) -> None:
    """The interviewer's end of ``app_windows(two_processes=True)``: prints "x time" whenever its
    mirror shows the watched component at a new x (after the mirror's turn of the event loop)."""
    from PySide6.QtCore import QTimer

    from desktop.practice.remote_session import RemoteInterviewer
    from inferboard.practice.history import History

    app = _qt()
    history = History(folder)
    interviewer = RemoteInterviewer(ScenarioLibrary(user_packs=None).load(), history, "127.0.0.1", port, code,
                                    show=False)
    last = [None]

    def report() -> None:
        node = interviewer.console.mirror.document.design.nodes.get(node_id)
        if node is not None and node.x != last[0]:
            last[0] = node.x
            print(f"{node.x} {time.perf_counter()}", flush=True)

    def opened(console) -> None:
        console.link.on_message(lambda _m: QTimer.singleShot(0, report))  # after the console's own handler
        console.evaluator.evaluated.connect(lambda: settled_console(console) and print("settled", flush=True))

    interviewer.console_opened.connect(opened)
    interviewer.status_changed.connect(lambda status: status.state == "ended" and app.quit())
    interviewer.start()
    app.exec()
    interviewer.close()
    history.close()


#: How the candidate's window sends: as on main before (100 ms after the last edit), and now.
SENDING = {"sent 100 ms after the edit (before)": {"send_ms": 100, "send_at_once": False},
           "sent as the edit completes (now)": {}}


def main() -> None:
    if sys.argv[1:2] == ["--interviewer"]:
        port, code, node_id, folder = sys.argv[2:6]
        interviewer_process(int(port), code, node_id, folder)
        return
    library = ScenarioLibrary(user_packs=None).load()
    entry = library.get("fraud-scoring-cpu")
    design = build(100)
    while len(design.nodes) < 100:  # the stacks come in sevens: top up to exactly 100
        design.add_node("traffic_source", 0, 100 * len(design.nodes), node_id=f"extra{len(design.nodes)}")
    local = in_process(entry, design)
    remote = over_loopback(entry, design, library)
    windows = {}
    for processes in ("two processes", "one process"):
        for how, sending in SENDING.items():
            windows[f"app, {processes}, {how}"] = app_windows(entry, design, library,
                                                              two_processes=processes == "two processes", **sending)
    print(f"{len(design.nodes)}-node design, {EDITS} edits each through the link alone, "
          f"{len(next(iter(windows.values())))} through the app windows (a component moved in the candidate's "
          f"editor until the interviewer's mirror shows it); load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    rows = {"link, in-process (local mode)": local, "link, sealed TCP loopback": remote, **windows}
    width = max(map(len, rows)) + 2
    print(f"{'path':<{width}} {'median ms':>10} {'p99 ms':>8}")
    for name, times in rows.items():
        print(f"{name:<{width}} {statistics.median(times):>10.2f} {percentile(times, 0.99):>8.2f}")
    print(f"ratio loopback / in-process: median {statistics.median(remote) / statistics.median(local):.2f}x, "
          f"p99 {percentile(remote, 0.99) / percentile(local, 0.99):.2f}x")
    for processes in ("two processes", "one process"):
        before, now = (windows[f"app, {processes}, {how}"] for how in SENDING)
        print(f"app, {processes}: now / before: median {statistics.median(now) / statistics.median(before):.2f}x, "
              f"p99 {percentile(now, 0.99) / percentile(before, 0.99):.2f}x")


if __name__ == "__main__":
    main()
