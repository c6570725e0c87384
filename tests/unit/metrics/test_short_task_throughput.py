"""A task without a complete measurement window: Rally's running average over the whole task.

Rally (esrally/driver/driver.py, ``ThroughputCalculator.calculate_task_throughput``) divides the
weight of all samples of a task, warmup ones included, by its interval, and reports that as the one
measurement throughput sample when no 1-second bucket boundary falls after the first measurement
sample. The interval runs from the first request's processing start less its ``time_period``
(response end minus its client's start) to the last request's processing start. The expected values
below are that quotient, worked out from the request times each test records.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from esbench.metrics.recorder import RecorderState, TaskRecorder
from esbench.metrics.stats import task_result, throughput_windows, whole_task_throughput

# One request: (processing start, response end, warmup), perf_counter s.
Request = tuple[float, float, bool]


def _recorder(origin: float, *, unit: str = "ops/s") -> TaskRecorder:
    return TaskRecorder(
        task="fieldstats",
        operation="fieldstats",
        operation_type="fieldstats",
        throughput_unit=unit,
        origin=origin,
    )


def _client(r: TaskRecorder, client_start: float, requests: Sequence[Request]) -> None:
    """One client's requests, recorded as the executor records them, then noted as it notes them."""
    for start, end, warmup in requests:
        d = end - start
        r.record(warmup=warmup, end=end, service_time=d, latency=d, processing_time=d)
    r.note_client(
        client_start=client_start,
        first_start=requests[0][0],
        first_end=requests[0][1],
        last_start=requests[-1][0],
    )


def _back_to_back(
    client_start: float, lag: float, per_request: float, warmup: int, measured: int
) -> list[Request]:
    """Requests sent one after the other from ``lag`` s after the client's start."""
    first = client_start + lag
    return [
        (first + i * per_request, first + (i + 1) * per_request, i < warmup) for i in range(warmup + measured)
    ]


def test_warmup_then_one_request_per_client_is_all_requests_over_rallys_interval() -> None:
    # rally-eventdata-track's fieldstats: 15 clients x (15 warmup + 1) requests of 6 ms, on two
    # workers; the clients start 1 ms apart and send their first request 0.5 ms after their start.
    workers = [_recorder(100.0), _recorder(100.0)]
    for client in range(15):
        _client(
            workers[client % 2],
            100.0 + 0.001 * client,
            _back_to_back(100.0 + 0.001 * client, 0.0005, 0.006, 15, 1),
        )
    state = RecorderState.merge([w.state() for w in workers])
    first_start, first_end, client_start = 100.0005, 100.0065, 100.0
    last_start = 100.014 + 0.0005 + 15 * 0.006
    expected = 240 / (last_start - (first_start - (first_end - client_start)))
    result = task_result(state, task_start=100.0, task_end=last_start + 0.008)
    assert result.throughput_windows == (pytest.approx(expected, rel=1e-12),)
    assert (
        result.throughput_min == result.throughput_mean == result.throughput_median == result.throughput_max
    )
    # Not the rule this replaces: the 15 measurement requests over the time from the last warmup
    # response to the join point.
    assert result.throughput_mean != pytest.approx(15 / (last_start + 0.008 - last_start))


def test_overlapping_requests_count_the_clients_start_spread_twice_as_rally_does() -> None:
    # Two clients, one request each, both answered at 0.1 s: Rally's interval is the spread of the
    # two starts (10 ms) plus the first request's time since its client's start (100 ms).
    r = _recorder(0.0)
    _client(r, 0.0, [(0.0, 0.1, False)])
    _client(r, 0.01, [(0.01, 0.1, False)])
    assert whole_task_throughput(r.state()) == pytest.approx(2 / 0.11, rel=1e-12)


def test_a_long_warmup_and_a_short_measurement_phase_count_the_warmup_too() -> None:
    # 3 s of warmup at 10 ops/s, then 0.4 s of measurement at 50 ops/s: no complete measurement window.
    r = _recorder(0.0)
    warmup = [(0.1 * i, 0.1 * (i + 1), True) for i in range(30)]
    measured = [(3.0 + 0.02 * i, 3.0 + 0.02 * (i + 1), False) for i in range(20)]
    _client(r, 0.0, warmup + measured)
    expected = 50 / (measured[-1][0] - 0.0 + 0.1)
    assert throughput_windows(r.state(), task_start=0.0, task_end=3.4) == (
        pytest.approx(expected, rel=1e-12),
    )


def test_weights_are_docs_not_requests() -> None:
    r = _recorder(5.0, unit="docs/s")
    r.record(warmup=True, end=5.2, service_time=0.2, latency=0.2, processing_time=0.2, weight=1000)
    r.record(warmup=False, end=5.5, service_time=0.3, latency=0.3, processing_time=0.3, weight=500)
    r.note_client(client_start=5.0, first_start=5.0, first_end=5.2, last_start=5.2)
    result = task_result(r.state(), task_start=5.0, task_end=5.6)
    assert result.throughput_unit == "docs/s"
    assert result.throughput_mean == pytest.approx(1500 / (5.2 - 5.0 + 0.2), rel=1e-12)


def test_one_request_is_its_weight_over_its_time_since_the_clients_start() -> None:
    # Rally: start = absolute_time - time_period, so the interval is the request's time_period
    # (response end - the client's start), not its service time.
    r = _recorder(20.0)
    _client(r, 20.0, [(20.01, 20.05, False)])
    assert whole_task_throughput(r.state()) == pytest.approx(1 / 0.05, rel=1e-12)


def test_the_value_ends_at_the_last_requests_start_not_at_a_response_or_the_join_point() -> None:
    r = _recorder(0.0)
    _client(r, 0.0, [(0.0, 0.2, False), (0.2, 0.5, False)])
    # interval: last start 0.2 - (first start 0.0 - its 0.2 s since the client's start) = 0.4 s
    assert task_result(r.state(), task_start=0.0, task_end=0.9).throughput_mean == pytest.approx(2 / 0.4)


def test_the_earliest_first_request_of_any_worker_sets_the_start() -> None:
    early, late = _recorder(0.0), _recorder(0.0)
    _client(late, 0.05, [(0.06, 0.3, False)])
    _client(early, 0.0, [(0.02, 0.1, False)])
    merged = RecorderState.merge([late.state(), early.state()])
    # first: 0.02 with 0.1 s since its client's start; last start 0.06
    assert whole_task_throughput(merged) == pytest.approx(2 / (0.06 - 0.02 + 0.1), rel=1e-12)


def test_only_warmup_samples_give_no_throughput() -> None:
    r = _recorder(0.0)
    _client(r, 0.0, [(0.0, 0.2, True)])
    assert throughput_windows(r.state(), task_start=0.0, task_end=0.3) == ()
    assert whole_task_throughput(r.state()) is None


def test_without_the_clients_span_there_is_no_value_rather_than_a_guess() -> None:
    r = _recorder(0.0)
    r.record(warmup=False, end=0.2, service_time=0.2, latency=0.2, processing_time=0.2)
    assert r.state().request_span is None
    assert whole_task_throughput(r.state()) is None


def test_complete_measurement_windows_keep_the_per_second_values() -> None:
    # 1 s of warmup, then 3 s of measurement: the complete windows 1 and 2 are reported as they are.
    r = _recorder(0.0)
    warmup = [(0.1 * (i + 1) - 0.011, 0.1 * (i + 1) - 0.01, True) for i in range(10)]
    measured = [(1.0 + 0.05 * (i + 1) - 0.002, 1.0 + 0.05 * (i + 1) - 0.001, False) for i in range(60)]
    _client(r, 0.0, warmup + measured)
    assert throughput_windows(r.state(), task_start=0.0, task_end=4.0) == (20.0, 20.0, 20.0)


def test_the_plot_axis_of_the_single_value_starts_at_the_task_start() -> None:
    r = _recorder(30.0)
    _client(r, 30.1, [(30.1, 30.2, True), (30.2, 30.3, False)])
    state = r.state()
    assert state.origin_epoch is not None
    result = task_result(state, task_start=30.1, task_end=30.4)
    assert result.start_epoch == pytest.approx(state.origin_epoch + 0.1)
