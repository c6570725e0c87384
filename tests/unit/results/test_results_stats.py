"""mean / rsd / Student t CDF / Welch's t-test against closed forms and published values."""

from __future__ import annotations

import math

import pytest

from esbench.results import stats


def test_mean_stdev_rsd() -> None:
    assert stats.mean([1.0, 2.0, 3.0]) == 2.0
    assert stats.stdev([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]) == pytest.approx(2.138089935)
    assert stats.rsd([90.0, 100.0, 110.0]) == pytest.approx(10.0)
    assert stats.rsd([5.0]) is None
    assert stats.rsd([-1.0, 1.0]) is None
    with pytest.raises(ValueError):
        stats.mean([])


@pytest.mark.parametrize("t", [-30.0, -2.5, -0.3, 0.0, 0.7, 1.0, 4.2, 100.0])
def test_t_cdf_df1_is_cauchy(t: float) -> None:
    assert stats.student_t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-12)


@pytest.mark.parametrize("t", [-8.0, -1.5, 0.0, 0.2, 2.0, 9.0])
def test_t_cdf_df2_closed_form(t: float) -> None:
    assert stats.student_t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * math.sqrt(2 + t * t)), abs=1e-12)


@pytest.mark.parametrize("t", [-3.0, -1.0, 0.5, 1.96, 2.5])
def test_t_cdf_large_df_tends_to_normal(t: float) -> None:
    normal = 0.5 * (1 + math.erf(t / math.sqrt(2)))
    assert stats.student_t_cdf(t, 1e7) == pytest.approx(normal, abs=1e-6)


@pytest.mark.parametrize(
    ("df", "critical", "p"),
    [  # two-sided critical values, NIST e-Handbook table 1.3.6.7.2
        (1, 12.706, 0.05),
        (2, 4.303, 0.05),
        (5, 2.571, 0.05),
        (10, 2.228, 0.05),
        (30, 2.042, 0.05),
        (5, 4.032, 0.01),
        (20, 2.845, 0.01),
        (8, 1.860, 0.10),
    ],
)
def test_t_two_sided_matches_tables(df: int, critical: float, p: float) -> None:
    assert stats.t_two_sided_p(critical, df) == pytest.approx(p, rel=2e-3)
    assert stats.t_two_sided_p(-critical, df) == pytest.approx(p, rel=2e-3)


def test_incomplete_beta_edges_and_symmetry() -> None:
    assert stats.regularized_incomplete_beta(0.0, 2, 3) == 0.0
    assert stats.regularized_incomplete_beta(1.0, 2, 3) == 1.0
    # I_x(1, 1) = x; I_x(a, 1) = x^a
    assert stats.regularized_incomplete_beta(0.37, 1, 1) == pytest.approx(0.37)
    assert stats.regularized_incomplete_beta(0.6, 3.5, 1) == pytest.approx(0.6**3.5)
    x, a, b = 0.3, 2.5, 7.0
    assert stats.regularized_incomplete_beta(x, a, b) == pytest.approx(
        1 - stats.regularized_incomplete_beta(1 - x, b, a), abs=1e-14
    )
    with pytest.raises(ValueError):
        stats.regularized_incomplete_beta(1.5, 1, 1)


# Welch's example 1 of the Wikipedia article "Welch's t-test" (two samples of 15; equal sizes so the
# statistic equals Student's): t = -2.46, df ≈ 25.0, p = 0.021.
_A1 = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
_A2 = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4]


def test_welch_published_example() -> None:
    result = stats.welch_t_test(_A2, _A1)  # t is (mean(b) - mean(a)) / se
    assert result is not None
    assert result.t == pytest.approx(-2.46, abs=0.005)
    assert result.df == pytest.approx(25.0, abs=0.05)
    assert result.p_value == pytest.approx(0.021, abs=0.0005)
    assert result.significant(0.05) and not result.significant(0.01)


def test_welch_unequal_sizes_and_variances_vs_hand_computation() -> None:
    a = [10.0, 10.2, 9.8]
    b = [12.0, 8.0, 13.0, 7.0, 15.0]
    r = stats.welch_t_test(a, b)
    assert r is not None
    # mean a = 10, var a = 0.04; mean b = 11, var b = 46 / 4 = 11.5
    assert r.t == pytest.approx(1.0 / math.sqrt(0.04 / 3 + 11.5 / 5))
    se2 = 0.04 / 3 + 11.5 / 5
    assert r.df == pytest.approx(se2**2 / ((0.04 / 3) ** 2 / 2 + (11.5 / 5) ** 2 / 4))
    assert r.df < 5  # dominated by the noisy sample
    assert not r.significant()


def test_welch_degenerate_cases() -> None:
    assert stats.welch_t_test([1.0], [1.0, 2.0]) is None
    same = stats.welch_t_test([5.0, 5.0, 5.0], [5.0, 5.0])
    assert same is not None and same.p_value == 1.0 and not same.significant()
    shifted = stats.welch_t_test([5.0, 5.0], [6.0, 6.0])
    assert shifted is not None and shifted.p_value == 0.0 and shifted.t == math.inf
    assert stats.student_t_cdf(math.inf, 3) == 1.0


def test_welch_clear_shift_is_significant_and_noise_is_not() -> None:
    base = [1000.0, 1010.0, 995.0, 1005.0]
    slower = [900.0, 905.0, 898.0, 910.0]
    noisy = [1003.0, 990.0, 1012.0, 998.0]
    assert stats.welch_t_test(base, slower).p_value < 1e-4
    assert stats.welch_t_test(base, noisy).p_value > 0.5
