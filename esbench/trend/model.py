"""The records of a trend: the points of one task's metric over races, and the change points in it.

A series is ordered by race time (oldest first); a change point's ``index`` is the position (0-based)
of the first race of the new segment, so a change found at the 11th race has index 10.
"""

from __future__ import annotations

from dataclasses import dataclass

from esbench.trend.metric import TrendMetric


@dataclass(frozen=True, kw_only=True)
class TrendPoint:
    """One race's value of the followed metric for one task.

    Attributes:
        race_id: the race's UUID.
        timestamp: race start, ISO-8601 UTC (``2026-11-21T20:10:18Z``).
        value: the metric in ``unit``.
        unit: ``ops/s``/``docs/s`` (throughput), ``ms`` (latency, service time) or ``%``.
    """

    race_id: str
    timestamp: str
    value: float
    unit: str


@dataclass(frozen=True, kw_only=True)
class TrendSeries:
    """The points of one task's metric over the selected races, oldest first.

    Attributes:
        track / challenge / task: what the races ran.
        metric: the metric followed.
        points: one per race that measured it, in race order.
    """

    track: str
    challenge: str
    task: str
    metric: TrendMetric
    points: tuple[TrendPoint, ...]

    @property
    def unit(self) -> str:
        """The unit of the newest point ("" without points)."""
        return self.points[-1].unit if self.points else ""


@dataclass(frozen=True, kw_only=True)
class ChangePoint:
    """A significant shift of a series' mean (Otava's E-divisive means with a t-test).

    Attributes:
        index: position in the series of the first race after the change (0-based).
        race_id / timestamp: that race.
        mean_before / mean_after: means of the segments before and after the change, in the
            series' unit (the segments end at the neighbouring change points).
        pvalue: the t-test's p-value of the two segments having the same mean.
        regression: the change goes the bad way for the metric (see
            :attr:`esbench.trend.metric.TrendMetric.direction`).
    """

    index: int
    race_id: str
    timestamp: str
    mean_before: float
    mean_after: float
    pvalue: float
    regression: bool

    @property
    def change_pct(self) -> float | None:
        """``(after / before - 1) * 100``; None when the mean before is 0."""
        if self.mean_before == 0:
            return None
        return (self.mean_after / self.mean_before - 1.0) * 100.0


@dataclass(frozen=True, kw_only=True)
class TaskTrend:
    """A series and the change points found in it.

    Attributes:
        series: the points.
        change_points: in series order.
    """

    series: TrendSeries
    change_points: tuple[ChangePoint, ...]

    @property
    def newest_regression(self) -> ChangePoint | None:
        """The last change point when it goes the bad way: the newest races start (or continue)
        a regression that no later change undid. None otherwise."""
        if self.change_points and self.change_points[-1].regression:
            return self.change_points[-1]
        return None
