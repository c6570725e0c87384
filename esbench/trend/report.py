"""A trend report: the series of every selected task, their change points, and the gate's verdict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from esbench.exceptions import UserError
from esbench.records import RaceResult
from esbench.trend.detect import DetectorSettings, analyse
from esbench.trend.metric import TrendMetric
from esbench.trend.model import ChangePoint, TaskTrend
from esbench.trend.select import TrendSelection, build_series

#: Exit status of ``esbench trend --fail-on-change`` when the newest races start a regression (the
#: same as ``compare --fail-on-regression``'s, :data:`esbench.reporting.gate.REGRESSION_EXIT_CODE`).
REGRESSION_EXIT_CODE = 3


@dataclass(frozen=True, kw_only=True)
class TrendReport:
    """Everything ``esbench trend`` shows.

    Attributes:
        metric: the metric followed.
        detector: the detector's parameters.
        races: the selected races, oldest first.
        trends: one per (track, challenge, task), in the order the tasks first ran.
    """

    metric: TrendMetric
    detector: DetectorSettings
    races: tuple[RaceResult, ...]
    trends: tuple[TaskTrend, ...]

    @property
    def regressions(self) -> tuple[tuple[TaskTrend, ChangePoint], ...]:
        """``(trend, change point)`` of every task whose newest races start a regression."""
        out = []
        for trend in self.trends:
            point = trend.newest_regression
            if point is not None:
                out.append((trend, point))
        return tuple(out)


def build_report(
    races: Sequence[RaceResult], selection: TrendSelection, metric: TrendMetric, detector: DetectorSettings
) -> TrendReport:
    """Analyse ``races`` (selected, oldest first) task by task.

    Raises:
        UserError: no race was selected (the message says which filters were applied).
        ConfigError: a ``--task`` that no race ran; Otava not installed.
    """
    if not races:
        if selection == TrendSelection(limit=selection.limit):
            raise UserError("No completed race is stored: nothing to follow.")
        raise UserError(f"No completed stored race matches {describe_selection(selection)}.")
    series = build_series(races, selection, metric)
    trends = tuple(analyse(s, detector) for s in series)
    return TrendReport(metric=metric, detector=detector, races=tuple(races), trends=trends)


def describe_selection(selection: TrendSelection) -> str:
    """The filters of ``selection`` for messages: ``track 'x', user tag nightly=yes``; ``any race``."""
    parts = []
    if selection.track is not None:
        parts.append(f"track {selection.track!r}")
    if selection.challenge is not None:
        parts.append(f"challenge {selection.challenge!r}")
    if selection.tasks:
        parts.append("task " + " or ".join(repr(t) for t in selection.tasks))
    for key, values in selection.user_tags.items():
        parts.append(f"user tag {key}={'|'.join(values)}")
    if selection.since is not None:
        parts.append(f"since {selection.since}")
    return ", ".join(parts) if parts else "any race"
