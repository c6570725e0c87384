"""render_summary: Rally's rows, names and number formats in every output format."""

from __future__ import annotations

import csv
import io
import json

import pytest

from esbench.exceptions import ConfigError
from esbench.records import ClusterMetric, RaceResult, TaskResult
from esbench.reporting.formats import FORMATS, json_key, render_table
from esbench.reporting.summary import render_summary, summary_rows, summary_warnings


def _race(**overrides) -> RaceResult:
    tasks = (
        TaskResult(
            task="delete-index",
            operation="delete-index",
            operation_type="delete-index",
            include_in_reporting=False,
            sample_count=1,
            latency_ms={"100": 3.0},
        ),
        TaskResult(
            task="index-append",
            operation="index-append",
            operation_type="bulk",
            throughput_unit="docs/s",
            throughput_min=671.9234,
            throughput_mean=20744.71,
            throughput_median=25165.3,
            throughput_max=28299.3,
            latency_ms={"50": 87.75664, "90": 256.983, "99": 849.376, "100": 1442.94},
            service_time_ms={"50": 87.75664, "90": 256.983, "99": 849.376, "100": 1442.94},
            processing_time_ms={"50": 88.1, "90": 257.0, "99": 850.0, "100": 1443.0},
            sample_count=400,
        ),
        TaskResult(
            task="term",
            operation="term",
            operation_type="search",
            throughput_min=99.5,
            throughput_mean=100.0,
            throughput_median=100.01,
            throughput_max=100.49,
            latency_ms={"50": 2.5, "90": 3.25, "99": 7.0, "99.9": 12.125, "99.99": 19.0, "100": 25.0},
            service_time_ms={"50": 2.0, "90": 3.0, "99": 6.5, "99.9": 12.0, "99.99": 18.5, "100": 24.0},
            sample_count=20000,
            error_count=50,
            errors_by_type={"429": 40, "ConnectionTimeout": 10},
        ),
        TaskResult(task="wait", operation="wait", operation_type="search", warmup_sample_count=12),
    )
    fields = dict(
        race_id="6ebc6e53-ee20-4b0c-99b4-09697987e9f4",
        timestamp="2026-11-21T20:10:18Z",
        track="geonames",
        challenge="append-no-conflicts",
        track_params={"bulk_size": 5000},
        car="defaults",
        user_tags={"env": "ci", "run": "1"},
        pipeline="from-distribution",
        distribution_version="8.19.0",
        cluster_version="8.19.0",
        cluster_nodes=1,
        duration_s=125.25,
        cluster_metrics=(
            ClusterMetric(
                name="Cumulative indexing time of primary shards", value=0.7258166666666667, unit="min"
            ),
            ClusterMetric(name="Cumulative merge count of primary shards", value=1, unit=""),
            ClusterMetric(name="Total Young Gen GC time", value=0.094, unit="s"),
            ClusterMetric(name="Store size", value=0.07683500275015831, unit="GB"),
        ),
        tasks=tasks,
    )
    fields.update(overrides)
    return RaceResult(**fields)


EXPECTED_TEXT = """\
Race id:        6ebc6e53-ee20-4b0c-99b4-09697987e9f4
Race timestamp: 2026-11-21T20:10:18Z
Track:          geonames (bulk_size=5000)
Challenge:      append-no-conflicts
Car:            defaults
Pipeline:       from-distribution
Cluster:        Elasticsearch 8.19.0, 1 node
User tags:      env=ci, run=1
Status:         completed
Duration:       125.2 s

|                                     Metric |         Task |        Value |   Unit |
|-------------------------------------------:|-------------:|-------------:|-------:|
| Cumulative indexing time of primary shards |              |     0.725817 |    min |
|   Cumulative merge count of primary shards |              |     1        |        |
|                    Total Young Gen GC time |              |     0.094    |      s |
|                                 Store size |              |     0.076835 |     GB |
|                             Min Throughput | index-append |   671.92     | docs/s |
|                            Mean Throughput | index-append | 20744.7      | docs/s |
|                          Median Throughput | index-append | 25165.3      | docs/s |
|                             Max Throughput | index-append | 28299.3      | docs/s |
|                    50th percentile latency | index-append |    87.7566   |     ms |
|                    90th percentile latency | index-append |   256.983    |     ms |
|                    99th percentile latency | index-append |   849.376    |     ms |
|                   100th percentile latency | index-append |  1442.94     |     ms |
|               50th percentile service time | index-append |    87.7566   |     ms |
|               90th percentile service time | index-append |   256.983    |     ms |
|               99th percentile service time | index-append |   849.376    |     ms |
|              100th percentile service time | index-append |  1442.94     |     ms |
|                                 error rate | index-append |     0        |      % |
|                             Min Throughput |         term |    99.5      |  ops/s |
|                            Mean Throughput |         term |   100        |  ops/s |
|                          Median Throughput |         term |   100.01     |  ops/s |
|                             Max Throughput |         term |   100.49     |  ops/s |
|                    50th percentile latency |         term |     2.5      |     ms |
|                    90th percentile latency |         term |     3.25     |     ms |
|                    99th percentile latency |         term |     7        |     ms |
|                  99.9th percentile latency |         term |    12.125    |     ms |
|                 99.99th percentile latency |         term |    19        |     ms |
|                   100th percentile latency |         term |    25        |     ms |
|               50th percentile service time |         term |     2        |     ms |
|               90th percentile service time |         term |     3        |     ms |
|               99th percentile service time |         term |     6.5      |     ms |
|             99.9th percentile service time |         term |    12        |     ms |
|            99.99th percentile service time |         term |    18.5      |     ms |
|              100th percentile service time |         term |    24        |     ms |
|                                 error rate |         term |     0.25     |      % |
|                                 error rate |         wait |     0        |      % |

""" + (
    "[WARNING] Error rate is 0.25% for task 'term' (50 of 20000 requests failed; "
    "429: 40, ConnectionTimeout: 10). Please check the logs.\n"
    "[WARNING] No throughput metrics available for [wait]. "
    "Likely cause: The benchmark ended already during warmup.\n"
)

EXPECTED_CSV = """\
Metric,Task,Value,Unit
Cumulative indexing time of primary shards,,0.7258166666666667,min
Cumulative merge count of primary shards,,1,
Total Young Gen GC time,,0.094,s
Store size,,0.07683500275015831,GB
Min Throughput,index-append,671.92,docs/s
Mean Throughput,index-append,20744.71,docs/s
Median Throughput,index-append,25165.30,docs/s
Max Throughput,index-append,28299.30,docs/s
50th percentile latency,index-append,87.75664,ms
90th percentile latency,index-append,256.983,ms
99th percentile latency,index-append,849.376,ms
100th percentile latency,index-append,1442.94,ms
50th percentile service time,index-append,87.75664,ms
90th percentile service time,index-append,256.983,ms
99th percentile service time,index-append,849.376,ms
100th percentile service time,index-append,1442.94,ms
error rate,index-append,0.00,%
Min Throughput,term,99.50,ops/s
Mean Throughput,term,100.00,ops/s
Median Throughput,term,100.01,ops/s
Max Throughput,term,100.49,ops/s
50th percentile latency,term,2.5,ms
90th percentile latency,term,3.25,ms
99th percentile latency,term,7.0,ms
99.9th percentile latency,term,12.125,ms
99.99th percentile latency,term,19.0,ms
100th percentile latency,term,25.0,ms
50th percentile service time,term,2.0,ms
90th percentile service time,term,3.0,ms
99th percentile service time,term,6.5,ms
99.9th percentile service time,term,12.0,ms
99.99th percentile service time,term,18.5,ms
100th percentile service time,term,24.0,ms
error rate,term,0.25,%
error rate,wait,0.00,%
"""


def test_text_snapshot() -> None:
    assert render_summary(_race(), fmt="text") == EXPECTED_TEXT


def test_csv_snapshot_keeps_full_precision_and_rally_two_decimal_strings() -> None:
    assert render_summary(_race(), fmt="csv") == EXPECTED_CSV
    rows = list(csv.reader(io.StringIO(EXPECTED_CSV)))
    assert rows[0] == ["Metric", "Task", "Value", "Unit"]


def test_markdown_has_header_list_the_same_table_and_warnings_list() -> None:
    md = render_summary(_race(), fmt="markdown")
    text_table = [line for line in EXPECTED_TEXT.splitlines() if line.startswith("|")]
    md_table = [line for line in md.splitlines() if line.startswith("|")]
    assert md_table == text_table
    assert md.startswith("- **Race id**: 6ebc6e53-ee20-4b0c-99b4-09697987e9f4\n")
    assert "- **User tags**: env=ci, run=1" in md
    assert "**Warnings**\n\n- Error rate is 0.25% for task 'term'" in md
    assert "[WARNING]" not in md


def test_json_has_numbers_race_fields_and_warnings() -> None:
    doc = json.loads(render_summary(_race(), fmt="json"))
    assert doc["race"]["race_id"] == "6ebc6e53-ee20-4b0c-99b4-09697987e9f4"
    assert doc["race"]["track_params"] == {"bulk_size": 5000}
    assert doc["race"]["user_tags"] == {"env": "ci", "run": "1"}
    metrics = doc["metrics"]
    assert metrics[0] == {
        "metric": "Cumulative indexing time of primary shards",
        "task": "",
        "value": 0.7258166666666667,
        "unit": "min",
    }
    by_key = {(m["metric"], m["task"]): m for m in metrics}
    assert by_key[("Min Throughput", "index-append")]["value"] == 671.92
    assert by_key[("error rate", "term")] == {
        "metric": "error rate",
        "task": "term",
        "value": 0.25,
        "unit": "%",
    }
    assert by_key[("99.99th percentile latency", "term")]["value"] == 19.0
    assert len(doc["warnings"]) == 2


def test_hidden_tasks_and_processing_time_rows() -> None:
    names = [(m, t) for m, t, _v, _u in summary_rows(_race())]
    assert not any(t == "delete-index" for _m, t in names)
    assert ("50th percentile processing time", "index-append") not in names
    with_pt = [(m, t) for m, t, _v, _u in summary_rows(_race(), show_processing_time=True)]
    pt = [m for m, t in with_pt if t == "index-append" and "processing time" in m]
    assert pt == [
        "50th percentile processing time",
        "90th percentile processing time",
        "99th percentile processing time",
        "100th percentile processing time",
    ]
    # processing time comes after service time and before the error rate, as in Rally
    idx = [m for m, t in with_pt if t == "index-append"]
    assert idx.index("100th percentile service time") < idx.index("50th percentile processing time")
    assert idx[-1] == "error rate"


def test_task_rows_follow_rally_order() -> None:
    rows = [m for m, t, _v, _u in summary_rows(_race()) if t == "term"]
    assert rows[:4] == ["Min Throughput", "Mean Throughput", "Median Throughput", "Max Throughput"]
    assert rows[4:10] == [f"{p}th percentile latency" for p in ("50", "90", "99", "99.9", "99.99", "100")]
    assert rows[-1] == "error rate"


def test_warnings_for_errors_even_in_hidden_tasks_overflow_and_failed_race() -> None:
    tasks = (
        TaskResult(
            task="create-index",
            operation="create-index",
            operation_type="create-index",
            include_in_reporting=False,
            sample_count=1,
            error_count=1,
            errors_by_type={"400": 1},
        ),
        TaskResult(task="s", operation="s", operation_type="search", sample_count=3, overflow_count=2),
        TaskResult(task="never", operation="never", operation_type="search"),
    )
    race = _race(tasks=tasks, status="interrupted", error="Ctrl-C")
    warnings = summary_warnings(race)
    assert warnings[0].startswith("The race interrupted: Ctrl-C.")
    assert any("Error rate is 100.0% for task 'create-index'" in w and "400: 1" in w for w in warnings)
    assert any(w.startswith("2 measurement values of task 's'") for w in warnings)
    assert (
        "No throughput metrics available for [never]. Likely cause: The task recorded no samples." in warnings
    )
    text = render_summary(race)
    assert "Status:         interrupted: Ctrl-C" in text
    assert text.count("[WARNING]") == len(warnings)


def test_no_warnings_section_for_a_clean_race() -> None:
    race = _race(tasks=_race().tasks[1:2])
    assert summary_warnings(race) == []
    assert "[WARNING]" not in render_summary(race)
    assert "Warnings" not in render_summary(race, fmt="markdown")


def test_unknown_format_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"Unknown report format 'html'.*text, markdown, csv, json"):
        render_summary(_race(), fmt="html")


@pytest.mark.parametrize("fmt", FORMATS)
def test_render_table_for_compare(fmt: str) -> None:
    headers = ["Metric", "Task", "Baseline", "Contender", "Diff", "Unit", "Diff %"]
    rows = [["Mean Throughput", "bulk", "100.00", "110.00", "+10.00", "docs/s", "+10.00%"]]
    out = render_table(headers, rows, fmt=fmt)
    if fmt == "json":
        assert json.loads(out) == [
            {
                "metric": "Mean Throughput",
                "task": "bulk",
                "baseline": 100.0,
                "contender": 110.0,
                "diff": 10.0,
                "unit": "docs/s",
                "diff_pct": "+10.00%",
            }
        ]
    elif fmt == "csv":
        assert out.splitlines()[1] == "Mean Throughput,bulk,100.00,110.00,+10.00,docs/s,+10.00%"
    else:
        assert out.splitlines()[0].startswith("|")
        assert "Diff %" in out.splitlines()[0]
    assert json_key("Diff %") == "diff_pct"


def test_failed_bulk_documents_are_reported_apart_from_failed_requests() -> None:
    bulk = TaskResult(
        task="index-append",
        operation="index-append",
        operation_type="bulk",
        throughput_unit="docs/s",
        sample_count=100,
        error_count=3,
        errors_by_type={"bulk": 3},
        item_errors_by_status={"409": 12000, "400": 5},
    )
    (warning,) = summary_warnings(_race(tasks=(bulk,)))
    assert warning == (
        "Error rate is 3.0% for task 'index-append' (3 of 100 requests failed; bulk: 3). "
        "Failed documents by status: 409: 12000, 400: 5. Please check the logs."
    )


def test_failed_administrative_tasks_get_rows_and_all_failed_tasks_no_throughput() -> None:
    # Rally 2.13: a hidden task is reported once a request failed (GlobalStatsCalculator), and its
    # throughput rows are left out when the mean is 0 (summary_stats).
    failed_admin = TaskResult(
        task="force-merge",
        operation="force-merge",
        operation_type="force-merge",
        include_in_reporting=False,
        throughput_min=0.0,
        throughput_mean=0.0,
        throughput_median=0.0,
        throughput_max=0.0,
        latency_ms={"100": 20.0},
        service_time_ms={"100": 20.0},
        sample_count=1,
        error_count=1,
    )
    fine_admin = TaskResult(
        task="refresh", operation="refresh", operation_type="refresh", include_in_reporting=False
    )
    assert failed_admin.reported and not fine_admin.reported
    rows = summary_rows(_race(tasks=(fine_admin, failed_admin)))
    assert [(m, t, v) for m, t, v, _u in rows if t] == [
        ("100th percentile latency", "force-merge", 20.0),
        ("100th percentile service time", "force-merge", 20.0),
        ("error rate", "force-merge", "100.00"),
    ]
