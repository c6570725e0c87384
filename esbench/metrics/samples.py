"""The per-request sample buffer: on only when a metrics store is configured.

Rally's metrics store keeps one ``latency``, ``service_time`` and ``processing_time`` document
per request (esrally/driver/driver.py, ``SamplePostprocessor``). esbench's recorder keeps
histograms, not requests (:mod:`esbench.metrics.recorder`), so with a metrics store each task
run of a worker also gets a :class:`SampleBuffer`: :meth:`SampleBuffer.wrap` puts one call in
front of the recorder's ``record`` that appends five numbers to flat arrays (about 1 µs per
request, ``benchmarks/bench_store_samples.py``). The buffer crosses to the coordinator once, at
the task's join point, as :class:`esbench.records.RequestSamples`; documents are built and
bulk-written there, off the hot path.

The recorder itself (and its C twin ``_accumulator.c``) is unchanged: without a metrics store
there is no wrapper and no cost.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable

from esbench.records.samples import FAILED, WARMUP, RequestSamples

Record = Callable[..., None]


class SampleBuffer:
    """One task's requests in one worker process (see the module doc).

    Args:
        task / operation / operation_type: copied into :class:`RequestSamples`.
    """

    __slots__ = (
        "_epoch_offset",
        "_errors",
        "_flags",
        "_latency",
        "_processing",
        "_service",
        "_start",
        "operation",
        "operation_type",
        "task",
    )

    def __init__(self, task: str, operation: str, operation_type: str) -> None:
        self.task = task
        self.operation = operation
        self.operation_type = operation_type
        # perf_counter -> wall clock, as TaskRecorder does for its windows.
        self._epoch_offset = time.time() - time.perf_counter()
        self._start: array[float] = array("d")
        self._latency: array[float] = array("d")
        self._service: array[float] = array("d")
        self._processing: array[float] = array("d")
        self._flags: array[int] = array("B")
        self._errors: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._start)

    def wrap(self, record: Record) -> Record:
        """``record`` (a ``TaskRecorder.record``) that also appends the request to this buffer.

        The wrapper takes ``record``'s keyword arguments (``warmup``, ``end``, ``service_time``,
        ``latency``, ``processing_time`` in s, ``success``, ``error_type``...), records first,
        then keeps the request's start (``end - service_time``, perf_counter s), its three
        durations in ms and its flags.
        """
        start = self._start.append
        latency_ms = self._latency.append
        service_ms = self._service.append
        processing_ms = self._processing.append
        flags = self._flags.append
        errors = self._errors
        count = self._start

        def recording(
            *,
            warmup: bool,
            end: float,
            service_time: float,
            latency: float,
            processing_time: float,
            success: bool = True,
            error_type: str | None = None,
            **rest: float,
        ) -> None:
            record(
                warmup=warmup,
                end=end,
                service_time=service_time,
                latency=latency,
                processing_time=processing_time,
                success=success,
                error_type=error_type,
                **rest,
            )
            if not success:
                errors[len(count)] = error_type or "unknown"
            start(end - service_time)
            latency_ms(latency * 1000.0)
            service_ms(service_time * 1000.0)
            processing_ms(processing_time * 1000.0)
            flags((WARMUP if warmup else 0) | (0 if success else FAILED))

        return recording

    def samples(self, task_start: float | None) -> RequestSamples:
        """What was buffered, with wall-clock times; ``task_start`` is the task's start in this
        process's perf_counter seconds (None: unknown)."""
        offset = self._epoch_offset
        return RequestSamples(
            task=self.task,
            operation=self.operation,
            operation_type=self.operation_type,
            task_start_epoch=None if task_start is None else task_start + offset,
            start_epoch=array("d", (t + offset for t in self._start)),
            latency_ms=self._latency,
            service_time_ms=self._service,
            processing_time_ms=self._processing,
            flags=self._flags,
            error_types=dict(self._errors),
        )
