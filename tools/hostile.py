"""Runs issue 29's hostile and careless inputs against the command line, each in a process of its own:

    python -m tools.hostile [--only WORD] [--keep] [--shared-tables]

Every case is a command with an input made to break it (a device or a pipe as a design, crafted
text, duplicate keys, huge numbers, odd version-0 shapes, hostile packs, bad flags, bad drill
scripts, the simulator at the schema's bounds, terminal escapes, the headless remote ends). A case
passes when the command ends with the exit status expected (2 for a refusal), within 5 s of CPU
and 500 MB, with no traceback and no raw control character, and, for a refusal, one line on
standard error naming the file and the item. Wall-clock time is shown too and fails a case past
15 s (a hang uses no CPU); on a machine shared with other work the wall time is a multiple of the
CPU time. One row a case is printed; exit 0 when every case passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from inferboard.printable import shown

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "assets" / "examples"
DRILL_DESIGN = ROOT / "assets" / "drills" / "designs" / "ranker-drill.json"
LIMIT_S, LIMIT_WALL_S, LIMIT_MB = 5.0, 15.0, 500.0
#: Raw characters that must never reach a terminal: C0/C1 controls (newline and tab aside) and bidi.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
EVIL = "\x1b[31mred\u202eevil"


@dataclass
class Case:
    """One command; ``expect`` the exit status; ``says`` text the output must hold (stderr for a
    refusal, else stdout); ``setup`` makes the inputs in the work folder and returns the argv."""

    name: str
    setup: Callable[[Path], list[str]]
    expect: int = 2
    says: str = ""
    module: str = "inferboard"
    stdin: str | None = None
    check: Callable[[str, str], str] | None = None  #: extra check on (stdout, stderr): "" or the problem


@dataclass
class Outcome:
    case: Case
    status: int
    seconds: float
    cpu: float
    mb: float
    out: str
    err: str
    problems: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------ inputs
def example(name: str = "multi-region") -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text())


def write(folder: Path, name: str, data: dict | str | bytes) -> str:
    path = folder / name
    if isinstance(data, dict):
        data = json.dumps(data)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


def with_node(data: dict, kind: str, **params) -> dict:
    for node in data["nodes"]:
        if node["kind"] == kind:
            node["params"].update(params)
            return data
    raise KeyError(kind)


def at_bounds(end: str, source: str = "starter") -> dict:
    """The example with every numeric parameter at its schema minimum, just above it or its maximum."""
    from inferboard.catalog import default_catalog

    catalog, data = default_catalog(), example(source)
    for node in data["nodes"]:
        for spec in catalog.kinds[node["kind"]].params:
            if spec.type in ("int", "float") and spec.min is not None and spec.max is not None:
                value = spec.max if end == "max" else spec.min
                if end == "tiny" and spec.type == "float" and spec.min == 0:
                    value = 1e-200
                node["params"][spec.name] = value
    return data


def huge_batcher() -> dict:
    data = with_node(example("starter"), "dynamic_batcher", max_batch_size=1022)
    with_node(data, "autoscaler", min_replicas=1024, max_replicas=1024)
    return with_node(data, "gpu_pool", replicas=1024, min_replicas=1024, max_replicas=1024)


def zipped(folder: Path, name: str, entries: list[tuple[str, bytes]]) -> str:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for entry, data in entries:
            archive.writestr(entry, data)
    return write(folder, name, buffer.getvalue())


def pack_with(folder: Path, name: str, scenario_yaml: bytes | None = None, pack_yaml: bytes | None = None,
              reference: bytes | None = None) -> str:
    """A zip of the shipped fraud scenario as pack 'evil', with one file swapped for ``*_yaml``."""
    source = ROOT / "assets" / "scenarios" / "fraud-scoring-cpu"
    scenario = (source / "scenario.yaml").read_text().replace("id: fraud-scoring-cpu", "id: evil-fraud", 1)
    entries = [("evil/pack.yaml", pack_yaml or b"id: evil\ntitle: Evil pack\n"),
               ("evil/evil-fraud/scenario.yaml", scenario_yaml or scenario.encode()),
               ("evil/evil-fraud/reference.json", reference or (source / "reference.json").read_bytes())]
    return zipped(folder, name, entries)


def installed_broken_pack(folder: Path) -> list[str]:
    """A data folder whose packs folder holds a pack with hostile YAML beside nothing else."""
    packs = folder / "data" / "scenarios" / "broken"
    (packs / "broken-x").mkdir(parents=True, exist_ok=True)
    (packs / "pack.yaml").write_text("id: broken\ntitle: Broken\n")
    (packs / "broken-x" / "scenario.yaml").write_text("[" * 200 + "]" * 200)
    return ["scenarios"]


def script(folder: Path, text: str) -> list[str]:
    path = write(folder, "script.yaml", text + "\n")
    return ["drill", "run", "slow-canary-version", "--design", str(DRILL_DESIGN), "--script", path]


def mutated(folder: Path, seed: int) -> str:
    """A shipped example with a few random numeric parameters pushed to an extreme of their range."""
    import random

    from inferboard.catalog import default_catalog

    rng, catalog = random.Random(seed), default_catalog()
    data = example(rng.choice(["starter", "multi-region", "cpu-small"]))
    specs = [(node, spec) for node in data["nodes"] for spec in catalog.kinds[node["kind"]].params
             if spec.type in ("int", "float") and spec.min is not None and spec.max is not None]
    for node, spec in rng.sample(specs, min(6, len(specs))):
        value = rng.choice([spec.min, spec.max, (spec.min + spec.max) / 2])
        node["params"][spec.name] = int(value) if spec.type == "int" else float(value)
    return write(folder, f"mutated-{seed}.json", data)


# ------------------------------------------------------------------------------ the cases
def reader_cases() -> list[Case]:
    cases = []
    for device in ("/dev/urandom", "/dev/zero"):
        for command in ("validate", "simulate", "check"):
            cases.append(Case(f"{command} {device}", lambda f, c=command, d=device: [c, d], says="not a regular file"))

    def fifo(folder: Path, command: str) -> list[str]:
        path = folder / "pipe.json"
        if not path.exists():
            os.mkfifo(path)
        return [command, str(path)]

    for command in ("validate", "simulate", "check"):
        cases.append(Case(f"{command} FIFO", lambda f, c=command: fifo(f, c), says="named pipe"))
    for size in (64 * 1024, 1024 * 1024):
        crafted = '\\"' * (size // 2)
        long_id = '{"format": "inferboard-design", "version": 4, "nodes": [{"id": "%s", "kind": "cpu_pool"}]}' % (
            "a" * size + "!")
        cases.append(Case(f"id of {size // 1024} KiB crafted text",
                          lambda f, t=long_id: ["validate", write(f, "crafted.json", t)], says="crafted.json"))
        data = example()
        data["nodes"][1]["label"] = crafted
        cases.append(Case(f"label of {size // 1024} KiB crafted text", lambda f, d=data: ["check", write(
            f, "crafted-label.json", d)], says="crafted-label.json: node"))
    crafted_ref = json.dumps({**example(), "nodes": [{"id": "a" * 65536 + "!", "kind": "cpu_pool"}]}).encode()
    cases.append(Case("pack whose reference design holds 64 KiB crafted id",
                      lambda f: ["pack", "import", pack_with(f, "crafted.zip", reference=crafted_ref)],
                      says="reference.json"))
    for where, old, new in (("format", '"format": "inferboard-design"', '"format": "x", "format": "inferboard-design"'),
                            ("nodes", '"nodes": [', '"nodes": [], "nodes": ['),
                            ("params", '"replicas": ', '"replicas": 1, "replicas": ')):
        text = json.dumps(example()).replace(old, new, 1)
        cases.append(Case(f"duplicate key in {where}", lambda f, t=text: ["validate", write(f, "dup.json", t)],
                          says="appears twice"))
    for kind, value in (("int", "9" * 400), ("float", "-" + "9" * 450)):
        param = "replicas" if kind == "int" else "service_cv"
        text = re.sub(f'"{param}": [0-9.]+', f'"{param}": {value}', json.dumps(example()), count=1)
        cases.append(Case(f"{len(value.strip('-'))}-digit {kind} parameter",
                          lambda f, t=text: ["simulate", write(f, "huge.json", t)], says="digits"))
    for body in ('"nodes": 3', '"nodes": null', '"nodes": {"a": 1}', '"nodes": ["users"]', '"edges": ["e1"]',
                 '"edges": 7'):
        cases.append(Case(f"version 0 with {body}", lambda f, b=body: ["simulate", write(
            f, "v0.json", '{"format": "inferboard-design", "version": 0, ' + b + "}")], says="v0.json"))
    return cases


def pack_cases() -> list[Case]:
    cases = []
    for label, text, says in (("deep nesting", b"[" * 5000 + b"]" * 5000, "nesting"),
                              ("5000-digit integer", b"n: " + b"9" * 5000, "digits"),
                              ("invalid date", b"d: 2024-02-31", "day is out of range"),
                              ("invalid timestamp", b"t: 2024-01-01 25:00:00", "hour must be"),
                              ("bad !!float", b"f: !!float nope", "not a valid float"),
                              ("alias bomb", b"a: &a [x,x,x]\nb: &b [*a,*a,*a]\nc: [*b,*b,*b]", "aliases"),
                              ("python tag", b"!!python/object/apply:os.system [ls]", "is not allowed")):
        cases.append(Case(f"pack import: {label}", lambda f, t=text: ["pack", "import", pack_with(
            f, "evil.zip", scenario_yaml=t)], says="evil.zip!evil/evil-fraud/scenario.yaml"))
    cases.append(Case("pack import: id with '..'", lambda f: ["pack", "import", pack_with(
        f, "evil.zip", pack_yaml=b"id: ../up\ntitle: Up\n")], says="evil.zip!evil/pack.yaml"))
    cases.append(Case("pack import: not a zip", lambda f: ["pack", "import", write(f, "junk.zip", b"junk")],
                      says="not a zip file"))
    cases.append(Case("scenarios with a broken installed pack", installed_broken_pack, expect=0,
                      says="fraud-scoring-cpu",
                      check=lambda out, err: "" if "broken" in err and "deeper than" in err
                      else "the broken pack was not reported"))
    return cases


def simulator_cases() -> list[Case]:
    cases = []
    for end in ("min", "tiny", "max"):
        for source in ("starter", "multi-region", "cpu-small"):
            for extra in (["--json"], ["--load-test", "5000", "--json"], ["--timeline", "--json"]):
                cases.append(Case(f"{source} at {end} bounds: simulate {' '.join(extra[:-1]) or 'steady'}",
                                  lambda f, e=end, s=source, x=extra: ["simulate", write(f, f"{s}-{e}.json",
                                                                                         at_bounds(e, s)), *x],
                                  expect=0, check=finite_json))
            cases.append(Case(f"{source} at {end} bounds: check", lambda f, e=end, s=source: [
                "check", write(f, f"{s}-{e}.json", at_bounds(e, s))], expect=-1))
    for extra in (["--json"], ["--load-test", "5000", "--json"], ["--timeline", "--json"], ["--peak", "--json"]):
        cases.append(Case(f"B=1022 on 1024 replicas, fresh tables: simulate {' '.join(extra[:-1]) or 'steady'}",
                          lambda f, x=extra: ["simulate", write(f, "huge-batcher.json", huge_batcher()), *x],
                          expect=0, check=finite_json))
    cases.append(Case("B=1022 on 1024 replicas, fresh tables: check",
                      lambda f: ["check", write(f, "huge-batcher.json", huge_batcher())], expect=-1))
    tiny_cv = with_node(example("cpu-small"), "cpu_pool", service_cv=1e-200)
    cases.append(Case("load test with a tiny service CV", lambda f: ["simulate", write(f, "tiny-cv.json", tiny_cv),
                                                                     "--load-test", "20000", "--json"],
                      expect=0, check=finite_json))
    for seed in range(12):
        for extra in ([], ["--timeline", "--hours", "2"]):
            cases.append(Case(f"mutated example {seed}: simulate {' '.join(extra)}".rstrip(),
                              lambda f, s=seed, x=extra: ["simulate", mutated(f, s), *x], expect=0))
        cases.append(Case(f"mutated example {seed}: check", lambda f, s=seed: ["check", mutated(f, s)], expect=-1))
    return cases


def finite_json(out: str, _err: str) -> str:
    try:
        json.loads(out, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
    except ValueError as error:
        return f"not finite JSON: {str(error)[:80]}"
    return ""


def flag_cases() -> list[Case]:
    design = str(EXAMPLES / "multi-region.json")
    cases = [Case(f"simulate {' '.join(flags)}", lambda f, x=flags: ["simulate", design, *x], says=says)
             for flags, says in (
                 (["--rps", "nan"], "--rps"), (["--rps", "-5"], "--rps"), (["--rps", "inf"], "--rps"),
                 (["--rps", "1e308"], "--rps"), (["--timeline", "--pattern", "bogus"], "--pattern"),
                 (["--pattern", "bogus"], "--pattern"), (["--timeline", "--hours", "100000"], "--hours"),
                 (["--timeline", "--tick", "0.001"], "--tick"),
                 (["--fault", "region_outage:mars@2h+30m"], "region_outage"),
                 (["--fault", "region_outage@2h+30m"], "region_outage"),
                 (["--fault", "failing_replica*nan:gpu-east"], "magnitude"),
                 (["--fault", "failing_replica*-1:gpu-east"], "magnitude"),
                 (["--fault", "failing_replica*inf:gpu-east"], "magnitude"),
                 (["--fault", "slow_replica:gpu-east@nan+inf"], "start_s"),
                 (["--load-test", "0"], "--load-test"), (["--precision", "nan"], "--precision"))]
    cases.append(Case("grade --jobs 0", lambda f: ["grade", design, "--scenario", "global-llm-chat", "--jobs", "0"],
                      says="--jobs"))
    cases.append(Case("drill list --folder /nonexistent", lambda f: ["drill", "list", "--folder", "/nonexistent"],
                      says="/nonexistent"))

    def regoin(folder: Path) -> list[str]:
        target = folder / "bursty-speech"
        shutil.copytree(ROOT / "assets" / "scenarios" / "bursty-speech", target, dirs_exist_ok=True)
        path = target / "scenario.yaml"
        path.write_text(path.read_text().replace("gpu_shortage*2:kind=gpu_pool", "gpu_shortage*2:kind=regoin"))
        return ["scenario", "check", str(path), "--no-sim"]

    cases.append(Case("scenario check kind=regoin", regoin, says="regoin"))
    bad_node = example()
    next(n for n in bad_node["nodes"] if n["kind"] == "regional_load_balancer")["kind"] = "no_such_kind"
    cases.append(Case("one bad node, one message", lambda f: ["validate", write(f, "one-bad.json", bad_node)],
                      says="no_such_kind"))
    for label, text in (("value: lots", "- {do: apply_mitigation, action: scale_out, target: '{pool}', value: lots}"),
                        ("unknown dashboard", "- {do: open_dashboard, name: weather}"),
                        ("time going backwards",
                         "- {at_min: 30, do: check_changes}\n- {at_min: 10, do: check_changes}"),
                        ("past the horizon", "- {at_min: 100000, do: check_changes}"),
                        ("wait .nan", "- {do: wait, minutes: .nan}"),
                        ("not a list", "do: wait"),
                        ("escape in a verb", f"- {{do: {json.dumps(EVIL)}}}")):
        cases.append(Case(f"drill run script: {label}", lambda f, t=text: script(f, t), says="script.yaml"))
    evil_kind, evil_param, evil_id = example(), example(), example()
    evil_kind["nodes"][0]["kind"] = "warp" + EVIL
    evil_param["nodes"][1]["params"]["x" + EVIL] = 1
    evil_id["nodes"][1]["id"] = "gpu" + EVIL
    for label, data in (("kind", evil_kind), ("parameter name", evil_param), ("id", evil_id)):
        cases.append(Case(f"ANSI/bidi {label}", lambda f, d=data: ["validate", write(f, "evil\x1b[2J.json", d)],
                          says="red\\u202eevil"))
    report_check = (lambda out, err: "" if oct(os.stat(REPORT_PATH[0]).st_mode & 0o777) == oct(0o666 & ~UMASK)
                    else f"report mode {oct(os.stat(REPORT_PATH[0]).st_mode & 0o777)}")
    cases.append(Case("grade --html report mode", lambda f: report_args(f, design), expect=0, check=report_check))
    return cases


UMASK = os.umask(0o022)
os.umask(UMASK)
REPORT_PATH: list[str] = []


def report_args(folder: Path, design: str) -> list[str]:
    REPORT_PATH[:] = [str(folder / "room.html")]
    return ["grade", design, "--scenario", "global-llm-chat", "--no-sim", "--html", REPORT_PATH[0]]


def remote_cases() -> list[Case]:
    headless = "inferboard.remote.headless"
    return [
        Case("headless host unknown scenario", lambda f: ["host", "--scenario", "no-such" + EVIL, "--seconds", "1"],
             module=headless, says="no such scenario"),
        Case("headless join bad code", lambda f: ["join", "--port", "1", "--code", "hello"], module=headless,
             says="--code"),
        Case("headless join --seconds nan", lambda f: ["join", "--port", "1", "--code", "7-amber-falcon",
                                                       "--seconds", "nan"], module=headless, says="--seconds"),
        Case("headless host --port 70000", lambda f: ["host", "--scenario", "x", "--port", "70000"],
             module=headless, says="--port"),
        Case("headless join --port abc", lambda f: ["join", "--port", "abc", "--code", "7-amber-falcon"],
             module=headless, says="--port"),
        Case("headless join nobody listening", lambda f: ["join", "--port", str(free_port()), "--code",
                                                          "7-amber-falcon", "--seconds", "2"], module=headless,
             expect=-1),
        Case("headless host alone for 1 s", lambda f: ["host", "--scenario", "fraud-scoring-cpu", "--seconds", "1"],
             module=headless, expect=3),
    ]


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def host_and_join(folder: Path, env: dict) -> list[Outcome]:
    """The two headless ends with a spoken code (odd case, spaces, 3-letter prefixes), each timed."""
    command = [sys.executable, "-m", "inferboard.remote.headless"]
    started = time.monotonic()
    host = subprocess.Popen(command + ["host", "--scenario", "fraud-scoring-cpu", "--seconds", "30"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        listening = next(e for e in map(json.loads, host.stdout) if e["event"] == "listening")
        number, first, second = listening["code"].split("-")
        spoken = f"  {number} {first[:3].upper()}   {second.title()} "
        join_case = Case("headless join with a spoken code", lambda f: [], module="", expect=0, says='"design"')
        join = run([*command, "join", "--port", str(listening["port"]), "--code", spoken, "--seconds", "30",
                    "--history", str(folder / "history")], env, None)
        rest_out, host_err = host.communicate(timeout=30)
        status = host.returncode
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate()
    host_case = Case("headless host, joined, stops at the end", lambda f: [], module="", expect=0,
                     says="interview_ended")
    host_outcome = Outcome(host_case, status, time.monotonic() - started, 0.0, 0.0, rest_out, host_err)
    return [judge(Outcome(join_case, *join)), judge(host_outcome)]


# ------------------------------------------------------------------------------ running
def run(argv: list[str], env: dict, stdin: str | None) -> tuple[int, float, float, float, str, str]:
    """Run ``argv``; its exit status, wall and CPU seconds, peak resident MB, stdout and stderr."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=err,
                                   stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL)
        if stdin is not None:
            process.stdin.write(stdin.encode())
            process.stdin.close()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        except KeyboardInterrupt:
            process.kill()
            raise
        process.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        return (process.returncode, seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0,
                out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"))


def judge(outcome: Outcome) -> Outcome:
    case, problems = outcome.case, outcome.problems
    if case.expect >= 0 and outcome.status != case.expect:
        problems.append(f"exit {outcome.status}, expected {case.expect}")
    if case.expect < 0 and outcome.status not in (0, 1, 2, 3):
        problems.append(f"exit {outcome.status}")
    if "Traceback" in outcome.err or "Traceback" in outcome.out:
        problems.append("traceback")
    if RAW.search(outcome.out) or RAW.search(outcome.err):
        problems.append("raw control character in the output")
    if outcome.cpu > LIMIT_S:
        problems.append(f"{outcome.cpu:.1f} s of CPU")
    if outcome.seconds > LIMIT_WALL_S:
        problems.append(f"{outcome.seconds:.1f} s wall")
    if outcome.mb > LIMIT_MB:
        problems.append(f"{outcome.mb:.0f} MB")
    err_lines = outcome.err.strip().splitlines()
    if case.expect == 2 and len(err_lines) != 1:
        problems.append(f"{len(err_lines)} lines on stderr")
    where = outcome.err if case.expect == 2 else outcome.out + outcome.err
    if case.says and case.says not in where:
        problems.append(f"does not say {case.says!r}")
    if case.check is not None and not problems:
        extra = case.check(outcome.out, outcome.err)
        if extra:
            problems.append(extra)
    return outcome


def run_case(case: Case, folder: Path, python: str, tables: Path | None = None) -> Outcome:
    """Run one case in ``folder``; with ``tables`` the batching tables are kept there (shared by
    the cases, as the user's cache folder is), else each case builds its own."""
    tables = tables or Path(tempfile.mkdtemp(prefix="tables-", dir=folder))
    env = {**os.environ, "INFERBOARD_CACHE_DIR": str(tables), "INFERBOARD_DATA_DIR": str(folder / "data"),
           "XDG_DATA_HOME": str(folder / "xdg"), "PYTHONPATH": str(ROOT)}
    argv = case.setup(folder)
    command = [python, "-m", case.module, *argv]
    return judge(Outcome(case, *run(command, env, case.stdin)))


def first_line(outcome: Outcome) -> str:
    text = outcome.err.strip() if outcome.case.expect == 2 or not outcome.out.strip() else outcome.out.strip()
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= 150 else line[:147] + "..."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="run only the cases whose name holds this text")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--shared-tables", action="store_true",
                        help="the cases share one batching-table folder (else each starts from none)")
    args = parser.parse_args(argv)
    cases = reader_cases() + pack_cases() + simulator_cases() + flag_cases() + remote_cases()
    cases = [c for c in cases if args.only.lower() in c.name.lower()]
    folder = Path(tempfile.mkdtemp(prefix="inferboard-hostile-"))
    failed = 0
    try:
        outcomes = []
        for case in cases:
            work = folder / f"case-{len(outcomes)}"
            work.mkdir()
            outcomes.append(run_case(case, work, sys.executable, folder / "tables" if args.shared_tables else None))
            report(outcomes[-1])
        if args.only.lower() in "headless join with a spoken code":
            env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(folder / "xdg")}
            for outcome in host_and_join(folder, env):
                outcomes.append(outcome)
                report(outcome)
        failed = sum(bool(o.problems) for o in outcomes)
        print(f"{len(outcomes) - failed} of {len(outcomes)} cases passed")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            print(f"work folder kept: {folder}")
    return 1 if failed else 0


def report(outcome: Outcome) -> None:
    verdict = "PASS" if not outcome.problems else "FAIL " + "; ".join(outcome.problems)
    print(f"{verdict:<6} exit {outcome.status:>2} {outcome.cpu:5.2f} s CPU {outcome.seconds:5.2f} s wall "
          f"{outcome.mb:5.0f} MB  "
          f"{outcome.case.name}\n        {shown(first_line(outcome))}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
