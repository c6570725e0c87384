"""The one metric a trend follows per task, and which way of it is bad.

``--metric`` names it: ``throughput-median``, ``throughput-mean``, ``latency-pNN``,
``service-time-pNN`` (``NN`` a percentile label of the stored results: ``50``, ``90``, ``99``,
``99.9``, ``100``) or ``error-rate``. Throughput is in the task's throughput unit (``ops/s``,
``docs/s``), latency and service time in ms, the error rate in % (stored as a fraction, shown as
people read it). A drop of throughput is a regression; a rise of any other metric is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from esbench.exceptions import ConfigError
from esbench.records import TaskResult


class MetricKind(StrEnum):
    """What is measured (the part of ``--metric`` before the statistic)."""

    THROUGHPUT = "throughput"
    LATENCY = "latency"
    SERVICE_TIME = "service-time"
    ERROR_RATE = "error-rate"


class Direction(StrEnum):
    """Which way of a metric is better."""

    #: Throughput: a drop is a regression.
    HIGHER_IS_BETTER = "higher-is-better"
    #: Latency, service time, error rate: a rise is a regression.
    LOWER_IS_BETTER = "lower-is-better"


#: The throughput statistics a trend can follow (fields ``throughput_<stat>`` of TaskResult).
THROUGHPUT_STATS: tuple[str, ...] = ("median", "mean")

#: The ``--metric`` examples shown in help and errors.
METRIC_EXAMPLES = "throughput-median, throughput-mean, latency-p50, latency-p99, service-time-p90, error-rate"

_PERCENTILE = re.compile(r"^(latency|service-time)-p(\d+(?:\.\d+)?)$")


@dataclass(frozen=True, kw_only=True)
class TrendMetric:
    """One metric of a task's result.

    Attributes:
        kind: what is measured.
        stat: ``median``/``mean`` for throughput, the percentile label (``"50"``, ``"99.9"``) for
            latency and service time, ``""`` for the error rate.
    """

    kind: MetricKind
    stat: str = ""

    @property
    def name(self) -> str:
        """The ``--metric`` spelling: ``latency-p99``, ``throughput-median``, ``error-rate``."""
        if self.kind is MetricKind.ERROR_RATE:
            return self.kind.value
        if self.kind is MetricKind.THROUGHPUT:
            return f"{self.kind.value}-{self.stat}"
        return f"{self.kind.value}-p{self.stat}"

    @property
    def label(self) -> str:
        """A human title: ``Median throughput``, ``Latency p99``, ``Error rate``."""
        if self.kind is MetricKind.THROUGHPUT:
            return f"{self.stat.capitalize()} throughput"
        if self.kind is MetricKind.ERROR_RATE:
            return "Error rate"
        return f"{'Latency' if self.kind is MetricKind.LATENCY else 'Service time'} p{self.stat}"

    @property
    def direction(self) -> Direction:
        """Throughput is better higher; latency, service time and error rate lower."""
        if self.kind is MetricKind.THROUGHPUT:
            return Direction.HIGHER_IS_BETTER
        return Direction.LOWER_IS_BETTER

    def unit(self, throughput_unit: str) -> str:
        """The unit of the values: ``throughput_unit`` for throughput, ``ms`` or ``%`` otherwise."""
        if self.kind is MetricKind.THROUGHPUT:
            return throughput_unit
        return "%" if self.kind is MetricKind.ERROR_RATE else "ms"

    def value(self, task: TaskResult) -> float | None:
        """The metric of ``task`` in :meth:`unit`; None when the task did not measure it (no full
        throughput window, a percentile not reported for its sample count, no request)."""
        if self.kind is MetricKind.THROUGHPUT:
            stat: float | None = getattr(task, f"throughput_{self.stat}")
            return stat
        if self.kind is MetricKind.ERROR_RATE:
            return task.error_rate * 100.0 if task.sample_count else None
        values = task.latency_ms if self.kind is MetricKind.LATENCY else task.service_time_ms
        return _percentile(values, self.stat)


def _percentile(values: Mapping[str, float], label: str) -> float | None:
    # Labels are stored as Rally prints them ("50", "99.9"); "50.0" given on the command line is "50".
    value = values.get(label)
    return float(value) if value is not None else None


def parse_metric(text: str) -> TrendMetric:
    """``--metric`` text as a :class:`TrendMetric`: ``"latency-p99"`` -> latency, ``"99"``.

    Raises:
        ConfigError: an unknown metric or statistic (the message lists the valid spellings).
    """
    spelled = text.strip().lower()
    if spelled == MetricKind.ERROR_RATE.value:
        return TrendMetric(kind=MetricKind.ERROR_RATE)
    if spelled.startswith("throughput-") and spelled.removeprefix("throughput-") in THROUGHPUT_STATS:
        return TrendMetric(kind=MetricKind.THROUGHPUT, stat=spelled.removeprefix("throughput-"))
    match = _PERCENTILE.match(spelled)
    if match is None:
        raise ConfigError(
            f"Unknown --metric {text!r}. Use one of: {METRIC_EXAMPLES} (any stored percentile)."
        )
    label = match.group(2)
    if "." in label:
        label = label.rstrip("0").rstrip(".")
    return TrendMetric(kind=MetricKind(match.group(1)), stat=label)


def is_regression(direction: Direction, mean_before: float, mean_after: float) -> bool:
    """Whether going from ``mean_before`` to ``mean_after`` is the bad way for ``direction``."""
    if direction is Direction.HIGHER_IS_BETTER:
        return mean_after < mean_before
    return mean_after > mean_before
