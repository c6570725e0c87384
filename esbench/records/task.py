"""What the load driver measures for one task: :class:`TaskResult` and its :class:`ErrorDescription` rows.

Produced by ``esbench.metrics`` (from the driver's samples), carried by ``esbench.driver``, stored by
``esbench.results`` and shown by ``esbench.reporting``: a ground-floor record, so none of those
stages imports another to name it. All times are milliseconds, throughput is in ``throughput_unit``
(``ops/s``, ``docs/s``, ...), error rates are fractions in [0, 1] (reports show them as %).
Percentile keys are strings as Rally prints them: ``"50"``, ``"90"``, ``"99"``, ``"99.9"``,
``"99.99"``, ``"100"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, kw_only=True)
class ErrorDescription:
    """One distinct kind of failed request of a task and how many requests failed that way.

    Attributes:
        error_type: the key of ``TaskResult.errors_by_type`` (HTTP status as text, ``timeout``,
            ``bulk``, a plugin runner's ``error-type``).
        http_status: the response's HTTP status; for a bulk request with failed items, the status
            of its first failed item; None without a response.
        es_type: Elasticsearch's ``error.type`` (``parsing_exception``...), None if the failure
            has none.
        reason: Elasticsearch's ``error.reason`` (with the root cause when the top-level reason is
            only a summary such as "all shards failed"), or the runner's error description.
        count: failed measurement requests with exactly this description.
    """

    error_type: str
    http_status: int | None = None
    es_type: str | None = None
    reason: str = ""
    count: int = 0


@dataclass(frozen=True, kw_only=True)
class TaskResult:
    """Measured results of one task (measurement samples only; warmup excluded).

    Attributes:
        task: task name.
        operation: operation name.
        operation_type: operation type (``"bulk"``, ``"search"``...).
        throughput_unit: unit of the throughput fields (``"ops/s"``, ``"docs/s"``).
        throughput_min / throughput_mean / throughput_median / throughput_max: over the per-second
            measurement windows (see docs/metrics.md); None when there was no full window.
        throughput_windows: the per-second window values, in time order.
        latency_ms / service_time_ms / processing_time_ms: percentile label -> milliseconds, with the
            labels chosen by the sample-count rule (Rally: percentiles shown depend on sample count).
        mean_service_time_ms: arithmetic mean service time in ms (None without samples).
        sample_count: measurement requests (successful and failed).
        error_count: failed measurement requests.
        errors_by_type: error type (HTTP status or exception name) -> failed requests; the
            values add up to ``error_count`` (a bulk request with failed items counts once, as
            ``"bulk"``).
        total_weight: sum of request weights (docs for bulk, ops otherwise) during measurement.
        duration_s: measurement duration in seconds.
        histograms: metric name (``"latency"``, ``"service_time"``, ``"processing_time"``) -> base64
            HdrHistogram encoding of microsecond values, so percentiles can be recomputed and merged.
        include_in_reporting: False for administrative tasks hidden from the summary.
        warmup_sample_count: warmup requests (recorded, not reported).
        overflow_count: measurement durations that did not fit the histograms (negative or more than
            ~38 h); counted, but missing from the percentiles.
        item_errors_by_status: failed *documents* of bulk requests by item status (``"409"``,
            ``"shards-failed"``) -> count, measurement samples only; empty for other operations.
        start_epoch: Unix epoch seconds (wall clock) at which window 0 of ``throughput_windows``
            and of the ``*_windows_ms`` series begins; None for races stored before it existed.
        latency_windows_ms / service_time_windows_ms: percentile label (``"50"``, ``"90"``,
            ``"99"``, ``"100"``) -> one value in ms per 1-second window, aligned with
            ``throughput_windows``; empty when not recorded. A window in which no measurement
            response ended has None (JSON null) instead of a value.
        error_descriptions: the distinct failures of the task's measurement requests (see
            :class:`ErrorDescription`), most frequent first, at most
            ``esbench.metrics.errors.MAX_DESCRIPTIONS``; failed requests beyond them are
            ``error_count`` minus the sum of their counts.
        bytes_sent / bytes_received: bytes the measurement requests sent and received, HTTP
            messages as the load driver handled them (:class:`esbench.driver.transport.timing.RequestTiming`);
            0 for races stored before they were counted. Rates: :attr:`sent_bytes_per_s`,
            :attr:`received_bytes_per_s`.
    """

    task: str
    operation: str
    operation_type: str
    throughput_unit: str = "ops/s"
    throughput_min: float | None = None
    throughput_mean: float | None = None
    throughput_median: float | None = None
    throughput_max: float | None = None
    throughput_windows: tuple[float, ...] = ()
    latency_ms: dict[str, float] = field(default_factory=dict)
    service_time_ms: dict[str, float] = field(default_factory=dict)
    processing_time_ms: dict[str, float] = field(default_factory=dict)
    mean_service_time_ms: float | None = None
    sample_count: int = 0
    error_count: int = 0
    errors_by_type: dict[str, int] = field(default_factory=dict)
    total_weight: float = 0.0
    duration_s: float = 0.0
    histograms: dict[str, str] = field(default_factory=dict)
    include_in_reporting: bool = True
    warmup_sample_count: int = 0
    overflow_count: int = 0
    item_errors_by_status: dict[str, int] = field(default_factory=dict)
    start_epoch: float | None = None
    latency_windows_ms: dict[str, tuple[float | None, ...]] = field(default_factory=dict)
    service_time_windows_ms: dict[str, tuple[float | None, ...]] = field(default_factory=dict)
    error_descriptions: tuple[ErrorDescription, ...] = ()
    bytes_sent: int = 0
    bytes_received: int = 0

    @property
    def error_rate(self) -> float:
        """Failed / total measurement requests, a fraction in [0, 1] (0 without samples)."""
        return self.error_count / self.sample_count if self.sample_count else 0.0

    @property
    def reported(self) -> bool:
        """Whether reports show this task: an operation included in reporting, or any task with a
        failed measurement request (an administrative ``create-index`` or ``force-merge`` too).

        Rally 2.13's rule (``esrally/metrics.py``, ``GlobalStatsCalculator.__call__``:
        ``task.operation.include_in_reporting or error_rate > 0``).
        """
        return self.include_in_reporting or self.error_count > 0

    @property
    def sent_bytes_per_s(self) -> float | None:
        """Mean bytes/s sent during the measurement (``bytes_sent / duration_s``); None without a
        duration."""
        return self.bytes_sent / self.duration_s if self.duration_s > 0 else None

    @property
    def received_bytes_per_s(self) -> float | None:
        """Mean bytes/s received during the measurement (``bytes_received / duration_s``); None
        without a duration."""
        return self.bytes_received / self.duration_s if self.duration_s > 0 else None


def describe_line(d: ErrorDescription) -> str:
    """One line for reports and logs: ``HTTP 400 parsing_exception: unknown query [foo]``."""
    head = f"HTTP {d.http_status}" if d.http_status is not None else d.error_type
    if d.error_type not in (str(d.http_status), head):
        head = f"{d.error_type}, {head}"
    if d.es_type:
        head += f" {d.es_type}"
    return f"{head}: {d.reason}" if d.reason else head
