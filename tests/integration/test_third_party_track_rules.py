"""Rally's rules that third-party tracks (Elastic's rally-eventdata-track) depend on, each with a
fixture track of its own under tests/resources/tracks, raced by the real ``esbench`` command
against the real node. Rally 2.13 gives the same outcome on each fixture (docs/third-party-tracks.md).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import harness

RESOURCES = harness.TRACKS


def race(hosts: list[str], track: str, *params: str) -> subprocess.CompletedProcess[str]:
    return harness.race(RESOURCES / track, hosts, "--pipeline=benchmark-only", "--on-error=abort", *params)


def tasks_of(proc: subprocess.CompletedProcess[str]) -> dict[str, dict]:
    race_id = re.search(r"race ([0-9a-f-]{36})", proc.stdout + proc.stderr)
    assert race_id, proc.stdout + proc.stderr
    path = Path(os.environ["ESBENCH_HOME"]) / "races" / race_id.group(1) / "results.json"
    return {t["task"]: t for t in json.loads(path.read_text())["tasks"]}


def test_a_client_runs_in_the_same_worker_in_every_step(es_hosts):
    # Two workers, as on a 2-core machine under Rally. The race has 4 clients (task "wide"):
    # clients 0-1 live in worker 0, so "paced" (client 1 of the last block) finds the pauses
    # that "record-pauses" (client 0) kept in the scheduler's class.
    proc = race(es_hosts, "worker-affinity", "--load-driver-workers=2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tasks = tasks_of(proc)
    assert tasks["paced"]["sample_count"] == 3
    assert tasks["record-pauses"]["sample_count"] == 4


def test_a_client_in_another_worker_does_not_see_the_class_state(es_hosts):
    # With 2 race clients, client 1 lives in worker 1: Rally 2.13 fails here too.
    proc = race(es_hosts, "worker-affinity", "--load-driver-workers=2", "--track-params=wide_clients:2")
    assert proc.returncode != 0
    assert "no pauses recorded in this worker process" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def test_completed_by_lets_a_waiting_client_send_its_request_first(es_hosts):
    # "late" is still waiting for its first request (due after 1 s) when "quick" ends the block.
    # Rally's AsyncExecutor sleeps out the wait, sends the request, records it and then stops.
    proc = race(es_hosts, "completion-after-request", "--load-driver-workers=2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tasks = tasks_of(proc)
    assert tasks["quick"]["sample_count"] == 1
    assert tasks["late"]["sample_count"] == 1
    assert "No throughput metrics available for [late]" not in proc.stdout + proc.stderr
