"""A race whose requests fail tells why: ES error type and reason in the report, store and race log."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

from harness import esbench

from esbench.results.store import ResultsStore

PASSWORD = "diag-Pa55word-never-shown"

TRACK_PY = """
import logging

logger = logging.getLogger(__name__)


async def chatty(es, params):
    logger.info("plugin runner chatty ran with marker %s", params["marker"])
    return {"weight": 1, "unit": "ops", "success": True}


def register(registry):
    registry.register_runner("chatty", chatty, async_runner=True)
"""


def _track(tmp_path: Path, index: str) -> Path:
    track = tmp_path / "diag-track"
    track.mkdir()
    ops = [
        {
            "name": "drop",
            "operation-type": "raw-request",
            "method": "DELETE",
            "path": f"/{index}",
            "ignore": [404],
        },
        {
            "name": "create",
            "operation-type": "raw-request",
            "method": "PUT",
            "path": f"/{index}",
            "body": {"mappings": {"properties": {"n": {"type": "long"}}}},
        },
        {
            "name": "doc",
            "operation-type": "raw-request",
            "method": "POST",
            "path": f"/{index}/_doc?refresh=true",
            "body": {"n": 1},
        },
    ]
    schedule = [
        {"operation": "drop"},
        {"operation": "create"},
        {"operation": "doc"},
        {
            "name": "bad-range",
            "operation": {
                "operation-type": "search",
                "index": index,
                "body": {"query": {"range": {"n": {"gte": "not-a-number"}}}},
            },
            "clients": 2,
            "iterations": 20,
        },
        {
            "name": "unknown-query",
            "operation": {
                "operation-type": "search",
                "index": index,
                "body": {"query": {"no_such_query": {}}},
            },
            "iterations": 5,
        },
        {"name": "plugin", "operation": {"operation-type": "chatty", "marker": "m-4711"}, "iterations": 2},
        {"name": "drop-again", "operation": "drop"},
    ]
    (track / "track.json").write_text(json.dumps({"version": 2, "operations": ops, "schedule": schedule}))
    (track / "track.py").write_text(TRACK_PY)
    return track


def test_failed_searches_show_es_error_type_and_reason_everywhere(es_hosts, tmp_path):
    track = _track(tmp_path, f"diag-{uuid.uuid4().hex[:8]}")
    report_file = tmp_path / "report.json"
    env = {**os.environ, "ESBENCH_USERNAME": "elastic", "ESBENCH_PASSWORD": PASSWORD}
    proc = esbench(
        "race",
        f"--track-path={track}",
        f"--target-hosts={es_hosts[0]}",
        "--user-tag=diag:errors",
        "--report-format=json",
        f"--report-file={report_file}",
        "--load-driver-workers=2",
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr

    report = json.loads(report_file.read_text())
    errors = {e["task"]: e for e in report["errors"]}
    bad = errors["bad-range"]
    # iterations are per client (Rally): 2 clients x 20
    assert (bad["count"], bad["http_status"], bad["error_type"]) == (40, 400, "400")
    assert bad["es_type"] == "search_phase_execution_exception"
    assert "root cause query_shard_exception" in bad["reason"]
    assert 'For input string: \\"not-a-number\\"' in json.dumps(bad["reason"])
    unknown = errors["unknown-query"]
    assert (unknown["count"], unknown["es_type"]) == (5, "parsing_exception")
    assert "no_such_query" in unknown["reason"]

    (race,) = ResultsStore.open().find(user_tags={"diag": "errors"})
    task = race.task("bad-range")
    assert task is not None and task.error_count == 40
    (stored,) = task.error_descriptions
    assert stored.es_type == "search_phase_execution_exception" and stored.count == 40

    log = Path(os.environ["ESBENCH_HOME"]) / "races" / race.race_id / "esbench.log"
    warning = next(w for w in report["warnings"] if "'bad-range'" in w)
    assert f"The race log is {log}." in warning
    assert "Most frequent reason (40 requests): HTTP 400 search_phase_execution_exception" in warning
    text = log.read_text()
    # the reason is logged by the worker processes (once per worker) and in the race summary
    assert "Task 'bad-range': a request failed: HTTP 400 search_phase_execution_exception" in text
    assert "failed to create query" in text
    assert "Task 'bad-range': 40 × HTTP 400 search_phase_execution_exception" in text
    # a plugin's own logger, running in a worker process, reaches the race log
    assert "plugin runner chatty ran with marker m-4711" in text
    assert "esbench-worker-" in text
    # the credentials never appear in any output, log or results file
    results = (log.parent / "results.json").read_text()
    for output in (proc.stdout, proc.stderr, text, report_file.read_text(), results):
        assert PASSWORD not in output


def test_a_failed_race_names_its_log_which_holds_the_reason(es_hosts, tmp_path):
    track = tmp_path / "abort-track"
    track.mkdir()
    search = {"operation-type": "search", "index": "diag-no-such-index-*,diag-missing", "body": {}}
    schedule = [{"name": "missing-index", "operation": search, "iterations": 3}]
    (track / "track.json").write_text(json.dumps({"version": 2, "schedule": schedule}))
    proc = esbench(
        "race",
        f"--track-path={track}",
        f"--target-hosts={es_hosts[0]}",
        "--on-error=abort",
        "--user-tag=diag:abort",
        timeout=300,
    )
    assert proc.returncode == 64, proc.stderr
    assert "Traceback" not in proc.stderr
    (race,) = ResultsStore.open().find(user_tags={"diag": "abort"})
    log = Path(os.environ["ESBENCH_HOME"]) / "races" / race.race_id / "esbench.log"
    assert "did not complete: Task 'missing-index' aborted the race" in proc.stderr
    assert f"The race log is {log}." in proc.stderr
    assert f"The race log is {log}." in proc.stdout  # the report's warning about the failed race
    text = log.read_text()
    assert "index_not_found_exception" in text and "no such index [diag-missing]" in text
    assert f"race {race.race_id} failed: Task 'missing-index' aborted the race" in text
