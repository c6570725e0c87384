"""Failed requests by reason under the summary report, and the race log named in the warnings."""

from __future__ import annotations

import csv
import io
import json

from esbench.racelog import race_log_path
from esbench.records import STATUS_FAILED, ErrorDescription, RaceResult, TaskResult
from esbench.reporting.failures import TOP_PER_TASK, failure_rows
from esbench.reporting.summary import render_summary, summary_warnings

PARSING = ErrorDescription(
    error_type="400", http_status=400, es_type="parsing_exception", reason="unknown query [foo]", count=30
)
SHARDS = ErrorDescription(
    error_type="400",
    http_status=400,
    es_type="search_phase_execution_exception",
    reason="all shards failed; root cause query_shard_exception: failed to create query",
    count=8,
)


def _race(descriptions=(PARSING, SHARDS), error_count=40, **kw) -> RaceResult:
    task = TaskResult(
        task="bad-search",
        operation="bad-search",
        operation_type="search",
        sample_count=50,
        error_count=error_count,
        errors_by_type={"400": error_count},
        latency_ms={"50": 2.0, "100": 5.0},
        error_descriptions=tuple(descriptions),
    )
    return RaceResult(
        race_id="race-1", timestamp="2026-11-23T20:00:00Z", track="t", challenge="c", tasks=(task,), **kw
    )


def test_text_report_lists_reasons_with_counts_and_the_rest() -> None:
    text = render_summary(_race(), fmt="text")
    assert "Failed requests by reason:" in text
    lines = text.splitlines()
    foo = next(line for line in lines if "unknown query [foo]" in line)
    assert "bad-search" in foo and "30" in foo and "400" in foo and "parsing_exception" in foo
    assert any("root cause query_shard_exception" in line for line in lines)
    rest = next(line for line in lines if "(other reasons)" in line)
    assert " 2 " in rest  # 40 failed - 30 - 8 described
    # the table comes before the warnings, after the metrics
    assert text.index("Failed requests by reason") < text.index("[WARNING]")


def test_warning_names_the_most_frequent_reason_and_the_race_log_when_it_exists() -> None:
    race = _race()
    (warning,) = summary_warnings(race)
    assert "Most frequent reason (30 requests): HTTP 400 parsing_exception: unknown query [foo]." in warning
    assert "Please check the logs." in warning  # no log on this machine
    log = race_log_path(race.race_id)
    log.parent.mkdir(parents=True)
    log.write_text("")
    (warning,) = summary_warnings(race)
    assert warning.endswith(f"The race log is {log}.")
    assert "Please check the logs" not in warning


def test_failed_race_warning_names_the_race_log() -> None:
    race = _race(status=STATUS_FAILED, error="Task 'x' cannot continue: connection refused")
    log = race_log_path(race.race_id)
    log.parent.mkdir(parents=True)
    log.write_text("")
    assert summary_warnings(race)[0].endswith(
        f"The report covers only the tasks that ran. The race log is {log}."
    )


def test_markdown_report_has_the_reasons_table() -> None:
    md = render_summary(_race(), fmt="markdown")
    assert "**Failed requests by reason:**" in md
    assert "| bad-search |" in md and "unknown query [foo]" in md


def test_json_report_has_every_description_structured() -> None:
    data = json.loads(render_summary(_race(), fmt="json"))
    assert data["errors"][0] == {
        "task": "bad-search",
        "count": 30,
        "error_type": "400",
        "http_status": 400,
        "es_type": "parsing_exception",
        "reason": "unknown query [foo]",
    }
    assert len(data["errors"]) == 2


def test_csv_report_adds_one_row_per_top_reason() -> None:
    rows = list(csv.reader(io.StringIO(render_summary(_race(), fmt="csv"))))
    failed = [r for r in rows if r[0].startswith("failed requests: ")]
    assert failed[0] == [
        "failed requests: HTTP 400 parsing_exception: unknown query [foo]",
        "bad-search",
        "30",
        "requests",
    ]
    assert len(failed) == 2


def test_only_the_top_reasons_per_task_are_shown_in_tables() -> None:
    many = [
        ErrorDescription(error_type="500", http_status=500, es_type=None, reason=f"r{i}", count=10 - i)
        for i in range(8)
    ]
    rows = failure_rows(_race(descriptions=many, error_count=sum(d.count for d in many)))
    assert len(rows) == TOP_PER_TASK + 1
    assert rows[-1][1] == sum(d.count for d in many[TOP_PER_TASK:])


def test_races_without_descriptions_render_as_before() -> None:
    text = render_summary(_race(descriptions=()), fmt="text")
    assert "Failed requests by reason" not in text
    assert "Please check the logs." in text
