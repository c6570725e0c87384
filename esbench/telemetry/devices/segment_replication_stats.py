"""``segment-replication-stats``: samples OpenSearch's ``GET _cat/segment_replication`` on a fixed
interval.

OSB's device of the same name (OSB 2.4.0 ``osbenchmark/telemetry.py``, ``SegmentReplicationStats``
and ``SegmentReplicationStatsRecorder``; Rally has no such device): parameters
``segment-replication-stats-indices`` (an index or pattern; a string, a list, or OSB's per-cluster
object of which esbench, racing one cluster, reads the ``default`` key; none: every index) and
``segment-replication-stats-sample-interval`` (default 1 s). Each sample asks
``_cat/segment_replication/<index>?time=ms&bytes=b&format=json`` for each index given, as OSB does;
each row is one replica shard copying segments. OSB stores a document per row with
``checkpoints_behind``, ``bytes_behind``, ``current_lag_in_millis``,
``last_completed_lag_in_millis`` and ``rejected_requests``; esbench keeps the same five numbers as
series ``<index>.<shard id>.<field>`` (OSB's field names, e.g. ``logs.0.bytes_behind``) with ``node``
= the row's target node.

The API is OpenSearch's (segment replication, OpenSearch 2.7 and later). On Elasticsearch OSB's
device fails the race with "A transport error occurred while collecting segment replication stats";
esbench records nothing and says so in a warning at the end, as it does for other devices whose API
the cluster lacks (``blob-store-stats``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from esbench.telemetry.device import DeviceOutput, TelemetryDevice
from esbench.telemetry.table import Key

#: (the _cat row's field, the series' field = OSB's document field, its unit), per number OSB keeps.
FIELDS: tuple[tuple[str, str, str], ...] = (
    ("checkpoints_behind", "checkpoints_behind", ""),
    ("bytes_behind", "bytes_behind", "byte"),
    ("current_lag", "current_lag_in_millis", "ms"),
    ("last_completed_lag", "last_completed_lag_in_millis", "ms"),
    ("rejected_requests", "rejected_requests", ""),
)


class SegmentReplicationStats(TelemetryDevice):
    """Regularly samples OpenSearch's segment replication stats (OSB's ``segment-replication-stats``)."""

    name = "segment-replication-stats"
    human_name = "Segment Replication Stats"
    help = "Regularly samples segment replication stats"
    requires = "OpenSearch segment replication"
    params: ClassVar[Mapping[str, object]] = {
        "segment-replication-stats-indices": "",
        "segment-replication-stats-sample-interval": 1,
    }

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.sample_interval_s = self.positive_number("segment-replication-stats-sample-interval")
        # OSB: one request per index given, or one for all indices.
        self.indices = self.cluster_name_list("segment-replication-stats-indices") or ("",)
        self.skipped: str | None = None

    async def start(self) -> None:
        from elasticsearch import ApiError

        try:
            distribution = (await self.client.info()).body.get("version", {}).get("distribution")
        except ApiError as e:  # Elasticsearch integ-test builds from 8.9 have no GET /
            distribution = f"unknown (GET / answered {e.meta.status})"
        if distribution != "opensearch":
            self.skipped = f"the cluster's distribution is {distribution or 'elasticsearch'}"
            self.sample_interval_s = None

    async def sample(self, timestamp: float) -> None:
        values: dict[Key, float] = {}
        units: dict[Key, str] = {}
        for index in self.indices:
            response = await self.client.perform_request(
                "GET",
                f"/_cat/segment_replication/{index}",
                params={"time": "ms", "bytes": "b", "format": "json"},
            )
            rows_values, rows_units = parse_segment_replication(response.body)
            values.update(rows_values)
            units.update(rows_units)
        self.table.add(timestamp, values, units)

    def output(self) -> DeviceOutput:
        out = super().output()
        if self.skipped:
            out.warnings.append(
                f"Telemetry device {self.name} recorded nothing: it works with OpenSearch (segment "
                f"replication), and {self.skipped}."
            )
        return out


def parse_segment_replication(
    rows: Sequence[Mapping[str, Any]] | Any,
) -> tuple[dict[Key, float], dict[Key, str]]:
    """``_cat/segment_replication?format=json&time=ms&bytes=b`` rows -> (``(metric, target node)`` ->
    value, units). A row's shard is its ``shardId`` (``[index][0]``, OpenSearch's spelling), named
    ``<index>.<shard>`` in the metric; a value that is not a number is left out."""
    values: dict[Key, float] = {}
    units: dict[Key, str] = {}
    if not isinstance(rows, Sequence):
        return values, units
    for row in rows:
        if not isinstance(row, Mapping):
            continue
        shard = _shard_name(str(row.get("shardId", "")))
        node = str(row.get("target_node", ""))
        for field, series_field, unit in FIELDS:
            number = _number(row.get(field))
            if number is None:
                continue
            key = (f"{shard}.{series_field}", node)
            values[key] = number
            units[key] = unit
    return values, units


def _shard_name(shard_id: str) -> str:
    # "[logs][0]" -> "logs.0"
    parts = [p for p in shard_id.replace("]", "[").split("[") if p]
    return ".".join(parts) if parts else shard_id


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.removesuffix("ms").removesuffix("b"))
        except ValueError:
            return None
    return None
