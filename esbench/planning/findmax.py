"""``esbench find-max``: the highest target-throughput of a task that meets an SLO, verified.

Two stages of ordinary stored races, told apart by the tag ``sweep-phase``:

1. ``search`` (:mod:`esbench.planning.search`): probe and bisect with single races (and
   ``search_repeats`` at the bracket's lower bound) to bracket the maximum;
2. ``verify`` (:mod:`esbench.planning.confirm`): fresh, repeated races at the search's lower bound,
   stepping down until a rate meets the SLO in all ``repeats`` races, and at the rate ``margin``
   (20 %) higher, which must not.

The answer is the verified rate, with the 95 % intervals (:func:`~esbench.planning.search.
positive_interval`: log-scale, so they never reach below zero) of the achieved throughput and of each
SLO percentile over its verification races, and the same for the refuted higher rate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from esbench.planning.confirm import DEFAULT_MARGIN, Confirmation, confirm_max_rate
from esbench.planning.measure import PointResult, percentile_key
from esbench.planning.search import Interval, SearchOutcome, find_max_rate, positive_interval
from esbench.planning.slo import Slo, SloMetric
from esbench.planning.sweep import Dimension, PointRunner, point_settings
from esbench.planning.table import TEST_MODE_LABEL, render_points, test_mode_notice
from esbench.settings import RaceSettings

#: ``sweep-phase`` tag values of find-max's two stages.
PHASE_SEARCH = "search"
PHASE_VERIFY = "verify"


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


def meets(slo: Slo, point: PointResult) -> bool:
    """True when every clause of ``slo`` holds on ``point``."""
    return all(ok for _, _, ok in slo_verdict(slo, point))


@dataclass(frozen=True, kw_only=True)
class RateEvidence:
    """The verification races at one rate (ops/s) and their spread.

    Attributes:
        rate: the target-throughput; points: its verification races, in order; met: how many met the SLO.
        throughput: centre and 95 % interval (:func:`positive_interval`) of the achieved throughput.
        clauses: each percentile clause's description with the interval of its measured value (ms).
    """

    rate: float
    points: tuple[PointResult, ...]
    met: int
    throughput: Interval | None
    clauses: tuple[tuple[str, Interval | None], ...]

    def render(self, unit: str) -> list[str]:
        """Lines: the races that met the SLO, the throughput and each clause with its interval."""
        lines = [f"  met the SLO in {self.met} of {len(self.points)} verification races"]
        if self.throughput is not None:
            lines.append(f"  achieved throughput {_ci(self.throughput)} {unit}")
        lines.extend(f"  {name}: {_ci(i)} ms" for name, i in self.clauses if i is not None)
        return lines


def rate_evidence(slo: Slo, rate: float, points: Sequence[PointResult]) -> RateEvidence:
    """Summarise the verification races ``points`` at ``rate`` against ``slo``."""
    clauses = []
    for limit in slo.percentiles:
        values = [
            v
            for p in points
            for name, v, _ in slo_verdict(slo, p)
            if name == limit.describe() and v is not None
        ]
        clauses.append((limit.describe(), positive_interval(values)))
    return RateEvidence(
        rate=rate,
        points=tuple(points),
        met=sum(1 for p in points if meets(slo, p)),
        throughput=positive_interval([p.throughput for p in points if p.throughput is not None]),
        clauses=tuple(clauses),
    )


@dataclass(frozen=True, kw_only=True)
class FindMaxResult:
    """find-max's outcome.

    Attributes:
        search: the search's bracket (:class:`~esbench.planning.search.SearchOutcome`), rates in ops/s.
        confirmation: the verification (:class:`~esbench.planning.confirm.Confirmation`).
        search_points / verify_points: each race of the two stages, in order.
        slo: the objective. margin: how much higher the refuted rate is (0.2 = 20 %).
        at_rate / at_refuted: the verification evidence at the answer and at the refuted rate.
    """

    search: SearchOutcome
    confirmation: Confirmation
    search_points: tuple[PointResult, ...]
    verify_points: tuple[PointResult, ...]
    slo: Slo
    margin: float = DEFAULT_MARGIN
    at_rate: RateEvidence | None = None
    at_refuted: RateEvidence | None = None
    unit: str = field(default="ops/s")
    test_mode: bool = False

    @property
    def rate(self) -> float | None:
        """The highest rate verified to meet the SLO (ops/s), or None."""
        return self.confirmation.rate

    def render(self) -> str:
        """Both evidence tables, the verified rate with its intervals, the refuted rate and the bracket;
        labelled when the races ran in test mode."""
        text = self._render()
        if not self.test_mode:
            return text
        text = text.replace("Highest sustainable rate:", f"{TEST_MODE_LABEL} Highest sustainable rate:")
        return f"{text}\n{test_mode_notice('find-max')}"

    def _render(self) -> str:
        s, c = self.search, self.confirmation
        lines = [
            "Search:",
            render_points(self.search_points, param="target-throughput"),
            "",
            "Verification:",
            render_points(self.verify_points, param="target-throughput") if self.verify_points else "(none)",
            "",
            f"SLO: {self.slo.describe()}",
        ]
        if s.lower is None:
            lines.append(f"No rate met the SLO in the search (the lowest tried, {s.upper:g} ops/s, failed).")
            return "\n".join(lines)
        bracket = f"{s.lower:g} .. {s.upper:g} ops/s" if s.upper is not None else f">= {s.lower:g} ops/s"
        lines.append(f"Search bracket: {bracket}")
        if c.rate is None:
            tried = ", ".join(f"{check.rate:g}" for check in c.checks)
            lines.append(f"No rate was verified: none of {tried} ops/s met the SLO in all its races.")
            return "\n".join(lines)
        lines.append(f"Highest sustainable rate: {c.rate:g} ops/s")
        if self.at_rate is not None:
            lines.extend(self.at_rate.render(self.unit))
        if c.refuted is not None and self.at_refuted is not None:
            lines.append(f"{c.refuted:g} ops/s ({self.margin:+.0%}) is not sustainable:")
            lines.extend(self.at_refuted.render(self.unit))
        else:
            lines.append(
                f"The rate {self.margin:.0%} higher was not verified (above --max-rate or out of races)."
            )
        if any(p.driver_saturated for p in (*self.search_points, *self.verify_points)):
            lines.append(
                "Warning: the load driver was saturated in some races (see the tables); "
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
    search_repeats: int = 1,
    margin: float = DEFAULT_MARGIN,
) -> FindMaxResult:
    """Search the task's highest target-throughput (ops/s) meeting ``slo``, then verify it.

    Args:
        resolution: the search's bracket width relative to its lower bound, also the verification's
            step down (0.05 = 5 %).
        repeats: verification races a rate must all pass. search_repeats: races the search's lower
            bound must all pass (see :func:`~esbench.planning.search.find_max_rate`).
        margin: the refuted rate is the answer times ``1 + margin``.

    Raises:
        EsbenchError: a race cannot start. ValueError: inconsistent rates.
    """
    measured: dict[tuple[str, float, int], PointResult] = {}

    def evaluator(phase: str) -> Callable[[float, int], bool]:
        def evaluate(rate: float, repeat: int) -> bool:
            settings = point_settings(base, runner.task, Dimension.TARGET_THROUGHPUT, rate)
            point = runner.measure(f"{rate:g}", settings, repeat=repeat, phase=phase)
            measured[(phase, rate, repeat)] = point
            return meets(slo, point)

        return evaluate

    search = find_max_rate(
        evaluator(PHASE_SEARCH),
        start=start,
        max_rate=max_rate,
        min_rate=min_rate,
        resolution=resolution,
        repeats=search_repeats,
    )
    confirmation = Confirmation(rate=None, refuted=None, checks=())
    if search.lower is not None:
        confirmation = confirm_max_rate(
            evaluator(PHASE_VERIFY),
            rate=search.lower,
            repeats=repeats,
            min_rate=min_rate,
            max_rate=max_rate,
            margin=margin,
            step=resolution,
        )

    def evidence(rate: float | None) -> RateEvidence | None:
        check = confirmation.check_at(rate)
        if rate is None or check is None:
            return None
        return rate_evidence(slo, rate, [measured[(PHASE_VERIFY, rate, i)] for i in range(len(check.passed))])

    search_points = tuple(measured[(PHASE_SEARCH, p.rate, p.repeat)] for p in search.probes)
    verify_points = tuple(
        measured[(PHASE_VERIFY, check.rate, i)]
        for check in confirmation.checks
        for i in range(len(check.passed))
    )
    return FindMaxResult(
        search=search,
        confirmation=confirmation,
        search_points=search_points,
        verify_points=verify_points,
        slo=slo,
        margin=margin,
        at_rate=evidence(confirmation.rate),
        at_refuted=evidence(confirmation.refuted),
        unit=next((p.throughput_unit for p in verify_points), "ops/s"),
        test_mode=base.test_mode,
    )


def _ci(interval: Interval) -> str:
    if interval.n == 1:
        # A zero-width "interval" of one race would claim a precision nobody measured.
        return f"{interval.mean:,.1f} (one race: no interval)"
    centre = {"log-t": "geometric mean ", "bootstrap": "mean "}.get(interval.method, "")
    how = {"log-t": ", log-scale", "bootstrap": ", bootstrap"}.get(interval.method, "")
    return (
        f"{centre}{interval.mean:,.1f} (95 % CI {interval.low:,.1f}..{interval.high:,.1f}{how}, "
        f"n={interval.n})"
    )
