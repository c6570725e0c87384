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

import math
import time

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
    decode_histogram,
    new_histogram,
)
from esbench.metrics.windowed import EXACT_BITS, SERVICE_TIME_OFFSET, SUB_BITS, WindowBuckets

# Re-exported: callers import the recorder's vocabulary from this module.
__all__ = [
    "HIGHEST_TRACKABLE_US",
    "LATENCY",
    "LOWEST_TRACKABLE_US",
    "METRICS",
    "PROCESSING_TIME",
    "SERVICE_TIME",
    "SIGNIFICANT_DIGITS",
    "UNKNOWN_ERROR",
    "RecorderState",
    "TaskRecorder",
    "decode_histogram",
    "new_histogram",
]

_INF = float("inf")

#: Distinct values a phase keeps per metric before it adds them to its HdrHistogram (see _Phase).
PENDING_VALUES = 4096


def _largest_recordable_us() -> int:
    """The largest integer µs value ``new_histogram().record_value`` accepts (the end of its counts
    array, a little above ``HIGHEST_TRACKABLE_US``), found by bisection on a scratch histogram."""
    scratch = new_histogram()
    lo, hi = HIGHEST_TRACKABLE_US, HIGHEST_TRACKABLE_US * 4
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if scratch.record_value(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


#: Values in ``0..MAX_RECORDABLE_US`` are recorded; others count as overflow, exactly as
#: ``HdrHistogram.record_value`` decides.
MAX_RECORDABLE_US = _largest_recordable_us()


def _spread(windows: list[float], origin: float, start: float, end: float, weight: float) -> None:
    """Add ``weight`` to the windows that ``[start, end]`` (perf_counter s) overlaps, in proportion
    to the overlap; time before ``origin`` counts for window 0. Grows ``windows`` as needed."""
    lo = start - origin
    hi = end - origin
    last = max(int(hi), 0)
    if len(windows) <= last:
        windows.extend([0.0] * (last + 1 - len(windows)))
    span = hi - lo
    if span <= 0.0:
        windows[last] += weight
        return
    if lo < 0.0:
        windows[0] += weight * (min(hi, 0.0) - lo) / span
    for j in range(max(math.floor(lo), 0), last + 1):
        overlap = min(hi, j + 1.0) - max(lo, float(j))
        if overlap > 0.0:
            windows[j] += weight * overlap / span


class _Phase:
    """Histograms and counters of one phase (warmup or measurement) of a task.

    Durations are counted per distinct µs value in small dicts first (``pending``) and added to the
    HdrHistograms with one ``record_value(value, count)`` per distinct value when a dict reaches
    :data:`PENDING_VALUES` entries or the state is taken. The histograms end up with exactly the
    counts (and min/max) that recording each value would give, at a fraction of the cost: the
    pure-Python ``record_value`` takes ~0.5 µs, a dict increment ~0.06 µs, and request durations
    repeat (a search's service times span a few hundred distinct µs values).
    """

    __slots__ = (
        "buckets",
        "bytes_received",
        "bytes_sent",
        "count",
        "described",
        "error_count",
        "errors",
        "first_end",
        "last_end",
        "latency",
        "live",
        "overflow",
        "pending",
        "processing_time",
        "service_sum",
        "service_time",
        "weight",
        "windows",
    )

    def __init__(self) -> None:
        self.latency = new_histogram()
        self.service_time = new_histogram()
        self.processing_time = new_histogram()
        self.count = 0
        self.error_count = 0
        self.errors: dict[str, int] = {}
        self.weight = 0.0
        self.service_sum = 0.0
        self.overflow = 0
        self.windows: list[float] = []
        self.buckets = WindowBuckets()
        # The hot path writes the current window's bucket dict through this alias.
        self.live = self.buckets.live
        self.described = ErrorTable()
        # +-inf instead of None keeps the hot path to one comparison each.
        self.first_end = _INF
        self.last_end = -_INF
        self.bytes_sent = 0
        self.bytes_received = 0
        # latency, service time, processing time: µs value -> samples not yet in the histogram
        self.pending: tuple[dict[int, int], dict[int, int], dict[int, int]] = ({}, {}, {})

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


class TaskRecorder:
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

    __slots__ = (
        "_epoch_offset",
        "_measurement",
        "_origin",
        "_warmup",
        "count",
        "error_count",
        "operation",
        "operation_type",
        "task",
        "throughput_unit",
        "total_weight",
    )

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
        self.count = 0
        self.error_count = 0
        self.total_weight = 0.0

    def set_origin(self, origin: float) -> None:
        """Set the ``origin`` of throughput window 0 (``perf_counter`` s) of a recorder that has no
        samples yet (lets the driver build recorders before the step start is known).

        Raises:
            ValueError: the recorder already has samples (their windows depend on the origin).
        """
        if self.count:
            raise ValueError("cannot move the origin of a recorder that already has samples")
        self._origin = origin

    def record(
        self,
        *,
        warmup: bool,
        end: float,
        service_time: float,
        latency: float,
        processing_time: float,
        weight: float = 1.0,
        success: bool = True,
        error_type: str | None = None,
        sent: int = 0,
        received: int = 0,
    ) -> None:
        """Record one request (hot path: call once per request).

        Args:
            warmup: True for samples taken during the task's warmup (recorded, not reported).
            end: ``time.perf_counter()`` at response end, seconds; selects the throughput window.
            service_time / latency / processing_time: seconds (see docs/metrics.md); stored as
                integer microseconds. ``latency`` must already include the wait since the scheduled
                start, so it is recorded as is (no coordinated-omission correction here).
            weight: the request's contribution to throughput (1 op, or the documents of a bulk).
            success: False for a failed request; failed requests count in the error rate and their
                timings and weight are recorded like any other sample (as Rally does).
            error_type: short error class (HTTP status or exception name) of a failed request.
            sent / received: bytes the request sent and received (see
                :class:`esbench.driver.timing.RequestTiming`).
        """
        self.count += 1
        self.total_weight += weight
        phase = self._warmup if warmup else self._measurement
        phase.count += 1
        phase.weight += weight
        phase.service_sum += service_time
        if end < phase.first_end:
            phase.first_end = end
        if end > phase.last_end:
            phase.last_end = end
        origin = self._origin
        if origin is None:
            origin = self._origin = end
        phase.bytes_sent += sent
        phase.bytes_received += received
        latency_us = int(latency * 1e6)
        service_us = int(service_time * 1e6)
        processing_us = int(processing_time * 1e6)
        pending_latency, pending_service, pending_processing = phase.pending
        latency_ok = 0 <= latency_us <= MAX_RECORDABLE_US
        if latency_ok:
            pending_latency[latency_us] = pending_latency.get(latency_us, 0) + 1
        else:
            phase.overflow += 1
        service_ok = 0 <= service_us <= MAX_RECORDABLE_US
        if service_ok:
            pending_service[service_us] = pending_service.get(service_us, 0) + 1
        else:
            phase.overflow += 1
        if 0 <= processing_us <= MAX_RECORDABLE_US:
            pending_processing[processing_us] = pending_processing.get(processing_us, 0) + 1
        else:
            phase.overflow += 1
        if (
            len(pending_latency) >= PENDING_VALUES
            or len(pending_service) >= PENDING_VALUES
            or len(pending_processing) >= PENDING_VALUES
        ):
            phase.flush()
        k = int(end - origin)
        if k < 0:
            # Only possible when a sample ends before the given origin (or before the first sample of
            # another client): it belongs to the first window.
            k = 0
        windows = phase.windows
        if int(end - service_time - origin) == k:
            # The common case: the request was in flight within one window.
            try:
                windows[k] += weight
            except IndexError:
                windows.extend([0.0] * (k + 1 - len(windows)))
                windows[k] += weight
        else:
            _spread(windows, origin, end - service_time, end, weight)
        if not warmup:
            # Per-window percentiles: log-linear bucket index inlined from windowed.bucket_index.
            live = phase.live
            bucket = live.get(k)
            if bucket is None:
                phase.buckets.freeze_before(k - 1)
                bucket = live[k] = {}
            if latency_ok:
                bits = latency_us.bit_length()
                if bits > EXACT_BITS:
                    bits -= EXACT_BITS
                    latency_us = (bits << SUB_BITS) + (latency_us >> bits)
                bucket[latency_us] = bucket.get(latency_us, 0) + 1
            if service_ok:
                bits = service_us.bit_length()
                if bits > EXACT_BITS:
                    bits -= EXACT_BITS
                    service_us = (bits << SUB_BITS) + (service_us >> bits)
                service_us += SERVICE_TIME_OFFSET
                bucket[service_us] = bucket.get(service_us, 0) + 1
        if not success:
            self.error_count += 1
            phase.error_count += 1
            key = error_type or UNKNOWN_ERROR
            phase.errors[key] = phase.errors.get(key, 0) + 1

    def describe_error(
        self, *, warmup: bool, error_type: str, http_status: int | None, es_type: str | None, reason: str
    ) -> bool:
        """Count a failed request's description (call after :meth:`record` of that request).

        Args:
            warmup: the phase of the request, as given to :meth:`record`.
            error_type / http_status / es_type / reason: see
                :class:`esbench.results.model.ErrorDescription`.

        Returns:
            True the first time this description is seen in this phase (callers log it once).
        """
        phase = self._warmup if warmup else self._measurement
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
            first_end=m.first_end if m.count else None,
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
        )
