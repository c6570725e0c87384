"""Measurement: per-request recording (hot path), per-task statistics and cluster-level rows.

See docs/metrics.md for the definitions.
"""

from esbench.metrics.cluster import ClusterStatsSnapshot, cluster_metrics, take_cluster_snapshot
from esbench.metrics.recorder import RecorderState, TaskRecorder
from esbench.metrics.stats import percentile_values, percentiles_for_sample_size, task_result

__all__ = [
    "ClusterStatsSnapshot",
    "RecorderState",
    "TaskRecorder",
    "cluster_metrics",
    "percentile_values",
    "percentiles_for_sample_size",
    "take_cluster_snapshot",
    "task_result",
]
