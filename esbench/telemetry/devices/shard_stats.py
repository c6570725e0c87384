"""``shard-stats``: samples ``GET _nodes/stats/indices?level=shards`` on a fixed interval.

Rally's device of the same name (esrally ``telemetry.py``, ``ShardStats``): parameter
``shard-stats-sample-interval`` (default 60 s), per shard copy the document count, store size and
segment count. Series: ``<index>.<shard id>.<p|r>.docs.count``, ``...store.size_in_bytes``,
``...segments.count`` (``p`` primary, ``r`` replica), ``node`` = the node holding the copy. esbench
asks only for the ``docs,store,segments`` index metrics (Rally asks for ``_all``), which returns the
same fields for less work on the cluster.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from esbench.telemetry.device import TelemetryDevice
from esbench.telemetry.table import Key

_FIELDS = (
    ("docs", "count", "docs.count", ""),
    ("store", "size_in_bytes", "store.size_in_bytes", "bytes"),
    ("segments", "count", "segments.count", ""),
)


class ShardStats(TelemetryDevice):
    """Regularly samples shard-level stats (Rally's ``shard-stats``)."""

    name = "shard-stats"
    human_name = "Shard Stats"
    help = "Regularly samples nodes stats at shard level"
    params: ClassVar[Mapping[str, object]] = {"shard-stats-sample-interval": 60}

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.sample_interval_s = self.positive_number("shard-stats-sample-interval")

    async def sample(self, timestamp: float) -> None:
        response = await self.client.nodes.stats(
            metric="indices", index_metric="docs,store,segments", level="shards"
        )
        values, units = parse_shard_stats(response.body)
        self.table.add(timestamp, values, units)


def parse_shard_stats(body: Mapping[str, Any]) -> tuple[dict[Key, float], dict[Key, str]]:
    """``_nodes/stats?level=shards`` response -> (``(metric, node name)`` -> value, units)."""
    values: dict[Key, float] = {}
    units: dict[Key, str] = {}
    for node_id, node in (body.get("nodes") or {}).items():
        name = node.get("name", node_id)
        for index, copies in ((node.get("indices") or {}).get("shards") or {}).items():
            for copy in copies:
                for shard_id, stats in copy.items():
                    kind = "p" if (stats.get("routing") or {}).get("primary") else "r"
                    for section, field, suffix, unit in _FIELDS:
                        value = (stats.get(section) or {}).get(field)
                        if isinstance(value, int | float) and not isinstance(value, bool):
                            key = (f"{index}.{shard_id}.{kind}.{suffix}", name)
                            values[key] = float(value)
                            units[key] = unit
    return values, units
