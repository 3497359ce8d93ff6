"""``inferboard drill play ID [--design FILE] [--seed N]``: an incident drill stepped from a
terminal, on the same engine as the drill window (:class:`inferboard.drills.engine.DrillSession`).

The page comes first; then each line typed is a command (``help`` lists them): the dashboards the
design has as tables with sparklines, the alerts as delivered, the recent changes, the notebook
(symptom, hypothesis, root cause, follow-up) and the mitigations. The simulated clock moves while
you work: every command but ``help``, ``page`` and ``actions`` costs ``--step-min`` minutes
(default 1), and ``wait N`` lets N minutes pass. ``finish`` (or the end of input) scores the drill.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from dataclasses import dataclass
from typing import Callable, TextIO

import numpy as np

from inferboard.drills import views
from inferboard.drills.engine import DrillError, DrillSession
from inferboard.drills.library import applicable, load_drills
from inferboard.drills.library import get_drill
from inferboard.paths import data_dir
from inferboard.printable import shown
from inferboard.store import read_design

SPARKS = " ▁▂▃▄▅▆▇█"
SPARK_WIDTH = 40
#: commands that take no simulated time (reading what is already on the screen)
FREE = ("help", "page", "actions", "?")


def sparkline(values: np.ndarray, width: int = SPARK_WIDTH) -> str:
    """``values`` as one line of block characters (blank where unknown), squeezed to ``width``."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return ""
    if values.size > width:
        edges = np.linspace(0, values.size, width + 1).astype(int)
        values = np.array([np.nanmax(values[a:b]) if np.any(np.isfinite(values[a:b])) else np.nan
                           for a, b in zip(edges[:-1], edges[1:])])
    known = values[np.isfinite(values)]
    if known.size == 0:
        return " " * values.size
    low, high = float(known.min()), float(known.max())
    span = high - low
    out = []
    for v in values:
        if not math.isfinite(v):
            out.append(" ")
        else:
            out.append(SPARKS[1 + int(round((v - low) / span * 7))] if span > 0 else SPARKS[4])
    return "".join(out)


def _number(v: float) -> str:
    if not math.isfinite(v):
        return "-"
    if abs(v) < 1e-3:
        return "0"
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}"


def render_dashboard(board: views.Dashboard | views.Unavailable) -> str:
    """A dashboard as text: per panel, each line's value now, low and high, and a sparkline."""
    if isinstance(board, views.Unavailable):
        return f"{board.name}: Unavailable: {board.reason}"
    times = board.times_min
    head = f"== {board.title} (minute {times[0]:.0f} to {times[-1]:.0f}) ==" if times.size else f"== {board.title} =="
    lines = [head]
    for panel, series in board.panels.items():
        lines.append(panel)
        width = max((len(label) for label in series), default=5)
        for label, values in series.items():
            values = np.asarray(values, dtype=float)
            known = values[np.isfinite(values)]
            now = float(known[-1]) if known.size else float("nan")
            low = float(known.min()) if known.size else float("nan")
            high = float(known.max()) if known.size else float("nan")
            lines.append(f"  {label:<{width}}  now {_number(now):>7}  low {_number(low):>7}  high {_number(high):>7}"
                         f"  |{sparkline(values)}|")
    lines.extend(f"  note: {note}" for note in board.notes)
    return "\n".join(lines)


def render_alerts(notes: list[views.Notification]) -> str:
    """The alerts as delivered, each notification with the alerts grouped in it."""
    if not notes:
        return "No alerts have reached you."
    rows = []
    for note in notes:
        rows.append(f"  min {note.t_s / 60:6.1f}  {note.severity:<6}  {note.title}")
        rows.extend(f"      min {a.t_s / 60:6.1f}  {a.message}" for a in note.alerts)
    return "Alerts as delivered:\n" + "\n".join(rows)


def render_changes(rows: list[dict]) -> str:
    """The recent-changes log as lines, newest first."""
    if not rows:
        return "No recent changes."
    return "Recent changes (newest first):\n" + "\n".join(
        f"  min {r['at_min']:7.0f}  {r['kind']:<13}  {r['text']}" for r in rows)


@dataclass
class Command:
    """One command of the prompt: its usage, what it does and the handler."""

    usage: str
    help: str
    run: Callable[["Player", str], str]


class Player:
    """A drill session driven by typed lines (see the module docstring)."""

    def __init__(self, session: DrillSession, step_min: float = 1.0):
        self.session, self.step_min = session, step_min
        self.seen_alerts = len(session.view(dashboards=[]).notifications)

    # ------------------------------------------------------------------ commands
    def dash(self, arg: str) -> str:
        """Open a dashboard (``system`` when none is named)."""
        name = arg.strip() or "system"
        return render_dashboard(self.session.open_dashboard(name))

    def segments(self, arg: str) -> str:
        """The per-segment dashboard."""
        return render_dashboard(self.session.slice_by_segment())

    def alerts(self, arg: str) -> str:
        """The alerts delivered so far (and mark them seen)."""
        notes = self.session.view(dashboards=[]).notifications
        self.seen_alerts = len(notes)
        return render_alerts(notes)

    def changes(self, arg: str) -> str:
        """Check the recent changes (recorded)."""
        return render_changes(self.session.check_changes())

    def symptom(self, arg: str) -> str:
        """State the symptom; ``|`` separates the scope."""
        text, _, scope = arg.partition("|")
        if not text.strip():
            raise DrillError("say what you see: symptom TEXT [| SCOPE]")
        self.session.state_symptom(text.strip(), scope.strip())
        return "Noted: symptom" + (f" (scope: {scope.strip()})" if scope.strip() else "")

    def hypothesis(self, arg: str) -> str:
        """Write down a hypothesis."""
        if not arg.strip():
            raise DrillError("hypothesis TEXT")
        self.session.record_hypothesis(arg.strip())
        return "Noted: hypothesis"

    def actions(self, arg: str) -> str:
        """The mitigations this design allows, with their targets."""
        rows = []
        for action, targets in self.session.mitigation_targets().items():
            shown = ", ".join(t for t in targets if t) or "(no target)"
            rows.append(f"  {action:<22} {shown}")
        return "Mitigations on this design (mitigate ACTION [TARGET] [VALUE]):\n" + "\n".join(rows)

    def mitigate(self, arg: str) -> str:
        """Apply a mitigation: ACTION [TARGET] [VALUE]."""
        parts = arg.split()
        if not parts:
            raise DrillError("mitigate ACTION [TARGET] [VALUE]; 'actions' lists them")
        value = None
        if len(parts) >= 2 and _float_in(parts[-1]) is not None:
            value = float(parts.pop())
        action, target = parts[0], (parts[1] if len(parts) > 1 else "")
        if len(parts) > 2:
            raise DrillError("mitigate ACTION [TARGET] [VALUE]: one target")
        self.session.apply_mitigation(action, target, value)
        return f"Applied {action}{(' on ' + self.session.node_for(target)) if target else ''}" + (
            f" ({value:g})" if value is not None else "") + ". The dashboards will show what it does."

    def cause(self, arg: str) -> str:
        """Name the root cause."""
        if not arg.strip():
            raise DrillError("cause TEXT")
        self.session.name_root_cause(arg.strip())
        return "Noted: root cause"

    def followup(self, arg: str) -> str:
        """Write the long-term fix and the monitoring, separated by ``|``."""
        fix, _, monitoring = arg.partition("|")
        if not fix.strip() or not monitoring.strip():
            raise DrillError("followup FIX | MONITORING")
        self.session.write_follow_up(fix.strip(), monitoring.strip())
        return "Noted: follow-up"

    def wait(self, arg: str) -> str:
        """Let the clock run (five minutes unless told)."""
        minutes = _float_in(arg.strip()) if arg.strip() else 5.0
        if minutes is None:
            raise DrillError("wait MINUTES")
        if minutes <= 0:
            raise DrillError("wait MINUTES (more than 0)")
        self.session.wait(minutes)
        return f"{minutes:g} minutes pass."

    def page(self, arg: str) -> str:
        """The page again."""
        return banner(self.session)

    def help(self, arg: str) -> str:
        """The commands and what each does."""
        width = max(len(c.usage) for c in COMMANDS.values())
        return "Commands:\n" + "\n".join(f"  {c.usage:<{width}}  {c.help}" for c in COMMANDS.values())

    # ------------------------------------------------------------------ the loop
    def handle(self, line: str) -> str:
        """Do one typed line and return what to print (an error is a line, never a traceback)."""
        word, _, rest = line.strip().partition(" ")
        word = ALIASES.get(word.lower(), word.lower())
        if word not in COMMANDS:
            return f"Unknown command '{word}'; type help."
        if word not in FREE and self.step_min > 0 and word != "wait":
            self.session.advance_to(self.session.now_s + self.step_min * 60.0)
        try:
            out = COMMANDS[word].run(self, rest)
        except (DrillError, ValueError) as error:
            return f"Not done: {error}"
        return out + self.news()

    def news(self) -> str:
        """A line for each alert that arrived since the last look, and the clock's end."""
        notes = self.session.view(dashboards=[]).notifications
        out = [f"\nNEW {n.severity} at minute {n.t_s / 60:.1f}: {n.title}" for n in notes[self.seen_alerts:]]
        self.seen_alerts = len(notes)
        if self.session.finished:
            out.append("\nThe drill's clock has reached its end; type finish.")
        return "".join(out)

    def prompt(self) -> str:
        """The prompt, with the simulated minute."""
        return f"[min {self.session.now_s / 60:5.1f}] drill> "


def _float_in(text: str) -> float | None:
    """``text`` as a number, or None when it is not one."""
    try:
        return float(text)
    except ValueError:
        return None


COMMANDS: dict[str, Command] = {
    "help": Command("help", "this list", Player.help),
    "page": Command("page", "the page again", Player.page),
    "dash": Command("dash [NAME]", "open a dashboard: " + ", ".join(views.DASHBOARDS), Player.dash),
    "segments": Command("segments", "accuracy and input shift by traffic segment", Player.segments),
    "alerts": Command("alerts", "the alerts as delivered", Player.alerts),
    "changes": Command("changes", "the recent-changes log", Player.changes),
    "symptom": Command("symptom TEXT [| SCOPE]", "say what you see and how far it reaches", Player.symptom),
    "hypothesis": Command("hypothesis TEXT", "write down a hypothesis", Player.hypothesis),
    "actions": Command("actions", "the mitigations this design allows and their targets", Player.actions),
    "mitigate": Command("mitigate ACTION [TARGET] [VALUE]", "apply a mitigation now", Player.mitigate),
    "cause": Command("cause TEXT", "name the root cause", Player.cause),
    "followup": Command("followup FIX | MONITORING", "the long-term fix and the monitoring", Player.followup),
    "wait": Command("wait [MINUTES]", "let the clock run (default 5 minutes)", Player.wait),
    "finish": Command("finish", "end the drill and see the score", lambda player, arg: ""),
}
ALIASES = {"?": "help", "dashboard": "dash", "look": "dash", "quit": "finish", "exit": "finish", "q": "finish",
           "hyp": "hypothesis", "fix": "mitigate", "root": "cause"}


def banner(session: DrillSession) -> str:
    """How the candidate was told, and the page; never the drill's title (it names the cause)."""
    design = session.source_design.metadata.get("title", "") or "your design"
    return (f"Incident drill on {design}\n"
            f"Minute {session.notice_s / 60:.1f}: {session.notice}\n"
            f"Page: {session.page}")


def play(session: DrillSession, lines: TextIO, out: TextIO, step_min: float = 1.0, echo: bool = False) -> None:
    """Run the prompt over ``lines`` until ``finish`` or their end, then finish and score."""
    player = Player(session, step_min)
    print(shown(banner(session), keep_newlines=True), file=out)
    missing = session.view(dashboards=[]).missing
    if missing:
        print(shown("This design cannot show: " + "; ".join(missing)), file=out)
    print("Type help for the commands.", file=out)
    while not session.finished_at:
        print(player.prompt(), end="", file=out, flush=True)
        line = lines.readline()
        if not line:
            print(file=out)
            break
        if echo:
            print(shown(line.rstrip("\n")), file=out)
        if not line.strip():
            continue
        if ALIASES.get(line.split()[0].lower(), line.split()[0].lower()) == "finish":
            break
        print(shown(player.handle(line), keep_newlines=True), file=out, flush=True)
    session.finish()
    print_result(session, out)


def print_result(session: DrillSession, out: TextIO) -> None:
    """The score, line by line, and what missing observability cost."""
    result = session.result()
    print(shown(f"{session.drill.title}: {result.grade} ({result.percent:.0f}%), told at minute "
                f"{result.notice_min:g}; " + ("restored" if result.restored else "NOT restored")), file=out)
    for line in result.lines:
        print(shown(f"  {line.criterion:<17} {line.points:>6g} / {line.max_points:<3g} {line.reason}"), file=out)
    for item in result.missing:
        print(shown(f"  missing: {item.what}: {item.why} (cost {item.cost_min:g} min)"), file=out)


def surprise(design, seed: int, folder=None):
    """A drill that can run on ``design``, picked by ``seed``, as on call (the cause unknown)."""
    runnable = [d for _, d in sorted(load_drills(folder).items()) if not applicable(d, design)]
    if not runnable:
        raise KeyError("no drill can be planted on this design")
    return random.Random(seed).choice(runnable)


def cmd_play(args: argparse.Namespace) -> int:
    """``inferboard drill play``: load the drill and the design, then run the prompt on stdin."""
    design_path = args.design or str(data_dir("assets") / "drills" / "designs" / "ranker-drill.json")
    design, _ = read_design(design_path)
    try:
        drill = get_drill(args.id, args.folder) if args.id else surprise(design, args.seed, args.folder)
    except KeyError as error:
        print(shown(error.args[0]), file=sys.stderr)
        return 2
    try:
        session = DrillSession(drill, design, seed=args.seed)
    except DrillError as error:
        print(shown(f"{design_path}: {error}"), file=sys.stderr)
        return 2
    play(session, sys.stdin, sys.stdout, args.step_min, echo=not sys.stdin.isatty())
    return 0
