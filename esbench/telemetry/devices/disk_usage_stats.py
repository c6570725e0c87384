"""``disk-usage-stats``: disk usage of every field, from the analyze-index-disk-usage API, after the race.

Rally's device of the same name (esrally ``telemetry.py``, ``DiskUsageStats``): parameters
``disk-usage-stats-indices`` (comma-separated; default: the track's indices and data streams),
``disk-usage-stats-timeout`` (s, default 600) and ``disk-usage-stats-flush`` (default true); calls
``POST <index>/_disk_usage?run_expensive_tasks=true`` per index after the last task; a missing index
is skipped. Series with one sample each (``node`` = ``""``): ``<index>.<field>.total_in_bytes`` and,
where above zero like Rally, ``inverted_index_in_bytes``, ``stored_fields_in_bytes``,
``doc_values_in_bytes``, ``points_in_bytes``, ``norms_in_bytes``, ``term_vectors_in_bytes``,
``knn_vectors_in_bytes``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any, ClassVar

from esbench.exceptions import ConfigError
from esbench.telemetry.device import DeviceOutput, TelemetryDevice
from esbench.telemetry.table import Key

logger = logging.getLogger(__name__)

_PARTS = (
    "stored_fields_in_bytes",
    "doc_values_in_bytes",
    "points_in_bytes",
    "norms_in_bytes",
    "term_vectors_in_bytes",
    "knn_vectors_in_bytes",
)


class DiskUsageStats(TelemetryDevice):
    """Per-field disk usage after the race (Rally's ``disk-usage-stats``)."""

    name = "disk-usage-stats"
    human_name = "Disk usage of each field"
    help = "Runs the indices disk usage API after benchmarking"
    params: ClassVar[Mapping[str, object]] = {
        "disk-usage-stats-indices": None,
        "disk-usage-stats-timeout": 600,
        "disk-usage-stats-flush": True,
    }

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.timeout_s = self.positive_number("disk-usage-stats-timeout")
        self.flush = self.flag("disk-usage-stats-flush")
        self.indices = self.name_list("disk-usage-stats-indices")
        self.problems: list[str] = []

    async def start(self) -> None:
        if not self.indices:
            self.indices = self.ctx.index_names + self.ctx.data_stream_names
        if not self.indices:
            raise ConfigError(
                "No indices defined for disk-usage-stats. Set the disk-usage-stats-indices telemetry param "
                "(--telemetry-params=disk-usage-stats-indices:NAME) or use a track with indices "
                "or data streams."
            )

    async def stop(self) -> None:
        from elasticsearch import NotFoundError

        values: dict[Key, float] = {}
        for index in self.indices:
            try:
                response = await self.client.options(request_timeout=self.timeout_s).indices.disk_usage(
                    index=index, run_expensive_tasks=True, flush=self.flush
                )
            except NotFoundError:
                logger.warning("disk-usage-stats: index %s does not exist", index)
                continue
            values.update(parse_disk_usage(response.body))
        if not values:
            self.problems.append(f"disk-usage-stats found none of the indices {', '.join(self.indices)}.")
        self.table.add(time.time(), values, {key: "bytes" for key in values})

    def output(self) -> DeviceOutput:
        out = super().output()
        out.warnings.extend(self.problems)
        return out


def parse_disk_usage(body: Mapping[str, Any]) -> dict[Key, float]:
    """``_disk_usage`` response -> ``(<index>.<field>.<part>, "")`` -> bytes."""
    values: dict[Key, float] = {}
    for index, stats in body.items():
        if index == "_shards" or not isinstance(stats, Mapping):
            continue
        for field, info in (stats.get("fields") or {}).items():
            values[(f"{index}.{field}.total_in_bytes", "")] = float(info.get("total_in_bytes", 0))
            inverted = (info.get("inverted_index") or {}).get("total_in_bytes", 0)
            if inverted > 0:
                values[(f"{index}.{field}.inverted_index_in_bytes", "")] = float(inverted)
            for part in _PARTS:
                if info.get(part, 0) > 0:
                    values[(f"{index}.{field}.{part}", "")] = float(info[part])
    return values
