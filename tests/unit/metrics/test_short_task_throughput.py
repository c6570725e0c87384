"""A task without a complete measurement window: Rally's running average over the whole task.

Rally (esrally/driver/driver.py, ``ThroughputCalculator.calculate_task_throughput``) divides the
weight of all samples of a task, warmup ones included, by the time from the task's start to the
latest sample, and reports that as the one measurement throughput sample when no 1-second bucket
boundary falls after the first measurement sample. The expected values below are that quotient,
worked out from the request times each test records.
"""

from __future__ import annotations

import pytest

from esbench.metrics.recorder import RecorderState, TaskRecorder
from esbench.metrics.stats import task_result, throughput_windows, whole_task_throughput


def _recorder(origin: float) -> TaskRecorder:
    return TaskRecorder(task="fieldstats", operation="fieldstats", operation_type="fieldstats", origin=origin)


def _rec(r: TaskRecorder, end: float, *, warmup: bool, st: float = 0.02, weight: float = 1.0) -> None:
    r.record(warmup=warmup, end=end, service_time=st, latency=st, processing_time=st, weight=weight)


def _fieldstats_shape(start: float, clients: int, warmup: int, per_request: float) -> list[TaskRecorder]:
    """rally-eventdata-track's fieldstats task: each client sends ``warmup`` warmup requests and
    then one measurement request, back to back, ``per_request`` s each; two worker processes."""
    workers = [_recorder(start), _recorder(start)]
    for client in range(clients):
        r = workers[client % 2]
        offset = client * 0.001  # clients start a little apart
        for i in range(warmup):
            _rec(r, start + offset + (i + 1) * per_request, warmup=True, st=per_request)
        _rec(r, start + offset + (warmup + 1) * per_request, warmup=False, st=per_request)
    return workers


def test_warmup_then_one_request_per_client_is_all_requests_over_the_task() -> None:
    # 15 clients x (15 warmup + 1) requests of 6 ms: the task lasts 96 ms + 14 ms of client offsets.
    workers = _fieldstats_shape(100.0, clients=15, warmup=15, per_request=0.006)
    state = RecorderState.merge([w.state() for w in workers])
    last_end = 100.0 + 0.014 + 16 * 0.006
    result = task_result(state, task_start=100.0, task_end=last_end + 0.002)
    expected = 240 / (last_end - 100.0)
    assert result.throughput_windows == (pytest.approx(expected),)
    assert (
        result.throughput_min == result.throughput_mean == result.throughput_median == result.throughput_max
    )
    assert result.throughput_mean == pytest.approx(expected)
    # Not the rule this replaces: the 15 measurement requests over the 8 ms from the last warmup
    # response to the join point.
    assert result.throughput_mean != pytest.approx(15 / (last_end + 0.002 - (100.0 + 0.014 + 15 * 0.006)))


def test_a_long_warmup_and_a_short_measurement_phase_count_the_warmup_too() -> None:
    # 3 s of warmup at 10 ops/s, then 0.4 s of measurement at 50 ops/s: no complete measurement window.
    r = _recorder(0.0)
    for i in range(30):
        _rec(r, 0.1 * (i + 1), warmup=True)
    for i in range(20):
        _rec(r, 3.0 + 0.02 * (i + 1), warmup=False)
    state = r.state()
    assert throughput_windows(state, task_start=0.0, task_end=3.4) == (pytest.approx(50 / 3.4),)


def test_weights_are_docs_not_requests() -> None:
    r = TaskRecorder(
        task="bulk", operation="bulk", operation_type="bulk", throughput_unit="docs/s", origin=5.0
    )
    _rec(r, 5.2, warmup=True, weight=1000)
    _rec(r, 5.5, warmup=False, weight=500)
    result = task_result(r.state(), task_start=5.0, task_end=5.6)
    assert result.throughput_unit == "docs/s"
    assert result.throughput_mean == pytest.approx(1500 / 0.5)


def test_one_request_is_its_weight_over_the_time_since_the_task_start() -> None:
    # Rally: start = absolute_time - time_period, so the interval is the request's time_period
    # (response end - the client's start).
    r = _recorder(20.0)
    _rec(r, 20.05, warmup=False, st=0.04)
    assert whole_task_throughput(r.state(), task_start=20.0) == pytest.approx(1 / 0.05)


def test_the_value_ends_at_the_last_response_not_at_the_join_point() -> None:
    r = _recorder(0.0)
    _rec(r, 0.2, warmup=False)
    _rec(r, 0.4, warmup=False)
    assert task_result(r.state(), task_start=0.0, task_end=0.9).throughput_mean == pytest.approx(2 / 0.4)


def test_only_warmup_samples_give_no_throughput() -> None:
    r = _recorder(0.0)
    _rec(r, 0.2, warmup=True)
    assert throughput_windows(r.state(), task_start=0.0, task_end=0.3) == ()
    assert whole_task_throughput(r.state(), task_start=0.0) is None


def test_complete_measurement_windows_keep_the_per_second_values() -> None:
    # 1 s of warmup, then 3 s of measurement: the complete windows 1 and 2 are reported as they are.
    r = _recorder(0.0)
    for i in range(10):
        _rec(r, 0.1 * (i + 1) - 0.01, warmup=True, st=0.001)
    for i in range(60):
        _rec(r, 1.0 + 0.05 * (i + 1) - 0.001, warmup=False, st=0.001)
    assert throughput_windows(r.state(), task_start=0.0, task_end=4.0) == (20.0, 20.0, 20.0)


def test_the_plot_axis_of_the_single_value_starts_at_the_task_start() -> None:
    r = _recorder(30.0)
    _rec(r, 30.2, warmup=True)
    _rec(r, 30.3, warmup=False)
    state = r.state()
    assert state.origin_epoch is not None
    result = task_result(state, task_start=30.1, task_end=30.4)
    assert result.start_epoch == pytest.approx(state.origin_epoch + 0.1)
