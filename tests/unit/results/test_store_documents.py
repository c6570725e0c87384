"""The documents esbench writes into Rally's metrics store, checked against the rules of Rally 2.13's
esrally/metrics.py (``Race.as_dict``, ``to_result_dicts``, ``GlobalStats``, ``_put_metric``).

The documents Rally itself reads back are checked with Rally as the oracle in
tests/integration/test_rally_store.py; these tests pin the unit conversions and shapes without Rally.
"""

from __future__ import annotations

import dataclasses
from array import array

import racefactory
from hdrh.histogram import HdrHistogram

from esbench.records import ClusterMetric, TelemetrySeries
from esbench.records.samples import FAILED, WARMUP, RequestSamples
from esbench.results import store_documents as docs
from esbench.results import store_metric_documents as metric_docs
from esbench.results.store_layout import RACE_TIMESTAMP_FORMAT


def _race():
    return racefactory.make_race(seed=7, tags={"setup": "one"}, timestamp="2026-03-04T05:06:07Z")


def test_race_document_has_rallys_keys_and_timestamp_format() -> None:
    race = _race()
    doc = docs.race_document(race, "nightly")
    assert doc["race-timestamp"] == "20260304T050607Z"
    assert doc["environment"] == "nightly"
    assert doc["car"] == ["defaults"]
    assert doc["cluster"]["distribution-version"] == "8.19.0"
    assert doc["user-tags"] == {"setup": "one"}
    assert doc["track-params"] == race.track_params
    # GlobalStats.__init__ reads every one of these keys.
    for key in (
        "op_metrics",
        "total_time",
        "total_time_per_shard",
        "young_gc_time",
        "segment_count",
        "ml_processing_time",
        "disk_usage_total",
        "ingest_pipeline_cluster_count",
    ):
        assert key in doc["results"]


def test_cluster_rows_are_stored_in_rallys_units() -> None:
    race = dataclasses.replace(
        _race(),
        cluster_metrics=(
            ClusterMetric(name="Cumulative indexing time of primary shards", value=1.5, unit="min"),
            ClusterMetric(name="Min cumulative indexing time across primary shards", value=0.25, unit="min"),
            ClusterMetric(name="Total Young Gen GC time", value=0.204, unit="s"),
            ClusterMetric(name="Store size", value=0.5, unit="GB"),
            ClusterMetric(name="Segment count", value=7, unit=""),
            ClusterMetric(name="Not a Rally row", value=1.0, unit=""),
        ),
    )
    stats = docs.global_stats(race)
    assert stats["total_time"] == 90_000  # ms
    assert stats["total_time_per_shard"] == {"min": 15_000.0, "unit": "ms"}
    assert stats["young_gc_time"] == 204
    assert stats["store_size"] == 512 * 1024**2  # bytes
    assert stats["segment_count"] == 7
    assert stats["merge_time"] is None


def test_op_metrics_use_rallys_percentile_keys_and_mean() -> None:
    race = _race()
    task = race.tasks[1]
    item = docs.op_metrics(task)
    assert set(item["latency"]) == {docs.encode_percentile(k) for k in task.latency_ms} | {"mean", "unit"}
    assert "99_0" in item["latency"] and "99.0" not in item["latency"]
    assert item["latency"]["99_0"] == task.latency_ms["99"]
    histogram = HdrHistogram.decode(task.histograms["latency"])
    assert item["latency"]["mean"] == histogram.get_mean_value() / 1000.0
    assert item["service_time"]["mean"] == task.mean_service_time_ms
    assert item["throughput"] == {
        "min": task.throughput_min,
        "mean": task.throughput_mean,
        "median": task.throughput_median,
        "max": task.throughput_max,
        "unit": "ops/s",
    }
    assert item["duration"] == task.duration_s * 1000.0


def test_encode_percentile_matches_rallys_encode_float_key() -> None:
    assert [docs.encode_percentile(p) for p in ("50", "99.9", "99.99", "100")] == [
        "50_0",
        "99_9",
        "99_99",
        "100_0",
    ]


def test_result_documents_are_rallys_flat_list_sorted_by_name() -> None:
    race = _race()
    results = docs.result_documents(race, "local")
    names = [d["name"] for d in results]
    assert names == sorted(names)
    per_task = [d for d in results if d.get("task") == "term-query"]
    assert {d["name"] for d in per_task} == {
        "throughput",
        "latency",
        "service_time",
        "processing_time",
        "error_rate",
        "duration",
    }
    error_rate = next(d for d in per_task if d["name"] == "error_rate")
    assert error_rate["value"] == {"single": 0.0}
    for doc in results:
        assert doc["race-timestamp"] == "20260304T050607Z"
        assert doc["active"] is True and doc["environment"] == "local" and doc["car"] == "defaults"
        assert doc["distribution-major-version"] == 8


def test_sample_documents_one_per_metric_and_request() -> None:
    ctx = docs.context(_race(), "local")
    samples = RequestSamples(
        task="q",
        operation="q-op",
        operation_type="search",
        task_start_epoch=1000.0,
        start_epoch=array("d", [1000.5, 1002.25]),
        latency_ms=array("d", [3.0, 9.0]),
        service_time_ms=array("d", [2.0, 8.0]),
        processing_time_ms=array("d", [2.5, 8.5]),
        flags=array("B", [WARMUP, FAILED]),
        error_types={1: "500"},
    )
    out = list(metric_docs.sample_documents(ctx, samples))
    assert [(d["name"], d["value"], d["sample-type"]) for d in out] == [
        ("latency", 3.0, "warmup"),
        ("service_time", 2.0, "warmup"),
        ("processing_time", 2.5, "warmup"),
        ("latency", 9.0, "normal"),
        ("service_time", 8.0, "normal"),
        ("processing_time", 8.5, "normal"),
    ]
    assert out[0]["@timestamp"] == 1_000_500 and out[0]["relative-time"] == 500.0
    assert out[3]["relative-time"] == 2250.0
    assert out[0]["meta"] == {"tag_setup": "one", "success": True}
    assert out[3]["meta"] == {"tag_setup": "one", "success": False, "error-type": "500"}
    assert {d["task"] for d in out} == {"q"} and {d["operation-type"] for d in out} == {"search"}
    assert all(d["unit"] == "ms" and d["race-id"] == ctx.race_id for d in out)


def test_telemetry_documents_group_a_nodes_sample_like_rallys_node_stats() -> None:
    race = dataclasses.replace(
        _race(),
        telemetry=(
            TelemetrySeries(
                device="node-stats",
                metric="jvm.mem.heap_used_percent",
                unit="%",
                node="n0",
                timestamps=(10.0, 11.0),
                values=(40.0, 41.0),
            ),
            TelemetrySeries(
                device="node-stats",
                metric="process.cpu.percent",
                unit="%",
                node="n0",
                timestamps=(10.0,),
                values=(7.0,),
            ),
        ),
    )
    ctx = docs.context(race, "local")
    out = list(metric_docs.telemetry_documents(ctx, race, 9.0))
    assert len(out) == 2
    first = out[0]
    assert first["name"] == "node-stats" and first["meta"]["node_name"] == "n0"
    assert first["jvm_mem_heap_used_percent"] == 40.0 and first["process_cpu_percent"] == 7.0
    assert first["@timestamp"] == 10_000 and first["relative-time"] == 1000.0


def test_throughput_documents_one_per_window() -> None:
    race = _race()
    task = dataclasses.replace(race.tasks[0], start_epoch=2000.0)
    race = dataclasses.replace(race, tasks=(task,))
    out = list(metric_docs.throughput_documents(docs.context(race, "local"), race))
    assert [d["value"] for d in out] == list(task.throughput_windows)
    assert out[0]["@timestamp"] == 2_001_000 and out[0]["unit"] == "docs/s"
    assert {d["name"] for d in out} == {"throughput"} and {d["sample-type"] for d in out} == {"normal"}


def test_race_timestamp_reads_both_formats() -> None:
    race = _race()
    rally_form = dataclasses.replace(
        race, timestamp=docs.race_timestamp(race).strftime(RACE_TIMESTAMP_FORMAT)
    )
    assert docs.race_timestamp(rally_form) == docs.race_timestamp(race)
