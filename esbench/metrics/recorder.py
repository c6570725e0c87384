"""Per-task sample recording on the driver's hot path, and the compact state that crosses processes.

Each worker process owns one :class:`TaskRecorder` per task. The executor calls
:meth:`TaskRecorder.record` once per request; at the task's join point the worker sends
:meth:`TaskRecorder.state` (a small picklable :class:`RecorderState`) to the coordinator, which combines
the workers' states with :meth:`RecorderState.merge` and turns the result into a ``TaskResult`` with
:func:`esbench.metrics.stats.task_result`.

Memory is bounded by task *duration*, never by request count: durations go into preallocated
HdrHistograms (fixed size), throughput into one float per second of task time, per-second
percentiles into a few dozen packed bucket counts per second (:mod:`esbench.metrics.windowed`),
failure reasons into a table of at most ``MAX_DESCRIPTIONS`` entries (:mod:`esbench.metrics.errors`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from esbench.metrics.accumulator import MAX_RECORDABLE_US, PENDING_VALUES
from esbench.metrics.errors import ErrorTable
from esbench.metrics.state import (
    HIGHEST_TRACKABLE_US,
    LATENCY,
    LOWEST_TRACKABLE_US,
    METRICS,
    PROCESSING_TIME,
    SERVICE_TIME,
    SIGNIFICANT_DIGITS,
    UNKNOWN_ERROR,
    RecorderState,
    RequestSpan,
    decode_histogram,
    new_histogram,
)
from esbench.metrics.windowed import WindowBuckets

if TYPE_CHECKING:  # the C classes have the same attributes and record() as the Python ones
    from esbench.metrics.accumulator import PyPhaseCounters as PhaseCounters
    from esbench.metrics.accumulator import PyRecorderCore as RecorderCore
else:
    from esbench.metrics.accumulator import PhaseCounters, RecorderCore

_INF = float("inf")

# Re-exported: callers import the recorder's vocabulary from this module.
__all__ = [
    "HIGHEST_TRACKABLE_US",
    "LATENCY",
    "LOWEST_TRACKABLE_US",
    "MAX_RECORDABLE_US",
    "METRICS",
    "PENDING_VALUES",
    "PROCESSING_TIME",
    "SERVICE_TIME",
    "SIGNIFICANT_DIGITS",
    "UNKNOWN_ERROR",
    "RecorderState",
    "RequestSpan",
    "TaskRecorder",
    "decode_histogram",
    "new_histogram",
]


class _Phase(PhaseCounters):
    """Histograms and counters of one phase (warmup or measurement) of a task.

    The counters written per request are those of :class:`esbench.metrics.accumulator.PhaseCounters`
    (C or Python). Durations are counted per distinct µs value in small dicts first (``pending``)
    and added to the HdrHistograms with one ``record_value(value, count)`` per distinct value when a
    dict reaches :data:`PENDING_VALUES` entries or the state is taken. The histograms end up with
    exactly the counts (and min/max) that recording each value would give, at a fraction of the
    cost: the pure-Python ``record_value`` takes ~0.5 µs, a dict increment ~0.06 µs, and request
    durations repeat (a search's service times span a few hundred distinct µs values).
    """

    __slots__ = ("described", "latency", "processing_time", "service_time")

    def __init__(self) -> None:
        self.latency = new_histogram()
        self.service_time = new_histogram()
        self.processing_time = new_histogram()
        self.count = 0
        self.error_count = 0
        self.errors = {}
        self.weight = 0.0
        self.service_sum = 0.0
        self.overflow = 0
        self.windows = []
        self.buckets = WindowBuckets()
        # The hot path writes the current window's bucket dict through this alias.
        self.live = self.buckets.live
        self.described = ErrorTable()
        # -inf instead of None keeps the hot path to one comparison.
        self.last_end = -_INF
        self.bytes_sent = 0
        self.bytes_received = 0
        # latency, service time, processing time: µs value -> samples not yet in the histogram
        self.pending = ({}, {}, {})

    def flush(self) -> None:
        """Add the pending counts to the histograms."""
        for histogram, pending in zip(
            (self.latency, self.service_time, self.processing_time), self.pending, strict=True
        ):
            record = histogram.record_value
            for value, count in pending.items():
                record(value, count)
            pending.clear()

    def encoded(self) -> dict[str, str]:
        if not self.count:
            return {}
        self.flush()
        return {
            LATENCY: self.latency.encode().decode("ascii"),
            SERVICE_TIME: self.service_time.encode().decode("ascii"),
            PROCESSING_TIME: self.processing_time.encode().decode("ascii"),
        }


class TaskRecorder(RecorderCore):
    """Records the samples of one task in one process; cheap enough to call per request.

    Args:
        task / operation / operation_type: names copied into the result.
        throughput_unit: unit of the sample weights per second: ``"ops/s"`` (weight 1 per request),
            ``"docs/s"`` (bulk: weight = documents in the request), ``"pages/s"`` (paginated search).
        origin: ``time.perf_counter()`` seconds where throughput window 0 starts. Pass the task start,
            the same value in every worker process, so that the 1-second windows of all workers line
            up and merge exactly (perf_counter is CLOCK_MONOTONIC, shared by the processes of one
            machine). Defaults to the ``end`` of the first recorded sample, which is only exact for a
            single recorder.

    Live counters (read by progress displays; warmup and measurement samples together):
    ``count`` (samples), ``error_count`` (failed samples), ``total_weight`` (sum of weights).
    """

    __slots__ = ("_epoch_offset", "_span", "operation", "operation_type", "task", "throughput_unit")

    def __init__(
        self,
        *,
        task: str,
        operation: str,
        operation_type: str,
        throughput_unit: str = "ops/s",
        origin: float | None = None,
    ) -> None:
        self.task = task
        self.operation = operation
        self.operation_type = operation_type
        self.throughput_unit = throughput_unit
        self._origin = origin
        # perf_counter -> wall clock, for the epoch time of window 0 (reports plot against it).
        self._epoch_offset = time.time() - time.perf_counter()
        self._warmup = _Phase()
        self._measurement = _Phase()
        self._span: RequestSpan | None = None
        self.count = 0
        self.error_count = 0
        self.total_weight = 0.0
        # Per-request samples, only with a metrics store (esbench.metrics.samples.keep_samples).
        self.samples = None
        self.sample_errors = None

    def set_origin(self, origin: float) -> None:
        """Set the ``origin`` of throughput window 0 (``perf_counter`` s) of a recorder that has no
        samples yet (lets the driver build recorders before the step start is known).

        Raises:
            ValueError: the recorder already has samples (their windows depend on the origin).
        """
        if self.count:
            raise ValueError("cannot move the origin of a recorder that already has samples")
        self._origin = origin

    def note_client(
        self, *, client_start: float, first_start: float, first_end: float, last_start: float
    ) -> None:
        """Note one client's first and last request of the task, once the client is done with it
        (not per request: the hot path stays as it is). Rally's whole-task throughput interval is
        made of these (:class:`RequestSpan`).

        Args:
            client_start: when the client began the task (Rally's ``total_start``), ``perf_counter`` s.
            first_start / first_end: processing start and response end of its first request (s).
            last_start: processing start of its last request (s).
        """
        span = RequestSpan(first_start, first_end - client_start, last_start)
        self._span = span.joined(self._span)

    def describe_error(
        self, *, warmup: bool, error_type: str, http_status: int | None, es_type: str | None, reason: str
    ) -> bool:
        """Count a failed request's description (call after :meth:`record` of that request).

        Args:
            warmup: the phase of the request, as given to :meth:`record`.
            error_type / http_status / es_type / reason: see
                :class:`esbench.records.ErrorDescription`.

        Returns:
            True the first time this description is seen in this phase (callers log it once).
        """
        phase: _Phase = self._warmup if warmup else self._measurement
        return phase.described.add(error_type, http_status, es_type, reason)

    def state(self) -> RecorderState:
        """A snapshot of everything recorded so far (encodes the histograms; a few ms)."""
        m = self._measurement
        w = self._warmup
        return RecorderState(
            task=self.task,
            operation=self.operation,
            operation_type=self.operation_type,
            throughput_unit=self.throughput_unit,
            origin=self._origin,
            sample_count=m.count,
            error_count=m.error_count,
            errors_by_type=dict(m.errors),
            total_weight=m.weight,
            service_time_sum_s=m.service_sum,
            overflow_count=m.overflow,
            histograms=m.encoded(),
            windows=tuple(m.windows),
            last_end=m.last_end if m.count else None,
            warmup_sample_count=w.count,
            warmup_error_count=w.error_count,
            warmup_weight=w.weight,
            warmup_overflow_count=w.overflow,
            warmup_histograms=w.encoded(),
            warmup_windows=tuple(w.windows),
            last_warmup_end=w.last_end if w.count else None,
            origin_epoch=self._origin + self._epoch_offset if self._origin is not None else None,
            window_buckets=m.buckets.encoded(),
            error_descriptions=m.described.descriptions(),
            bytes_sent=m.bytes_sent,
            bytes_received=m.bytes_received,
            request_span=self._span,
        )
