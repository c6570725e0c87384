"""One cluster-level row of a race's summary: :class:`ClusterMetric`.

Produced by ``esbench.metrics.cluster`` (index and node statistics at the end of a race) and by
telemetry devices (their summary rows), stored by ``esbench.results`` and shown by
``esbench.reporting``: a ground-floor record so that telemetry and metrics need not import the store.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class ClusterMetric:
    """One cluster-level row of the summary (Rally's rows above the per-task rows).

    Example: ``ClusterMetric(name="Cumulative indexing time of primary shards", value=12.3, unit="min")``.
    ``task`` is empty for cluster-wide rows and names a shard aggregate's qualifier otherwise.
    """

    name: str
    value: float
    unit: str
    task: str = ""
