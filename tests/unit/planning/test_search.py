import pytest

from esbench.planning.optimize import optimize_value
from esbench.planning.search import find_max_rate, positive_interval, t_interval


def capacity(limit):
    return lambda rate, repeat: rate <= limit


def test_probe_and_bisection_bracket_the_capacity_within_the_resolution() -> None:
    out = find_max_rate(capacity(73.0), start=10, max_rate=1000, min_rate=1, resolution=0.05, repeats=3)
    assert out.lower is not None and out.upper is not None
    assert out.lower <= 73.0 < out.upper
    assert (out.upper - out.lower) / out.lower <= 0.05
    assert sum(1 for p in out.probes if p.rate == out.lower) == 3
    assert [p.rate for p in out.probes[:4]] == [10, 20, 40, 80]


def test_a_start_above_capacity_halves_down_first() -> None:
    out = find_max_rate(capacity(3.0), start=100, max_rate=1000, min_rate=0.5, resolution=0.1, repeats=1)
    assert out.lower is not None and out.lower <= 3.0 < out.upper
    assert [p.rate for p in out.probes[:6]] == [100, 50, 25, 12.5, 6.25, 3.125]


def test_a_repeat_that_fails_moves_the_upper_bound_below_that_rate() -> None:
    # 50 passes once, then fails its second measurement: the result must end below 50.
    def flaky(rate, repeat):
        return rate <= 40 or (rate <= 50 and repeat == 0)

    out = find_max_rate(flaky, start=50, max_rate=50, min_rate=1, resolution=0.05, repeats=2)
    assert out.upper is not None and out.upper <= 50
    assert out.lower is not None and out.lower <= 40
    assert all(p.passed for p in out.probes if p.rate == out.lower)


def test_nothing_passes_and_everything_passes() -> None:
    none = find_max_rate(capacity(0.1), start=10, max_rate=100, min_rate=1, repeats=1)
    assert none.lower is None and none.upper == 1  # min_rate was tried last
    every = find_max_rate(capacity(1e9), start=10, max_rate=100, min_rate=1, repeats=2)
    assert every.lower == 100 and every.upper is None


def test_bad_arguments_and_the_t_interval() -> None:
    with pytest.raises(ValueError):
        find_max_rate(capacity(1), start=0, max_rate=10, min_rate=1)
    interval = t_interval([10.0, 12.0, 14.0])
    assert interval is not None and interval.mean == 12.0
    # stdev 2, n 3, t(2) = 4.303: half width 4.969
    assert interval.high - interval.mean == pytest.approx(4.303 * 2 / 3**0.5)
    assert t_interval([]) is None


def test_optimizer_doubles_until_throughput_drops_then_refines_between_the_best_two() -> None:
    # Throughput peaks at 1200 (a tent curve).
    calls = []

    def measure(v):
        calls.append(v)
        return 10_000 - abs(v - 1200) * 3

    out = optimize_value(measure, start=100, max_value=100_000, refine_steps=2)
    assert calls[:6] == [100, 200, 400, 800, 1600, 3200]
    # Refine between 800 and 1600 (the best and its better neighbour): 1200 is their midpoint.
    assert calls[6] == 1200
    assert out.best == 1200


def test_optimizer_stops_at_max_and_an_unmeasured_point_counts_as_a_drop() -> None:
    out = optimize_value(float, start=1, max_value=16, refine_steps=0)
    assert [v for v, _ in out.measured] == [1, 2, 4, 8, 16]
    assert out.best == 16
    failed = optimize_value(lambda v: None if v == 4 else float(v), start=1, max_value=16, refine_steps=0)
    assert [v for v, _ in failed.measured] == [1, 2, 4]
    assert failed.best == 2


def test_positive_interval_never_reaches_below_zero() -> None:
    # Three spread-out latencies: the symmetric t interval goes negative, the log-scale one does not.
    spread = [0.5, 2.0, 12.0]
    assert t_interval(spread).low < 0
    log = positive_interval(spread)
    assert log is not None and log.method == "log-t"
    assert 0 < log.low < log.mean < log.high
    assert log.mean == pytest.approx((0.5 * 2.0 * 12.0) ** (1 / 3))
    # A zero rate among them: no logarithm, a bootstrap whose ends are means of the values.
    with_zero = positive_interval([0.0, 3.0, 10.0])
    assert with_zero is not None and with_zero.method == "bootstrap"
    assert 0.0 <= with_zero.low <= with_zero.mean <= with_zero.high <= 10.0
    assert positive_interval([0.0, 3.0, 10.0]) == with_zero  # seeded
    assert positive_interval([]) is None
    one = positive_interval([4.0])
    assert one is not None and one.low == one.high == 4.0
