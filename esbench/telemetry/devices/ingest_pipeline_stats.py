"""``ingest-pipeline-stats``: ingest pipeline counters at the start and at the end of the race.

Rally's device of the same name (esrally ``telemetry.py``, ``IngestPipelineStats``): reads
``_nodes/stats/ingest`` before the first and after the last task and reports the differences per
node, per pipeline and per processor (processors named ``<type>_<n>``, numbered 1..N within their
pipeline, as Rally does). esbench keeps both readings as two-sample series per node
(``total.count``, ``total.time_in_millis``, ``total.failed``, ``pipelines.<p>.count``...,
``pipelines.<p>.processors.<type>_<n>.count``...) and adds one summary row per pipeline and counter
(the increase summed over nodes). Cluster-wide totals are already rows of every report
(``Total Ingest Pipeline count``...).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from esbench.records import ClusterMetric
from esbench.telemetry.device import TelemetryDevice
from esbench.telemetry.flatten import unit_of
from esbench.telemetry.summary import counter_delta
from esbench.telemetry.table import Key

_COUNTERS = (("count", "count", ""), ("time_in_millis", "time", "ms"), ("failed", "failed", ""))


class IngestPipelineStats(TelemetryDevice):
    """Ingest pipeline stats at the start and end of the race (Rally's ``ingest-pipeline-stats``)."""

    name = "ingest-pipeline-stats"
    human_name = "Ingest Pipeline Stats"
    help = "Reports Ingest Pipeline stats at the end of the benchmark."

    async def start(self) -> None:
        await self._read()

    async def stop(self) -> None:
        await self._read()

    async def _read(self) -> None:
        response = await self.client.nodes.stats(metric="ingest")
        values, units = parse_ingest(response.body)
        self.table.add(time.time(), values, units)

    def summary(self) -> tuple[ClusterMetric, ...]:
        totals: dict[tuple[str, str], float] = {}
        for metric, node in self.table.columns():
            parts = metric.split(".")
            if len(parts) == 3 and parts[0] == "pipelines":
                delta = counter_delta(self.table, metric, node) or 0.0
                totals[(parts[1], parts[2])] = totals.get((parts[1], parts[2]), 0.0) + delta
        rows = []
        for pipeline in sorted({p for p, _ in totals}):
            for field, label, unit in _COUNTERS:
                if (pipeline, field) in totals:
                    rows.append(
                        ClusterMetric(
                            name=f"Ingest pipeline {label}",
                            value=totals[(pipeline, field)],
                            unit=unit,
                            task=pipeline,
                        )
                    )
        return tuple(rows)


def parse_ingest(body: Mapping[str, Any]) -> tuple[dict[Key, float], dict[Key, str]]:
    """``_nodes/stats/ingest`` response -> (``(metric, node name)`` -> value, units)."""
    values: dict[Key, float] = {}
    units: dict[Key, str] = {}

    def put(metric: str, node: str, stats: Mapping[str, object]) -> None:
        for field, _, _ in _COUNTERS:
            value = stats.get(field)
            if isinstance(value, int | float) and not isinstance(value, bool):
                values[(f"{metric}.{field}", node)] = float(value)
                units[(f"{metric}.{field}", node)] = unit_of(field)

    for node_id, node in (body.get("nodes") or {}).items():
        name = node.get("name", node_id)
        ingest = node.get("ingest") or {}
        put("total", name, ingest.get("total") or {})
        for pipeline, stats in (ingest.get("pipelines") or {}).items():
            put(f"pipelines.{pipeline}", name, stats)
            suffix = 1
            for processor in stats.get("processors") or ():
                for processor_name, processor_stats in processor.items():
                    put(
                        f"pipelines.{pipeline}.processors.{processor_name}_{suffix}",
                        name,
                        processor_stats.get("stats") or {},
                    )
                    suffix += 1
    return values, units
