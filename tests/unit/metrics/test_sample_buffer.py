"""Per-request samples for the metrics store (on only with one): the recorder keeps exactly what it
was given, records the same state as without, and ``request_samples`` turns them into Rally's units.
The C twin and the Python one keep identical bytes (test_accumulator_equivalence.py)."""

from __future__ import annotations

from array import array
from dataclasses import replace

import pytest

from esbench.metrics.recorder import TaskRecorder
from esbench.metrics.samples import keep_samples, request_samples
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
    {
        "warmup": False,
        "end": 11.200,
        "service_time": 0.001,
        "latency": 0.001,
        "processing_time": 0.001,
        "success": False,
    },
]


def _recorder() -> TaskRecorder:
    return TaskRecorder(task="t", operation="op", operation_type="bulk", origin=10.0)


def test_keeping_samples_records_the_same_state() -> None:
    plain, keeping = _recorder(), _recorder()
    keep_samples(keeping)
    for request in _REQUESTS:
        plain.record(**request)
        keeping.record(**request)
    # origin_epoch is each recorder's wall clock at construction: the only field that may differ.
    assert replace(keeping.state(), origin_epoch=None) == replace(plain.state(), origin_epoch=None)
    assert plain.samples is None and keeping.samples is not None and len(keeping.samples) == 4 * 5 * 8


def test_samples_keep_each_request_in_ms_with_wall_clock_starts() -> None:
    recorder = _recorder()
    keep_samples(recorder)
    for request in _REQUESTS:
        recorder.record(**request)
    samples = request_samples(recorder, task_start=10.0)
    assert list(samples.latency_ms) == pytest.approx([9.0, 4.0, 50.0, 1.0])
    assert list(samples.service_time_ms) == pytest.approx([8.0, 4.0, 20.0, 1.0])
    assert list(samples.processing_time_ms) == pytest.approx([8.5, 4.5, 20.5, 1.0])
    assert list(samples.flags) == [WARMUP, 0, FAILED, FAILED]
    assert samples.error_types == {2: "429", 3: "unknown"}
    assert samples.task_start_epoch is not None
    # Starts are end - service time, shifted to the wall clock like the task start.
    relative = [s - samples.task_start_epoch for s in samples.start_epoch]
    assert relative == pytest.approx([0.002, 0.516, 1.080, 1.199], abs=1e-6)


def test_a_recorder_without_samples_gives_none() -> None:
    recorder = _recorder()
    recorder.record(**_REQUESTS[0])
    assert len(request_samples(recorder, None)) == 0


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
