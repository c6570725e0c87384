"""Statistics for comparing repeated races: mean, relative standard deviation, Welch's t-test.

Pure functions of plain floats, no third-party dependency (no scipy). The Student t distribution
is computed through the regularized incomplete beta function.

Sources:
    - B. L. Welch, "The generalization of 'Student's' problem when several different population
      variances are involved", Biometrika 34 (1947) 28-35: the statistic and the
      Welch-Satterthwaite degrees of freedom.
    - NIST/SEMATECH e-Handbook of Statistical Methods, section 1.3.5.3 "Two-Sample t-Test for Equal
      Means" (unequal variances case), https://www.itl.nist.gov/div898/handbook/eda/section3/eda353.htm.
    - NIST Digital Library of Mathematical Functions, 8.17(v) (continued fraction of the incomplete
      beta function) and 8.17.4 (symmetry), https://dlmf.nist.gov/8.17; the two-sided t tail
      ``P(|T| > t) = I_{df/(df+t²)}(df/2, 1/2)`` is DLMF 8.17.(iii)/Abramowitz & Stegun 26.7.1.
    - The continued fraction is evaluated with the modified Lentz algorithm (Press et al.,
      Numerical Recipes, 3rd ed., section 5.2).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

_EPS = 1e-15
_TINY = 1e-300
_MAX_ITERATIONS = 500


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean. Raises ValueError for no values."""
    if not values:
        raise ValueError("mean of no values")
    return statistics.fmean(values)


def stdev(values: Sequence[float]) -> float | None:
    """Sample standard deviation (n − 1 denominator); None for fewer than two values."""
    if len(values) < 2:
        return None
    return statistics.stdev(values)


def rsd(values: Sequence[float]) -> float | None:
    """Relative standard deviation in percent: ``stdev / |mean| × 100``.

    None for fewer than two values or a zero mean (undefined).
    """
    sd = stdev(values)
    if sd is None:
        return None
    m = mean(values)
    if m == 0:
        return None
    return sd / abs(m) * 100.0


def regularized_incomplete_beta(x: float, a: float, b: float) -> float:
    """``I_x(a, b)`` for ``0 <= x <= 1``, ``a, b > 0`` (DLMF 8.17.2), accurate to ~1e-14.

    Raises:
        ValueError: arguments out of range.
    """
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"x must be in [0, 1], got {x}")
    if a <= 0 or b <= 0:
        raise ValueError(f"a and b must be positive, got a={a}, b={b}")
    if x == 0.0 or x == 1.0:
        return x
    # The continued fraction converges fast for x < (a + 1) / (a + b + 2); otherwise use the
    # symmetry I_x(a, b) = 1 - I_{1-x}(b, a) (DLMF 8.17.4).
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - regularized_incomplete_beta(1.0 - x, b, a)
    log_front = a * math.log(x) + b * math.log1p(-x) - math.log(a) - _log_beta(a, b)
    return math.exp(log_front) * _beta_continued_fraction(x, a, b)


def _log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _beta_continued_fraction(x: float, a: float, b: float) -> float:
    # DLMF 8.17.22: I_x(a,b) = front * 1/(1+ d1/(1+ d2/(1+ ...))) with
    # d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)),  d_{2m} = m(b-m) x / ((a+2m-1)(a+2m)).
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    result = d
    for m in range(1, _MAX_ITERATIONS + 1):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            result *= c * d
        if abs(c * d - 1.0) < _EPS:
            return result
    return result  # not converged: only for extreme a, b far outside what t-tests produce


def student_t_cdf(t: float, df: float) -> float:
    """``P(T <= t)`` for Student's t distribution with ``df`` (> 0, may be fractional) degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * regularized_incomplete_beta(df / (df + t * t), df / 2.0, 0.5)
    return 1.0 - tail if t > 0 else tail


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p-value ``P(|T| >= |t|)`` of Student's t with ``df`` degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return regularized_incomplete_beta(df / (df + t * t), df / 2.0, 0.5)


@dataclass(frozen=True, kw_only=True)
class WelchResult:
    """Outcome of Welch's unequal-variances t-test of ``b`` against ``a``.

    Attributes:
        t: ``(mean(b) - mean(a)) / sqrt(var_a/n_a + var_b/n_b)``; ±inf when both variances are 0
            and the means differ.
        df: Welch-Satterthwaite degrees of freedom.
        p_value: two-sided p-value (probability of a difference at least this large if the true
            means were equal).
    """

    t: float
    df: float
    p_value: float

    def significant(self, alpha: float = 0.05) -> bool:
        """True if the difference is significant at level ``alpha`` (``p_value < alpha``)."""
        return self.p_value < alpha


def welch_t_test(a: Sequence[float], b: Sequence[float]) -> WelchResult | None:
    """Welch's t-test (Welch 1947; NIST e-Handbook 1.3.5.3) of the means of ``a`` and ``b``.

    Returns None when either sample has fewer than two values (no variance estimate). When both
    samples have zero variance the result is exact: p = 1 for equal means, p = 0 otherwise.
    """
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return None
    ma, mb = mean(a), mean(b)
    va, vb = statistics.variance(a, ma), statistics.variance(b, mb)
    qa, qb = va / na, vb / nb
    se2 = qa + qb
    if se2 == 0.0:
        if ma == mb:
            return WelchResult(t=0.0, df=float(na + nb - 2), p_value=1.0)
        return WelchResult(t=math.copysign(math.inf, mb - ma), df=float(na + nb - 2), p_value=0.0)
    t = (mb - ma) / math.sqrt(se2)
    df = se2 * se2 / (qa * qa / (na - 1) + qb * qb / (nb - 1))
    return WelchResult(t=t, df=df, p_value=t_two_sided_p(t, df))
