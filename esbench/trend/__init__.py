"""``esbench trend``: one metric per task over stored races, with change points found by Apache Otava.

Stages: :mod:`~esbench.trend.sources` reads races from the SQLite results store or the Elasticsearch
metrics store; :mod:`~esbench.trend.select` keeps the selected ones in race order and builds a series
per task of the :mod:`~esbench.trend.metric` followed; :mod:`~esbench.trend.detect` finds the change
points (Otava is imported only there, when a trend is analysed); :mod:`~esbench.trend.report`
holds the result and the verdict; :mod:`~esbench.trend.render` and :mod:`~esbench.trend.plot` show it.
docs/trend.md describes the command and a nightly CI job gated on it.
"""

from __future__ import annotations

from esbench.trend.detect import (
    DEFAULT_MAX_PVALUE,
    DEFAULT_MIN_MAGNITUDE_PCT,
    DEFAULT_WINDOW,
    DetectorSettings,
    analyse,
)
from esbench.trend.metric import Direction, MetricKind, TrendMetric, is_regression, parse_metric
from esbench.trend.model import ChangePoint, TaskTrend, TrendPoint, TrendSeries
from esbench.trend.report import REGRESSION_EXIT_CODE, TrendReport, build_report, describe_selection
from esbench.trend.select import TrendSelection, build_series, select_races
from esbench.trend.sources import races_from_metrics_store, races_from_results_db

__all__ = [
    "DEFAULT_MAX_PVALUE",
    "DEFAULT_MIN_MAGNITUDE_PCT",
    "DEFAULT_WINDOW",
    "REGRESSION_EXIT_CODE",
    "ChangePoint",
    "DetectorSettings",
    "Direction",
    "MetricKind",
    "TaskTrend",
    "TrendMetric",
    "TrendPoint",
    "TrendReport",
    "TrendSelection",
    "TrendSeries",
    "analyse",
    "build_report",
    "build_series",
    "describe_selection",
    "is_regression",
    "parse_metric",
    "races_from_metrics_store",
    "races_from_results_db",
    "select_races",
]
