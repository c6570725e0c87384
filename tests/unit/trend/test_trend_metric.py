"""--metric spellings, the value each reads from a task, and which way is bad."""

from __future__ import annotations

import pytest
from trendraces import task

from esbench.exceptions import ConfigError
from esbench.trend import Direction, MetricKind, TrendMetric, is_regression, parse_metric


@pytest.mark.parametrize(
    ("text", "kind", "stat", "name", "label"),
    [
        ("throughput-median", MetricKind.THROUGHPUT, "median", "throughput-median", "Median throughput"),
        ("Throughput-Mean", MetricKind.THROUGHPUT, "mean", "throughput-mean", "Mean throughput"),
        ("latency-p50", MetricKind.LATENCY, "50", "latency-p50", "Latency p50"),
        ("latency-p99.90", MetricKind.LATENCY, "99.9", "latency-p99.9", "Latency p99.9"),
        ("latency-p50.0", MetricKind.LATENCY, "50", "latency-p50", "Latency p50"),
        ("service-time-p90", MetricKind.SERVICE_TIME, "90", "service-time-p90", "Service time p90"),
        ("error-rate", MetricKind.ERROR_RATE, "", "error-rate", "Error rate"),
    ],
)
def test_spellings(text: str, kind: MetricKind, stat: str, name: str, label: str) -> None:
    metric = parse_metric(text)
    assert metric == TrendMetric(kind=kind, stat=stat)
    assert (metric.name, metric.label) == (name, label)


@pytest.mark.parametrize("text", ["throughput-max", "latency", "latency-50", "latency-pxx", "errors", ""])
def test_unknown_spellings_name_the_option(text: str) -> None:
    with pytest.raises(ConfigError, match="--metric"):
        parse_metric(text)


def test_values_and_units() -> None:
    t = task(latency_p50=10.0, throughput=250.0, errors=5, samples=1000)
    assert parse_metric("throughput-median").value(t) == 250.0
    assert parse_metric("throughput-mean").value(t) == pytest.approx(247.5)
    assert parse_metric("latency-p50").value(t) == 10.0
    assert parse_metric("latency-p99.9").value(t) == 30.0
    assert parse_metric("service-time-p90").value(t) == pytest.approx(13.5)
    assert parse_metric("error-rate").value(t) == pytest.approx(0.5)  # % of requests
    assert [parse_metric(m).unit("docs/s") for m in ("throughput-median", "latency-p50", "error-rate")] == [
        "docs/s",
        "ms",
        "%",
    ]


def test_missing_values_are_none() -> None:
    t = task(latency_p50=None, throughput=None, samples=0)
    for text in ("throughput-median", "latency-p50", "latency-p99", "error-rate"):
        assert parse_metric(text).value(t) is None
    # A percentile not reported for the sample count (p99 of a small race) is missing, not 0.
    assert parse_metric("latency-p99").value(task()) is None


def test_direction_decides_what_a_regression_is() -> None:
    assert parse_metric("throughput-median").direction is Direction.HIGHER_IS_BETTER
    for text in ("latency-p99", "service-time-p50", "error-rate"):
        assert parse_metric(text).direction is Direction.LOWER_IS_BETTER
    assert is_regression(Direction.HIGHER_IS_BETTER, 100.0, 90.0)
    assert not is_regression(Direction.HIGHER_IS_BETTER, 90.0, 100.0)
    assert is_regression(Direction.LOWER_IS_BETTER, 10.0, 12.0)
    assert not is_regression(Direction.LOWER_IS_BETTER, 12.0, 10.0)
