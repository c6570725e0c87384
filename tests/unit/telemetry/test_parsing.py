"""Parsing of Elasticsearch stats responses into series, and the summary rows built from them."""

from __future__ import annotations

import json
from pathlib import Path

from esbench.telemetry.devices.data_stream_stats import parse_data_stream_stats
from esbench.telemetry.devices.disk_usage_stats import parse_disk_usage
from esbench.telemetry.devices.ingest_pipeline_stats import IngestPipelineStats, parse_ingest
from esbench.telemetry.devices.node_stats import NodeStats, parse_node_stats
from esbench.telemetry.devices.recovery_stats import parse_recovery
from esbench.telemetry.devices.shard_stats import parse_shard_stats
from esbench.telemetry.flatten import flatten, unit_of

# A real ``GET _nodes/stats`` response of Elasticsearch 8.19 (one node).
NODES_STATS = json.loads(
    (Path(__file__).parents[2] / "resources" / "telemetry" / "nodes_stats_8.19.json").read_text()
)


def test_flatten_follows_rallys_rule_with_dotted_names() -> None:
    doc = {"a": {"b": 1, "flag": True, "list": [1, 2], "s": "x", "timestamp": 5, "c": {"d": 2.5}}}
    assert dict(flatten(doc)) == {"a.b": 1.0, "a.c.d": 2.5}
    assert dict(flatten(doc["a"], "p")) == {"p.b": 1.0, "p.c.d": 2.5}


def test_units_come_from_elasticsearch_field_suffixes() -> None:
    assert unit_of("jvm.mem.heap_used_in_bytes") == "bytes"
    assert unit_of("jvm.gc.collectors.young.collection_time_in_millis") == "ms"
    assert unit_of("jvm.mem.heap_used_percent") == "%"
    assert unit_of("fs.io_stats.total.read_kilobytes") == "KiB"
    assert unit_of("os.cgroup.cpuacct.usage_nanos") == "ns"
    assert unit_of("thread_pool.write.rejected") == ""


def test_node_stats_default_sections_of_a_real_response() -> None:
    device = NodeStats({})
    values, units = parse_node_stats(NODES_STATS, device.sections, device.indices_metrics)
    metrics = {m for m, node in values if node == "node-0"}
    for expected in (
        "thread_pool.write.rejected",
        "thread_pool.search.queue",
        "jvm.mem.heap_used_percent",
        "jvm.gc.collectors.young.collection_time_in_millis",
        "breakers.parent.estimated_size_in_bytes",
        "indexing_pressure.memory.total.coordinating_rejections",
        "indices.indexing.index_total",
        "process.cpu.percent",
        "os.cpu.percent",
        "os.mem.free_in_bytes",
        "fs.io_stats.total.read_kilobytes",
        "transport.rx_size_in_bytes",
    ):
        assert expected in metrics, expected
    # Rally's device takes only process.cpu of the process section, and never timestamps.
    assert "process.open_file_descriptors" not in metrics
    assert "fs.timestamp" not in metrics and "os.timestamp" not in metrics
    assert units[("jvm.mem.heap_used_percent", "node-0")] == "%"


def test_node_stats_include_flags_and_indices_metrics() -> None:
    device = NodeStats(
        {"node-stats-include-thread-pools": False, "node-stats-include-indices-metrics": "docs,search"}
    )
    values, _ = parse_node_stats(NODES_STATS, device.sections, device.indices_metrics)
    metrics = {m for m, _ in values}
    assert not any(m.startswith("thread_pool.") for m in metrics)
    assert {m.split(".")[1] for m in metrics if m.startswith("indices.")} == {"docs", "search"}
    assert "thread_pool" not in device.api_metrics.split(",")
    off = NodeStats({"node-stats-include-indices": False})
    assert off.indices_metrics == () and "indices" not in off.api_metrics.split(",")


def _node(pool_rejected: float, cpu: float, read_kib: float) -> dict:
    return {
        "nodes": {
            "id1": {
                "name": "n1",
                "thread_pool": {"write": {"rejected": pool_rejected}, "search": {"rejected": 3}},
                "process": {"cpu": {"percent": cpu}},
                "jvm": {"mem": {"heap_used_percent": cpu / 2}},
                "fs": {"io_stats": {"total": {"read_kilobytes": read_kib}}},
            }
        }
    }


def test_node_stats_summary_rows() -> None:
    device = NodeStats({})
    for i, (rejected, cpu, kib) in enumerate([(10, 20.0, 1024), (15, 80.0, 2048), (17, 50.0, 5120)]):
        values, units = parse_node_stats(_node(rejected, cpu, kib), device.sections, device.indices_metrics)
        device.table.add(float(i), values, units)
    rows = {(m.name, m.task): (m.value, m.unit) for m in device.summary()}
    assert rows[("Peak CPU usage (node-stats)", "n1")] == (80.0, "%")
    assert rows[("Mean CPU usage (node-stats)", "n1")] == (50.0, "%")
    assert rows[("Peak heap usage", "n1")] == (40.0, "%")
    assert rows[("Rejected requests (all thread pools)", "n1")] == (7.0, "")
    assert rows[("Rejected requests in thread pool write", "n1")] == (7.0, "")
    # A pool whose rejections did not grow during the race gets no row of its own.
    assert ("Rejected requests in thread pool search", "n1") not in rows
    assert rows[("Disk reads (fs io stats)", "n1")] == (4.0, "MB")


def test_shard_stats() -> None:
    body = {
        "nodes": {
            "x": {
                "name": "n1",
                "indices": {
                    "shards": {
                        "logs": [
                            {
                                "0": {
                                    "routing": {"primary": True},
                                    "docs": {"count": 5},
                                    "store": {"size_in_bytes": 100},
                                    "segments": {"count": 2},
                                }
                            },
                            {"1": {"routing": {"primary": False}, "docs": {"count": 7}}},
                        ]
                    }
                },
            }
        }
    }
    values, units = parse_shard_stats(body)
    assert values == {
        ("logs.0.p.docs.count", "n1"): 5.0,
        ("logs.0.p.store.size_in_bytes", "n1"): 100.0,
        ("logs.0.p.segments.count", "n1"): 2.0,
        ("logs.1.r.docs.count", "n1"): 7.0,
    }
    assert units[("logs.0.p.store.size_in_bytes", "n1")] == "bytes"


def test_recovery_stats() -> None:
    body = {
        "logs": {
            "shards": [
                {
                    "id": 0,
                    "type": "PEER",
                    "stage": "INDEX",
                    "primary": False,
                    "source": {"name": "n0"},
                    "target": {"name": "n1"},
                    "index": {
                        "size": {"total_in_bytes": 1000, "recovered_in_bytes": 400, "percent": "40.0%"}
                    },
                    "translog": {"recovered": 3},
                    "total_time_in_millis": 12,
                }
            ]
        }
    }
    values, units = parse_recovery(body)
    assert values[("logs.0.index.size.recovered_in_bytes", "n1")] == 400.0
    assert values[("logs.0.translog.recovered", "n1")] == 3.0
    assert values[("logs.0.total_time_in_millis", "n1")] == 12.0
    assert units[("logs.0.total_time_in_millis", "n1")] == "ms"
    assert not any(".source." in m or ".target." in m for m, _ in values)


def test_data_stream_stats() -> None:
    body = {
        "_shards": {"total": 2, "successful": 2, "failed": 0},
        "data_stream_count": 1,
        "backing_indices": 3,
        "total_store_size_bytes": 900,
        "data_streams": [
            {"data_stream": "logs-a", "backing_indices": 3, "store_size_bytes": 900, "maximum_timestamp": 17}
        ],
    }
    values, units = parse_data_stream_stats(body)
    assert values[("_all.data_stream_count", "")] == 1.0
    assert values[("logs-a.store_size_bytes", "")] == 900.0
    assert units[("_all.total_store_size_bytes", "")] == "bytes"
    assert values[("logs-a.maximum_timestamp", "")] == 17.0


def _ingest(count: int, time_ms: int) -> dict:
    return {
        "nodes": {
            "x": {
                "name": "n1",
                "ingest": {
                    "total": {"count": count, "time_in_millis": time_ms, "failed": 0, "current": 0},
                    "pipelines": {
                        "p1": {
                            "count": count,
                            "time_in_millis": time_ms,
                            "failed": 1,
                            "processors": [
                                {
                                    "set": {
                                        "type": "set",
                                        "stats": {"count": count, "time_in_millis": 1, "failed": 0},
                                    }
                                },
                                {
                                    "set": {
                                        "type": "set",
                                        "stats": {"count": count, "time_in_millis": 2, "failed": 0},
                                    }
                                },
                            ],
                        }
                    },
                },
            }
        }
    }


def test_ingest_pipeline_stats_numbers_processors_like_rally_and_reports_deltas() -> None:
    values, _ = parse_ingest(_ingest(10, 5))
    assert values[("pipelines.p1.processors.set_1.count", "n1")] == 10.0
    assert values[("pipelines.p1.processors.set_2.time_in_millis", "n1")] == 2.0
    device = IngestPipelineStats({})
    for i, body in enumerate((_ingest(10, 5), _ingest(110, 45))):
        device.table.add(float(i), *parse_ingest(body))
    rows = {(m.name, m.task): (m.value, m.unit) for m in device.summary()}
    assert rows == {
        ("Ingest pipeline count", "p1"): (100.0, ""),
        ("Ingest pipeline time", "p1"): (40.0, "ms"),
        ("Ingest pipeline failed", "p1"): (0.0, ""),
    }


def test_disk_usage_keeps_parts_above_zero_like_rally() -> None:
    body = {
        "_shards": {"total": 1, "successful": 1, "failed": 0},
        "logs": {
            "store_size_in_bytes": 10,
            "fields": {
                "message": {
                    "total_in_bytes": 50,
                    "inverted_index": {"total_in_bytes": 30},
                    "stored_fields_in_bytes": 0,
                    "doc_values_in_bytes": 20,
                    "points_in_bytes": 0,
                },
            },
        },
    }
    assert parse_disk_usage(body) == {
        ("logs.message.total_in_bytes", ""): 50.0,
        ("logs.message.inverted_index_in_bytes", ""): 30.0,
        ("logs.message.doc_values_in_bytes", ""): 20.0,
    }
