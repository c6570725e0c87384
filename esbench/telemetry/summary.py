"""Helpers that turn a device's running column statistics into summary rows of the report."""

from __future__ import annotations

from esbench.records import ClusterMetric
from esbench.telemetry.table import SampleTable

MIB = 1024 * 1024


def peak_and_mean(
    table: SampleTable, metric: str, node: str, *, what: str, unit: str = "%", scale: float = 1.0
) -> list[ClusterMetric]:
    """``Peak <what>`` and ``Mean <what>`` rows of one metric of one node (none if never sampled).

    ``scale`` divides the values (e.g. :data:`MIB` for bytes shown in MB).
    """
    stats = table.stats(metric, node)
    if stats is None:
        return []
    return [
        ClusterMetric(name=f"Peak {what}", value=stats.maximum / scale, unit=unit, task=node),
        ClusterMetric(name=f"Mean {what}", value=stats.mean / scale, unit=unit, task=node),
    ]


def counter_delta(table: SampleTable, metric: str, node: str) -> float | None:
    """Increase of a cumulative counter between the first and the last sample (None if never sampled;
    0 if the counter went down, i.e. the node restarted)."""
    stats = table.stats(metric, node)
    if stats is None:
        return None
    return max(stats.delta, 0.0)
