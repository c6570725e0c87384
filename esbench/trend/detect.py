"""Change points of a series, found by Apache Otava (``apache-otava``, the ``trend`` extra).

Otava implements Hunter's method (Fleming et al., "Hunter: Using Change Point Detection to Hunt for
Performance Regressions", ICPE 2023, https://doi.org/10.1145/3578244.3583719): E-divisive means
(Matteson and James) over sliding windows, with Student's t-test as the significance test and a
merge step that drops the weakest points until every one left is significant. Unlike permutation
tests it is deterministic: the same history always gives the same change points.

Otava (numpy, scipy and its client libraries) is imported only when a trend is analysed, never by
``esbench --help``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from esbench.exceptions import ConfigError
from esbench.trend.metric import is_regression
from esbench.trend.model import ChangePoint, TaskTrend, TrendSeries

#: Otava 0.8.0's defaults (``otava.series.AnalysisOptions``, and its command line's ``--window``,
#: ``-P``, ``-M``).
DEFAULT_WINDOW = 50
DEFAULT_MAX_PVALUE = 0.001
DEFAULT_MIN_MAGNITUDE_PCT = 0.0


@dataclass(frozen=True, kw_only=True)
class DetectorSettings:
    """The detector's parameters.

    Attributes:
        window: races analysed at once by the split step (>= 2); larger windows resist noise better
            but may take a short regression for noise.
        max_pvalue: a change point is kept only when the t-test's p-value of its two segments is below
            this (0 < p <= 1).
        min_magnitude_pct: and only when the means differ by more than this many % (
            ``max(|after/before - 1|, |before/after - 1|) * 100``; 0 keeps every significant change).
    """

    window: int = DEFAULT_WINDOW
    max_pvalue: float = DEFAULT_MAX_PVALUE
    min_magnitude_pct: float = DEFAULT_MIN_MAGNITUDE_PCT

    def __post_init__(self) -> None:
        if self.window < 2:
            raise ConfigError(f"The detector window must be at least 2 races (--window), not {self.window}.")
        if not 0 < self.max_pvalue <= 1:
            raise ConfigError(f"--max-pvalue must be in (0, 1], not {self.max_pvalue}.")
        if self.min_magnitude_pct < 0:
            raise ConfigError(f"--min-magnitude must be 0 or more %, not {self.min_magnitude_pct}.")


def _compute_change_points() -> Any:
    try:
        from otava.analysis import compute_change_points
    except ImportError as e:
        raise ConfigError(
            "esbench trend needs Apache Otava for change-point detection: pip install 'esbench[trend]' "
            f"(or pip install apache-otava). ({e})",
            e,
        ) from e
    return compute_change_points


def change_indexes(values: Sequence[float], settings: DetectorSettings) -> list[tuple[int, float]]:
    """``(index, pvalue)`` of each change point of ``values`` in order; index is the first value of
    the new segment. Fewer than 3 values never have one.

    Raises:
        ConfigError: Otava is not installed.
    """
    if len(values) < 3:
        return []
    compute = _compute_change_points()
    points, _weak = compute(
        [float(v) for v in values],
        window_len=settings.window,
        max_pvalue=settings.max_pvalue,
        min_magnitude=settings.min_magnitude_pct / 100.0,
    )
    return [(int(p.index), float(p.stats.pvalue)) for p in points]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def analyse(series: TrendSeries, settings: DetectorSettings) -> TaskTrend:
    """The change points of ``series``, each with the means of the segments beside it (segments end
    at the neighbouring change points) and whether it goes the bad way.

    Raises:
        ConfigError: Otava is not installed.
    """
    values = [p.value for p in series.points]
    found = change_indexes(values, settings)
    bounds = [0, *(i for i, _ in found), len(values)]
    change_points = []
    for n, (index, pvalue) in enumerate(found):
        before = _mean(values[bounds[n] : index])
        after = _mean(values[index : bounds[n + 2]])
        point = series.points[index]
        change_points.append(
            ChangePoint(
                index=index,
                race_id=point.race_id,
                timestamp=point.timestamp,
                mean_before=before,
                mean_after=after,
                pvalue=pvalue,
                regression=is_regression(series.metric.direction, before, after),
            )
        )
    return TaskTrend(series=series, change_points=tuple(change_points))
