"""The per-request half of :class:`esbench.metrics.recorder.TaskRecorder`: counters and ``record``.

Two implementations with the same behaviour:

- :class:`PyPhaseCounters` / :class:`PyRecorderCore` here, in Python: the reference, and what runs
  where the C extension was not built (``pip install`` on a machine without a C compiler);
- ``esbench.metrics._accumulator`` (``_accumulator.c``), the same algorithm in C, ~5x cheaper per
  request (``python benchmarks/bench_recorder.py``); it calls back into Python only for the rare
  steps (a pending-dict flush, a request that spans windows, a new per-second bucket).

:data:`PhaseCounters` and :data:`RecorderCore` are the implementation in use: the compiled one if
it imports, unless the environment variable ``ESBENCH_PURE_PYTHON`` asks for Python (see
:mod:`esbench._compiled`). ``tests/unit/metrics/test_accumulator_equivalence.py`` feeds both the
same samples and requires identical states.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from esbench._compiled import load
from esbench.metrics.state import HIGHEST_TRACKABLE_US as _HIGHEST_TRACKABLE_US
from esbench.metrics.state import UNKNOWN_ERROR, new_histogram
from esbench.metrics.windowed import EXACT_BITS, SERVICE_TIME_OFFSET, SUB_BITS

_INF = float("inf")

#: Distinct values a phase keeps per metric before it adds them to its HdrHistogram (see
#: :class:`esbench.metrics.recorder._Phase`).
PENDING_VALUES = 4096

#: One kept request in ``RecorderCore.samples``: start (end - service time), latency, service
#: time, processing time (s) and flags (:data:`SAMPLE_WARMUP`, :data:`SAMPLE_FAILED`), native doubles.
SAMPLE = struct.Struct("@5d")
SAMPLE_WARMUP = 1
SAMPLE_FAILED = 2


def _largest_recordable_us() -> int:
    """The largest integer µs value ``new_histogram().record_value`` accepts (the end of its counts
    array, a little above ``HIGHEST_TRACKABLE_US``), found by bisection on a scratch histogram."""
    scratch = new_histogram()
    lo, hi = _HIGHEST_TRACKABLE_US, _HIGHEST_TRACKABLE_US * 4
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


def spread(windows: list[float], origin: float, start: float, end: float, weight: float) -> None:
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


class PyPhaseCounters:
    """Counters of one phase (warmup or measurement) of a task, written per request.

    ``pending`` (three dicts: latency, service time, processing time; µs value -> samples not yet in
    the histogram), ``windows`` (weight per 1-second window), ``live`` (window -> per-second bucket
    counts, the alias of ``buckets.live``), ``buckets`` (a :class:`esbench.metrics.windowed.WindowBuckets`)
    and ``errors`` (error type -> count) are set by the subclass; ``flush()`` is the subclass's too.
    """

    __slots__ = (
        "buckets",
        "bytes_received",
        "bytes_sent",
        "count",
        "error_count",
        "errors",
        "last_end",
        "live",
        "overflow",
        "pending",
        "service_sum",
        "weight",
        "windows",
    )

    count: int
    error_count: int
    overflow: int
    weight: float
    service_sum: float
    last_end: float
    bytes_sent: int
    bytes_received: int
    pending: tuple[dict[int, int], dict[int, int], dict[int, int]]
    windows: list[float]
    live: dict[int, dict[int, int]]
    buckets: Any
    errors: dict[str, int]

    def flush(self) -> None:  # pragma: no cover - replaced by the subclass
        raise NotImplementedError


class PyRecorderCore:
    """The live counters of a task recorder and its per-request :meth:`record`.

    ``_warmup`` and ``_measurement`` (:class:`PyPhaseCounters` subclasses) and ``_origin``
    (``perf_counter`` s of window 0, or None until the first sample) are set by the subclass.
    ``samples``: None, or a bytearray to which :meth:`record` appends every request as one
    :data:`SAMPLE` (only with a metrics store: Rally keeps each request there);
    ``sample_errors``: position in ``samples`` of a failed request -> its error type.
    """

    __slots__ = (
        "_measurement",
        "_origin",
        "_warmup",
        "count",
        "error_count",
        "sample_errors",
        "samples",
        "total_weight",
    )

    count: int
    error_count: int
    total_weight: float
    _origin: float | None
    _warmup: Any
    _measurement: Any
    samples: bytearray | None
    sample_errors: dict[int, str] | None

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
        """Record one request (hot path: call once per request; the C twin is ``_accumulator.c``).

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
                :class:`esbench.driver.transport.timing.RequestTiming`).
        """
        # Over 80 lines on purpose: this is the specification of ``core_record`` in _record.c, one
        # C function, and mirrors it step by step (CONTRIBUTING.md, "C twins"); splitting it would
        # also add calls to the per-request path. Change both together.
        self.count += 1
        self.total_weight += weight
        phase = self._warmup if warmup else self._measurement
        phase.count += 1
        phase.weight += weight
        phase.service_sum += service_time
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
            spread(windows, origin, end - service_time, end, weight)
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
        samples = self.samples
        if samples is not None:
            # keep_sample in _record.c.
            if not success:
                if not isinstance(self.sample_errors, dict):
                    raise TypeError("sample_errors must be a dict when samples are kept")
                self.sample_errors[len(samples) // SAMPLE.size] = error_type or UNKNOWN_ERROR
            flags = (SAMPLE_WARMUP if warmup else 0) | (0 if success else SAMPLE_FAILED)
            samples += SAMPLE.pack(end - service_time, latency, service_time, processing_time, flags)


_C = load("esbench.metrics._accumulator")
if _C is not None:
    _C.configure(
        max_recordable_us=MAX_RECORDABLE_US,
        pending_values=PENDING_VALUES,
        exact_bits=EXACT_BITS,
        sub_bits=SUB_BITS,
        service_time_offset=SERVICE_TIME_OFFSET,
        unknown_error=UNKNOWN_ERROR,
        spread=spread,
    )
#: True if the C implementation is in use.
COMPILED = _C is not None
#: The phase-counter and recorder-core base classes in use (C if built, else Python).
PhaseCounters: type[PyPhaseCounters] = _C.PhaseCounters if _C is not None else PyPhaseCounters
RecorderCore: type[PyRecorderCore] = _C.RecorderCore if _C is not None else PyRecorderCore
