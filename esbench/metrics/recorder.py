"""Per-task sample recording on the driver's hot path, and the compact state that crosses processes.

Each worker process owns one :class:`TaskRecorder` per task. The executor calls
:meth:`TaskRecorder.record` once per request; at the task's join point the worker sends
:meth:`TaskRecorder.state` (a small picklable :class:`RecorderState`) to the coordinator, which combines
the workers' states with :meth:`RecorderState.merge` and turns the result into a ``TaskResult`` with
:func:`esbench.metrics.stats.task_result`.

Memory is bounded by task *duration*, never by request count: durations go into preallocated
HdrHistograms (fixed size), throughput into one float per second of task time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from hdrh.histogram import HdrHistogram

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

_INF = float("inf")


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
            ``[origin + k, origin + k + 1)`` by response end time.
        first_end / last_end: earliest / latest measurement response end (perf_counter s).
        warmup_sample_count / warmup_error_count / warmup_weight / warmup_overflow_count /
        warmup_histograms / warmup_windows: the same for warmup samples.
        last_warmup_end: latest warmup response end (perf_counter s), None without warmup samples.
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
    first_end: float | None = None
    last_end: float | None = None
    warmup_sample_count: int = 0
    warmup_error_count: int = 0
    warmup_weight: float = 0.0
    warmup_overflow_count: int = 0
    warmup_histograms: dict[str, str] = field(default_factory=dict)
    warmup_windows: tuple[float, ...] = ()
    last_warmup_end: float | None = None

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
            first_end=_opt(min, [s.first_end for s in states]),
            last_end=_opt(max, [s.last_end for s in states]),
            warmup_sample_count=sum(s.warmup_sample_count for s in states),
            warmup_error_count=sum(s.warmup_error_count for s in states),
            warmup_weight=sum(s.warmup_weight for s in states),
            warmup_overflow_count=sum(s.warmup_overflow_count for s in states),
            warmup_histograms=_merge_histograms([s.warmup_histograms for s in states]),
            warmup_windows=_merge_windows([(s.warmup_windows, shift(s)) for s in states]),
            last_warmup_end=_opt(max, [s.last_warmup_end for s in states]),
        )


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


class _Phase:
    """Histograms and counters of one phase (warmup or measurement) of a task."""

    __slots__ = (
        "count",
        "error_count",
        "errors",
        "first_end",
        "last_end",
        "latency",
        "overflow",
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
        # +-inf instead of None keeps the hot path to one comparison each.
        self.first_end = _INF
        self.last_end = -_INF

    def encoded(self) -> dict[str, str]:
        if not self.count:
            return {}
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
        # record_value returns False for values outside the trackable range (or negative).
        if not phase.latency.record_value(int(latency * 1e6)):
            phase.overflow += 1
        if not phase.service_time.record_value(int(service_time * 1e6)):
            phase.overflow += 1
        if not phase.processing_time.record_value(int(processing_time * 1e6)):
            phase.overflow += 1
        k = int(end - origin)
        if k < 0:
            # Only possible when a sample ends before the given origin (or before the first sample of
            # another client): it belongs to the first window.
            k = 0
        windows = phase.windows
        try:
            windows[k] += weight
        except IndexError:
            windows.extend([0.0] * (k + 1 - len(windows)))
            windows[k] += weight
        if not success:
            self.error_count += 1
            phase.error_count += 1
            key = error_type or UNKNOWN_ERROR
            phase.errors[key] = phase.errors.get(key, 0) + 1

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
        )
