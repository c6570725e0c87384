"""OpenSearch Benchmark's command line, typed unchanged at ``esbench``, against a real node: the results
file in OSB's csv format, ``--latency-percentiles`` / ``--throughput-percentiles`` choosing the reported
percentiles (OSB 2.4.0's sample-count rule, osbenchmark/metrics.py), ``list test-runs`` with OSB's
columns, ``visualize`` and ``compare --percentiles`` on the stored race."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import harness
import pytest

from esbench.reporting.percentiles import osb_percentiles_for_sample_size, percentile_label

WORKLOAD = harness.TRACKS / "osbworkload"


def _csv_rows(path: Path) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    assert rows[0] == ["Metric", "Task", "Value", "Unit"], rows[:2]
    return rows[1:]


def _task(result: dict, name: str) -> dict:
    return next(t for t in result["tasks"] if t["task"] == name)


def test_results_csv_file_after_a_real_run_with_osbs_percentiles(es_hosts: list[str], tmp_path: Path) -> None:
    results_file = tmp_path / "out" / "results.csv"
    proc = harness.ok(
        harness.esbench(
            "run",
            f"--workload-path={WORKLOAD}",
            "-t",
            ",".join(es_hosts),
            "--pipeline=benchmark-only",
            "-tid",
            "osb-cli-run-1",
            "--workload-params=index_name:'osb-cli-fares'",
            "--results-format=csv",
            f"--results-file={results_file}",
            "--latency-percentiles=50,99.9",
            "--show-in-results=all-percentiles",
        )
    )
    result = harness.results(proc)
    assert result["race_id"] == "osb-cli-run-1"
    rows = _csv_rows(results_file)
    # Printed too, as OSB prints the results it writes.
    assert "Metric,Task,Value,Unit" in proc.stdout and "50th percentile latency,fares-in-city," in proc.stdout
    search = _task(result, "fares-in-city")
    # 8 requests: OSB keeps 50 (of 25, 50, 75, 100) and shows 99.9 without a value (all-percentiles).
    latency = [(r[0], r[2]) for r in rows if r[1] == "fares-in-city" and r[0].endswith("percentile latency")]
    assert [name for name, _ in latency] == ["50th percentile latency", "99.9th percentile latency"]
    assert latency[1][1] == ""
    # The race computed its own 50th percentile from the same samples when it ended.
    assert float(latency[0][1]) == pytest.approx(search["latency_ms"]["50"], rel=1e-9)
    # Service time keeps Rally's rows (OSB's option is about latency only).
    service = [r[0] for r in rows if r[1] == "fares-in-city" and r[0].endswith("percentile service time")]
    assert service == [f"{p}th percentile service time" for p in ("50", "90", "99", "99.9", "99.99", "100")]
    assert ["error rate", "fares-in-city", "0.00", "%"] in rows

    listed = harness.ok(harness.esbench("list", "test-runs"))
    assert "Recent test-runs:" in listed.stdout
    header = next(line for line in listed.stdout.splitlines() if line.startswith("TestRun ID"))
    assert header.split() == [
        "TestRun",
        "ID",
        "TestRun",
        "Timestamp",
        "Workload",
        "Workload",
        "Parameters",
        "TestProcedure",
        "ClusterConfigInstance",
        "User",
        "Tags",
        "workload",
        "Revision",
        "Cluster",
        "Config",
        "Revision",
    ]
    row = next(line for line in listed.stdout.splitlines() if line.startswith("osb-cli-run-1"))
    assert "osbworkload" in row and "index_name=osb-cli-fares" in row and "index-and-query" in row

    page = tmp_path / "charts" / "run.html"
    shown = harness.ok(harness.esbench("visualize", "-tid", "osb-cli-run-1", f"--output-path={page}"))
    assert str(page) in shown.stderr
    text = page.read_text(encoding="utf-8")
    assert text.lstrip().lower().startswith("<!doctype html") and "fares-in-city" in text


def test_latency_and_throughput_percentiles_change_what_is_reported(
    es_hosts: list[str], tmp_path: Path
) -> None:
    results_file = tmp_path / "results.csv"
    proc = harness.ok(
        harness.esbench(
            "run",
            f"--workload-path={harness.TRACKS / 'compare-tiny'}",
            f"--target-hosts={','.join(es_hosts)}",
            "--pipeline=benchmark-only",
            "--workload-params=index_name:osb-cli-tiny,search_target_throughput:500,search_time_period:4",
            "--results-format=csv",
            f"--results-file={results_file}",
            "--latency-percentiles=50,99.9",
            "--throughput-percentiles=50",
        )
    )
    result = harness.results(proc)
    search = _task(result, "term-query")
    rows = {(r[0], r[1]): r for r in _csv_rows(results_file)}
    shown = [name for name, task in rows if task == "term-query" and name.endswith("percentile latency")]
    # OSB's rule on the race's own sample count decides which of 50 and 99.9 are shown; Rally's rows
    # (what the race stored and the default report shows) are not.
    expected = [
        f"{percentile_label(p)}th percentile latency"
        for p in osb_percentiles_for_sample_size(search["sample_count"], (50.0, 99.9))
    ]
    assert shown == expected
    assert set(shown) != {f"{label}th percentile latency" for label in search["latency_ms"]}
    assert float(rows[("50th percentile latency", "term-query")][2]) == pytest.approx(
        search["latency_ms"]["50"], rel=1e-9
    )
    if "99.9th percentile latency" in shown:
        p999 = float(rows[("99.9th percentile latency", "term-query")][2])
        assert search["latency_ms"]["50"] <= p999 <= search["latency_ms"]["100"]
    # The median of the per-second throughput windows, in the throughput unit, after Max Throughput.
    names = [name for name, task in rows if task == "term-query"]
    assert names.index("50th percentile throughput") == names.index("Max Throughput") + 1
    median = rows[("50th percentile throughput", "term-query")]
    assert median[3] == search["throughput_unit"]
    assert float(median[2]) == pytest.approx(search["throughput_median"], rel=1e-9)

    # compare --percentiles (OSB's compare option) on the stored race, compared with itself.
    compared = harness.ok(
        harness.esbench(
            "compare",
            "-b",
            result["race_id"],
            "-c",
            result["race_id"],
            "--percentiles=50,99.9",
            "--results-format=csv",
        )
    )
    compared_rows = list(csv.reader(io.StringIO(compared.stdout)))
    latency_rows = [
        r[0] for r in compared_rows if len(r) > 1 and r[1] == "term-query" and r[0].endswith("latency")
    ]
    assert latency_rows == expected
