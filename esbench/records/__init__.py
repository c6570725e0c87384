"""The ground floor: records every stage shares (task, cluster, telemetry and race results).

A stage names these records without importing the stage that produces or stores them: the load
driver and metrics build :class:`TaskResult` and :class:`ErrorDescription`, telemetry devices
:class:`TelemetrySeries` and :class:`ClusterMetric`, race control a :class:`RaceResult`, which the
results store keeps and reporting shows. This package imports only the standard library (the
``.importlinter`` contract "the ground floor imports no stage" holds it to that).
"""

from __future__ import annotations

from esbench.records.cluster import ClusterMetric
from esbench.records.race import (
    RESULTS_FORMAT_VERSION,
    STATUS_COMPLETED,
    STATUS_FAILED,
    STATUS_INTERRUPTED,
    RaceResult,
    RaceStatus,
    tag_text,
)
from esbench.records.rates import is_cumulative, rate
from esbench.records.task import ErrorDescription, TaskResult, describe_line
from esbench.records.telemetry import TelemetrySeries

__all__ = [
    "RESULTS_FORMAT_VERSION",
    "STATUS_COMPLETED",
    "STATUS_FAILED",
    "STATUS_INTERRUPTED",
    "ClusterMetric",
    "ErrorDescription",
    "RaceResult",
    "RaceStatus",
    "TaskResult",
    "TelemetrySeries",
    "describe_line",
    "is_cumulative",
    "rate",
    "tag_text",
]
