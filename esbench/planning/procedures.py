"""The planning procedures, each a series of stored races: sweep and optimise (find-max is in
:mod:`esbench.planning.findmax`).

Each takes a :class:`~esbench.planning.sweep.PointRunner` (which runs or reuses the race of a point)
and the fixed :class:`~esbench.settings.RaceSettings`, and returns the points with the conclusion:
the knee (:mod:`esbench.planning.knee`) or the optimum (:mod:`esbench.planning.optimize`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from esbench.planning.knee import DEFAULT_MIN_GAIN, CurvePoint, Knee, find_knee
from esbench.planning.measure import PointResult
from esbench.planning.optimize import optimize_value
from esbench.planning.sweep import PointRunner, labels, point_settings
from esbench.planning.table import TEST_MODE_LABEL, render_points, test_mode_notice
from esbench.settings import RaceSettings

#: The latency percentile the knee rule watches.
KNEE_LATENCY_PERCENTILE = "50"


@dataclass(frozen=True, kw_only=True)
class SweepOutcome:
    """A sweep's points (in sweep order) and its knee."""

    param: str
    points: tuple[PointResult, ...]
    knee: Knee
    test_mode: bool = False

    def render(self) -> str:
        """The evidence table and one line naming the knee (or why there is none); labelled when the
        races ran in test mode."""
        table = render_points(self.points, param=self.param, knee=self.knee.index)
        if self.knee.index is not None:
            verdict = f"Knee at {self.param}={self.points[self.knee.index].label}: {self.knee.reason}"
        else:
            verdict = f"No knee: {self.knee.reason}"
        if self.test_mode:
            return f"{table}\n\n{TEST_MODE_LABEL} {verdict}\n{test_mode_notice('sweep')}"
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
        test_mode=base.test_mode,
    )


@dataclass(frozen=True, kw_only=True)
class OptimizeResult:
    """The optimiser's points (sorted by value), the index of the best one, and its value."""

    param: str
    points: tuple[PointResult, ...]
    best_index: int | None
    test_mode: bool = False

    def render(self) -> str:
        """The evidence table and the optimum; labelled when the races ran in test mode."""
        text = self._render()
        return f"{text}\n{test_mode_notice('optimisation')}" if self.test_mode else text

    def _render(self) -> str:
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
        label = f"{TEST_MODE_LABEL} " if self.test_mode else ""
        return f"{table}\n\n{label}Optimal {self.param}: {best.label} ({rate}){flag}"


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
        param=str(runner.dimension),
        points=tuple(by_value[v] for v in values),
        best_index=best,
        test_mode=base.test_mode,
    )
