"""No silent wrong answers (issue 30), each through the ``esbench`` command against a real node.

The track, written here, indexes 2,000 small documents (bulks of 100) and runs a term query for a
second. Its params make the wrong answers happen on purpose: ``bulk_warmup`` long enough that the
bulk task ends inside it (nothing measured), ``search_index`` naming an index that does not exist
(every query fails), ``term`` to change the track's content.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch
from harness import esbench

TRACK_JSON = """{% set idx = index_name | default("truth-tiny") %}
{
  "version": 2,
  "description": "esbench's issue-30 tests: 2,000 documents in bulks of 100, then a term query.",
  "indices": [{"name": "{{ idx }}", "body": "index.json"}],
  "corpora": [
    {
      "name": "truth-tiny",
      "documents": [
        {"source-file": "documents.json", "document-count": 2000, "target-index": "{{ idx }}"}
      ]
    }
  ],
  "schedule": [
    {"operation": {"operation-type": "delete-index"}},
    {"operation": {"operation-type": "create-index"}},
    {
      "operation": {"operation-type": "cluster-health", "index": "{{ idx }}",
                    "request-params": {"wait_for_status": "green"}, "retry-until-success": true}
    },
    {
      "name": "index-append",
      "operation": {"operation-type": "bulk", "bulk-size": 100},
      "clients": 1,
      "warmup-time-period": {{ bulk_warmup | default(0) }}
    },
    {"operation": {"operation-type": "refresh", "index": "{{ idx }}"}},
    {
      "name": "term-query",
      "operation": {
        "operation-type": "search",
        "index": "{{ search_index | default(idx) }}",
        "body": {"query": {"term": {"level": "{{ term | default('error') }}"}}}
      },
      "clients": 1,
      "time-period": 1,
      "target-throughput": 20
    }
  ]
}
"""


def last_line(result: subprocess.CompletedProcess[str]) -> str:
    return result.stderr.strip().splitlines()[-1]


@pytest.fixture
def track(tmp_path: Path, es_hosts: list[str]) -> Iterator[tuple[Path, str]]:
    """A fresh copy of the track (the tests edit it) and its index name."""
    directory = tmp_path / "truth-tiny"
    directory.mkdir()
    (directory / "track.json").write_text(TRACK_JSON, encoding="utf-8")
    (directory / "index.json").write_text('{"settings": {"index.number_of_replicas": 0}}', encoding="utf-8")
    levels = ("info", "warn", "error")
    lines = [json.dumps({"level": levels[i % 3], "n": i}) + "\n" for i in range(2000)]
    (directory / "documents.json").write_text("".join(lines), encoding="utf-8")
    # The test-mode file, which `esbench bundle` carries too.
    (directory / "documents-1k.json").write_text("".join(lines[:1000]), encoding="utf-8")
    index = f"truth-{uuid.uuid4().hex[:8]}"
    yield directory, index
    es = Elasticsearch(f"http://{es_hosts[0]}")
    es.options(ignore_status=404).indices.delete(index=index)
    es.close()


def race(directory: Path, hosts: list[str], params: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return esbench(
        "race",
        f"--track-path={directory}",
        f"--target-hosts={hosts[0]}",
        f"--track-params={params}",
        *extra,
    )


def race_id(result: subprocess.CompletedProcess[str]) -> str:
    found = re.search(r"race ([0-9a-f-]{36}) \(", last_line(result))
    assert found, result.stderr
    return found[1]


def test_gate_fails_when_the_contender_measured_nothing(track: tuple[Path, str], es_hosts: list[str]) -> None:
    directory, index = track
    # Only the bulk task is compared: a noisy query latency must not turn "missing" into "regression".
    base = race(directory, es_hosts, f"index_name:{index}", "--exclude-tasks=term-query")
    assert base.returncode == 0 and last_line(base).startswith("[SUCCESS]"), base.stderr
    # 20 bulks of one client inside a 60 s warmup: the bulk task is all warmup, nothing measured.
    empty = race(directory, es_hosts, f"index_name:{index},bulk_warmup:60", "--exclude-tasks=term-query")
    assert empty.returncode == 0, empty.stderr
    # Named before the race starts, and the last line does not say success.
    assert "Task 'index-append' sends only about 20 bulk requests" not in empty.stderr  # 20 > 3: not named
    assert last_line(empty).startswith(
        "[WARNING] completed with errors: task 'index-append' measured nothing: its 20 requests all fell "
        "inside its warmup;"
    ), empty.stderr

    gate = esbench(
        "compare", f"--baseline={race_id(base)}", f"--contender={race_id(empty)}", "--fail-on-regression=5"
    )
    assert gate.returncode == 4, gate.stdout + gate.stderr
    assert "Regression gate: FAILED, not measured on both sides" in gate.stdout
    assert "index-append: Median Throughput was measured in the baseline" in gate.stdout
    assert "Regression gate: passed" not in gate.stdout

    allowed = esbench(
        "compare",
        f"--baseline={race_id(base)}",
        f"--contender={race_id(empty)}",
        "--fail-on-regression=5",
        "--allow-missing",
        "--report-format=json",
    )
    verdict = json.loads(allowed.stdout)["gate"]
    assert verdict["missing"] and verdict["allow_missing"] and verdict["passed"], allowed.stdout
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr


def test_all_failing_queries_do_not_end_in_success(track: tuple[Path, str], es_hosts: list[str]) -> None:
    directory, index = track
    params = f"index_name:{index},search_index:{index}-missing"
    result = race(directory, es_hosts, params, "--include-tasks=term-query")
    assert result.returncode == 0, result.stderr
    line = last_line(result)
    assert "[SUCCESS]" not in line
    assert line.startswith("[WARNING] completed with errors: task 'term-query' failed on every request ("), (
        line
    )
    assert "index_not_found_exception" in line

    gated = race(directory, es_hosts, params, "--include-tasks=term-query", "--fail-on-error-rate=50")
    assert gated.returncode == 1, gated.stderr
    assert "error rate of 100.00 %, above the 50 % allowed by --fail-on-error-rate" in gated.stderr


def test_a_changed_track_runs_its_sweep_point_again(track: tuple[Path, str], es_hosts: list[str]) -> None:
    directory, index = track
    setup = race(directory, es_hosts, f"index_name:{index}", "--exclude-tasks=term-query")
    assert setup.returncode == 0, setup.stderr
    args = (
        "sweep",
        f"--track-path={directory}",
        f"--target-hosts={es_hosts[0]}",
        f"--track-params=index_name:{index}",
        "--task=term-query",
        "--include-tasks=term-query",
        "--clients=1",
    )
    first = esbench(*args)
    assert first.returncode == 0, first.stderr
    assert "running a race" in first.stderr
    again = esbench(*args)
    assert again.returncode == 0 and "reusing race" in again.stderr, again.stderr
    assert re.search(r"reused, ran \d{4}-\d\d-\d\dT", again.stdout), again.stdout

    # The query changes, the track's name, path and params do not: the point runs again.
    (directory / "track.json").write_text(TRACK_JSON.replace("default('error')", "default('warn')"))
    changed = esbench(*args)
    assert changed.returncode == 0, changed.stderr
    assert "not reusing race" in changed.stderr and "the track changed since" in changed.stderr
    assert "running a race" in changed.stderr and "reused" not in changed.stdout, changed.stdout


def test_a_bundled_race_is_stored_under_its_tracks_name(
    track: tuple[Path, str], es_hosts: list[str], tmp_path: Path
) -> None:
    directory, index = track
    bundle = tmp_path / "truth-tiny.tar"
    made = esbench("bundle", f"--track-path={directory}", f"--output={bundle}")
    assert made.returncode == 0, made.stderr
    result = esbench(
        "race",
        f"--track-bundle={bundle}",
        "--offline",
        f"--target-hosts={es_hosts[0]}",
        f"--track-params=index_name:{index}",
        "--exclude-tasks=term-query",
        "--report-format=html",
    )
    assert result.returncode == 0, result.stderr
    assert "track 'truth-tiny'" in result.stderr
    # The HTML file is for a browser; the terminal still gets the text summary.
    assert "Track:          truth-tiny (index_name=" in result.stdout, result.stdout
    assert "Median Throughput | index-append" in result.stdout, result.stdout
    listed = esbench("list", "races", "--track=truth-tiny", "--format=json")
    assert listed.returncode == 0, listed.stderr
    assert [r["race-id"] for r in json.loads(listed.stdout)["races"]] == [race_id(result)]


def test_a_mistyped_track_name_is_suggested_without_git(tmp_path: Path, es_hosts: list[str]) -> None:
    # A git that leaves a mark: the lookup must not run it.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "git-ran"
    fake = bin_dir / "git"
    fake.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    result = esbench("race", "--track=evendata", f"--target-hosts={es_hosts[0]}", env=env)
    assert result.returncode != 0
    assert "Unknown track 'evendata'; did you mean 'eventdata'?" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not marker.exists()


def test_optimize_bulk_size_refuses_a_search_task(track: tuple[Path, str], es_hosts: list[str]) -> None:
    directory, index = track
    result = esbench(
        "optimize",
        "bulk-size",
        f"--track-path={directory}",
        f"--target-hosts={es_hosts[0]}",
        f"--track-params=index_name:{index}",
        "--task=term-query",
    )
    assert result.returncode != 0, result.stdout
    assert "Task 'term-query' of challenge" in result.stderr and "which has no bulk size" in result.stderr
    assert "Its bulk tasks: index-append." in result.stderr
    assert "Optimal bulk-size" not in result.stdout
    # Before any load: no race was stored and the index was never created.
    listed = esbench("list", "races", "--format=json")
    assert json.loads(listed.stdout) == {"races": []}
    es = Elasticsearch(f"http://{es_hosts[0]}")
    try:
        assert not es.indices.exists(index=index)
    finally:
        es.close()


def test_eventdata_with_50000_documents_measures_indexing(es_hosts: list[str]) -> None:
    index_name = "eventdata"  # the built-in track's index
    result = esbench(
        "race",
        "--track=eventdata",
        "--track-params=doc_count:50000",
        f"--target-hosts={es_hosts[0]}",
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert last_line(result).startswith("[SUCCESS]"), result.stderr
    stored = Path(os.environ["ESBENCH_HOME"]) / "races" / race_id(result) / "results.json"
    tasks = {t["task"]: t for t in json.loads(stored.read_text(encoding="utf-8"))["tasks"]}
    bulk = tasks["index-append"]
    # 50,000 documents over 8 clients: a bulk of 5,000 and one of 1,250 each, every one measured (with
    # the warmup of 1 s it had, the first round fell inside it and a fast machine measured nothing).
    assert bulk["warmup_sample_count"] == 0 and bulk["sample_count"] == 16, bulk
    assert bulk["throughput_mean"] > 0 and bulk["error_count"] == 0, bulk
    es = Elasticsearch(f"http://{es_hosts[0]}")
    try:
        es.options(ignore_status=404).indices.delete(index=index_name)
    finally:
        es.close()


def test_an_all_failing_esbench_query_does_not_end_in_success(es_hosts: list[str]) -> None:
    url = f"http://{es_hosts[0]}/truth-missing-{uuid.uuid4().hex[:8]}/_search"
    result = esbench("query", "--body", '{"query": {"match_all": {}}}', "-r", "10", url)
    assert result.returncode == 0, result.stderr
    assert last_line(result).startswith("[WARNING] completed with errors: task 'query /truth-missing-")
    assert "failed on every request (10 of 10: HTTP 404 index_not_found_exception" in last_line(result)
    gated = esbench(
        "query", "--body", '{"query": {"match_all": {}}}', "-r", "10", "--fail-on-error-rate=0", url
    )
    assert gated.returncode == 1 and "above the 0 % allowed by --fail-on-error-rate" in gated.stderr
