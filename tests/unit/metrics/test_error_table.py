"""The bounded table of error descriptions: counting, bounds, merging across workers, round trips."""

from __future__ import annotations

import json

from esbench.metrics import errors
from esbench.metrics.errors import MAX_DESCRIPTIONS, MAX_REASON_CHARS, ErrorTable
from esbench.metrics.recorder import RecorderState, TaskRecorder
from esbench.metrics.stats import task_result
from esbench.records import ErrorDescription, RaceResult, describe_line


def _fail(r: TaskRecorder, reason: str, *, warmup: bool = False, status: int = 400) -> bool:
    r.record(
        warmup=warmup,
        end=1.0,
        service_time=0.01,
        latency=0.01,
        processing_time=0.01,
        success=False,
        error_type=str(status),
    )
    return r.describe_error(
        warmup=warmup, error_type=str(status), http_status=status, es_type="parsing_exception", reason=reason
    )


def test_distinct_descriptions_are_counted_and_the_first_occurrence_is_reported_new() -> None:
    r = TaskRecorder(task="t", operation="o", operation_type="search", origin=0.0)
    assert _fail(r, "unknown query [foo]") is True
    assert _fail(r, "unknown query [foo]") is False
    assert _fail(r, "unknown query [bar]") is True
    assert _fail(r, "warmup only", warmup=True) is True
    result = task_result(r.state(), task_start=0.0, task_end=2.0)
    assert result.error_count == 3
    assert result.error_descriptions == (
        ErrorDescription(
            error_type="400",
            http_status=400,
            es_type="parsing_exception",
            reason="unknown query [foo]",
            count=2,
        ),
        ErrorDescription(
            error_type="400",
            http_status=400,
            es_type="parsing_exception",
            reason="unknown query [bar]",
            count=1,
        ),
    )


def test_memory_is_bounded_by_distinct_descriptions_and_reason_length() -> None:
    table = ErrorTable()
    for i in range(10_000):
        table.add("409", 409, "version_conflict_engine_exception", f"[{i}]: version conflict " + "x" * 1000)
    assert len(table.counts) == MAX_DESCRIPTIONS
    assert table.undescribed == 10_000 - MAX_DESCRIPTIONS
    assert all(len(reason) <= MAX_REASON_CHARS for _, _, _, reason in table.counts)


def test_merge_adds_equal_descriptions_and_keeps_the_most_frequent() -> None:
    a, b = ErrorTable(), ErrorTable()
    for _ in range(3):
        a.add("400", 400, "x_exception", "same")
    b.add("400", 400, "x_exception", "same")
    for i in range(MAX_DESCRIPTIONS):
        b.add("500", 500, None, f"rare {i}")
    merged = errors.merge_descriptions([a.descriptions(), b.descriptions()])
    assert len(merged) == MAX_DESCRIPTIONS
    assert merged[0].reason == "same" and merged[0].count == 4


def test_recorder_states_merge_descriptions_like_histograms() -> None:
    parts = [TaskRecorder(task="t", operation="o", operation_type="search", origin=0.0) for _ in range(2)]
    for i, r in enumerate(parts):
        for _ in range(i + 1):
            _fail(r, "boom")
    merged = RecorderState.merge([p.state() for p in parts])
    assert [(d.reason, d.count) for d in merged.error_descriptions] == [("boom", 3)]


def test_descriptions_round_trip_through_results_json() -> None:
    r = TaskRecorder(task="t", operation="o", operation_type="search", origin=0.0)
    _fail(r, "unknown query [foo]")
    task = task_result(r.state(), task_start=0.0, task_end=2.0)
    race = RaceResult(race_id="r", timestamp="2026-01-01T00:00:00Z", track="tr", challenge="c", tasks=(task,))
    again = RaceResult.from_dict(json.loads(json.dumps(race.to_dict())))
    assert again.tasks[0].error_descriptions == task.error_descriptions


def test_describe_line() -> None:
    d = ErrorDescription(
        error_type="400", http_status=400, es_type="parsing_exception", reason="unknown query"
    )
    assert describe_line(d) == "HTTP 400 parsing_exception: unknown query"
    bulk = ErrorDescription(error_type="bulk", http_status=409, es_type="version_conflict_engine_exception")
    assert describe_line(bulk) == "bulk, HTTP 409 version_conflict_engine_exception"
    assert describe_line(ErrorDescription(error_type="timeout", reason="timed out")) == "timeout: timed out"
