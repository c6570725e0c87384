"""Rally track plugins (``esrally`` API, processors, stateful schedulers, param sources, runners)
raced by the real ``esbench`` command against a real Elasticsearch node.

The fixture tracks (tests/resources/tracks/rallyplugins*) are written for esbench in the style of
the public rally-tracks plugins; benchmarks/rally_plugin_fixtures.py runs the same fixtures under
Rally 2.13 and compares the task list and request counts with the ones asserted here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import harness
import pytest
from elasticsearch import Elasticsearch

RESOURCES = harness.TRACKS
PLUGINS = RESOURCES / "rallyplugins"
ERRORS = RESOURCES / "rallyplugins-errors"

#: Requests per task (measurement + warmup) of the rallyplugins fixture: the same under Rally 2.13
#: (benchmarks/rally_plugin_fixtures.py).
EXPECTED_REQUESTS = {
    "delete-index": 1,
    "create-index": 1,
    "bulk-str": 5,
    "bulk-bytes": 5,
    "bulk-lines": 5,
    "bulk-corpus": 4,
    "refresh": 1,
    "record-marks": 4,
    "replay-marks": 4,
    "search-rewritten": 6,
    "term-queries": 6,
    "health-via-runner-for": 2,
}


def race(hosts: list[str], track: Path, *params: str) -> subprocess.CompletedProcess[str]:
    return harness.race(track, hosts, "--pipeline=benchmark-only", *params)


def results_of(proc: subprocess.CompletedProcess[str]) -> dict:
    race_id = re.search(r"race ([0-9a-f-]{36})", proc.stdout + proc.stderr)
    assert race_id, proc.stdout + proc.stderr
    path = Path(os.environ["ESBENCH_HOME"]) / "races" / race_id.group(1) / "results.json"
    return json.loads(path.read_text())


def requests_by_task(result: dict) -> dict[str, int]:
    return {t["task"]: t["sample_count"] + t["warmup_sample_count"] for t in result["tasks"]}


def test_rally_plugin_fixture_races_with_every_plugin_feature(es_hosts):
    proc = race(es_hosts, PLUGINS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    result = results_of(proc)
    assert result["status"] == "completed"
    # Task list and order (the processor kept it), request counts: the processor raised the
    # iterations of search-rewritten from 2 to 6; the finite ParamSource subclass gave 3 per client.
    assert list(requests_by_task(result)) == list(EXPECTED_REQUESTS)
    assert requests_by_task(result) == EXPECTED_REQUESTS
    errors = {t["task"]: t["error_count"] for t in result["tasks"]}
    # No failed request anywhere: replay-marks read what record-marks stored in the scheduler's
    # class (state kept across tasks in the worker), client-search found hits for the field the
    # processor renamed, every bulk body form was accepted.
    assert errors == dict.fromkeys(EXPECTED_REQUESTS, 0)
    units = {t["task"]: t["throughput_unit"] for t in result["tasks"]}
    assert units["bulk-str"] == units["bulk-corpus"] == "docs/s"
    client = Elasticsearch([f"http://{h}" for h in es_hosts])
    try:
        # 15 one-document bulks (str without newline, bytes, lines) + 200 corpus documents.
        assert client.count(index="plugin-docs")["count"] == 215
    finally:
        client.close()


@pytest.mark.parametrize(
    ("fail_in", "line", "exception"),
    [
        ("constructor", 16, "TrackConfigError"),
        ("params", 20, "KeyError"),
        ("next", 31, "ValueError"),
        ("runner", 37, "RuntimeError"),
    ],
)
def test_plugin_failures_during_a_task_end_the_race_as_failed_with_one_paragraph(
    es_hosts, fail_in, line, exception
):
    proc = race(es_hosts, ERRORS, f"--track-params=fail_in:{fail_in}")
    assert proc.returncode == 64, proc.stdout + proc.stderr
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output
    assert f"{ERRORS / 'track.py'}:{line}" in output
    assert "Task 'failing' failed" in output
    assert exception in output
    result = results_of(proc)
    assert result["status"] == "failed"
    assert f"track.py:{line}" in result["error"]
    # What ran before the failure is kept.
    assert requests_by_task(result)["health"] == 2


def test_a_failing_track_processor_stops_the_race_before_it_starts(es_hosts):
    proc = race(es_hosts, ERRORS, "--track-params=fail_in:processor")
    assert proc.returncode == 64, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert "FailingProcessor.on_after_load_track()" in proc.stderr
    assert f"{ERRORS / 'track.py'}:47" in proc.stderr
    assert "TrackConfigError: task [failing] asked the processor to fail" in proc.stderr


def test_rally_sync_client_of_the_compat_api_talks_to_the_node(es_hosts):
    from esbench.compat import shim

    shim.install()
    from esrally.client.synchronous import RallySyncElasticsearch

    client = RallySyncElasticsearch(f"http://{es_hosts[0]}", distribution_version="8.19.0")
    try:
        assert client.cluster.health()["status"] in ("green", "yellow")
        assert client.distribution_version == "8.19.0"
    finally:
        client.close()
