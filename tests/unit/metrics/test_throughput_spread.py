"""Throughput windows spread each request's weight over the time it was in flight (synthetic samples)."""

from __future__ import annotations

import statistics

import pytest

from esbench.metrics.recorder import RecorderState, TaskRecorder
from esbench.metrics.stats import task_result, throughput_windows


def _bulk_recorder(origin: float = 0.0) -> TaskRecorder:
    return TaskRecorder(
        task="bulk", operation="bulk", operation_type="bulk", throughput_unit="docs/s", origin=origin
    )


def _record(r: TaskRecorder, *, start: float, end: float, weight: float, warmup: bool = False) -> None:
    r.record(
        warmup=warmup,
        end=end,
        service_time=end - start,
        latency=end - start,
        processing_time=end - start,
        weight=weight,
    )


def test_back_to_back_bulks_give_the_steady_rate_not_multiples_of_the_bulk_size() -> None:
    # One client, 5,000-document bulks of 0.45 s each, back to back for 20 s: 11,111 docs/s.
    # Counting whole requests where they end gave windows of 10,000 and 15,000 (the issue's
    # "Min 20,000 / Max 55,000 in multiples of the bulk size").
    r = _bulk_recorder()
    t = 0.0
    while t + 0.45 <= 20.0:
        _record(r, start=t, end=t + 0.45, weight=5000)
        t += 0.45
    windows = throughput_windows(r.state(), task_start=0.0, task_end=t)
    assert len(windows) == 19
    for value in windows:
        assert value == pytest.approx(5000 / 0.45, rel=1e-9)


def test_a_request_across_a_boundary_is_split_in_proportion_to_its_time_in_each_window() -> None:
    r = _bulk_recorder(origin=10.0)
    _record(r, start=10.5, end=12.0 + 0.25, weight=700)  # 0.5 s, 1 s and 0.25 s in windows 0, 1, 2
    s = r.state()
    assert s.windows == pytest.approx((200.0, 400.0, 100.0))
    assert sum(s.windows) == pytest.approx(s.total_weight)


def test_time_before_the_origin_counts_for_window_zero() -> None:
    r = _bulk_recorder(origin=10.0)
    _record(r, start=8.0, end=10.5, weight=10)  # 2 s before the origin, 0.5 s in window 0
    _record(r, start=10.5, end=11.5, weight=4)  # half in window 0, half in window 1
    assert r.state().windows == pytest.approx((12.0, 2.0))


def test_instantaneous_and_single_window_requests_land_where_they_end() -> None:
    r = _bulk_recorder(origin=0.0)
    _record(r, start=1.2, end=1.2, weight=3)
    _record(r, start=1.3, end=1.9, weight=5)
    _record(r, start=2.0, end=3.0, weight=7)  # exactly one window: [2, 3], nothing in window 3
    assert r.state().windows == pytest.approx((0.0, 8.0, 7.0, 0.0))


def test_spread_weights_merge_across_workers_like_one_recorder() -> None:
    one = _bulk_recorder()
    parts = [_bulk_recorder(), _bulk_recorder()]
    for i in range(40):
        start = i * 0.37
        end = start + 0.8
        _record(one, start=start, end=end, weight=100 + i)
        _record(parts[i % 2], start=start, end=end, weight=100 + i)
    merged = RecorderState.merge([p.state() for p in parts])
    assert merged.windows == pytest.approx(one.state().windows)


def test_report_rows_keep_rallys_definitions_over_the_spread_windows() -> None:
    # Min / Mean / Median / Max are computed over the complete windows exactly as before.
    r = _bulk_recorder()
    for i in range(30):
        _record(r, start=i * 0.3, end=i * 0.3 + 0.6, weight=1000 if i < 15 else 2000)
    result = task_result(r.state(), task_start=0.0, task_end=9.6)
    w = result.throughput_windows
    assert result.throughput_min == min(w)
    assert result.throughput_max == max(w)
    assert result.throughput_mean == pytest.approx(statistics.fmean(w))
    assert result.throughput_median == pytest.approx(statistics.median(w))
    # the weight of requests in flight in the complete windows [0, 9) is all there
    assert sum(w) == pytest.approx(sum(r.state().windows[:9]))


def test_warmup_requests_do_not_leak_into_measurement_windows() -> None:
    r = _bulk_recorder()
    _record(r, start=0.0, end=1.6, weight=1600, warmup=True)
    for i in range(8):
        _record(r, start=1.6 + i * 0.5, end=2.1 + i * 0.5, weight=500)
    s = r.state()
    assert s.warmup_windows == pytest.approx((1000.0, 600.0))
    # measurement starts at 1.6 (end of the last warmup response): first complete window is [2, 3)
    assert throughput_windows(s, task_start=0.0, task_end=5.6) == pytest.approx((1000.0, 1000.0, 1000.0))
