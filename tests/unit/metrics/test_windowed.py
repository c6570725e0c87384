"""Per-second percentiles: log-linear buckets, packing, merging, alignment with throughput windows."""

from __future__ import annotations

import random

import pytest

from esbench.metrics.recorder import RecorderState, TaskRecorder
from esbench.metrics.stats import task_result
from esbench.metrics.windowed import (
    EXACT_LIMIT,
    SERVICE_TIME_OFFSET,
    WINDOW_PERCENTILES,
    WindowBuckets,
    bucket_index,
    bucket_value,
    pack,
    unpack,
    window_percentiles_ms,
)


def _rally_percentile(values: list[float], p: float) -> float:
    """Rally's InMemoryMetricsStore.percentile_value on raw samples."""
    s = sorted(values)
    r = p / 100 * (len(s) - 1)
    lo, hi = int(r), min(int(r) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (r - lo)


@pytest.mark.parametrize("value", [0, 1, 63, 64, 65, 127, 128, 1000, 12_345, 999_999, 86_400_000_000, 2**62])
def test_bucket_midpoint_is_within_1_6_percent_of_every_value(value: int) -> None:
    index = bucket_index(value)
    assert index < SERVICE_TIME_OFFSET
    mid = bucket_value(index)
    if value < EXACT_LIMIT:
        assert mid == value
    else:
        assert abs(mid - value) / value <= 1 / 64 + 1e-12


def test_bucket_index_is_monotonic_and_contiguous() -> None:
    previous = -1
    for value in range(0, 70_000):
        index = bucket_index(value)
        assert index in (previous, previous + 1)
        previous = index
    assert bucket_index(-5) == 0


def test_inlined_hot_path_index_matches_bucket_index() -> None:
    r = TaskRecorder(task="t", operation="o", operation_type="search", origin=0.0)
    values_us = [1, 50, 64, 100, 4_321, 77_777, 3_600_000_000]
    for v in values_us:
        r.record(warmup=False, end=0.5, service_time=v / 1e6, latency=v / 1e6, processing_time=0.0)
    counts = unpack(r.state().window_buckets[0])
    assert {k for k in counts if k < SERVICE_TIME_OFFSET} == {bucket_index(v) for v in values_us}
    assert {k - SERVICE_TIME_OFFSET for k in counts if k >= SERVICE_TIME_OFFSET} == {
        bucket_index(v) for v in values_us
    }


def test_pack_round_trips() -> None:
    counts = {0: 3, 70: 1, SERVICE_TIME_OFFSET + 900: 2**33}
    assert unpack(pack(counts)) == counts


def test_window_percentiles_follow_rallys_rank_rule_within_the_bucket_error() -> None:
    rng = random.Random(7)
    latencies_ms = [rng.lognormvariate(1.5, 0.8) for _ in range(2000)]
    r = TaskRecorder(task="t", operation="o", operation_type="search", origin=0.0)
    for i, ms in enumerate(latencies_ms):
        r.record(warmup=False, end=0.0005 * i, service_time=ms / 2000, latency=ms / 1000, processing_time=0)
    latency, service = window_percentiles_ms(r.state().window_buckets[0])
    assert set(latency) == set(WINDOW_PERCENTILES) == set(service)
    for label in WINDOW_PERCENTILES:
        expected = _rally_percentile(latencies_ms, float(label))
        assert latency[label] == pytest.approx(expected, rel=0.02)
        assert service[label] == pytest.approx(expected / 2, rel=0.02)


def test_old_windows_are_packed_and_late_responses_still_count() -> None:
    b = WindowBuckets()
    b.live[0] = {5: 1}
    b.live[1] = {6: 2}
    b.freeze_before(1)
    assert list(b.live) == [1] and list(b.frozen) == [0]
    b.live[0] = {5: 4, 7: 1}  # a response of window 0 recorded late
    assert unpack(b.encoded()[0]) == {5: 5, 7: 1}
    assert unpack(b.encoded()[1]) == {6: 2}


def test_recorder_keeps_only_recent_windows_live() -> None:
    r = TaskRecorder(task="t", operation="o", operation_type="search", origin=0.0)
    for i in range(100):
        r.record(warmup=False, end=i * 0.1, service_time=0.01, latency=0.01, processing_time=0.01)
    phase = r._measurement
    assert len(phase.live) <= 2
    assert len(r.state().window_buckets) == 10


def _series_recorder(origin: float, ends: list[float], latency: float) -> TaskRecorder:
    r = TaskRecorder(task="t", operation="o", operation_type="search", origin=origin)
    for end in ends:
        r.record(warmup=False, end=end, service_time=latency / 2, latency=latency, processing_time=latency)
    # one client, from the origin, whose requests each took ``latency``
    r.note_client(
        client_start=origin, first_start=ends[0] - latency, first_end=ends[0], last_start=ends[-1] - latency
    )
    return r


def test_series_are_aligned_with_throughput_windows_and_start_epoch() -> None:
    # windows 0..3 complete (task 0..4.5); window 2 has no response; latencies differ per window
    r = TaskRecorder(task="t", operation="o", operation_type="search", origin=100.0)
    for end, lat in [(100.2, 0.010), (100.6, 0.010), (101.5, 0.040), (103.1, 0.100), (104.2, 0.5)]:
        r.record(warmup=False, end=end, service_time=0.001, latency=lat, processing_time=0.001)
    state = r.state()
    result = task_result(state, task_start=100.0, task_end=104.5)
    assert len(result.throughput_windows) == 4
    for label in WINDOW_PERCENTILES:
        assert len(result.latency_windows_ms[label]) == 4
        assert len(result.service_time_windows_ms[label]) == 4
    assert result.latency_windows_ms["50"][0] == pytest.approx(10.0, rel=0.02)
    assert result.latency_windows_ms["100"][1] == pytest.approx(40.0, rel=0.02)
    assert result.latency_windows_ms["50"][2] is None  # nothing ended in window 2
    assert result.latency_windows_ms["99"][3] == pytest.approx(100.0, rel=0.02)
    assert result.start_epoch == pytest.approx(state.origin_epoch)


def test_start_epoch_is_the_wall_clock_of_the_first_complete_window() -> None:
    import time

    origin = time.perf_counter()
    r = _series_recorder(origin, [origin + 0.3, origin + 1.2, origin + 2.5, origin + 3.7], 0.01)
    wall = time.time()
    # warmup ends at origin + 1.2: the first complete window is window 2
    r.record(warmup=True, end=origin + 1.2, service_time=0.01, latency=0.01, processing_time=0.01)
    result = task_result(r.state(), task_start=origin, task_end=origin + 4.0)
    assert result.start_epoch == pytest.approx(wall + 2.0, abs=0.05)
    assert len(result.throughput_windows) == len(result.latency_windows_ms["50"]) == 2


def test_short_task_has_one_window_with_the_task_wide_percentiles() -> None:
    r = _series_recorder(50.0, [50.1, 50.2, 50.3], 0.020)
    result = task_result(r.state(), task_start=50.0, task_end=50.5)
    assert len(result.throughput_windows) == 1
    assert result.latency_windows_ms["50"] == (pytest.approx(20.0, rel=0.01),)


def test_window_buckets_merge_across_workers_with_their_origin_offsets() -> None:
    a = _series_recorder(10.0, [10.5, 11.5], 0.010)
    b = _series_recorder(11.0, [11.5, 12.5], 0.030)
    one = _series_recorder(10.0, [10.5, 11.5, 11.5, 12.5], 0.010)
    merged = RecorderState.merge([a.state(), b.state()])
    assert set(merged.window_buckets) == set(one.state().window_buckets) == {0, 1, 2}
    counts = [sum(unpack(merged.window_buckets[k]).values()) for k in (0, 1, 2)]
    assert counts == [2, 4, 2]  # latency + service time per response
    latency, _ = window_percentiles_ms(merged.window_buckets[1])
    assert latency["50"] == pytest.approx(20.0, rel=0.02)  # mean of 10 and 30 ms (Rally's rule)
