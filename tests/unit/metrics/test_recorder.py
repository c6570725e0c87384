"""TaskRecorder / RecorderState: µs histograms, warmup split, windows, errors, overflow, merge."""

from __future__ import annotations

import pickle

import pytest

from esbench.metrics.recorder import (
    HIGHEST_TRACKABLE_US,
    LATENCY,
    METRICS,
    PROCESSING_TIME,
    SERVICE_TIME,
    RecorderState,
    TaskRecorder,
)


def _recorder(origin: float | None = 100.0) -> TaskRecorder:
    return TaskRecorder(task="t", operation="op", operation_type="search", origin=origin)


def _rec(r: TaskRecorder, *, end: float, warmup: bool = False, st: float = 0.010, **kw) -> None:
    r.record(
        warmup=warmup,
        end=end,
        service_time=st,
        latency=kw.pop("latency", st * 2),
        processing_time=kw.pop("processing_time", st * 1.5),
        **kw,
    )


def test_durations_are_stored_as_microseconds_per_metric() -> None:
    r = _recorder()
    _rec(r, end=100.5, st=0.012, latency=0.030, processing_time=0.015)
    s = r.state()
    assert s.histogram(SERVICE_TIME).get_max_value() == pytest.approx(12_000, rel=1e-3)
    assert s.histogram(LATENCY).get_max_value() == pytest.approx(30_000, rel=1e-3)
    assert s.histogram(PROCESSING_TIME).get_max_value() == pytest.approx(15_000, rel=1e-3)
    assert s.service_time_sum_s == pytest.approx(0.012)


def test_warmup_samples_are_recorded_separately() -> None:
    r = _recorder()
    _rec(r, end=100.2, warmup=True, st=5.0, weight=7)
    _rec(r, end=100.4, warmup=True, st=5.0, success=False, error_type="503")
    _rec(r, end=101.5, st=0.001, weight=3)
    s = r.state()
    assert (s.sample_count, s.warmup_sample_count) == (1, 2)
    assert (s.total_weight, s.warmup_weight) == (3, 8)
    assert (s.error_count, s.warmup_error_count, s.errors_by_type) == (0, 1, {})
    assert s.histogram(SERVICE_TIME).get_max_value() == pytest.approx(1000, rel=1e-3)
    assert s.histogram(SERVICE_TIME, warmup=True).get_total_count() == 2
    assert s.last_warmup_end == 100.4
    assert s.last_end == 101.5
    assert s.windows == (0.0, 3.0)
    assert s.warmup_windows == (8.0,)
    # the live counters cover both phases
    assert (r.count, r.error_count, r.total_weight) == (3, 1, 11)


def test_windows_are_keyed_by_whole_seconds_since_origin() -> None:
    r = _recorder(origin=100.0)
    # Instantaneous requests (service time 0): the whole weight lands where the response ended.
    for end, w in [(100.0, 1), (100.999, 2), (101.0, 4), (103.5, 8), (99.0, 16)]:
        _rec(r, end=end, weight=w, st=0.0)
    # 99.0 ends before the origin: it is counted in the first window, not lost
    assert r.state().windows == (1 + 2 + 16, 4, 0, 8)


def test_origin_defaults_to_first_sample_end() -> None:
    r = _recorder(origin=None)
    _rec(r, end=50.7)
    _rec(r, end=51.6)
    _rec(r, end=51.8)
    s = r.state()
    assert s.origin == 50.7
    assert s.windows == (2.0, 1.0)


def test_errors_are_counted_by_type() -> None:
    r = _recorder()
    _rec(r, end=100.1, success=False, error_type="500")
    _rec(r, end=100.2, success=False, error_type="500")
    _rec(r, end=100.3, success=False, error_type="ConnectionTimeout")
    _rec(r, end=100.4, success=False)
    _rec(r, end=100.5)
    s = r.state()
    assert s.sample_count == 5
    assert s.error_count == 4
    assert s.errors_by_type == {"500": 2, "ConnectionTimeout": 1, "unknown": 1}
    # failed requests still contribute their timings (Rally keeps them in the latency stats)
    assert s.histogram(LATENCY).get_total_count() == 5


def test_out_of_range_values_are_counted_not_recorded() -> None:
    r = _recorder()
    # the counts array ends at the next power of two above the highest trackable value
    too_long = 4 * HIGHEST_TRACKABLE_US / 1e6
    _rec(r, end=100.1, st=too_long, latency=too_long, processing_time=0.5)
    _rec(r, end=100.2, st=-0.001, latency=0.1, processing_time=0.1)
    _rec(r, end=100.3, warmup=True, st=too_long, latency=0.1, processing_time=0.1)
    s = r.state()
    assert s.overflow_count == 3
    assert s.warmup_overflow_count == 1
    assert s.sample_count == 2
    assert s.histogram(SERVICE_TIME).get_total_count() == 0
    assert s.histogram(PROCESSING_TIME).get_total_count() == 2


def test_state_is_picklable_and_compact() -> None:
    r = _recorder()
    for i in range(20_000):
        _rec(r, end=100 + i / 1000, st=0.001 + (i % 997) / 1e4, warmup=i < 2000)
    s = r.state()
    blob = pickle.dumps(s)
    assert pickle.loads(blob) == s
    assert len(blob) < 64_000


def test_state_without_samples() -> None:
    s = _recorder(origin=None).state()
    assert s.sample_count == 0
    assert s.origin is None and s.last_end is None and s.last_warmup_end is None
    assert s.histograms == {} and s.windows == ()
    assert s.histogram(LATENCY).get_total_count() == 0


def _samples() -> list[dict]:
    out = []
    for i in range(3000):
        out.append(
            dict(
                warmup=i < 300,
                end=100 + i * 0.0037,
                service_time=0.0005 + (i * 7919 % 1000) / 1e4,
                latency=0.0007 + (i * 104729 % 1000) / 1e4,
                processing_time=0.0006 + (i * 31 % 1000) / 1e4,
                weight=1 + i % 5,
                success=i % 37 != 0,
                error_type=None if i % 37 else ("500" if i % 2 else "timeout"),
            )
        )
    return out


def test_merge_equals_recording_everything_in_one_recorder() -> None:
    samples = _samples()
    kw = dict(task="t", operation="op", operation_type="bulk", throughput_unit="docs/s", origin=99.5)
    single = TaskRecorder(**kw)
    parts = [TaskRecorder(**kw) for _ in range(3)]
    for i, smp in enumerate(samples):
        single.record(**smp)
        parts[i % 3].record(**smp)
    merged = RecorderState.merge(p.state() for p in parts)
    expected = single.state()
    for name in (
        "sample_count",
        "error_count",
        "errors_by_type",
        "overflow_count",
        "last_end",
        "warmup_sample_count",
        "warmup_error_count",
        "last_warmup_end",
        "origin",
        "throughput_unit",
    ):
        assert getattr(merged, name) == getattr(expected, name), name
    for name in ("total_weight", "warmup_weight", "service_time_sum_s"):
        assert getattr(merged, name) == pytest.approx(getattr(expected, name)), name
    assert merged.windows == pytest.approx(expected.windows)
    assert merged.warmup_windows == pytest.approx(expected.warmup_windows)
    for metric in METRICS:
        for warmup in (False, True):
            a = merged.histogram(metric, warmup=warmup)
            b = expected.histogram(metric, warmup=warmup)
            assert a.get_total_count() == b.get_total_count() > 0
            assert a.equals(b), (metric, warmup)


def test_merge_shifts_windows_of_recorders_with_other_origins() -> None:
    a = _recorder(origin=10.0)
    b = _recorder(origin=12.0)
    _rec(a, end=10.5, weight=1)
    _rec(b, end=12.5, weight=2)
    merged = RecorderState.merge([a.state(), b.state()])
    assert merged.origin == 10.0
    assert merged.windows == (1.0, 0.0, 2.0)


def test_merge_rejects_nothing_and_mixed_tasks() -> None:
    with pytest.raises(ValueError, match="at least one"):
        RecorderState.merge([])
    other = TaskRecorder(task="other", operation="op", operation_type="search").state()
    with pytest.raises(ValueError, match="different tasks"):
        RecorderState.merge([_recorder().state(), other])


def test_merge_with_an_empty_state_keeps_the_other() -> None:
    a = _recorder()
    _rec(a, end=100.5)
    empty = _recorder(origin=None).state()
    merged = RecorderState.merge([empty, a.state()])
    assert merged.sample_count == 1
    assert merged.windows == (1.0,)
    assert merged.histogram(LATENCY).get_total_count() == 1


def test_origin_can_be_set_before_the_first_sample_only():
    r = TaskRecorder(task="t", operation="o", operation_type="search")
    r.set_origin(5.0)
    r.record(warmup=False, end=6.5, service_time=0.1, latency=0.1, processing_time=0.1)
    assert r.state().origin == 5.0 and r.state().windows == (0.0, 1.0)
    with pytest.raises(ValueError, match="already has samples"):
        r.set_origin(6.0)
