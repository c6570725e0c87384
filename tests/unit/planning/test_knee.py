import pytest

from esbench.planning.knee import CurvePoint, find_knee


def curve(throughputs, latencies, saturated=()):
    return [
        CurvePoint(throughput=t, latency_ms=lat, driver_saturated=i in saturated)
        for i, (t, lat) in enumerate(zip(throughputs, latencies, strict=True))
    ]


def test_knee_is_the_first_point_after_which_throughput_stops_gaining_while_latency_rises() -> None:
    knee = find_knee(curve([100, 400, 700, 720, 715], [10, 11, 13, 25, 40]))
    assert knee.index == 2
    assert not knee.driver_limited


def test_a_noisy_dip_does_not_name_a_knee_before_throughput_rises_again() -> None:
    # 2 -> 3 loses throughput, but point 4 gains 40 % over point 2: the curve was still rising.
    knee = find_knee(curve([100, 200, 190, 280, 285], [10, 12, 14, 16, 30]))
    assert knee.index == 3


def test_flat_throughput_with_flat_latency_is_no_knee() -> None:
    knee = find_knee(curve([100, 101, 100, 102], [10, 10, 10, 10]))
    assert knee.index is None


def test_rising_curve_has_no_knee_and_min_gain_is_the_threshold() -> None:
    points = curve([100, 110, 121, 133], [10, 11, 12, 13])
    assert find_knee(points, min_gain=0.05).index is None
    assert find_knee(points, min_gain=0.5).index == 0


def test_a_flattening_with_a_saturated_load_driver_is_not_a_knee() -> None:
    knee = find_knee(curve([100, 400, 700, 710], [10, 11, 13, 30], saturated={3}))
    assert knee.index is None
    assert knee.driver_limited
    assert "load driver" in knee.reason


def test_unmeasured_points_are_skipped_and_negative_gain_rejected() -> None:
    assert find_knee(curve([None, 100, 300, 301], [None, 5, 6, 9])).index == 2
    with pytest.raises(ValueError):
        find_knee([], min_gain=-0.1)
