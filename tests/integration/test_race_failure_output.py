"""A race that fails says why once: in the ``[ERROR]`` line at its end, with the race log's path;
the report printed above it says only that the race failed, and the stored results and the race
log keep the reason."""

from __future__ import annotations

import json

import harness

ERRORS = harness.TRACKS / "rallyplugins-errors"
REASON = "the failing-op runner was told to fail"


def test_the_reason_of_a_failed_race_is_printed_once_with_the_race_log(es_hosts: list[str]) -> None:
    proc = harness.race(ERRORS, es_hosts, "--pipeline=benchmark-only", "--track-params=fail_in:runner")
    assert proc.returncode == 64, proc.stdout + proc.stderr
    harness.no_traceback(proc)
    output = proc.stdout + proc.stderr
    assert output.count(REASON) == 1, output
    race_dir = harness.race_dir(proc)
    log = race_dir / "esbench.log"
    (error_line,) = [line for line in proc.stderr.splitlines() if line.startswith("[ERROR]")]
    assert REASON in error_line and str(log) in error_line
    status = next(line for line in proc.stdout.splitlines() if line.startswith("Status:"))
    assert status.split() == ["Status:", "failed"]
    assert REASON in log.read_text(encoding="utf-8")
    assert REASON in json.loads((race_dir / "results.json").read_text(encoding="utf-8"))["error"]


def test_a_report_file_keeps_the_reason(es_hosts: list[str], tmp_path) -> None:
    report = tmp_path / "report.md"
    proc = harness.race(
        ERRORS,
        es_hosts,
        "--pipeline=benchmark-only",
        "--track-params=fail_in:runner",
        "--report-format=markdown",
        f"--report-file={report}",
    )
    assert proc.returncode == 64, proc.stdout + proc.stderr
    assert REASON in report.read_text(encoding="utf-8")
    assert (proc.stdout + proc.stderr).count(REASON) == 1
