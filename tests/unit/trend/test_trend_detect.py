"""Change points by the real Apache Otava, their segments' means and their direction."""

from __future__ import annotations

import random

import pytest
from trendraces import history

from esbench.cli import trend as trend_cli
from esbench.exceptions import ConfigError
from esbench.trend import (
    DEFAULT_MAX_PVALUE,
    DEFAULT_MIN_MAGNITUDE_PCT,
    DEFAULT_WINDOW,
    DetectorSettings,
    TrendSelection,
    analyse,
    build_series,
    parse_metric,
)
from esbench.trend.detect import change_indexes


def _noisy(mean: float, count: int, rng: random.Random, sd: float = 0.1) -> list[float]:
    return [rng.gauss(mean, sd) for _ in range(count)]


def _trend(latencies: list[float], metric: str = "latency-p50", **settings: float):
    series = build_series(history(latencies), TrendSelection(), parse_metric(metric))
    return analyse(series[0], DetectorSettings(**settings))  # type: ignore[arg-type]


def test_defaults_are_otavas() -> None:
    from otava.series import AnalysisOptions

    options = AnalysisOptions()
    assert (
        options.window_len,
        options.max_pvalue,
        options.min_magnitude * 100,
    ) == (DEFAULT_WINDOW, DEFAULT_MAX_PVALUE, DEFAULT_MIN_MAGNITUDE_PCT)
    # The CLI repeats them so that --help does not import the detector.
    assert (trend_cli._WINDOW, trend_cli._MAX_PVALUE, trend_cli._MIN_MAGNITUDE) == (
        DEFAULT_WINDOW,
        DEFAULT_MAX_PVALUE,
        DEFAULT_MIN_MAGNITUDE_PCT,
    )


def test_step_up_in_latency_is_a_regression_at_its_first_race() -> None:
    rng = random.Random(7)
    trend = _trend(_noisy(10.0, 10, rng) + _noisy(12.0, 5, rng))
    assert [c.index for c in trend.change_points] == [10]
    change = trend.change_points[0]
    assert change.regression and change.pvalue < DEFAULT_MAX_PVALUE
    assert change.mean_before == pytest.approx(10.0, abs=0.1)
    assert change.mean_after == pytest.approx(12.0, abs=0.15)
    assert change.change_pct == pytest.approx(20.0, abs=2.0)
    assert change.race_id == trend.series.points[10].race_id
    assert trend.newest_regression is change


def test_the_same_step_in_throughput_is_a_drop_and_a_regression() -> None:
    rng = random.Random(7)
    trend = _trend(_noisy(10.0, 10, rng) + _noisy(12.0, 5, rng), "throughput-median")
    assert [(c.index, c.regression) for c in trend.change_points] == [(10, True)]
    assert trend.change_points[0].mean_after < trend.change_points[0].mean_before


def test_a_step_down_in_latency_is_an_improvement() -> None:
    rng = random.Random(7)
    trend = _trend(_noisy(12.0, 10, rng) + _noisy(10.0, 5, rng))
    assert [(c.index, c.regression) for c in trend.change_points] == [(10, False)]
    assert trend.newest_regression is None


def test_a_regression_undone_later_does_not_count_as_the_newest() -> None:
    rng = random.Random(3)
    trend = _trend(_noisy(10.0, 10, rng) + _noisy(12.0, 10, rng) + _noisy(10.0, 10, rng))
    assert [(c.index, c.regression) for c in trend.change_points] == [(10, True), (20, False)]
    assert trend.newest_regression is None
    # Segments end at the neighbouring change points.
    assert trend.change_points[1].mean_before == pytest.approx(12.0, abs=0.15)


def test_noise_only_has_no_change_point_and_detection_is_deterministic() -> None:
    rng = random.Random(11)
    values = _noisy(10.0, 15, rng)
    assert change_indexes(values, DetectorSettings()) == []
    stepped = values[:10] + _noisy(12.0, 5, rng)
    assert change_indexes(stepped, DetectorSettings()) == change_indexes(stepped, DetectorSettings())


def test_min_magnitude_drops_small_shifts() -> None:
    rng = random.Random(5)
    values = _noisy(10.0, 10, rng, sd=0.01) + _noisy(10.3, 10, rng, sd=0.01)  # +3 %
    assert [i for i, _ in change_indexes(values, DetectorSettings())] == [10]
    assert change_indexes(values, DetectorSettings(min_magnitude_pct=5.0)) == []


def test_too_few_races_have_no_change_point() -> None:
    assert change_indexes([10.0, 20.0], DetectorSettings()) == []


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"window": 1}, "at least 2"),
        ({"max_pvalue": 0.0}, "--max-pvalue"),
        ({"max_pvalue": 1.5}, "--max-pvalue"),
        ({"min_magnitude_pct": -1.0}, "--min-magnitude"),
    ],
)
def test_bad_settings(settings: dict[str, float], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        DetectorSettings(**settings)  # type: ignore[arg-type]
