"""Find the highest target-throughput that meets an SLO: exponential probe, bisection, confirmation.

Method (pure logic; the caller's ``evaluate(rate, repeat)`` runs one throttled race and says whether
the SLO held):

1. **Probe**: from ``start`` double the rate while the SLO holds (up to ``max_rate``); if ``start``
   already fails, halve it until it holds (down to ``min_rate``). This brackets the maximum between
   a passing rate ``lo`` and a failing rate ``hi``.
2. **Bisect** the bracket at its arithmetic midpoint until ``(hi - lo) / lo <= resolution``.
3. **Confirm** ``lo`` with ``repeats`` measurements in all (the probe's one included). If any of them
   fails, ``lo`` becomes the new ``hi`` and the search bisects again below it.

The result's bounds bracket the maximum sustainable rate: ``lower`` met the SLO in every one of
``repeats`` measurements, ``upper`` failed it at least once (None when even ``max_rate`` held). The
bracket's width is the search's resolution; the spread of the repeated measurements at ``lower`` is
reported by the caller (:func:`t_interval`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

# Two-sided 95 % Student t quantiles by degrees of freedom (1..10); normal beyond.
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)


@dataclass(frozen=True, kw_only=True)
class Probe:
    """One measurement of the search: ``rate`` (the target), ``repeat`` (0-based), ``passed``."""

    rate: float
    repeat: int
    passed: bool


@dataclass(frozen=True, kw_only=True)
class SearchOutcome:
    """Result of :func:`find_max_rate`.

    Attributes:
        lower: highest rate that met the SLO in all ``repeats`` measurements, or None if none did.
        upper: lowest rate that failed it, or None when ``max_rate`` still held.
        probes: every measurement in the order it was made.
    """

    lower: float | None
    upper: float | None
    probes: tuple[Probe, ...] = field(default_factory=tuple)


def find_max_rate(
    evaluate: Callable[[float, int], bool],
    *,
    start: float,
    max_rate: float,
    min_rate: float,
    resolution: float = 0.05,
    repeats: int = 3,
    max_measurements: int = 30,
) -> SearchOutcome:
    """Search the highest rate for which ``evaluate`` holds (method in the module docstring).

    Args:
        evaluate: ``(rate, repeat) -> bool``; ``repeat`` counts the measurements at that rate.
        start / max_rate / min_rate: first rate and the range searched, in the task's ops/s.
        resolution: stop bisecting when the bracket is this narrow relative to ``lower`` (0.05 = 5 %).
        repeats: measurements that must all pass at the final ``lower`` (>= 1).
        max_measurements: a hard cap on the races run.

    Raises:
        ValueError: inconsistent arguments (non-positive rates, ``min_rate > max_rate``, ...).
    """
    if not 0 < min_rate <= start <= max_rate:
        raise ValueError(f"need 0 < min_rate <= start <= max_rate, got {min_rate}, {start}, {max_rate}")
    if repeats < 1 or resolution <= 0:
        raise ValueError(f"repeats must be >= 1 and resolution > 0, got {repeats}, {resolution}")
    search = _Search(evaluate, max_measurements)
    lo, hi = search.bracket(start, max_rate=max_rate, min_rate=min_rate)
    lo, hi = search.narrow(lo, hi, min_rate=min_rate, resolution=resolution, repeats=repeats)
    return SearchOutcome(lower=lo, upper=hi, probes=tuple(search.probes))


class _Search:
    """The measurements of one :func:`find_max_rate` search: every probe, the count per rate, and
    the budget of ``max_measurements`` races."""

    def __init__(self, evaluate: Callable[[float, int], bool], max_measurements: int) -> None:
        self.evaluate = evaluate
        self.max_measurements = max_measurements
        self.probes: list[Probe] = []
        self.counts: dict[float, int] = {}

    def measure(self, rate: float) -> bool:
        repeat = self.counts.get(rate, 0)
        self.counts[rate] = repeat + 1
        passed = self.evaluate(rate, repeat)
        self.probes.append(Probe(rate=rate, repeat=repeat, passed=passed))
        return passed

    def budget_left(self) -> bool:
        return len(self.probes) < self.max_measurements

    def bracket(self, start: float, *, max_rate: float, min_rate: float) -> tuple[float | None, float | None]:
        """Double up from a passing ``start`` (to ``max_rate``), or halve down from a failing one
        (to ``min_rate``): ``(lower, upper)``, a passing and a failing rate (None: not found)."""
        lo: float | None
        hi: float | None
        if self.measure(start):
            lo, hi = start, None
            while hi is None and lo < max_rate and self.budget_left():
                rate = min(lo * 2, max_rate)
                if self.measure(rate):
                    lo = rate
                else:
                    hi = rate
        else:
            lo, hi = None, start
            while lo is None and hi > min_rate and self.budget_left():
                rate = max(hi / 2, min_rate)
                if self.measure(rate):
                    lo = rate
                else:
                    hi = rate
        return lo, hi

    def narrow(
        self, lo: float | None, hi: float | None, *, min_rate: float, resolution: float, repeats: int
    ) -> tuple[float | None, float | None]:
        """Bisect ``lo``..``hi`` to ``resolution``, then repeat ``lo`` ``repeats`` times; a repeat
        that fails makes it the new upper bound and the search falls back to the best rate below
        it that always passed (or half of it)."""
        while lo is not None and self.budget_left():
            while hi is not None and (hi - lo) / lo > resolution and self.budget_left():
                mid = (lo + hi) / 2
                if self.measure(mid):
                    lo = mid
                else:
                    hi = mid
            confirmed = True
            while self.counts[lo] < repeats and self.budget_left():
                if not self.measure(lo):
                    confirmed = False
                    break
            if confirmed and self.counts[lo] >= repeats:
                break
            if confirmed:  # out of budget before the repeats were done: lo is not confirmed
                lo = None
                break
            hi = lo
            probes = self.probes
            passing = [p.rate for p in probes if p.passed and p.rate < hi and _all_passed(probes, p.rate)]
            lo = max(passing) if passing else None
            if lo is None:
                rate = hi / 2
                lo = rate if rate >= min_rate and self.budget_left() and self.measure(rate) else None
        return lo, hi


def _all_passed(probes: Sequence[Probe], rate: float) -> bool:
    return all(p.passed for p in probes if p.rate == rate)


@dataclass(frozen=True, kw_only=True)
class Interval:
    """A centre of repeated measurements with a two-sided 95 % interval (``low``..``high``).

    ``method``: ``"t"`` (arithmetic mean, Student t), ``"log-t"`` (geometric mean, Student t on the
    logarithms: :func:`positive_interval`) or ``"bootstrap"`` (arithmetic mean, percentile bootstrap).
    """

    mean: float
    low: float
    high: float
    n: int
    method: str = "t"


def t_interval(values: Sequence[float]) -> Interval | None:
    """The mean of ``values`` with its 95 % Student t confidence interval; None without values.

    One value gives a zero-width interval (nothing is known about the spread).
    """
    if not values:
        return None
    mean = statistics.fmean(values)
    if len(values) < 2:
        return Interval(mean=mean, low=mean, high=mean, n=1)
    df = len(values) - 1
    t = _T95[df - 1] if df <= len(_T95) else 1.96
    half = t * statistics.stdev(values) / math.sqrt(len(values))
    return Interval(mean=mean, low=mean - half, high=mean + half, n=len(values))


#: Resamples of :func:`positive_interval`'s bootstrap (seeded: the same values give the same interval).
_BOOTSTRAP_RESAMPLES = 2000


def positive_interval(values: Sequence[float]) -> Interval | None:
    """A 95 % interval of a quantity that cannot be negative (a latency, a rate); None without values.

    A Student t interval around the arithmetic mean is symmetric and, for few and spread-out races,
    reaches below zero ("-5.0..9.9 ms"). Here, when every value is positive, the t interval is taken
    on the logarithms and transformed back: it is centred on the geometric mean and stays above zero
    (the usual interval for log-normal data such as latencies). With a zero among the values the
    logarithm does not exist; then a percentile bootstrap of the mean (seeded, 2,000 resamples) is used,
    whose ends are means of measured values and so lie within their range. One value gives a
    zero-width interval.
    """
    if not values:
        return None
    if len(values) < 2:
        return Interval(mean=values[0], low=values[0], high=values[0], n=1, method="t")
    if all(v > 0 for v in values):
        logs = t_interval([math.log(v) for v in values])
        assert logs is not None
        return Interval(
            mean=math.exp(logs.mean),
            low=math.exp(logs.low),
            high=math.exp(logs.high),
            n=logs.n,
            method="log-t",
        )
    import random

    rng = random.Random(0)
    n = len(values)
    means = sorted(statistics.fmean(rng.choices(values, k=n)) for _ in range(_BOOTSTRAP_RESAMPLES))
    low = means[int(0.025 * _BOOTSTRAP_RESAMPLES)]
    high = means[int(0.975 * _BOOTSTRAP_RESAMPLES) - 1]
    return Interval(mean=statistics.fmean(values), low=low, high=high, n=n, method="bootstrap")
