"""Per-request samples for the metrics store: kept by the recorder only when one is configured.

Rally's metrics store keeps one ``latency``, ``service_time`` and ``processing_time`` document
per request (esrally/driver/driver.py, ``SamplePostprocessor``). esbench's recorder keeps
histograms, not requests (:mod:`esbench.metrics.recorder`); with a metrics store,
:func:`keep_samples` gives a task's recorder a bytearray, and ``record`` (the C twin
``keep_sample`` in ``_record.c``, the Python one in ``accumulator.py``) appends each request to it
as five native doubles: a ``memcpy`` per request, no Python call, so the connection's C repeat
path stays in C (``benchmarks/bench_store_samples.py``). :func:`request_samples` turns the buffer
into :class:`esbench.records.RequestSamples` at the task's join point; the documents are built and
bulk-written there, off the hot path.

Without a metrics store ``samples`` is None and ``record`` does nothing more than before.
"""

from __future__ import annotations

import time
from array import array

from esbench.metrics.accumulator import SAMPLE
from esbench.metrics.recorder import TaskRecorder
from esbench.records.samples import RequestSamples

_WIDTH = 5


def keep_samples(recorder: TaskRecorder) -> None:
    """From now on, ``recorder.record`` keeps every request (see the module doc)."""
    recorder.samples = bytearray()
    recorder.sample_errors = {}


def request_samples(recorder: TaskRecorder, task_start: float | None) -> RequestSamples:
    """The requests ``recorder`` kept (none if it keeps none), with wall-clock times (Unix epoch s,
    this process's clock) and durations in ms.

    Args:
        task_start: the task's start, perf_counter seconds of this process (None: unknown).
    """
    # perf_counter -> wall clock, as TaskRecorder does for its windows.
    offset = time.time() - time.perf_counter()
    flat: array[float] = array("d")
    if recorder.samples:
        assert len(recorder.samples) % SAMPLE.size == 0
        flat.frombytes(bytes(recorder.samples))
    return RequestSamples(
        task=recorder.task,
        operation=recorder.operation,
        operation_type=recorder.operation_type,
        task_start_epoch=None if task_start is None else task_start + offset,
        start_epoch=array("d", (t + offset for t in flat[0::_WIDTH])),
        latency_ms=array("d", (t * 1000.0 for t in flat[1::_WIDTH])),
        service_time_ms=array("d", (t * 1000.0 for t in flat[2::_WIDTH])),
        processing_time_ms=array("d", (t * 1000.0 for t in flat[3::_WIDTH])),
        flags=array("B", (int(f) for f in flat[4::_WIDTH])),
        error_types=dict(recorder.sample_errors or {}),
    )
