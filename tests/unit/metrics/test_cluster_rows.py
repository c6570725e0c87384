"""cluster_metrics: row names, units, conversions and deltas from hand-built snapshots.

Claims about what Elasticsearch returns are tested against the real node in
tests/integration/test_cluster_metrics.py; these tests cover the arithmetic.
"""

from __future__ import annotations

import pytest

from esbench.metrics.cluster import (
    ClusterStatsSnapshot,
    cluster_metrics,
    snapshot_from_responses,
    unclean_cluster_warnings,
)


def _node(young=(0, 0), old=(0, 0), ingest=(0, 0, 0), zgc: bool = False) -> dict:
    collectors = {
        "young": {"collection_count": young[0], "collection_time_in_millis": young[1]},
        "old": {"collection_count": old[0], "collection_time_in_millis": old[1]},
    }
    if zgc:
        collectors = {
            "ZGC Cycles": {"collection_count": young[0], "collection_time_in_millis": young[1]},
            "ZGC Pauses": {"collection_count": old[0], "collection_time_in_millis": old[1]},
        }
    return {
        "jvm": {"gc": {"collectors": collectors}},
        "ingest": {"total": {"count": ingest[0], "time_in_millis": ingest[1], "failed": ingest[2]}},
    }


def _shard(primary: bool, index_ms: int) -> dict:
    return {"routing": {"primary": primary}, "indexing": {"index_time_in_millis": index_ms}}


INDEX_STATS = {
    "_all": {
        "primaries": {
            "docs": {"count": 1000},
            "indexing": {"index_time_in_millis": 180_000, "throttle_time_in_millis": 0},
            "merges": {"total": 7, "total_time_in_millis": 60_000, "total_throttled_time_in_millis": 6000},
            "refresh": {"total": 15, "total_time_in_millis": 3000},
            "flush": {"total": 2, "total_time_in_millis": 1200},
            "segments": {"count": 33},
        },
        "total": {
            "store": {"size_in_bytes": 2 * 1024**3, "total_data_set_size_in_bytes": 3 * 1024**3},
            "translog": {"size_in_bytes": 1024**3 // 2},
        },
    },
    "indices": {
        "a": {"shards": {"0": [_shard(True, 30_000), _shard(False, 99_999)], "1": [_shard(True, 60_000)]}},
        "b": {"shards": {"0": [_shard(True, 90_000)]}},
    },
}


def _rows(before: ClusterStatsSnapshot, after: ClusterStatsSnapshot) -> dict[str, tuple[float, str]]:
    return {r.name: (r.value, r.unit) for r in cluster_metrics(before, after)}


def test_index_rows_are_absolute_values_of_the_end_snapshot() -> None:
    before = snapshot_from_responses(None, {"nodes": {"n1": _node()}}, timestamp=1.0)
    after = snapshot_from_responses(INDEX_STATS, {"nodes": {"n1": _node()}}, timestamp=2.0)
    rows = _rows(before, after)
    assert rows["Cumulative indexing time of primary shards"] == (3.0, "min")
    # replicas are ignored; per-shard values of primaries 30 s, 60 s, 90 s
    assert rows["Min cumulative indexing time across primary shards"] == (0.5, "min")
    assert rows["Median cumulative indexing time across primary shards"] == (1.0, "min")
    assert rows["Max cumulative indexing time across primary shards"] == (1.5, "min")
    assert rows["Cumulative merge count of primary shards"] == (7, "")
    assert rows["Cumulative merge time of primary shards"] == (1.0, "min")
    assert rows["Cumulative merge throttle time of primary shards"] == (0.1, "min")
    assert rows["Cumulative refresh count of primary shards"] == (15, "")
    assert rows["Cumulative flush time of primary shards"] == (pytest.approx(0.02), "min")
    assert rows["Dataset size"] == (3.0, "GB")
    assert rows["Store size"] == (2.0, "GB")
    assert rows["Translog size"] == (0.5, "GB")
    assert rows["Segment count"] == (33, "")
    # a primary without the value counts as 0 in the per-shard stats, like Rally
    assert rows["Min cumulative merge time across primary shards"] == (0.0, "min")


def test_gc_and_ingest_rows_are_deltas_summed_over_nodes_present_in_both() -> None:
    before = snapshot_from_responses(
        None,
        {"nodes": {"n1": _node(young=(10, 1000), ingest=(5, 100, 1)), "gone": _node(young=(99, 99_999))}},
        timestamp=1.0,
    )
    after = snapshot_from_responses(
        None,
        {
            "nodes": {
                "n1": _node(young=(15, 3500), old=(1, 250), ingest=(105, 2100, 3)),
                "new": _node(young=(1000, 1_000_000)),  # joined during the race: no baseline, skipped
            }
        },
        timestamp=2.0,
    )
    rows = _rows(before, after)
    assert rows["Total Young Gen GC time"] == (2.5, "s")
    assert rows["Total Young Gen GC count"] == (5, "")
    assert rows["Total Old Gen GC time"] == (0.25, "s")
    assert rows["Total Old Gen GC count"] == (1, "")
    assert rows["Total Ingest Pipeline count"] == (100, "")
    assert rows["Total Ingest Pipeline time"] == (2.0, "s")
    assert rows["Total Ingest Pipeline failed"] == (2, "")
    assert "Total ZGC Cycles GC time" not in rows
    # no index stats at all: no index rows
    assert not any(name.startswith(("Cumulative", "Min cumulative")) for name in rows)


def test_zgc_rows_only_when_zgc_collectors_exist() -> None:
    before = snapshot_from_responses(None, {"nodes": {"n": _node(zgc=True)}}, timestamp=1.0)
    after = snapshot_from_responses(
        None, {"nodes": {"n": _node(young=(4, 400), old=(8, 8), zgc=True)}}, timestamp=2
    )
    rows = _rows(before, after)
    assert rows["Total ZGC Cycles GC count"] == (4, "")
    assert rows["Total ZGC Cycles GC time"] == (0.4, "s")
    assert rows["Total ZGC Pauses GC count"] == (8, "")
    assert "Total Young Gen GC time" not in rows


def test_unclean_cluster_warning_above_rally_threshold() -> None:
    snap = snapshot_from_responses(INDEX_STATS, None, timestamp=1.0)
    warnings = unclean_cluster_warnings(snap)
    assert any(w.startswith("indexing_total_time is 180000 ms") for w in warnings)
    assert not any("indexing_throttle_time" in w for w in warnings)
    assert unclean_cluster_warnings(snapshot_from_responses(None, None, timestamp=1.0)) == ()
