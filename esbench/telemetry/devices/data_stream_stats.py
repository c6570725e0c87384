"""``data-stream-stats``: samples ``GET _data_stream/_stats`` on a fixed interval.

Rally's device of the same name (esrally ``telemetry.py``, ``DataStreamStats``): parameter
``data-stream-stats-sample-interval`` (default 10 s); refuses clusters before 7.9 and OSS builds.
Series (``node`` = ``""``): ``_all.data_stream_count``, ``_all.backing_indices``,
``_all.total_store_size_bytes`` and per data stream ``<name>.backing_indices``,
``<name>.store_size_bytes``, ``<name>.maximum_timestamp`` (epoch ms).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from esbench.exceptions import ConfigError
from esbench.telemetry.device import TelemetryDevice
from esbench.telemetry.table import Key


class DataStreamStats(TelemetryDevice):
    """Regularly samples data stream stats (Rally's ``data-stream-stats``)."""

    name = "data-stream-stats"
    human_name = "Data Stream Stats"
    help = "Regularly samples data stream stats"
    params: ClassVar[Mapping[str, object]] = {"data-stream-stats-sample-interval": 10}

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.sample_interval_s = self.positive_number("data-stream-stats-sample-interval")

    async def start(self) -> None:
        # ``GET /`` is missing from some distributions; ``_nodes/_local`` has version and flavor.
        local = (await self.client.nodes.info(node_id="_local", metric="_none")).body
        info: Mapping[str, object] = next(iter((local.get("nodes") or {}).values()), {})
        number = str(info.get("version", "7.9.0"))
        major_minor = tuple(int(p) for p in number.split("-")[0].split(".")[:2] if p.isdigit())
        if major_minor < (7, 9):
            raise ConfigError(
                f"The telemetry device 'data-stream-stats' needs Elasticsearch 7.9 or later; "
                f"the cluster runs {number}. Drop it from --telemetry."
            )
        if info.get("build_flavor") == "oss":
            raise ConfigError(
                "The telemetry device 'data-stream-stats' cannot be used with an OSS distribution of "
                "Elasticsearch. Drop it from --telemetry."
            )

        from elasticsearch import BadRequestError

        try:
            await self.client.indices.data_streams_stats(name="*")
        except BadRequestError as e:
            # Distributions without the data streams module (integration-test builds) have no handler.
            raise ConfigError(
                f"The telemetry device 'data-stream-stats' needs the data stream API, which this cluster "
                f"(Elasticsearch {number}) lacks: {e.message}. Drop it from --telemetry."
            ) from e

    async def sample(self, timestamp: float) -> None:
        response = await self.client.indices.data_streams_stats(name="*")
        values, units = parse_data_stream_stats(response.body)
        self.table.add(timestamp, values, units)


def parse_data_stream_stats(body: Mapping[str, Any]) -> tuple[dict[Key, float], dict[Key, str]]:
    """``_data_stream/_stats`` response -> (``(metric, "")`` -> value, units)."""
    values: dict[Key, float] = {}
    units: dict[Key, str] = {}

    def put(metric: str, value: object, unit: str = "") -> None:
        if isinstance(value, int | float) and not isinstance(value, bool):
            values[(metric, "")] = float(value)
            units[(metric, "")] = unit

    put("_all.data_stream_count", body.get("data_stream_count"))
    put("_all.backing_indices", body.get("backing_indices"))
    put("_all.total_store_size_bytes", body.get("total_store_size_bytes"), "bytes")
    for ds in body.get("data_streams") or ():
        name = ds.get("data_stream")
        put(f"{name}.backing_indices", ds.get("backing_indices"))
        put(f"{name}.store_size_bytes", ds.get("store_size_bytes"), "bytes")
        put(f"{name}.maximum_timestamp", ds.get("maximum_timestamp"), "ms")
    return values, units
