"""``ccr-stats``: samples ``GET _ccr/stats`` (cross-cluster replication) on a fixed interval.

Rally's device of the same name (esrally ``telemetry.py``, ``CcrStats``/``CcrStatsRecorder``):
parameters ``ccr-stats-indices`` (follower indices to keep; Rally's per-cluster object, of which
esbench reads the ``default`` key, or a string or list) and ``ccr-stats-sample-interval`` (default
1 s). Rally stores each follower shard's ``follow_stats`` as a document; esbench keeps its numbers as
series ``<follower index>.<shard id>.<field>`` (e.g. ``logs.0.follower_global_checkpoint``,
``logs.0.time_since_last_read_millis`` in ms) with ``node`` = ``""`` (cluster level, as Rally's
documents), and one summary row per follower index: ``Max CCR follower lag``, the largest
``leader_global_checkpoint - follower_global_checkpoint`` summed over its shards in any sample
(operations the follower had yet to replicate).

On a cluster without CCR (no x-pack ``ccr`` plugin, e.g. the integ-test build) Rally's sampler logs
an error and records nothing while the race runs on (seen in a Rally 2.13 race on the integ-test
build 8.8.2); esbench does the same and says so in a warning at the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from esbench.records import ClusterMetric
from esbench.telemetry.device import DeviceOutput, TelemetryDevice
from esbench.telemetry.devices.feature_api import missing_api_reason
from esbench.telemetry.flatten import flatten, unit_of
from esbench.telemetry.table import Key


class CcrStats(TelemetryDevice):
    """Regularly samples cross-cluster replication stats of follower shards (Rally's ``ccr-stats``)."""

    name = "ccr-stats"
    human_name = "CCR Stats"
    help = "Regularly samples cross-cluster replication (CCR) follower stats"
    requires = "x-pack ccr"
    params: ClassVar[Mapping[str, object]] = {"ccr-stats-indices": "", "ccr-stats-sample-interval": 1}

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.sample_interval_s = self.positive_number("ccr-stats-sample-interval")
        self.indices = frozenset(self.cluster_name_list("ccr-stats-indices"))
        self.skipped: str | None = None
        self.max_lag: dict[str, float] = {}

    async def start(self) -> None:
        from elasticsearch import ApiError

        try:
            await self.client.ccr.stats()
        except ApiError as e:
            self.skipped = missing_api_reason(e)
            if self.skipped is None:
                raise
            self.sample_interval_s = None

    async def sample(self, timestamp: float) -> None:
        response = await self.client.ccr.stats(filter_path="follow_stats", human=False)
        values, units, lag = parse_ccr_stats(response.body, self.indices)
        self.table.add(timestamp, values, units)
        for index, ops in lag.items():
            self.max_lag[index] = max(self.max_lag.get(index, ops), ops)

    def summary(self) -> tuple[ClusterMetric, ...]:
        return tuple(
            ClusterMetric(name="Max CCR follower lag", value=ops, unit="ops", task=index)
            for index, ops in sorted(self.max_lag.items())
        )

    def output(self) -> DeviceOutput:
        out = super().output()
        if self.skipped:
            out.warnings.append(
                f"Telemetry device ccr-stats recorded nothing: the cluster has no cross-cluster replication "
                f"API ({self.skipped}); it needs the x-pack ccr plugin of the default distribution."
            )
        return out


def parse_ccr_stats(
    body: Mapping[str, Any], indices: frozenset[str] = frozenset()
) -> tuple[dict[Key, float], dict[Key, str], dict[str, float]]:
    """``_ccr/stats?filter_path=follow_stats`` response -> (``(metric, "")`` -> value, units,
    follower index -> lag in operations); only ``indices`` when given (Rally's filter)."""
    values: dict[Key, float] = {}
    units: dict[Key, str] = {}
    lag: dict[str, float] = {}
    for entry in (body.get("follow_stats") or {}).get("indices") or ():
        index = entry.get("index")
        if not isinstance(index, str) or (indices and index not in indices):
            continue
        for shard in entry.get("shards") or ():
            if "shard_id" not in shard:
                continue
            shard_id = shard["shard_id"]
            for path, value in flatten({k: v for k, v in shard.items() if k != "shard_id"}):
                key = (f"{index}.{shard_id}.{path}", "")
                values[key] = value
                units[key] = unit_of(path)
            leader, follower = shard.get("leader_global_checkpoint"), shard.get("follower_global_checkpoint")
            if isinstance(leader, int | float) and isinstance(follower, int | float):
                lag[index] = lag.get(index, 0.0) + max(float(leader) - float(follower), 0.0)
    return values, units, lag
