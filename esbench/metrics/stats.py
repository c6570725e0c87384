"""From a task's merged :class:`RecorderState` to its reported :class:`TaskResult`.

Definitions (latency, service time, processing time, throughput windows, percentiles) are in
docs/metrics.md; this module is their implementation.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from hdrh.histogram import HdrHistogram

from esbench.metrics.ranks import rank_values
from esbench.metrics.recorder import LATENCY, METRICS, SERVICE_TIME, RecorderState
from esbench.metrics.windowed import WINDOW_PERCENTILES, window_series_ms
from esbench.records import TaskResult

# Rally's rule (esrally/metrics.py ``percentiles_for_sample_size``): the more samples, the further
# into the tail a percentile is meaningful. Upper bounds are exclusive.
_PERCENTILE_RULE: tuple[tuple[int, tuple[str, ...]], ...] = (
    (2, ("100",)),
    (10, ("50", "100")),
    (100, ("50", "90", "100")),
    (1000, ("50", "90", "99", "100")),
    (10000, ("50", "90", "99", "99.9", "100")),
)
_ALL_PERCENTILES: tuple[str, ...] = ("50", "90", "99", "99.9", "99.99", "100")

# Window boundaries are compared with a tolerance so that a window starting exactly at the task start
# (origin == task_start) is not lost to float rounding.
_EPS = 1e-9


def percentiles_for_sample_size(sample_size: int) -> tuple[str, ...]:
    """The percentile labels reported for ``sample_size`` samples (Rally's rule).

    1 → 100; 2–9 → 50, 100; 10–99 → 50, 90, 100; 100–999 → 50, 90, 99, 100;
    1000–9999 → 50, 90, 99, 99.9, 100; ≥ 10000 → 50, 90, 99, 99.9, 99.99, 100; 0 → none.
    """
    if sample_size < 1:
        return ()
    for upper, labels in _PERCENTILE_RULE:
        if sample_size < upper:
            return labels
    return _ALL_PERCENTILES


def measurement_start(state: RecorderState, *, task_start: float) -> float:
    """perf_counter seconds where the measurement period of the task begins.

    The task start when the task had no warmup samples; otherwise the end of the last warmup
    response (the earliest moment after which every response is a measurement sample).
    """
    if state.last_warmup_end is None:
        return task_start
    return max(task_start, state.last_warmup_end)


def complete_windows(state: RecorderState, *, task_start: float, task_end: float) -> range:
    """The indexes of the complete 1-second windows of the measurement period (may be empty).

    Complete windows lie entirely within ``[measurement_start, task_end]`` (see
    :func:`throughput_windows`); index ``k`` spans ``[origin + k, origin + k + 1)``.
    """
    if state.sample_count == 0 or state.origin is None:
        return range(0)
    m_start = measurement_start(state, task_start=task_start)
    end = max(task_end, state.last_end or task_end)
    first = max(0, math.ceil(m_start - state.origin - _EPS))
    last = math.floor(end - state.origin + _EPS) - 1  # inclusive
    return range(first, max(last + 1, first))


def throughput_windows(state: RecorderState, *, task_start: float, task_end: float) -> tuple[float, ...]:
    """Per-second measurement throughput values (weight per second), in time order.

    Window ``k`` spans ``[origin + k, origin + k + 1)`` and holds the weight that measurement
    requests carried during it: each request's weight is spread over the time it was in flight
    (request start to response end), in proportion to the time spent in each window
    (docs/metrics.md). Only *complete* windows count: those lying entirely within
    ``[measurement_start, task_end]``, so the partial window at the warmup/measurement boundary and
    the partial last window before the join point are left out, and a window in between without any
    request in flight counts as 0 (a stall is real). When the measurement period holds no complete
    window (a task shorter than ~2 s, or one whose measurement phase is), the single value is
    Rally's running average over the whole task (:func:`whole_task_throughput`).
    No samples, or a non-positive duration: ``()``.
    """
    windows = complete_windows(state, task_start=task_start, task_end=task_end)
    if windows:
        w = state.windows
        n = len(w)
        return tuple(w[k] if k < n else 0.0 for k in windows)
    value = whole_task_throughput(state)
    return () if value is None else (value,)


def whole_task_throughput(state: RecorderState) -> float | None:
    """The one throughput value of a task whose measurement period holds no complete window.

    Rally's rule (esrally/driver/driver.py, ``ThroughputCalculator.calculate_task_throughput``):
    Rally's throughput samples are running averages over *all* of a task's samples, warmup ones
    included; when no 1-second bucket boundary falls after the first measurement sample, it adds
    one final sample, of the measurement sample type, with that running average ("also include the
    last sample ... even if it is below the bucket interval"). So the value is

        (warmup weight + measurement weight) / interval

    in weight per second (ops/s, docs/s), with Rally's interval exactly
    (:attr:`~esbench.metrics.state.RequestSpan.interval_s`): from the first request's processing
    start less its response end since its client's start, to the last request's processing start.
    When requests overlap, the clients' start spread counts twice in it (once between the first
    and the last start, once inside the first request); that is Rally's, and kept. Dividing only
    the measurement weight by the time since the last warmup response (esbench's rule before
    issue 38) gave 5,222 ops/s where Rally gave 155 for rally-eventdata-track's ``fieldstats`` (15
    warmup and 1 measurement request per client).

    Args:
        state: the task's merged recorder state.

    Returns:
        The value, or None without measurement samples, without the clients' request span
        (:meth:`~esbench.metrics.recorder.TaskRecorder.note_client` was never called) or when the
        interval is not positive (Rally then adds no sample either).
    """
    span = state.request_span
    if state.sample_count == 0 or span is None:
        return None
    interval = span.interval_s
    if interval <= 0:
        return None
    return (state.warmup_weight + state.total_weight) / interval


def percentile_values(hist: HdrHistogram, percentiles: Sequence[float]) -> list[float]:
    """Rally's percentiles of the values recorded in ``hist``, in the histogram's unit.

    Rally's rank rule (:mod:`esbench.metrics.ranks`). Here the samples are the histogram's
    recorded values, each taken as the lowest value of its HdrHistogram bucket (within 0.1 % of
    the recorded value at 3 significant digits).

    Args:
        hist: the histogram.
        percentiles: percentiles in [0, 100].

    Returns:
        One value per percentile, in order; ``[]`` for an empty histogram.
    """
    n = hist.get_total_count()
    if n == 0:
        return []
    counts = hist.counts
    buckets = ((index, counts[index]) for index in range(min(hist.counts_len, len(counts))))
    return rank_values(buckets, n, percentiles, hist.get_value_from_index)


def _percentiles_ms(state: RecorderState, metric: str) -> dict[str, float]:
    hist = state.histogram(metric)
    labels = percentiles_for_sample_size(hist.get_total_count())
    if not labels:
        return {}
    values = percentile_values(hist, [float(p) for p in labels])
    return {label: value / 1000.0 for label, value in zip(labels, values, strict=True)}


def window_series(
    state: RecorderState, *, task_start: float, task_end: float
) -> tuple[float | None, dict[str, tuple[float | None, ...]], dict[str, tuple[float | None, ...]]]:
    """Time axis and per-window percentiles aligned with :func:`throughput_windows`.

    Returns:
        ``(start_epoch, latency_windows_ms, service_time_windows_ms)``: the Unix epoch seconds at
        which the first throughput window begins, and percentile label (:data:`WINDOW_PERCENTILES`)
        -> one value in ms per throughput window, from the measurement requests whose response
        ended in that window (None for a window in which none ended). With no complete window,
        the single throughput value covers the whole task (:func:`whole_task_throughput`): the
        task's start and the task-wide measurement percentiles are returned. ``(None, {}, {})``
        without samples.
    """
    if state.sample_count == 0 or state.origin is None or state.origin_epoch is None:
        return None, {}, {}
    windows = complete_windows(state, task_start=task_start, task_end=task_end)
    if windows:
        latency, service = window_series_ms(state.window_buckets, windows)
        return state.origin_epoch + windows[0], latency, service

    def whole(metric: str) -> dict[str, tuple[float | None, ...]]:
        hist = state.histogram(metric)
        values = percentile_values(hist, [float(p) for p in WINDOW_PERCENTILES])
        if not values:  # every value was outside the histogram range
            return {}
        return {label: (v / 1000.0,) for label, v in zip(WINDOW_PERCENTILES, values, strict=True)}

    return state.origin_epoch + (task_start - state.origin), whole(LATENCY), whole(SERVICE_TIME)


def _summary(values: Sequence[float]) -> tuple[float | None, float | None, float | None, float | None]:
    if not values:
        return None, None, None, None
    return min(values), statistics.fmean(values), statistics.median(values), max(values)


def task_result(
    state: RecorderState, *, task_start: float, task_end: float, include_in_reporting: bool = True
) -> TaskResult:
    """Compute the reported result of one task from its (merged) recorder state.

    Args:
        state: the task's recorder state (merge the workers' states first).
        task_start / task_end: ``perf_counter`` seconds when the task's first client began it and
            its last client finished it (for a task on its own: the join points around it).
        include_in_reporting: False hides the task from the summary (administrative tasks).

    Returns:
        TaskResult with throughput Min/Mean/Median/Max over the complete 1-second measurement
        windows (see :func:`throughput_windows`), latency / service time / processing time
        percentiles in ms with Rally's sample-count rule, mean service time (exact, not from the
        histogram), error counts and descriptions, the measurement duration, the encoded
        histograms, and the per-window series (:func:`window_series`).
    """
    windows = throughput_windows(state, task_start=task_start, task_end=task_end)
    t_min, t_mean, t_median, t_max = _summary(windows)
    duration = (
        max(0.0, task_end - measurement_start(state, task_start=task_start)) if state.sample_count else 0.0
    )
    latency, service_time, processing_time = (_percentiles_ms(state, m) for m in METRICS)
    start_epoch, latency_windows, service_time_windows = window_series(
        state, task_start=task_start, task_end=task_end
    )
    return TaskResult(
        task=state.task,
        operation=state.operation,
        operation_type=state.operation_type,
        throughput_unit=state.throughput_unit,
        throughput_min=t_min,
        throughput_mean=t_mean,
        throughput_median=t_median,
        throughput_max=t_max,
        throughput_windows=windows,
        latency_ms=latency,
        service_time_ms=service_time,
        processing_time_ms=processing_time,
        mean_service_time_ms=(
            state.service_time_sum_s / state.sample_count * 1000.0 if state.sample_count else None
        ),
        sample_count=state.sample_count,
        error_count=state.error_count,
        errors_by_type=dict(state.errors_by_type),
        total_weight=state.total_weight,
        duration_s=duration,
        histograms=dict(state.histograms),
        include_in_reporting=include_in_reporting,
        warmup_sample_count=state.warmup_sample_count,
        overflow_count=state.overflow_count,
        start_epoch=start_epoch,
        latency_windows_ms=latency_windows,
        service_time_windows_ms=service_time_windows,
        error_descriptions=state.error_descriptions,
        bytes_sent=state.bytes_sent,
        bytes_received=state.bytes_received,
    )
