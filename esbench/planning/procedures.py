"""The planning procedures, each a series of stored races: sweep, optimise, find-max.

Each takes a :class:`~esbench.planning.sweep.PointRunner` (which runs or reuses the race of a point)
and the fixed :class:`~esbench.settings.RaceSettings`, and returns the points with the conclusion:
the knee (:mod:`esbench.planning.knee`), the optimum (:mod:`esbench.planning.optimize`) or the highest
rate meeting an SLO (:mod:`esbench.planning.search`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from esbench.planning.knee import DEFAULT_MIN_GAIN, CurvePoint, Knee, find_knee
from esbench.planning.measure import PointResult, percentile_key
from esbench.planning.optimize import optimize_value
from esbench.planning.search import Interval, SearchOutcome, find_max_rate, t_interval
from esbench.planning.slo import Slo, SloMetric
from esbench.planning.sweep import Dimension, PointRunner, labels, point_settings
from esbench.planning.table import render_points
from esbench.settings import RaceSettings

#: The latency percentile the knee rule watches.
KNEE_LATENCY_PERCENTILE = "50"


@dataclass(frozen=True, kw_only=True)
class SweepOutcome:
    """A sweep's points (in sweep order) and its knee."""

    param: str
    points: tuple[PointResult, ...]
    knee: Knee

    def render(self) -> str:
        """The evidence table and one line naming the knee (or why there is none)."""
        table = render_points(self.points, param=self.param, knee=self.knee.index)
        if self.knee.index is not None:
            verdict = f"Knee at {self.param}={self.points[self.knee.index].label}: {self.knee.reason}"
        else:
            verdict = f"No knee: {self.knee.reason}"
        return f"{table}\n\n{verdict}"


def run_sweep(
    runner: PointRunner, base: RaceSettings, values: Sequence[Any], *, min_gain: float = DEFAULT_MIN_GAIN
) -> SweepOutcome:
    """Measure every value (in the given order) and find the knee on p50 latency and mean throughput.

    Raises:
        EsbenchError: a race cannot start (see :meth:`PointRunner.measure`).
    """
    points = [
        runner.measure(label, point_settings(base, runner.task, runner.dimension, value, param=runner.param))
        for label, value in zip(labels(values), values, strict=True)
    ]
    curve = [
        CurvePoint(
            throughput=p.throughput if p.completed else None,
            latency_ms=p.latency_ms.get(KNEE_LATENCY_PERCENTILE),
            driver_saturated=p.driver_saturated,
        )
        for p in points
    ]
    return SweepOutcome(
        param=runner.param or str(runner.dimension),
        points=tuple(points),
        knee=find_knee(curve, min_gain=min_gain),
    )


@dataclass(frozen=True, kw_only=True)
class OptimizeResult:
    """The optimiser's points (sorted by value), the index of the best one, and its value."""

    param: str
    points: tuple[PointResult, ...]
    best_index: int | None

    def render(self) -> str:
        """The evidence table and the optimum."""
        table = render_points(self.points, param=self.param, best=self.best_index)
        if self.best_index is None:
            return f"{table}\n\nNo optimum: no point measured a throughput."
        best = self.points[self.best_index]
        flag = (
            " (the load driver was saturated there: the limit may be esbench's own)"
            if best.driver_saturated
            else ""
        )
        rate = f"{best.throughput:,.0f} {best.throughput_unit}"
        return f"{table}\n\nOptimal {self.param}: {best.label} ({rate}){flag}"


def run_optimize(
    runner: PointRunner, base: RaceSettings, *, start: int, max_value: int, refine_steps: int = 2
) -> OptimizeResult:
    """Seed 004's doubling-then-refining search of ``runner.dimension`` (bulk-size or clients).

    Raises:
        EsbenchError: a race cannot start. ValueError: inconsistent ``start``/``max_value``.
    """
    by_value: dict[int, PointResult] = {}

    def measure(value: int) -> float | None:
        point = runner.measure(str(value), point_settings(base, runner.task, runner.dimension, value))
        by_value[value] = point
        return point.throughput if point.completed else None

    outcome = optimize_value(measure, start=start, max_value=max_value, refine_steps=refine_steps)
    values = sorted(by_value)
    best = values.index(outcome.best) if outcome.best is not None else None
    return OptimizeResult(
        param=str(runner.dimension), points=tuple(by_value[v] for v in values), best_index=best
    )


def slo_verdict(slo: Slo, point: PointResult) -> list[tuple[str, float | None, bool]]:
    """Each clause of ``slo`` on ``point``: ``(description, measured value, holds)``.

    Measured values are ms for percentiles and a fraction for the error rate. A race that did not
    complete fails every clause.
    """
    out: list[tuple[str, float | None, bool]] = []
    for limit in slo.percentiles:
        source = point.latency_ms if limit.metric is SloMetric.LATENCY else point.service_time_ms
        measured = source.get(percentile_key(limit.percentile))
        out.append((limit.describe(), measured, point.completed and limit.holds(measured)))
    if slo.error_rate is not None:
        out.append(
            (
                slo.error_rate.describe(),
                point.error_rate,
                point.completed and slo.error_rate.holds(point.error_rate),
            )
        )
    return out


@dataclass(frozen=True, kw_only=True)
class FindMaxResult:
    """find-max's outcome: the search bounds, every point in order, and the spread at the lower bound.

    Attributes:
        search: the bracket (:class:`~esbench.planning.search.SearchOutcome`), rates in ops/s.
        points: each measurement, in order.
        slo: the objective. unit: the throughput unit of the task.
        throughput_at_lower / slo_at_lower: mean and 95 % t-interval over the repeats at ``lower`` of
            the achieved throughput and of each percentile clause's measured value (ms).
    """

    search: SearchOutcome
    points: tuple[PointResult, ...]
    slo: Slo
    throughput_at_lower: Interval | None = None
    slo_at_lower: tuple[tuple[str, Interval | None], ...] = field(default_factory=tuple)

    def render(self) -> str:
        """The evidence table, the rate and its bounds."""
        table = render_points(self.points, param="target-throughput")
        s = self.search
        lines = [table, "", f"SLO: {self.slo.describe()}"]
        if s.lower is None:
            lines.append(f"No rate met the SLO (the lowest tried, {s.upper:g} ops/s, failed).")
            return "\n".join(lines)
        upper = (
            f"{s.upper:g} ops/s (failed)"
            if s.upper is not None
            else "not found (the highest rate tried held)"
        )
        repeats = sum(1 for p in s.probes if p.rate == s.lower)
        lines.append(f"Highest sustainable rate: {s.lower:g} ops/s")
        lines.append(
            f"Bounds: lower {s.lower:g} ops/s (met the SLO in {repeats} of {repeats} races), upper {upper}"
        )
        if self.throughput_at_lower is not None:
            i = self.throughput_at_lower
            lines.append(f"Achieved throughput at {s.lower:g} ops/s: {_ci(i)}")
        for name, interval in self.slo_at_lower:
            if interval is not None:
                lines.append(f"{name} at {s.lower:g} ops/s: {_ci(interval)} ms")
        if any(p.driver_saturated for p in self.points):
            lines.append(
                "Warning: the load driver was saturated in some races (see the table); "
                "the limit may be esbench's own."
            )
        return "\n".join(lines)


def run_find_max(
    runner: PointRunner,
    base: RaceSettings,
    slo: Slo,
    *,
    start: float,
    max_rate: float,
    min_rate: float,
    resolution: float = 0.05,
    repeats: int = 3,
) -> FindMaxResult:
    """Search the task's highest target-throughput (ops/s) meeting ``slo`` (:mod:`esbench.planning.search`).

    Raises:
        EsbenchError: a race cannot start. ValueError: inconsistent rates.
    """
    measured: dict[tuple[float, int], PointResult] = {}

    def evaluate(rate: float, repeat: int) -> bool:
        point = runner.measure(
            f"{rate:g}", point_settings(base, runner.task, Dimension.TARGET_THROUGHPUT, rate), repeat=repeat
        )
        measured[(rate, repeat)] = point
        return all(ok for _, _, ok in slo_verdict(slo, point))

    search = find_max_rate(
        evaluate, start=start, max_rate=max_rate, min_rate=min_rate, resolution=resolution, repeats=repeats
    )
    points = tuple(measured[(p.rate, p.repeat)] for p in search.probes)
    at_lower = [measured[(p.rate, p.repeat)] for p in search.probes if p.rate == search.lower]
    throughput = t_interval([p.throughput for p in at_lower if p.throughput is not None])
    clauses = []
    for limit in slo.percentiles:
        values = [
            v
            for p in at_lower
            for name, v, _ in slo_verdict(slo, p)
            if name == limit.describe() and v is not None
        ]
        clauses.append((limit.describe(), t_interval(values)))
    return FindMaxResult(
        search=search, points=points, slo=slo, throughput_at_lower=throughput, slo_at_lower=tuple(clauses)
    )


def _ci(interval: Interval) -> str:
    return f"{interval.mean:,.1f} (95 % CI {interval.low:,.1f}..{interval.high:,.1f}, n={interval.n})"
