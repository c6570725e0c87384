"""``geoip-stats``: the GeoIP cache statistics of every node after the last task.

Rally's device of the same name (esrally ``telemetry.py``, ``GeoIpStats.on_benchmark_stop``): after
the last task it reads ``GET _ingest/geoip/stats`` and, with node names from ``GET _nodes``, records
per node ``geoip_cache_count``, ``geoip_cache_hits``, ``geoip_cache_misses``,
``geoip_cache_evictions``, ``geoip_cache_hits_time_in_millis`` and
``geoip_cache_misses_time_in_millis`` (ms). esbench keeps them under the same names as one-sample
series with ``node`` = the node name, and shows ``GeoIP cache hits``, ``GeoIP cache misses`` and
``GeoIP cache evictions`` per node in the report.

On a cluster without the ``ingest-geoip`` module (the integ-test build) Rally's race fails after its
last task, exit 64 (seen in a Rally 2.13 race on the integ-test build 8.8.2); esbench refuses the
device before the first task instead, with the same exit code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from esbench.exceptions import ConfigError
from esbench.records import ClusterMetric
from esbench.telemetry.device import TelemetryDevice
from esbench.telemetry.devices.feature_api import missing_api_reason
from esbench.telemetry.table import Key

#: (Rally's metric name, field of ``cache_stats``, unit).
_FIELDS = (
    ("geoip_cache_count", "count", ""),
    ("geoip_cache_hits", "hits", ""),
    ("geoip_cache_misses", "misses", ""),
    ("geoip_cache_evictions", "evictions", ""),
    ("geoip_cache_hits_time_in_millis", "hits_time_in_millis", "ms"),
    ("geoip_cache_misses_time_in_millis", "misses_time_in_millis", "ms"),
)
_REPORT_ROWS = (
    ("GeoIP cache hits", "geoip_cache_hits"),
    ("GeoIP cache misses", "geoip_cache_misses"),
    ("GeoIP cache evictions", "geoip_cache_evictions"),
)


class GeoIpStats(TelemetryDevice):
    """Records the GeoIP cache stats of each node at the end (Rally's ``geoip-stats``)."""

    name = "geoip-stats"
    human_name = "GeoIp Stats"
    help = "Records the GeoIP cache stats of each node after the last task"
    requires = "ingest-geoip"

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.last: dict[Key, float] = {}

    async def start(self) -> None:
        from elasticsearch import ApiError

        try:
            await self.client.ingest.geo_ip_stats()
        except ApiError as e:
            reason = missing_api_reason(e)
            if reason is None:
                raise
            raise ConfigError(
                f"The telemetry device 'geoip-stats' needs the GeoIP stats API, which this cluster lacks "
                f"({reason}): it comes with the ingest-geoip module of Elasticsearch's default distribution. "
                "Drop the device from --telemetry, or race a cluster that has the module."
            ) from e

    async def stop(self) -> None:
        import time

        nodes = (await self.client.nodes.info(node_id="_all", metric="_none")).body.get("nodes") or {}
        names = {node_id: str(node.get("name", node_id)) for node_id, node in nodes.items()}
        stats = (await self.client.ingest.geo_ip_stats()).body
        values, units = parse_geoip_stats(stats, names)
        self.table.add(time.time(), values, units)
        self.last = values

    def summary(self) -> tuple[ClusterMetric, ...]:
        return tuple(
            ClusterMetric(name=row, value=value, unit="", task=node)
            for row, metric in _REPORT_ROWS
            for (name, node), value in sorted(self.last.items(), key=lambda kv: kv[0][1])
            if name == metric
        )


def parse_geoip_stats(
    body: Mapping[str, Any], names: Mapping[str, str]
) -> tuple[dict[Key, float], dict[Key, str]]:
    """``_ingest/geoip/stats`` response and node id -> name -> (``(metric, node name)`` -> value,
    units)."""
    values: dict[Key, float] = {}
    units: dict[Key, str] = {}
    for node_id, node in (body.get("nodes") or {}).items():
        cache = (node or {}).get("cache_stats") or {}
        name = names.get(node_id, node_id)
        for metric, field, unit in _FIELDS:
            value = cache.get(field)
            if isinstance(value, int | float) and not isinstance(value, bool):
                values[(metric, name)] = float(value)
                units[(metric, name)] = unit
    return values, units
