"""The compact, picklable state of a task's recorder, and how the states of worker processes merge.

A :class:`~esbench.metrics.recorder.TaskRecorder` produces a :class:`RecorderState` at the task's
join point; the coordinator merges the states of all worker processes with
:meth:`RecorderState.merge` (exactly what one recorder would have produced from all samples) and
turns the result into a ``TaskResult`` (:func:`esbench.metrics.stats.task_result`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from hdrh.histogram import HdrHistogram

from esbench.metrics.errors import merge_descriptions
from esbench.metrics.windowed import merge_window_buckets
from esbench.records import ErrorDescription

# Recording range and precision, in integer microseconds:
# - lowest 1 µs: perf_counter durations below a microsecond are noise for a network request; a 0 is
#   still recordable (it lands in the first bucket).
# - highest 24 h: more than the brief's "at least one hour" because a blocking force-merge or a slow
#   restore is a single request that can legitimately run for hours; the cost is ~5 extra buckets of
#   1024 counters (2^36 µs ≈ 19 h needs 36 - 10 doublings above the 2048-slot first bucket).
# - 3 significant digits: every recorded value is kept to within 0.1 % of its true value at any
#   magnitude (1.000 ms vs 1.001 ms; 10.00 s vs 10.01 s), far below run-to-run noise of a benchmark.
#   4 digits would multiply the counts array (memory, encode time, merge time) by ~10 for no
#   measurable benefit.
# The counts array actually ends at the next power of two (2^37 µs ≈ 38 h); values beyond that, and
# negative values, are not recorded but counted (``overflow_count``).
LOWEST_TRACKABLE_US = 1
HIGHEST_TRACKABLE_US = 24 * 3600 * 1_000_000
SIGNIFICANT_DIGITS = 3

#: Names of the three timing metrics (keys of ``RecorderState.histograms`` and ``TaskResult.histograms``).
LATENCY = "latency"
SERVICE_TIME = "service_time"
PROCESSING_TIME = "processing_time"
METRICS: tuple[str, ...] = (LATENCY, SERVICE_TIME, PROCESSING_TIME)

#: ``errors_by_type`` key for failed samples recorded without an ``error_type``.
UNKNOWN_ERROR = "unknown"


def new_histogram() -> HdrHistogram:
    """An empty HdrHistogram of integer microseconds with esbench's range and precision."""
    return HdrHistogram(LOWEST_TRACKABLE_US, HIGHEST_TRACKABLE_US, SIGNIFICANT_DIGITS)


def decode_histogram(encoded: str) -> HdrHistogram:
    """Decode a base64 HdrHistogram (``HdrHistogram.encode()`` output, V2 format) of microseconds.

    Raises:
        ValueError: the text is not a valid HdrHistogram encoding.
    """
    try:
        return HdrHistogram.decode(encoded)
    except Exception as exc:  # the package raises TypeError, zlib.error and its own exceptions
        raise ValueError(f"not a valid encoded HdrHistogram: {exc}") from exc


@dataclass(frozen=True, slots=True)
class RequestSpan:
    """The three instants of a task's requests that Rally's whole-task throughput interval is made of.

    Rally's ``ThroughputCalculator`` (esrally/driver/driver.py, ``calculate_task_throughput``) sorts a
    task's samples, warmup ones included, by ``absolute_time`` (a request's processing start) and
    starts its interval at the first sample's ``absolute_time - time_period``, where ``time_period``
    is that request's response end minus its client's start (``AsyncExecutor``'s ``total_start``);
    the interval ends at the latest sample's ``absolute_time``. So

        interval = last_start - first_start + first_lead_s

    Attributes:
        first_start: processing start of the task's earliest request (``perf_counter`` s).
        first_lead_s: that request's response end minus its client's start, in s.
        last_start: processing start of the task's latest request (``perf_counter`` s).
    """

    first_start: float
    first_lead_s: float
    last_start: float

    @property
    def interval_s(self) -> float:
        """Rally's whole-task throughput interval, in s (see the class doc)."""
        return self.last_start - self.first_start + self.first_lead_s

    def joined(self, other: RequestSpan | None) -> RequestSpan:
        """The span of both sets of requests: the earlier first request (with its lead), the later
        last start."""
        if other is None:
            return self
        first = self if self.first_start <= other.first_start else other
        return RequestSpan(first.first_start, first.first_lead_s, max(self.last_start, other.last_start))

    def shifted(self, offset_s: float) -> RequestSpan:
        """The span in a clock ``offset_s`` behind this one's (the lead is a duration: unchanged)."""
        return RequestSpan(self.first_start - offset_s, self.first_lead_s, self.last_start - offset_s)


@dataclass(frozen=True, kw_only=True)
class RecorderState:
    """Everything a :class:`TaskRecorder` measured, compact and picklable (a few KB per task).

    "Measurement" fields exclude warmup samples; the ``warmup_*`` fields hold the warmup samples,
    which are recorded but never reported.

    Attributes:
        task / operation / operation_type / throughput_unit: as given to the recorder.
        origin: ``perf_counter`` seconds of the start of throughput window 0 (None without samples).
        sample_count: measurement samples (successful and failed).
        error_count: failed measurement samples.
        errors_by_type: error type -> failed measurement samples.
        total_weight: sum of measurement sample weights (ops, docs or pages).
        service_time_sum_s: exact sum of measurement service times in seconds (for the mean).
        overflow_count: measurement durations that did not fit the histograms (negative, or more
            than ~38 h); they are counted here and left out of the percentiles.
        histograms: metric name (:data:`METRICS`) -> encoded HdrHistogram of measurement µs values.
        windows: measurement weight per 1-second window; index ``k`` covers
            ``[origin + k, origin + k + 1)``; each request's weight is spread over the windows
            it was in flight in (from request start to response end), in proportion to the
            time it spent in each (docs/metrics.md, "Throughput").
        last_end: latest measurement response end (perf_counter s), None without measurement samples.
        warmup_sample_count / warmup_error_count / warmup_weight / warmup_overflow_count /
        warmup_histograms / warmup_windows: the same for warmup samples.
        last_warmup_end: latest warmup response end (perf_counter s), None without warmup samples.
        origin_epoch: Unix epoch seconds (wall clock) of ``origin``; None without samples.
        window_buckets: window index (as in ``windows``, by response end) -> packed log-linear
            bucket counts of the measurement latencies and service times that ended in it
            (:mod:`esbench.metrics.windowed`).
        error_descriptions: the distinct failures of measurement requests with counts, most
            frequent first (:mod:`esbench.metrics.errors`).
        bytes_sent / bytes_received: bytes the measurement requests sent and received (HTTP
            messages; see :class:`esbench.driver.transport.timing.RequestTiming`).
        request_span: the first and last of the task's requests, warmup ones included, as Rally's
            whole-task throughput needs them (None before any client of the task sent one).
    """

    task: str
    operation: str
    operation_type: str
    throughput_unit: str = "ops/s"
    origin: float | None = None
    sample_count: int = 0
    error_count: int = 0
    errors_by_type: dict[str, int] = field(default_factory=dict)
    total_weight: float = 0.0
    service_time_sum_s: float = 0.0
    overflow_count: int = 0
    histograms: dict[str, str] = field(default_factory=dict)
    windows: tuple[float, ...] = ()
    last_end: float | None = None
    warmup_sample_count: int = 0
    warmup_error_count: int = 0
    warmup_weight: float = 0.0
    warmup_overflow_count: int = 0
    warmup_histograms: dict[str, str] = field(default_factory=dict)
    warmup_windows: tuple[float, ...] = ()
    last_warmup_end: float | None = None
    origin_epoch: float | None = None
    window_buckets: dict[int, bytes] = field(default_factory=dict)
    error_descriptions: tuple[ErrorDescription, ...] = ()
    bytes_sent: int = 0
    bytes_received: int = 0
    request_span: RequestSpan | None = None

    def histogram(self, metric: str, *, warmup: bool = False) -> HdrHistogram:
        """The decoded histogram (µs) of ``metric`` (one of :data:`METRICS`); empty if never recorded.

        Raises:
            KeyError: ``metric`` is not one of :data:`METRICS`.
        """
        if metric not in METRICS:
            raise KeyError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
        encoded = (self.warmup_histograms if warmup else self.histograms).get(metric)
        return decode_histogram(encoded) if encoded else new_histogram()

    @staticmethod
    def merge(states: Iterable[RecorderState]) -> RecorderState:
        """Combine the states of one task recorded in several worker processes into one.

        The result equals what a single recorder would have produced from all samples, provided all
        recorders were given the same ``origin`` (the driver passes the task start). With different
        origins each state's windows are shifted by the origin difference rounded to whole seconds,
        which misplaces a sample by up to half a second.

        Raises:
            ValueError: no states, or states of different tasks.
        """
        states = list(states)
        if not states:
            raise ValueError("RecorderState.merge needs at least one state")
        first = states[0]
        for s in states[1:]:
            if (s.task, s.operation) != (first.task, first.operation):
                raise ValueError(
                    f"cannot merge recorder states of different tasks: {first.task!r} "
                    f"(operation {first.operation!r}) and {s.task!r} (operation {s.operation!r})"
                )
        if len(states) == 1:
            return first
        origins = [s.origin for s in states if s.origin is not None]
        origin = min(origins) if origins else None
        earliest = next((s for s in states if s.origin is not None and s.origin == origin), None)

        def shift(s: RecorderState) -> int:
            return 0 if s.origin is None or origin is None else round(s.origin - origin)

        errors: dict[str, int] = {}
        for s in states:
            for k, v in s.errors_by_type.items():
                errors[k] = errors.get(k, 0) + v
        return RecorderState(
            task=first.task,
            operation=first.operation,
            operation_type=first.operation_type,
            throughput_unit=first.throughput_unit,
            origin=origin,
            sample_count=sum(s.sample_count for s in states),
            error_count=sum(s.error_count for s in states),
            errors_by_type=errors,
            total_weight=sum(s.total_weight for s in states),
            service_time_sum_s=sum(s.service_time_sum_s for s in states),
            overflow_count=sum(s.overflow_count for s in states),
            histograms=_merge_histograms([s.histograms for s in states]),
            windows=_merge_windows([(s.windows, shift(s)) for s in states]),
            last_end=_opt(max, [s.last_end for s in states]),
            warmup_sample_count=sum(s.warmup_sample_count for s in states),
            warmup_error_count=sum(s.warmup_error_count for s in states),
            warmup_weight=sum(s.warmup_weight for s in states),
            warmup_overflow_count=sum(s.warmup_overflow_count for s in states),
            warmup_histograms=_merge_histograms([s.warmup_histograms for s in states]),
            warmup_windows=_merge_windows([(s.warmup_windows, shift(s)) for s in states]),
            last_warmup_end=_opt(max, [s.last_warmup_end for s in states]),
            origin_epoch=earliest.origin_epoch if earliest is not None else None,
            window_buckets=merge_window_buckets([(s.window_buckets, shift(s)) for s in states]),
            error_descriptions=merge_descriptions(s.error_descriptions for s in states),
            bytes_sent=sum(s.bytes_sent for s in states),
            bytes_received=sum(s.bytes_received for s in states),
            request_span=_joined_spans([s.request_span for s in states]),
        )


def _joined_spans(spans: list[RequestSpan | None]) -> RequestSpan | None:
    present = [s for s in spans if s is not None]
    if not present:
        return None
    joined = present[0]
    for span in present[1:]:
        joined = joined.joined(span)
    return joined


def _opt(fn: Callable[[list[float]], float], values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fn(present) if present else None


def _merge_histograms(encoded_maps: list[dict[str, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for metric in METRICS:
        parts = [m[metric] for m in encoded_maps if m.get(metric)]
        if not parts:
            continue
        if len(parts) == 1:
            out[metric] = parts[0]
            continue
        hist = new_histogram()
        for p in parts:
            hist.add(decode_histogram(p))
        out[metric] = hist.encode().decode("ascii")
    return out


def _merge_windows(parts: list[tuple[tuple[float, ...], int]]) -> tuple[float, ...]:
    size = max((len(w) + s for w, s in parts if w), default=0)
    merged = [0.0] * size
    for windows, offset in parts:
        for k, weight in enumerate(windows):
            # A negative index can only come from a sample ending before the earliest origin, i.e. a
            # sample that belongs in window 0 anyway (see TaskRecorder.record).
            merged[max(k + offset, 0)] += weight
    return tuple(merged)
