"""Cluster-level summary rows (Rally's rows above the per-task rows) from ``_stats`` and ``_nodes/stats``.

The race takes one :class:`ClusterStatsSnapshot` before the first task and one after the last;
:func:`cluster_metrics` turns the pair into :class:`ClusterMetric` rows with Rally's names and units
(esrally ``reporter.py`` ``_report_totals``, ``_report_gc_metrics``, ``_report_disk_usage``,
``_report_segment_counts``, ``_report_ingest_pipeline_stats``):

- index rows come from the ``after`` snapshot as absolute values, exactly as Rally's ``IndexStats``
  telemetry device reports them (``_stats`` of all open indices at the end: ``_all.primaries`` for
  the cumulative times and counts and the segment count, the primary copies in ``level=shards``
  for the min/median/max across primary shards, ``_all.total`` for the dataset, store and translog
  sizes). On a cluster that was not fresh they include earlier activity; see
  :func:`unclean_cluster_warnings`.
- GC rows (``_nodes/stats/jvm``) and ingest pipeline rows (``_nodes/stats/ingest``) are deltas
  between the two snapshots summed over the nodes present in both, like Rally's
  ``JvmStatsSummary`` and ``IngestPipelineStats`` devices.
"""

from __future__ import annotations

import logging
import statistics
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from esbench.records import ClusterMetric

if TYPE_CHECKING:
    from elasticsearch import AsyncElasticsearch

logger = logging.getLogger(__name__)

# ``_stats`` paths (dotted) captured from ``_all.primaries`` and from every primary shard copy.
INDEXING_TIME = "indexing.index_time_in_millis"
INDEXING_THROTTLE_TIME = "indexing.throttle_time_in_millis"
MERGE_TIME = "merges.total_time_in_millis"
MERGE_COUNT = "merges.total"
MERGE_THROTTLE_TIME = "merges.total_throttled_time_in_millis"
REFRESH_TIME = "refresh.total_time_in_millis"
REFRESH_COUNT = "refresh.total"
FLUSH_TIME = "flush.total_time_in_millis"
FLUSH_COUNT = "flush.total"
SEGMENT_COUNT = "segments.count"
DOC_COUNT = "docs.count"
PRIMARY_PATHS: tuple[str, ...] = (
    INDEXING_TIME,
    INDEXING_THROTTLE_TIME,
    MERGE_TIME,
    MERGE_COUNT,
    MERGE_THROTTLE_TIME,
    REFRESH_TIME,
    REFRESH_COUNT,
    FLUSH_TIME,
    FLUSH_COUNT,
    SEGMENT_COUNT,
    DOC_COUNT,
)
SHARD_PATHS: tuple[str, ...] = (
    INDEXING_TIME,
    INDEXING_THROTTLE_TIME,
    MERGE_TIME,
    MERGE_THROTTLE_TIME,
    REFRESH_TIME,
    FLUSH_TIME,
)
# ``_stats`` paths captured from ``_all.total`` (primaries and replicas).
DATASET_SIZE = "store.total_data_set_size_in_bytes"
STORE_SIZE = "store.size_in_bytes"
TRANSLOG_SIZE = "translog.size_in_bytes"
TOTAL_PATHS: tuple[str, ...] = (DATASET_SIZE, STORE_SIZE, TRANSLOG_SIZE)

# Per-node counters from ``_nodes/stats/jvm,ingest`` (dotted paths under ``nodes.<id>``).
INGEST_COUNT = "ingest.total.count"
INGEST_TIME = "ingest.total.time_in_millis"
INGEST_FAILED = "ingest.total.failed"
# GC collector name in ``jvm.gc.collectors`` -> Rally's row label.
GC_COLLECTORS: tuple[tuple[str, str], ...] = (
    ("young", "Young Gen"),
    ("old", "Old Gen"),
    ("ZGC Cycles", "ZGC Cycles"),
    ("ZGC Pauses", "ZGC Pauses"),
)

_STATS_METRICS = "docs,store,indexing,merge,refresh,flush,segments,translog"
# Rally (IndexStats.on_benchmark_start) warns when a cumulative time exceeds this at the start.
UNCLEAN_THRESHOLD_MS = 2000


@dataclass(frozen=True, kw_only=True)
class ClusterStatsSnapshot:
    """The counters esbench needs from ``_stats`` and ``_nodes/stats`` at one moment (picklable, JSON-able).

    Attributes:
        timestamp: ``time.time()`` when the snapshot was taken (epoch seconds).
        primaries: dotted ``_stats`` path (:data:`PRIMARY_PATHS`) -> value summed over primary shards.
        primary_shards: dotted path (:data:`SHARD_PATHS`) -> the value of every primary shard.
        totals: dotted path (:data:`TOTAL_PATHS`) -> value over all shard copies (bytes).
        nodes: node id -> dotted path (``jvm.gc.collectors.<name>.collection_count`` /
            ``collection_time_in_millis``, :data:`INGEST_COUNT`, ...) -> value.
        errors: what could not be fetched (the affected rows are left out).
    """

    timestamp: float
    primaries: dict[str, float] = field(default_factory=dict)
    primary_shards: dict[str, tuple[float, ...]] = field(default_factory=dict)
    totals: dict[str, float] = field(default_factory=dict)
    nodes: dict[str, dict[str, float]] = field(default_factory=dict)
    errors: tuple[str, ...] = ()


def _get(doc: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        if not isinstance(doc, Mapping) or key not in doc:
            return None
        doc = doc[key]
    return doc


def _numbers(doc: Any, paths: Iterable[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for p in paths:
        v = _get(doc, p)
        if isinstance(v, int | float) and not isinstance(v, bool):
            out[p] = v
    return out


def snapshot_from_responses(
    index_stats: Mapping[str, Any] | None, node_stats: Mapping[str, Any] | None, *, timestamp: float
) -> ClusterStatsSnapshot:
    """Build a snapshot from the bodies of ``GET _stats?level=shards`` and ``GET _nodes/stats/jvm,ingest``.

    Either body may be None (not available). Pure function: the parsing half of
    :func:`take_cluster_snapshot`.
    """
    primaries: dict[str, float] = {}
    shards: dict[str, list[float]] = {p: [] for p in SHARD_PATHS}
    totals: dict[str, float] = {}
    if index_stats:
        primaries = _numbers(_get(index_stats, "_all.primaries"), PRIMARY_PATHS)
        totals = _numbers(_get(index_stats, "_all.total"), TOTAL_PATHS)
        for index in (index_stats.get("indices") or {}).values():
            for copies in (index.get("shards") or {}).values():
                for copy in copies:
                    if _get(copy, "routing.primary") is True:
                        for p in SHARD_PATHS:
                            # Rally counts a primary without the value as 0 (primary_shard_stats).
                            v = _get(copy, p)
                            shards[p].append(v if isinstance(v, int | float) else 0)
    nodes: dict[str, dict[str, float]] = {}
    for node_id, node in ((node_stats or {}).get("nodes") or {}).items():
        values = _numbers(node, (INGEST_COUNT, INGEST_TIME, INGEST_FAILED))
        for collector, _label in GC_COLLECTORS:
            prefix = f"jvm.gc.collectors.{collector}"
            c = _get(node, prefix)
            if isinstance(c, Mapping):
                for k in ("collection_count", "collection_time_in_millis"):
                    if isinstance(c.get(k), int | float):
                        values[f"{prefix}.{k}"] = c[k]
        nodes[node_id] = values
    return ClusterStatsSnapshot(
        timestamp=timestamp,
        primaries=primaries,
        primary_shards={p: tuple(v) for p, v in shards.items() if v},
        totals=totals,
        nodes=nodes,
    )


async def take_cluster_snapshot(
    es: AsyncElasticsearch, *, index: str | Sequence[str] | None = None
) -> ClusterStatsSnapshot:
    """Fetch ``_stats`` (``level=shards``) and ``_nodes/stats/jvm,ingest`` and keep the needed counters.

    Args:
        es: client of the benchmarked cluster.
        index: restrict the index stats to these indices/patterns; default all open indices, as Rally.

    A failing request (e.g. missing privileges) does not raise: it is logged, recorded in
    ``errors`` and the rows that depend on it are left out of :func:`cluster_metrics`.
    """
    from elasticsearch import ApiError, TransportError

    errors: list[str] = []
    index_stats: Mapping[str, Any] | None = None
    node_stats: Mapping[str, Any] | None = None
    stats_filter = [
        *(f"_all.primaries.{p}" for p in PRIMARY_PATHS),
        *(f"_all.total.{p}" for p in TOTAL_PATHS),
        "indices.*.shards.*.routing.primary",
        *(f"indices.*.shards.*.{p}" for p in SHARD_PATHS),
    ]
    try:
        resp = await es.indices.stats(
            index=index, metric=_STATS_METRICS, level="shards", filter_path=stats_filter
        )
        index_stats = resp.body
    except (ApiError, TransportError) as exc:
        logger.warning("Could not fetch index stats: %s", exc)
        errors.append(f"_stats: {exc}")
    try:
        resp = await es.nodes.stats(
            metric="jvm,ingest", filter_path=["nodes.*.jvm.gc.collectors", "nodes.*.ingest.total"]
        )
        node_stats = resp.body
    except (ApiError, TransportError) as exc:
        logger.warning("Could not fetch node stats: %s", exc)
        errors.append(f"_nodes/stats: {exc}")
    snap = snapshot_from_responses(index_stats, node_stats, timestamp=time.time())
    if errors:
        snap = ClusterStatsSnapshot(
            timestamp=snap.timestamp,
            primaries=snap.primaries,
            primary_shards=snap.primary_shards,
            totals=snap.totals,
            nodes=snap.nodes,
            errors=tuple(errors),
        )
    return snap


def _ms_to_minutes(v: float) -> float:
    return v / 60_000.0


def _ms_to_seconds(v: float) -> float:
    return v / 1000.0


def _bytes_to_gb(v: float) -> float:
    return v / 1024**3


def _node_delta(before: ClusterStatsSnapshot, after: ClusterStatsSnapshot, path: str) -> float | None:
    """Sum over nodes present in both snapshots of (after - before); None if no node has the value."""
    total: float | None = None
    for node_id, values in after.nodes.items():
        if path in values and path in before.nodes.get(node_id, {}):
            total = (total or 0) + values[path] - before.nodes[node_id][path]
    return total


def cluster_metrics(before: ClusterStatsSnapshot, after: ClusterStatsSnapshot) -> tuple[ClusterMetric, ...]:
    """Rally's cluster-level summary rows, in Rally's order, with Rally's names and units.

    Rows whose value is unavailable are left out (as Rally does). Values: times of primary shards in
    min, GC and ingest pipeline times in s, sizes in GB (1024³ bytes), counts as integers.
    """
    rows: list[ClusterMetric] = []

    def add(name: str, value: float | None, unit: str) -> None:
        if value is not None:
            rows.append(ClusterMetric(name=name, value=value, unit=unit))

    p = after.primaries
    shards = after.primary_shards

    def total_time(label: str, path: str) -> None:
        add(f"Cumulative {label} of primary shards", _opt(_ms_to_minutes, p.get(path)), "min")

    def count(label: str, path: str) -> None:
        v = p.get(path)
        add(f"Cumulative {label} of primary shards", None if v is None else int(v), "")

    def per_shard(label: str, path: str) -> None:
        values = shards.get(path)
        if not values:
            return
        add(f"Min cumulative {label} across primary shards", _ms_to_minutes(min(values)), "min")
        add(
            f"Median cumulative {label} across primary shards",
            _ms_to_minutes(statistics.median(values)),
            "min",
        )
        add(f"Max cumulative {label} across primary shards", _ms_to_minutes(max(values)), "min")

    total_time("indexing time", INDEXING_TIME)
    per_shard("indexing time", INDEXING_TIME)
    total_time("indexing throttle time", INDEXING_THROTTLE_TIME)
    per_shard("indexing throttle time", INDEXING_THROTTLE_TIME)
    total_time("merge time", MERGE_TIME)
    count("merge count", MERGE_COUNT)
    per_shard("merge time", MERGE_TIME)
    total_time("merge throttle time", MERGE_THROTTLE_TIME)
    per_shard("merge throttle time", MERGE_THROTTLE_TIME)
    total_time("refresh time", REFRESH_TIME)
    count("refresh count", REFRESH_COUNT)
    per_shard("refresh time", REFRESH_TIME)
    total_time("flush time", FLUSH_TIME)
    count("flush count", FLUSH_COUNT)
    per_shard("flush time", FLUSH_TIME)

    for collector, label in GC_COLLECTORS:
        prefix = f"jvm.gc.collectors.{collector}"
        gc_time = _node_delta(before, after, f"{prefix}.collection_time_in_millis")
        gc_count = _node_delta(before, after, f"{prefix}.collection_count")
        if collector.startswith("ZGC") and gc_time is None and gc_count is None:
            continue
        add(f"Total {label} GC time", _opt(_ms_to_seconds, gc_time), "s")
        add(f"Total {label} GC count", None if gc_count is None else int(gc_count), "")

    add("Dataset size", _opt(_bytes_to_gb, after.totals.get(DATASET_SIZE)), "GB")
    add("Store size", _opt(_bytes_to_gb, after.totals.get(STORE_SIZE)), "GB")
    add("Translog size", _opt(_bytes_to_gb, after.totals.get(TRANSLOG_SIZE)), "GB")
    seg = p.get(SEGMENT_COUNT)
    add("Segment count", None if seg is None else int(seg), "")

    ingest_count = _node_delta(before, after, INGEST_COUNT)
    add("Total Ingest Pipeline count", None if ingest_count is None else int(ingest_count), "")
    add("Total Ingest Pipeline time", _opt(_ms_to_seconds, _node_delta(before, after, INGEST_TIME)), "s")
    ingest_failed = _node_delta(before, after, INGEST_FAILED)
    add("Total Ingest Pipeline failed", None if ingest_failed is None else int(ingest_failed), "")
    return tuple(rows)


def _opt(fn: Any, v: float | None) -> float | None:
    return None if v is None else fn(v)


def unclean_cluster_warnings(before: ClusterStatsSnapshot) -> tuple[str, ...]:
    """Warnings when the cluster was not fresh at the start (Rally's IndexStats start check).

    The cumulative index rows are absolute values at the end of the race, so earlier activity
    (more than :data:`UNCLEAN_THRESHOLD_MS` of any cumulative time) makes them misleading.
    """
    names = {
        INDEXING_TIME: "indexing_total_time",
        INDEXING_THROTTLE_TIME: "indexing_throttle_time",
        MERGE_TIME: "merges_total_time",
        MERGE_THROTTLE_TIME: "merges_total_throttled_time",
        REFRESH_TIME: "refresh_total_time",
        FLUSH_TIME: "flush_total_time",
    }
    return tuple(
        f"{name} is {int(before.primaries[path])} ms at the start of the race, so the cluster is not in a "
        "clean state: the cumulative index time rows include earlier activity and may be misleading."
        for path, name in names.items()
        if before.primaries.get(path, 0) > UNCLEAN_THRESHOLD_MS
    )
