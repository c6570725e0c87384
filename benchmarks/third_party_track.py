"""Race the challenges of a third-party Rally track with esbench and, where installed, with Rally.

One line per challenge per tool: pass/fail (the tool's exit status), duration, and the reason
(the tool's error, or the tasks that recorded no measurement sample). The challenges, track
params and race flags come from the command line or from a smoke-test script of the track
(``--smoke-test``: Elastic's rally-eventdata-track has one), read for its ``CHALLENGES=(...)``
list, ``--track-path``, ``--track-params``, ``--test-mode`` and ``--on-error`` (the script itself
is not run: it installs and starts its own Elasticsearch with Rally).

Both tools race the same node, one after the other, in the order of ``--tools``; the challenges
run in the given order (later challenges of a track may need the indices earlier ones created).
Rally needs ``GET /``, which integ-test-zip nodes answer up to 8.8.2 only; with another node
Rally is skipped with that reason. Without ``--hosts`` an 8.8.2 node is provisioned with
esbench and stopped at the end.

    python3 benchmarks/third_party_track.py --smoke-test /tmp/eventdata-track/smoke-test.sh \\
        --hosts 127.0.0.1:9200 --tools esbench,rally
    python3 benchmarks/third_party_track.py --track-path DIR --challenges a,b \\
        --track-params k:v,k2:v2 --test-mode --on-error abort

Exit status: 0 when every run of esbench passed, 1 otherwise, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

REPO = Path(__file__).resolve().parents[1]
RALLY_CANDIDATES = ("/opt/rally/bin/esrally",)
TOOLS = ("esbench", "rally")
OTHER_RALLY = "There are other Rally processes running on this machine"


@dataclass(frozen=True, slots=True)
class Plan:
    """What to race: the track directory, its challenges in order, and the race flags."""

    track_path: Path
    challenges: tuple[str, ...]
    track_params: str
    test_mode: bool
    on_error: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """One challenge raced by one tool."""

    tool: str
    challenge: str
    passed: bool | None  # None: not run
    seconds: float
    reason: str
    log: Path | None


def read_smoke_test(script: Path) -> Plan:
    """The plan of a Rally smoke-test script (see the module doc for what is read).

    Raises:
        ValueError: the script lacks a ``CHALLENGES=(...)`` list or a ``--track-path``.
    """
    text = script.read_text()
    listed = re.search(r"CHALLENGES=\(([^)]*)\)", text)
    if not listed:
        raise ValueError(f"{script}: no CHALLENGES=(...) list; pass --challenges instead.")
    path = re.search(r"--track-path=\"?\$\{?PWD\}?/([^\"\s]+)", text)
    if not path:
        raise ValueError(f'{script}: no --track-path="${{PWD}}/DIR" in its race command; pass --track-path.')
    params = re.search(r"--track-params=\"([^\"]*)\"", text)
    on_error = re.search(r"--on-error=(\w[\w-]*)", text)
    return Plan(
        track_path=script.parent / path.group(1),
        challenges=tuple(listed.group(1).split()),
        track_params=params.group(1) if params else "",
        test_mode="--test-mode" in text,
        on_error=on_error.group(1) if on_error else "continue",
    )


def find_rally(explicit: str | None) -> str | None:
    """The ``esrally`` executable: ``--rally``, else /opt/rally/bin/esrally, else ``PATH``."""
    if explicit:
        return explicit
    for candidate in RALLY_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("esrally")


def answers_root(host: str) -> bool:
    """True if the node answers ``GET /`` (Rally's version check needs it)."""
    try:
        with urllib.request.urlopen(f"http://{host}/", timeout=10) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _race_flags(plan: Plan, challenge: str, host: str) -> list[str]:
    flags = [
        "--pipeline=benchmark-only",
        f"--target-hosts={host}",
        f"--track-path={plan.track_path}",
        f"--challenge={challenge}",
        f"--on-error={plan.on_error}",
    ]
    if plan.track_params:
        flags.append(f"--track-params={plan.track_params}")
    if plan.test_mode:
        flags.append("--test-mode")
    return flags


def _run(cmd: list[str], log: Path, env: dict[str, str], timeout: float) -> tuple[int | None, float, str]:
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, check=False)
        output, rc = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or ""
        output = (
            out.decode(errors="replace") if isinstance(out, bytes) else out
        ) + f"\n[timeout after {timeout:.0f} s]"
        rc = None
    log.write_text(shlex.join(cmd) + "\n\n" + output)
    return rc, time.perf_counter() - start, output


def _first(pattern: str, text: str) -> str | None:
    match = re.search(pattern, text, re.MULTILINE)
    return match.group(1).strip() if match else None


def _shorten(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def esbench_results(output: str) -> dict | None:
    """The results.json of the esbench race whose id the output names, if it exists."""
    race_id = _first(r"race ([0-9a-f-]{36})", output)
    home = Path(os.environ.get("ESBENCH_HOME", Path.home() / ".esbench"))
    path = home / "races" / race_id / "results.json" if race_id else None
    return json.loads(path.read_text()) if path and path.is_file() else None


def rally_results(output: str) -> dict | None:
    """The race.json of the Rally race whose id the output names, if it exists."""
    race_id = _first(r"Race id is \[([0-9a-f-]{36})\]", output)
    home = Path(os.environ.get("RALLY_HOME", Path.home())) / ".rally"
    path = home / "benchmarks" / "races" / race_id / "race.json" if race_id else None
    return json.loads(path.read_text()) if path and path.is_file() else None


def _no_samples(names: list[str]) -> str:
    return f"no samples: {', '.join(names)}" if names else ""


def run_esbench(plan: Plan, challenge: str, host: str, run_dir: Path, args: argparse.Namespace) -> Outcome:
    cmd = [sys.executable, "-m", "esbench", "race", *_race_flags(plan, challenge, host)]
    if args.esbench_workers:
        cmd.append(f"--load-driver-workers={args.esbench_workers}")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    log = run_dir / f"esbench.{challenge}.log"
    rc, seconds, output = _run(cmd, log, env, args.timeout)
    results = esbench_results(output)
    empty = [
        t["task"]
        for t in (results or {}).get("tasks", [])
        if t.get("include_in_reporting", True) and not t.get("sample_count")
    ]
    if rc == 0:
        return Outcome("esbench", challenge, True, seconds, _no_samples(empty), log)
    status = _first(r"^Status:\s+(.*)$", output) or _first(r"^\[ERROR\]\s*(.*)$", output)
    return Outcome("esbench", challenge, False, seconds, _shorten(status or f"exit {rc}"), log)


def run_rally(
    plan: Plan, challenge: str, host: str, run_dir: Path, args: argparse.Namespace, rally: str
) -> Outcome:
    cmd = [rally, "race", "--offline", *_race_flags(plan, challenge, host)]
    log = run_dir / f"rally.{challenge}.log"
    # Rally refuses to race while another Rally process runs on the machine (another user's):
    # wait for it, bounded by --rally-wait, instead of counting the refusal as the track's failure.
    waited_until = time.monotonic() + args.rally_wait
    while True:
        rc, seconds, output = _run(cmd, log, dict(os.environ), args.timeout)
        if rc == 0 or OTHER_RALLY not in output or time.monotonic() >= waited_until:
            break
        print(
            f"rally    {challenge}: another Rally process runs on this machine; retrying in 5 s", flush=True
        )
        time.sleep(5)
    if rc == 0:
        race = rally_results(output) or {}
        ops = (race.get("results") or {}).get("op_metrics") or []
        empty = [op["task"] for op in ops if (op.get("throughput") or {}).get("median") is None]
        return Outcome("rally", challenge, True, seconds, _no_samples(empty), log)
    reason = _first(r"^\[ERROR\]\s*(.*)$", output) or _first(r"(Cannot race\..*)$", output)
    detail = _first(r"^\s+(.*(?:Error|error).*)$", output)
    text = " ".join(x for x in (reason, detail) if x) or f"exit {rc}"
    return Outcome("rally", challenge, False, seconds, _shorten(text), log)


def _table(outcomes: list[Outcome]) -> str:
    lines = ["| challenge | tool | result | duration | reason |", "|---|---|---|---|---|"]
    for o in outcomes:
        result = "skipped" if o.passed is None else ("pass" if o.passed else "FAIL")
        lines.append(f"| {o.challenge} | {o.tool} | {result} | {o.seconds:.0f} s | {o.reason} |")
    return "\n".join(lines)


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--smoke-test", type=Path, help="a Rally smoke-test script of the track to read the plan from"
    )
    parser.add_argument("--track-path", type=Path, help="the track directory (overrides the smoke test's)")
    parser.add_argument(
        "--challenges", help="comma-separated challenges, in order (overrides the smoke test's)"
    )
    parser.add_argument("--track-params", help="k:v,... track params (overrides the smoke test's)")
    parser.add_argument("--test-mode", action=argparse.BooleanOptionalAction, default=None)
    parser.add_argument("--on-error", choices=("continue", "abort"))
    parser.add_argument(
        "--tools",
        default="esbench,rally",
        help="tools in the order they race; one may repeat: esbench,rally,esbench (default: esbench,rally)",
    )
    parser.add_argument("--hosts", help="HOST:PORT of a running node (default: provision 8.8.2 with esbench)")
    parser.add_argument("--node-version", default="8.8.2")
    parser.add_argument("--rally", help="the esrally executable (default: /opt/rally/bin/esrally or PATH)")
    parser.add_argument("--esbench-workers", type=int, help="--load-driver-workers for esbench")
    parser.add_argument(
        "--rally-wait", type=float, default=900.0, help="seconds to wait for another Rally process to end"
    )
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per challenge and tool")
    parser.add_argument("--run-dir", type=Path, default=Path.home() / ".esbench-bench" / "third-party")
    return parser.parse_args(argv)


def _plan(args: argparse.Namespace) -> Plan:
    base = read_smoke_test(args.smoke_test) if args.smoke_test else None
    track_path = args.track_path or (base.track_path if base else None)
    challenges = tuple(c for c in (args.challenges or "").split(",") if c) or (
        base.challenges if base else ()
    )
    if track_path is None or not challenges:
        raise ValueError("Give --smoke-test, or --track-path and --challenges.")
    if not (track_path / "track.json").is_file():
        raise ValueError(f"{track_path}: no track.json there; --track-path must be the track's directory.")
    return Plan(
        track_path=track_path.resolve(),
        challenges=challenges,
        track_params=args.track_params
        if args.track_params is not None
        else (base.track_params if base else ""),
        test_mode=args.test_mode if args.test_mode is not None else (base.test_mode if base else False),
        on_error=args.on_error or (base.on_error if base else "continue"),
    )


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = sorted(set(tools) - set(TOOLS))
    if unknown:
        print(f"--tools: unknown {', '.join(unknown)}; use esbench and/or rally.", file=sys.stderr)
        return 2
    try:
        plan = _plan(args)
    except (ValueError, OSError) as exc:
        print(exc, file=sys.stderr)
        return 2
    run_dir = args.run_dir / time.strftime("%Y%m%d-%H%M%S")
    run_dir.mkdir(parents=True, exist_ok=True)
    from sidebyside.node import node_version, real_node

    outcomes: list[Outcome] = []
    with real_node(
        version=args.node_version, car="defaults", race_dir=run_dir / "node", hosts=args.hosts
    ) as host:
        rally = find_rally(args.rally)
        rally_skip = None if rally else "Rally is not installed (--rally PATH)"
        if rally and not answers_root(host):
            rally_skip = f"the node ({node_version(host)}) does not answer GET /, which Rally needs"
        print(f"track {plan.track_path}, node {host} ({node_version(host)}), logs in {run_dir}")
        for number, tool in enumerate(tools, start=1):
            logs = run_dir / f"{number}-{tool}"
            logs.mkdir(exist_ok=True)
            for challenge in plan.challenges:
                if tool == "esbench":
                    outcome = run_esbench(plan, challenge, host, logs, args)
                elif rally_skip or rally is None:
                    outcome = Outcome("rally", challenge, None, 0.0, rally_skip or "", None)
                else:
                    outcome = run_rally(plan, challenge, host, logs, args, rally)
                outcomes.append(outcome)
                result = "skipped" if outcome.passed is None else ("pass" if outcome.passed else "FAIL")
                line = f"{outcome.tool:<8} {challenge:<42} {result:<7} {outcome.seconds:6.0f} s"
                print(f"{line}  {outcome.reason}", flush=True)
    print()
    print(_table(outcomes))
    print(f"\ncommand: python3 {shlex.join(sys.argv)}")
    return 0 if all(o.passed for o in outcomes if o.tool == "esbench") else 1


if __name__ == "__main__":
    sys.exit(main())
