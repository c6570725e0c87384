"""Failure descriptions: ES error bodies (with root cause) to one line, and failed results to fields."""

from __future__ import annotations

import json
import logging

from esbench.driver.worker.errors import describe_failure, error_line, note_failure
from esbench.driver.worker.runners.base import RunnerResult, normalize_result
from esbench.driver.worker.runners.bulk import _bulk_stats

# Shapes as Elasticsearch 8.19 returns them (recorded from the test node).
SHARD_FAILURE = {
    "error": {
        "root_cause": [
            {"type": "query_shard_exception", "reason": 'failed to create query: For input string: "x"'}
        ],
        "type": "search_phase_execution_exception",
        "reason": "all shards failed",
        "phase": "query",
    },
    "status": 400,
}
PARSING = {
    "error": {
        "root_cause": [{"type": "parsing_exception", "reason": "unknown query [foo]", "line": 1, "col": 17}],
        "type": "parsing_exception",
        "reason": "unknown query [foo]",
    },
    "status": 400,
}


def test_error_line_appends_the_root_cause_of_summary_errors() -> None:
    line = error_line(400, json.dumps(SHARD_FAILURE).encode())
    assert line == (
        "HTTP 400: search_phase_execution_exception: all shards failed; root cause "
        'query_shard_exception: failed to create query: For input string: "x"'
    )


def test_error_line_does_not_repeat_an_identical_root_cause() -> None:
    assert error_line(400, json.dumps(PARSING).encode()) == "HTTP 400: parsing_exception: unknown query [foo]"


def test_error_line_of_non_json_and_empty_bodies() -> None:
    assert error_line(502, b"<html>Bad Gateway</html>") == "HTTP 502: <html>Bad Gateway</html>"
    assert error_line(503, b"") == "HTTP 503"
    assert error_line(401, b'{"error": "no auth"}') == "HTTP 401: no auth"


def test_describe_a_raw_http_failure() -> None:
    result = RunnerResult(
        success=False,
        error_type="400",
        http_status=400,
        error_description=error_line(400, json.dumps(SHARD_FAILURE).encode()),
    )
    error_type, status, es_type, reason = describe_failure(result)
    assert (error_type, status, es_type) == ("400", 400, "search_phase_execution_exception")
    assert reason.startswith("all shards failed; root cause query_shard_exception: failed to create query")


def test_describe_an_api_error_from_classify() -> None:
    # outcome.classify writes "type: reason" and sets http_status
    result = RunnerResult(
        success=False,
        error_type="404",
        http_status=404,
        error_description="index_not_found_exception: no such index [x]",
    )
    assert describe_failure(result) == ("404", 404, "index_not_found_exception", "no such index [x]")


def test_describe_a_bulk_with_failed_items_by_its_first_item() -> None:
    response = {
        "items": [
            {"index": {"status": 201}},
            {
                "index": {
                    "status": 409,
                    "error": {"type": "version_conflict_engine_exception", "reason": "[1]: version conflict"},
                }
            },
            {
                "index": {
                    "status": 400,
                    "error": {"type": "document_parsing_exception", "reason": "bad; field"},
                }
            },
        ]
    }
    _, descriptions, _ = _bulk_stats(response, 3, "docs")
    result = RunnerResult(
        success=False, error_type="bulk", http_status=200, error_description="; ".join(descriptions)
    )
    assert describe_failure(result) == (
        "bulk",
        409,
        "version_conflict_engine_exception",
        "[1]: version conflict",
    )


def test_describe_plugin_and_transport_failures() -> None:
    plugin = normalize_result(
        {"success": False, "error-type": "custom", "error-description": "the  thing\nbroke"}
    )
    assert describe_failure(plugin) == ("custom", None, None, "the thing broke")
    timeout = RunnerResult(
        success=False, error_type="timeout", error_description="the request timed out on the client side"
    )
    assert describe_failure(timeout) == ("timeout", None, None, "the request timed out on the client side")
    assert describe_failure(RunnerResult(success=False)) == ("unknown", None, None, "")


class _Task:
    """Stands for a track Task: note_failure reads ``run.task.name`` and ``run.recorder``."""

    name = "bad-search"


def test_note_failure_counts_and_logs_each_description_once(caplog) -> None:
    from esbench.metrics.recorder import TaskRecorder

    class Run:
        task = _Task()
        recorder = TaskRecorder(task="bad-search", operation="o", operation_type="search", origin=0.0)

    result = RunnerResult(
        success=False,
        error_type="400",
        http_status=400,
        error_description="HTTP 400: parsing_exception: unknown query [foo]",
    )
    with caplog.at_level(logging.WARNING, logger="esbench.driver.worker.errors"):
        for _ in range(5):
            Run.recorder.record(
                warmup=False,
                end=0.5,
                service_time=0.01,
                latency=0.01,
                processing_time=0.01,
                success=False,
                error_type="400",
            )
            note_failure(Run, result, warmup=False)
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "Task 'bad-search': a request failed: HTTP 400 parsing_exception: unknown query [foo] "
        "(logged once per worker and description)"
    ]
    (d,) = Run.recorder.state().error_descriptions
    assert (d.count, d.es_type, d.reason) == (5, "parsing_exception", "unknown query [foo]")
