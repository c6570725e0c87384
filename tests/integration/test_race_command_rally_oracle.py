"""``esbench race`` behaves as ``esrally race`` where a CI script can tell: Rally 2.13 itself, racing
the same track on the same node, is the oracle.

* The exit status: 0, or 64 for a race that failed. Cases: a race that completes; a track plugin's
  runner or scheduler that raises during a task; a processor that raises before the race; a
  request that fails with ``--on-error=abort``.
* ``--pipeline=benchmark-only`` without ``--target-hosts`` races 127.0.0.1:9200. Both tools run in a
  namespace of their own where that address reaches the node.

Each tool races a copy of its own (Rally writes offset files beside a track). The node is an 8.8.2
integ-test build of the test's own: Rally needs ``GET /``, which later integ-test builds do not
answer, and Rally's requests must not touch the session node's statistics.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import harness
import pytest
from harness import esbench, ok
from rally_oracle import INNER_HOST, RallyOracle, rally_bin, rally_oracle  # noqa: F401 (fixture)

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("rally-exit-oracle"), pytest.mark.timeout(900)]

ES_VERSION = "8.8.2"
ERRORS = harness.TRACKS / "rallyplugins-errors"
MISSING_INDEX = "esbench-exit-status-no-such-index"


@dataclass(frozen=True)
class Racers:
    """Rally (in its namespace, reaching the node at ``INNER_HOST``) and the node's own address."""

    rally: RallyOracle
    host: str
    root: Path


@pytest.fixture(scope="module")
def racers(rally_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Racers]:  # noqa: F811
    home = tmp_path_factory.mktemp("exit-status-node")
    version = f"--distribution-version={ES_VERSION}"
    started = ok(esbench("start", "--distribution-repository=maven", version, home=home, timeout=280))
    fields = dict(line.split(": ", 1) for line in started.stdout.strip().splitlines())
    host = fields["hosts"].split(",")[0]
    try:
        root = tmp_path_factory.mktemp("exit-status-rally")
        with rally_oracle(rally_bin, root, host, environment="exit", metrics_store=False) as rally:
            yield Racers(rally, host, root)
    finally:
        ok(esbench("stop", f"--installation-id={fields['installation-id']}", home=home, timeout=120))
        shutil.rmtree(home, ignore_errors=True)


def _missing_index_track(directory: Path) -> Path:
    directory.mkdir(parents=True)
    search = {"name": "search-missing", "operation-type": "search", "index": MISSING_INDEX}
    track = {"version": 2, "schedule": [{"operation": search, "iterations": 3}]}
    (directory / "track.json").write_text(json.dumps(track), encoding="utf-8")
    return directory


def _copy(track: Path, directory: Path) -> Path:
    shutil.copytree(track, directory)
    return directory


#: case -> (the track: the errors fixture, or None for a search on a missing index; extra options;
#: a text Rally's output must show, so the case fails for the reason it names).
CASES: dict[str, tuple[Path | None, tuple[str, ...], str]] = {
    "completes": (ERRORS, ("--track-params=fail_in:none",), "SUCCESS"),
    "runner raises": (ERRORS, ("--track-params=fail_in:runner",), "the failing-op runner was told to fail"),
    "scheduler raises": (ERRORS, ("--track-params=fail_in:next",), "the failing-scheduler was told to fail"),
    "processor raises": (ERRORS, ("--track-params=fail_in:processor",), "asked the processor to fail"),
    "request fails, abort": (None, ("--on-error=abort",), "index_not_found_exception"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_race_exits_with_rallys_status(racers: Racers, case: str, tmp_path: Path) -> None:
    track, options, reason = CASES[case]
    copies = [
        _copy(track, tmp_path / side) if track is not None else _missing_index_track(tmp_path / side)
        for side in ("rally", "esbench")
    ]
    log_start = _rally_log_size(racers.root)
    theirs = racers.rally.run(
        "race", "--pipeline=benchmark-only", "--offline", f"--track-path={copies[0]}",
        f"--target-hosts={INNER_HOST}", *options,
    )  # fmt: skip
    rally_output = theirs.stdout + theirs.stderr + _rally_log(racers.root, log_start)
    # The oracle failed (or completed) for the case's reason, not for a broken set-up.
    assert reason in rally_output, rally_output[-3000:]
    ours = esbench(
        "race", "--pipeline=benchmark-only", "--offline", f"--track-path={copies[1]}",
        f"--target-hosts={racers.host}", *options, timeout=300,
    )  # fmt: skip
    statuses = f"Rally exited {theirs.returncode}, esbench {ours.returncode}"
    assert ours.returncode == theirs.returncode, f"{statuses}:\n{ours.stdout[-2000:]}\n{ours.stderr[-2000:]}"
    harness.no_traceback(ours)


def _rally_log_path(root: Path) -> Path:
    return root / "home" / ".rally" / "logs" / "rally.log"


def _rally_log_size(root: Path) -> int:
    log = _rally_log_path(root)
    return log.stat().st_size if log.is_file() else 0


def _rally_log(root: Path, start: int) -> str:
    """What Rally's own log gained from byte ``start`` on (a failure's reason is there in full; its
    console shows a summary)."""
    log = _rally_log_path(root)
    if not log.is_file():
        return ""
    with log.open("rb") as f:
        f.seek(start)
        return f.read().decode("utf-8", errors="replace")


def test_benchmark_only_without_target_hosts_races_the_default_host(racers: Racers, tmp_path: Path) -> None:
    rally_track, esbench_track = (_copy(ERRORS, tmp_path / side) for side in ("rally", "esbench"))
    common = ("--pipeline=benchmark-only", "--offline", "--track-params=fail_in:none")
    theirs = racers.rally.run("race", f"--track-path={rally_track}", *common)
    assert theirs.returncode == 0, theirs.stdout[-3000:] + theirs.stderr[-3000:]
    home = tmp_path / "esbench-home"
    argv = [sys.executable, "-m", "esbench", "race", f"--track-path={esbench_track}", *common]
    ours = racers.rally.run_in_namespace(
        [*argv, "--report-format=json"],
        env=harness.esbench_env(home=home),
        timeout_s=300,
    )
    assert ours.returncode == 0, ours.stdout[-3000:] + ours.stderr[-3000:]
    assert "No --target-hosts: racing 127.0.0.1:9200" in ours.stdout + ours.stderr
    race_id = json.loads(ours.stdout)["race"]["race_id"]
    results = json.loads((home / "races" / race_id / "results.json").read_text(encoding="utf-8"))
    # The node answered every request: the race reached it at the default host.
    tasks = {t["task"]: t for t in results["tasks"]}
    assert tasks["failing"]["sample_count"] == 3 and tasks["failing"]["error_count"] == 0, tasks
