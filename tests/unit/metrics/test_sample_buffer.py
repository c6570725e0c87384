"""The per-request sample buffer (on only with a metrics store): it records exactly what the
recorder records and keeps every request's times for Rally's ``latency``/``service_time``/
``processing_time`` documents."""

from __future__ import annotations

from array import array
from dataclasses import replace

import pytest

from esbench.metrics.recorder import TaskRecorder
from esbench.metrics.samples import SampleBuffer
from esbench.records.samples import FAILED, WARMUP, RequestSamples

_REQUESTS = [
    {"warmup": True, "end": 10.010, "service_time": 0.008, "latency": 0.009, "processing_time": 0.0085},
    {
        "warmup": False,
        "end": 10.520,
        "service_time": 0.004,
        "latency": 0.004,
        "processing_time": 0.0045,
        "weight": 500.0,
        "sent": 100,
        "received": 20,
    },
    {
        "warmup": False,
        "end": 11.100,
        "service_time": 0.020,
        "latency": 0.050,
        "processing_time": 0.0205,
        "success": False,
        "error_type": "429",
    },
]


def _recorder() -> TaskRecorder:
    return TaskRecorder(task="t", operation="op", operation_type="bulk", origin=10.0)


def test_wrapped_record_records_the_same_state() -> None:
    plain, wrapped = _recorder(), _recorder()
    buffer = SampleBuffer("t", "op", "bulk")
    record = buffer.wrap(wrapped.record)
    for request in _REQUESTS:
        plain.record(**request)
        record(**request)
    # origin_epoch is each recorder's wall clock at construction: the only field that may differ.
    assert replace(wrapped.state(), origin_epoch=None) == replace(plain.state(), origin_epoch=None)
    assert len(buffer) == 3


def test_samples_keep_each_request_in_ms_with_wall_clock_starts() -> None:
    buffer = SampleBuffer("t", "op", "bulk")
    record = buffer.wrap(_recorder().record)
    for request in _REQUESTS:
        record(**request)
    samples = buffer.samples(task_start=10.0)
    assert list(samples.latency_ms) == pytest.approx([9.0, 4.0, 50.0])
    assert list(samples.service_time_ms) == pytest.approx([8.0, 4.0, 20.0])
    assert list(samples.processing_time_ms) == pytest.approx([8.5, 4.5, 20.5])
    assert list(samples.flags) == [WARMUP, 0, FAILED]
    assert samples.error_types == {2: "429"}
    assert samples.task_start_epoch is not None
    # Starts are end - service time, shifted to the wall clock like the task start.
    relative = [s - samples.task_start_epoch for s in samples.start_epoch]
    assert relative == pytest.approx([0.002, 0.516, 1.080], abs=1e-6)


def test_merge_concatenates_workers_and_shifts_error_positions() -> None:
    def part(start: float, n: int, errors: dict[int, str]) -> RequestSamples:
        return RequestSamples(
            task="t",
            operation="op",
            operation_type="search",
            task_start_epoch=start,
            start_epoch=array("d", [start + i for i in range(n)]),
            latency_ms=array("d", [1.0] * n),
            service_time_ms=array("d", [1.0] * n),
            processing_time_ms=array("d", [1.0] * n),
            flags=array("B", [FAILED if i in errors else 0 for i in range(n)]),
            error_types=errors,
        )

    merged = RequestSamples.merge([part(5.0, 2, {1: "500"}), part(4.0, 3, {0: "timeout"})])
    assert len(merged) == 5 and merged.task_start_epoch == 4.0
    assert merged.error_types == {1: "500", 2: "timeout"}
    assert list(merged.flags) == [0, FAILED, FAILED, 0, 0]
    with pytest.raises(ValueError):
        RequestSamples.merge([])
