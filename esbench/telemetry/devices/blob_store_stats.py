"""``blob-store-stats``: samples ``GET _internal/blob_store/stats`` of serverless Elasticsearch.

Rally's device of the same name (esrally ``telemetry.py``, ``BlobStoreStats``), which ``esrally
list telemetry`` does not show; parameter ``blob-store-stats-sample-interval`` (default 1 s). The
API exists on serverless Elasticsearch only: on any other cluster Rally logs a warning ("only
supported with serverless Elasticsearch") and records nothing while the race runs on; esbench does
the same and says so in a warning at the end. Whether the cluster is serverless is its
``version.build_flavor`` in ``GET /`` (Rally's ``is_serverless``). On serverless, the
``object_store_stats`` and ``operational_backup_service_stats`` objects of ``_all`` and of each node
become series ``object_store.<field>`` and ``operational_backup.<field>`` (Rally joins with ``_``),
``node`` = ``""`` for ``_all``, else the node id the API names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from esbench.telemetry.device import DeviceOutput, TelemetryDevice
from esbench.telemetry.flatten import flatten, unit_of
from esbench.telemetry.table import Key

_SECTIONS = (
    ("object_store", "object_store_stats"),
    ("operational_backup", "operational_backup_service_stats"),
)


class BlobStoreStats(TelemetryDevice):
    """Samples blob store stats of serverless Elasticsearch (Rally's hidden ``blob-store-stats``)."""

    name = "blob-store-stats"
    human_name = "Blob Store Stats"
    help = "Regularly samples blob store stats (serverless Elasticsearch only)"
    requires = "serverless"
    params: ClassVar[Mapping[str, object]] = {"blob-store-stats-sample-interval": 1}
    hidden = True

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.sample_interval_s = self.positive_number("blob-store-stats-sample-interval")
        self.skipped: str | None = None

    async def start(self) -> None:
        from elasticsearch import ApiError

        try:
            flavor = (await self.client.info()).body.get("version", {}).get("build_flavor")
        except ApiError as e:  # integ-test builds from 8.9 have no GET /: not serverless either
            flavor = f"unknown (GET / answered {e.meta.status})"
        if flavor != "serverless":
            self.skipped = f"the cluster's build flavor is {flavor}"
            self.sample_interval_s = None

    async def sample(self, timestamp: float) -> None:
        response = await self.client.perform_request("GET", "/_internal/blob_store/stats")
        values, units = parse_blob_store_stats(response.body)
        self.table.add(timestamp, values, units)

    def output(self) -> DeviceOutput:
        out = super().output()
        if self.skipped:
            out.warnings.append(
                f"Telemetry device blob-store-stats recorded nothing: it works with serverless Elasticsearch "
                f"only, and {self.skipped}."
            )
        return out


def parse_blob_store_stats(body: Mapping[str, Any]) -> tuple[dict[Key, float], dict[Key, str]]:
    """``_internal/blob_store/stats`` response -> (``(metric, "" or node id)`` -> value, units)."""
    values: dict[Key, float] = {}
    units: dict[Key, str] = {}
    scopes: list[tuple[str, Any]] = [("", body.get("_all"))]
    scopes += list((body.get("nodes") or {}).items())
    for node, stats in scopes:
        if not isinstance(stats, Mapping):
            continue
        for prefix, section in _SECTIONS:
            for path, value in flatten(stats.get(section) or {}, prefix):
                values[(path, node)] = value
                units[(path, node)] = unit_of(path)
    return values, units
