"""OSB's bound on one operation, on a real node: a workload whose ``cluster-health`` task waits for
green with ``retry-until-success`` on an index that cannot be green (one replica, one node) ends that
task with a ``timeout`` error after the client timeout and goes on, as OSB 2.4.0 does
(osbenchmark/worker_coordinator/worker_coordinator.py ``_execute_request``); Rally, and esbench for
Rally's tracks, would wait for green as long as it takes."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import harness


def _workload(directory: Path, index: str) -> Path:
    directory.mkdir()
    (directory / "workload.json").write_text(
        json.dumps(
            {
                "version": 2,
                "description": "waits for a green that a one-node cluster cannot reach",
                "indices": [{"name": index}],
                "test_procedures": [
                    {
                        "name": "wait-then-count",
                        "default": True,
                        "schedule": [
                            {
                                "operation": {
                                    "operation-type": "create-index",
                                    "settings": {"index.number_of_shards": 1, "index.number_of_replicas": 1},
                                }
                            },
                            {
                                "name": "check-cluster-health",
                                "operation": {
                                    "operation-type": "cluster-health",
                                    "index": index,
                                    "request-params": {"wait_for_status": "green", "timeout": "1s"},
                                    "retry-until-success": True,
                                },
                            },
                            {
                                "name": "count",
                                "operation": {
                                    "operation-type": "search",
                                    "index": index,
                                    "body": {"size": 0},
                                },
                                "iterations": 3,
                            },
                        ],
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    return directory


def test_a_wait_for_green_that_never_comes_is_a_timeout_error_and_the_workload_goes_on(
    es_hosts: list[str], tmp_path: Path
) -> None:
    index = f"osb-bound-{uuid.uuid4().hex[:8]}"
    workload = _workload(tmp_path / "never-green", index)
    started = time.monotonic()
    proc = harness.ok(
        harness.esbench(
            "run",
            f"--workload-path={workload}",
            "-t",
            ",".join(es_hosts),
            "--pipeline=benchmark-only",
            # OSB's bound is the client timeout: 4 s instead of the default 60 keeps the test short.
            "--client-options=timeout:4",
            "--on-error=continue",
        )
    )
    elapsed = time.monotonic() - started
    result = harness.results(proc)
    tasks = {t["task"]: t for t in result["tasks"]}
    health = tasks["check-cluster-health"]
    # One call, abandoned at the bound: a failed request of OSB's error type.
    assert health["error_count"] == health["sample_count"] == 1, health
    assert health["errors_by_type"] == {"timeout": 1}, health
    # The workload went on past it.
    assert tasks["count"]["sample_count"] == 3 and tasks["count"]["error_count"] == 0
    # Waiting stopped at the bound: not the 1 s of one health request, far less than a wait without end.
    assert 4.0 <= elapsed < 120.0, elapsed
