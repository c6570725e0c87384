"""Per-second rates of cumulative telemetry counters, for charts and tables.

``node-stats`` keeps Elasticsearch's counters cumulative (``thread_pool.write.rejected``,
``jvm.gc.collectors.young.collection_time_in_millis``, ``fs.io_stats.total.read_kilobytes``), as
Rally's device does. :func:`rate` turns such a series into the increase per second between
consecutive samples; :func:`is_cumulative` tells which series are counters.
"""

from __future__ import annotations

import itertools

from esbench.records.telemetry import TelemetrySeries

# Leaf names of Elasticsearch counters that only grow while a node runs.
_COUNTER_LEAVES = frozenset(
    {
        "rejected",
        "completed",
        "collection_count",
        "collection_time_in_millis",
        "total_in_millis",
        "read_kilobytes",
        "write_kilobytes",
        "read_operations",
        "write_operations",
        "operations",
        "io_time_in_millis",
        "index_total",
        "index_time_in_millis",
        "delete_total",
        "query_total",
        "query_time_in_millis",
        "fetch_total",
        "fetch_time_in_millis",
        "total",
        "total_time_in_millis",
        "rx_count",
        "tx_count",
        "rx_size_in_bytes",
        "tx_size_in_bytes",
        "tripped",
        "count",
        "failed",
        "coordinating_rejections",
        "primary_rejections",
        "replica_rejections",
        "evictions",
        "hit_count",
        "miss_count",
        "throttle_time_in_millis",
        "total_throttled_time_in_millis",
    }
)
_UNIT_RATES = {"ms": "ms/s", "bytes": "bytes/s", "KiB": "KiB/s", "ns": "ns/s", "": "/s"}


def is_cumulative(series: TelemetrySeries) -> bool:
    """True for ``node-stats``/``ingest-pipeline-stats`` counters (by the Elasticsearch field name)."""
    if series.device not in ("node-stats", "ingest-pipeline-stats"):
        return False
    return series.metric.rsplit(".", 1)[-1] in _COUNTER_LEAVES


def rate(series: TelemetrySeries) -> TelemetrySeries:
    """The increase per second between consecutive samples, stamped at the later sample.

    A decrease (the node restarted and its counter began again) gives no value for that interval.
    Units become per second (``ms`` -> ``ms/s``, ``bytes`` -> ``bytes/s``, ``""`` -> ``/s``).
    Example: timestamps ``(0, 1, 3)``, values ``(10, 15, 25)`` -> timestamps ``(1, 3)``, values
    ``(5.0, 5.0)``.
    """
    times: list[float] = []
    values: list[float] = []
    samples = zip(series.timestamps, series.values, strict=True)
    for (t0, v0), (t1, v1) in itertools.pairwise(samples):
        if t1 > t0 and v1 >= v0:
            times.append(t1)
            values.append((v1 - v0) / (t1 - t0))
    return TelemetrySeries(
        device=series.device,
        metric=series.metric,
        unit=_UNIT_RATES.get(series.unit, f"{series.unit}/s"),
        node=series.node,
        timestamps=tuple(times),
        values=tuple(values),
    )
