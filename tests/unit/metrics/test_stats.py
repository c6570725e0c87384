"""task_result: percentile rule, throughput windows, warmup exclusion, errors, means."""

from __future__ import annotations

import pytest

from esbench.metrics.recorder import RecorderState, TaskRecorder, decode_histogram
from esbench.metrics.stats import percentiles_for_sample_size, task_result, throughput_windows


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (0, ()),
        (1, ("100",)),
        (2, ("50", "100")),
        (9, ("50", "100")),
        (10, ("50", "90", "100")),
        (99, ("50", "90", "100")),
        (100, ("50", "90", "99", "100")),
        (999, ("50", "90", "99", "100")),
        (1000, ("50", "90", "99", "99.9", "100")),
        (9999, ("50", "90", "99", "99.9", "100")),
        (10000, ("50", "90", "99", "99.9", "99.99", "100")),
        (10**9, ("50", "90", "99", "99.9", "99.99", "100")),
    ],
)
def test_percentile_rule_at_the_boundaries(n: int, expected: tuple[str, ...]) -> None:
    assert percentiles_for_sample_size(n) == expected


def _recorder(origin: float | None = 10.0, unit: str = "ops/s") -> TaskRecorder:
    return TaskRecorder(task="t", operation="op", operation_type="bulk", throughput_unit=unit, origin=origin)


def _rec(r: TaskRecorder, end: float, *, weight: float = 1.0, warmup: bool = False, st: float = 0.01) -> None:
    r.record(warmup=warmup, end=end, service_time=st, latency=st, processing_time=st, weight=weight)


def test_windows_without_warmup_start_at_the_task_start_and_drop_the_partial_last_window() -> None:
    r = _recorder(origin=10.0)
    # window 0: 3 ops, window 1: 5 ops, window 2: none (stall), window 3: 2 ops, partial window 4: 7 ops
    for end in [10.1, 10.5, 10.9]:
        _rec(r, end)
    for end in [11.05, 11.2, 11.4, 11.6, 11.8]:
        _rec(r, end)
    for end in [13.3, 13.7]:
        _rec(r, end)
    for i in range(7):
        _rec(r, 14.05 + i * 0.01)
    result = task_result(r.state(), task_start=10.0, task_end=14.5)
    assert result.throughput_windows == (3, 5, 0, 2)
    assert result.throughput_min == 0
    assert result.throughput_max == 5
    assert result.throughput_mean == pytest.approx(2.5)
    assert result.throughput_median == pytest.approx(2.5)
    assert result.duration_s == pytest.approx(4.5)
    assert result.total_weight == 17


def test_warmup_samples_and_the_mixed_window_are_excluded() -> None:
    r = _recorder(origin=0.0, unit="docs/s")
    # warmup until 2.3 s (heavy weights), measurement from 2.4 s
    for i in range(23):
        _rec(r, 0.05 + i * 0.1, weight=1000, warmup=True)
    _rec(r, 2.3, weight=1000, warmup=True)
    for i in range(24, 60):
        _rec(r, i * 0.1 + 0.05, weight=100)
    s = r.state()
    # window 2 ([2, 3)) mixes warmup and measurement: the first complete window is 3 ([3, 4))
    assert throughput_windows(s, task_start=0.0, task_end=6.0) == (1000.0, 1000.0, 1000.0)
    result = task_result(s, task_start=0.0, task_end=6.0)
    assert result.throughput_unit == "docs/s"
    assert (result.throughput_min, result.throughput_max) == (1000.0, 1000.0)
    assert result.sample_count == 36
    assert result.warmup_sample_count == 24
    assert result.total_weight == 3600
    assert result.duration_s == pytest.approx(6.0 - 2.3)


def test_warmup_timings_do_not_reach_the_percentiles() -> None:
    r = _recorder()
    r.record(warmup=True, end=10.1, service_time=9.0, latency=9.0, processing_time=9.0)
    r.record(warmup=False, end=10.2, service_time=0.002, latency=0.003, processing_time=0.004)
    result = task_result(r.state(), task_start=10.0, task_end=10.3)
    assert result.latency_ms == {"100": pytest.approx(3.0, rel=1e-3)}
    assert result.service_time_ms == {"100": pytest.approx(2.0, rel=1e-3)}
    assert result.processing_time_ms == {"100": pytest.approx(4.0, rel=1e-3)}
    assert result.mean_service_time_ms == pytest.approx(2.0)


def test_a_short_task_gets_one_whole_period_value() -> None:
    # Two requests back to back from the client's start: Rally's interval is the last start (10.2)
    # less the first start (10.0), plus the first request's 0.2 s since its client's start; the
    # join point (10.5) plays no part (tests/unit/metrics/test_short_task_throughput.py).
    r = _recorder(origin=10.0)
    _rec(r, 10.2, weight=1, st=0.2)
    _rec(r, 10.4, weight=1, st=0.2)
    r.note_client(client_start=10.0, first_start=10.0, first_end=10.2, last_start=10.2)
    result = task_result(r.state(), task_start=10.0, task_end=10.5)
    assert result.throughput_windows == (pytest.approx(5.0),)
    assert result.throughput_min == result.throughput_max == pytest.approx(5.0)


def test_windows_line_up_with_the_origin_not_the_task_start() -> None:
    # origin defaults to the first sample's end when the driver does not pass one
    r = _recorder(origin=None)
    for end in [100.5, 100.9, 101.2, 101.4, 102.0]:
        _rec(r, end)
    s = r.state()
    assert s.origin == 100.5
    # complete windows: [100.5, 101.5) = 4 ops; [101.5, 102.5) extends past task end 102.2
    assert throughput_windows(s, task_start=100.0, task_end=102.2) == (4.0,)
    assert throughput_windows(s, task_start=100.0, task_end=102.5) == (4.0, 1.0)


def test_percentiles_follow_the_sample_count_and_are_in_ms() -> None:
    r = _recorder()
    for i in range(1, 1001):  # 1..1000 ms
        r.record(warmup=False, end=10.5, service_time=i / 1000, latency=i / 1000, processing_time=i / 1000)
    result = task_result(r.state(), task_start=10.0, task_end=11.0)
    assert list(result.latency_ms) == ["50", "90", "99", "99.9", "100"]
    assert result.latency_ms["50"] == pytest.approx(500, rel=1e-3)
    assert result.latency_ms["90"] == pytest.approx(900, rel=1e-3)
    assert result.latency_ms["99"] == pytest.approx(990, rel=1e-3)
    assert result.latency_ms["99.9"] == pytest.approx(999, rel=1e-3)
    assert result.latency_ms["100"] == pytest.approx(1000, rel=1e-3)
    assert result.mean_service_time_ms == pytest.approx(500.5)
    hist = decode_histogram(result.histograms["latency"])
    assert hist.get_total_count() == 1000


def test_error_rate_and_types() -> None:
    r = _recorder()
    for i in range(8):
        r.record(
            warmup=False,
            end=10.1 + i * 0.1,
            service_time=0.01,
            latency=0.01,
            processing_time=0.01,
            success=i >= 2,
            error_type="429" if i < 2 else None,
        )
    result = task_result(r.state(), task_start=10.0, task_end=11.0)
    assert result.error_count == 2
    assert result.error_rate == pytest.approx(0.25)
    assert result.errors_by_type == {"429": 2}


def test_no_measurement_samples() -> None:
    r = _recorder()
    _rec(r, 10.5, warmup=True)
    result = task_result(r.state(), task_start=10.0, task_end=11.0, include_in_reporting=False)
    assert result.sample_count == 0
    assert result.warmup_sample_count == 1
    assert result.throughput_windows == ()
    assert result.throughput_median is None
    assert result.latency_ms == {} and result.mean_service_time_ms is None
    assert result.include_in_reporting is False
    assert result.duration_s == 0.0


def test_result_from_merged_workers_equals_single_recorder() -> None:
    single = _recorder(origin=5.0)
    workers = [_recorder(origin=5.0) for _ in range(2)]
    for i in range(500):
        kw = dict(
            warmup=i < 50,
            end=5.0 + i * 0.013,
            service_time=(i % 17) / 1000,
            latency=(i % 23) / 1000,
            processing_time=(i % 29) / 1000,
            weight=1 + i % 3,
        )
        single.record(**kw)
        workers[i % 2].record(**kw)
    merged = RecorderState.merge(w.state() for w in workers)
    a = task_result(merged, task_start=5.0, task_end=11.6)
    b = task_result(single.state(), task_start=5.0, task_end=11.6)
    assert a.throughput_windows == pytest.approx(b.throughput_windows)
    assert a.latency_ms == b.latency_ms
    assert a.service_time_ms == b.service_time_ms
    assert a.mean_service_time_ms == pytest.approx(b.mean_service_time_ms)
    assert (a.sample_count, a.warmup_sample_count) == (b.sample_count, b.warmup_sample_count) == (450, 50)


def _rally_percentile(values: list[float], p: float) -> float:
    """Rally's in-memory percentile (esrally/metrics.py percentile_value), on raw values."""
    ordered = sorted(values)
    rank = p / 100.0 * (len(ordered) - 1)
    low = int(rank)
    if rank == low:
        return ordered[low]
    return ordered[low] + (ordered[low + 1] - ordered[low]) * (rank - low)


def _record_ms(values_ms: list[float]) -> TaskRecorder:
    r = _recorder()
    for v in values_ms:
        r.record(warmup=False, end=10.5, service_time=v / 1000, latency=v / 1000, processing_time=v / 1000)
    return r


def test_percentiles_interpolate_between_ranks_like_rally() -> None:
    two = task_result(_record_ms([10.0, 20.0]).state(), task_start=10.0, task_end=11.0)
    assert two.latency_ms == {"50": 15.0, "100": 20.0}  # the median of two samples is their mean
    ten = task_result(_record_ms([float(v) for v in range(1, 11)]).state(), task_start=10.0, task_end=11.0)
    # rank 0.9 * 9 = 8.1: 9 ms + 0.1 * (10 ms - 9 ms)
    assert ten.service_time_ms == {"50": pytest.approx(5.5), "90": pytest.approx(9.1), "100": 10.0}


def test_percentiles_match_rally_on_raw_values_within_the_histogram_precision() -> None:
    import random

    rng = random.Random(3)
    values = [rng.lognormvariate(2.0, 1.0) for _ in range(12345)]  # ms, long tail
    result = task_result(_record_ms(values).state(), task_start=10.0, task_end=11.0)
    assert list(result.latency_ms) == ["50", "90", "99", "99.9", "99.99", "100"]
    for label, value in result.latency_ms.items():
        # 1 µs truncation when recording + 0.1 % HDR precision
        assert value == pytest.approx(_rally_percentile(values, float(label)), rel=1e-3, abs=1e-3)
