"""``recovery-stats``: samples ``GET <indices>/_recovery?active_only=true`` on a fixed interval.

Rally's device of the same name (esrally ``telemetry.py``, ``RecoveryStats``): parameters
``recovery-stats-indices`` (index pattern; a string, a list, or Rally's per-cluster object of which
esbench, having one cluster, reads the ``default`` key) and ``recovery-stats-sample-interval``
(default 1 s). Rally stores each active shard recovery as a document; esbench keeps its numbers as
series named ``<index>.<shard id>.<path>`` (e.g. ``logs.0.index.size.recovered_in_bytes``) with
``node`` = the target node of the recovery.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from esbench.exceptions import ConfigError
from esbench.telemetry.device import TelemetryDevice
from esbench.telemetry.flatten import flatten, unit_of
from esbench.telemetry.table import Key


class RecoveryStats(TelemetryDevice):
    """Regularly samples shard recovery stats (Rally's ``recovery-stats``)."""

    name = "recovery-stats"
    human_name = "Recovery Stats"
    help = "Regularly samples shard recovery stats"
    params: ClassVar[Mapping[str, object]] = {
        "recovery-stats-indices": "",
        "recovery-stats-sample-interval": 1,
    }

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.sample_interval_s = self.positive_number("recovery-stats-sample-interval")
        indices = self.settings["recovery-stats-indices"]
        if isinstance(indices, Mapping):
            unknown = set(indices) - {"default"}
            if unknown:
                raise ConfigError(
                    f"The telemetry parameter 'recovery-stats-indices' names the clusters "
                    f"{sorted(unknown)}, but "
                    "esbench benchmarks one cluster, called 'default'. Give the index pattern as a string."
                )
            self.settings["recovery-stats-indices"] = indices.get("default", "")
        self.indices = ",".join(self.name_list("recovery-stats-indices")) or None

    async def sample(self, timestamp: float) -> None:
        response = await self.client.indices.recovery(index=self.indices, active_only=True, detailed=False)
        values, units = parse_recovery(response.body)
        self.table.add(timestamp, values, units)


def parse_recovery(body: Mapping[str, Any]) -> tuple[dict[Key, float], dict[Key, str]]:
    """``_recovery`` response -> (``(metric, target node)`` -> value, units)."""
    values: dict[Key, float] = {}
    units: dict[Key, str] = {}
    for index, index_stats in body.items():
        for shard in (index_stats or {}).get("shards", ()):
            node = (shard.get("target") or {}).get("name", "")
            for path, value in flatten({k: v for k, v in shard.items() if k not in ("source", "target")}):
                metric = f"{index}.{shard.get('id')}.{path}"
                values[(metric, node)] = value
                units[(metric, node)] = unit_of(path)
    return values, units
