"""The result of a race: what the metrics stage produces and the reporting and store stages consume.

All times are milliseconds, throughput is in ``throughput_unit`` (``ops/s``, ``docs/s``, ...),
error rates are fractions in [0, 1] (reports show them as %). Percentile keys are strings as Rally
prints them: ``"50"``, ``"90"``, ``"99"``, ``"99.9"``, ``"99.99"``, ``"100"``.
``to_dict``/``from_dict`` give the JSON shape of ``results.json`` and of the results store.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from esbench.telemetry.model import TelemetrySeries

RESULTS_FORMAT_VERSION = 1


class RaceStatus(StrEnum):
    """How a race ended (``RaceResult.status``; stored and written to ``results.json`` as its value)."""

    #: Every task ran to its end.
    COMPLETED = "completed"
    #: An error stopped the race (``--on-error=abort``, a refused connection, a dead worker...).
    FAILED = "failed"
    #: Ctrl-C stopped the race.
    INTERRUPTED = "interrupted"


STATUS_COMPLETED = RaceStatus.COMPLETED
STATUS_FAILED = RaceStatus.FAILED
STATUS_INTERRUPTED = RaceStatus.INTERRUPTED


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


@dataclass(frozen=True, kw_only=True)
class ClusterMetric:
    """One cluster-level row of the summary (Rally's rows above the per-task rows).

    Example: ``ClusterMetric(name="Cumulative indexing time of primary shards", value=12.3, unit="min")``.
    ``task`` is empty for cluster-wide rows and names a shard aggregate's qualifier otherwise.
    """

    name: str
    value: float
    unit: str
    task: str = ""


@dataclass(frozen=True, kw_only=True)
class RaceResult:
    """Everything stored about one race.

    Attributes:
        race_id: UUID4 string.
        timestamp: race start, ISO-8601 UTC (``2026-11-21T20:10:18Z``).
        track / challenge: names.
        track_params: the ``--track-params`` given.
        car: car name(s), e.g. ``"defaults,4gheap"``; ``"external"`` for benchmark-only.
        car_params: ``--car-params``.
        user_tags: ``--user-tag`` key/values.
        pipeline: ``from-distribution`` or ``benchmark-only``.
        distribution_version: the version esbench provisioned (None for benchmark-only).
        track_repository / track_revision: the track repository and the commit the track came from
            (None for built-in, user and --track-path tracks).
        cluster_version: the version reported by the target cluster.
        cluster_nodes: number of nodes in the target cluster.
        esbench_version: version of esbench that ran the race.
        test_mode: True for ``--test-mode`` races.
        status: a :class:`RaceStatus` value (``completed``, ``failed`` or ``interrupted``); a plain
            string when read back from ``results.json`` or the store, equal to the member.
        error: the error message for failed/interrupted races.
        duration_s: wall time of the race in seconds.
        tasks: per-task results in schedule order.
        cluster_metrics: cluster-level rows (from ``_stats``/``_nodes/stats`` at the end), and the
            summary rows of telemetry devices.
        telemetry: time series sampled by telemetry devices during the race (see
            :class:`esbench.telemetry.model.TelemetrySeries`).
        distribution_repository: where the provisioned distribution came from (``elastic``: the full
            default distribution, ``maven``: the integ-test distribution, ``local``:
            ``--distribution-path``); None for benchmark-only.
        distribution_note: why that repository was chosen (e.g. the fallback reason naming the
            modules the integ-test distribution lacks); None for benchmark-only.
        cluster_flavor: the product the target cluster runs, ``elasticsearch`` or ``opensearch``
            (detected, see :mod:`esbench.driver.transport.target`); None for races stored before it existed.
        load_driver: where the load driver's workers ran (``esbench.driver.coordinator.run.DriverOutcome``):
            ``backend`` (``local``/``ray``), ``workers`` (worker id, host, pid, Ray node id, clock
            offset and its uncertainty in ms) and ``clients`` (task -> host -> the task's client
            indexes that host ran); empty for races stored before it was recorded.
        track_fingerprint: digest of the track as raced (rendered content, params, files; see
            :mod:`esbench.track.fingerprint`): planning reuses a race only for the same digest. None
            for tracks built in memory and races stored before it was recorded.
    """

    race_id: str
    timestamp: str
    track: str
    challenge: str
    track_params: dict[str, Any] = field(default_factory=dict)
    car: str = "external"
    car_params: dict[str, Any] = field(default_factory=dict)
    user_tags: dict[str, str] = field(default_factory=dict)
    pipeline: str = "benchmark-only"
    distribution_version: str | None = None
    track_repository: str | None = None
    track_revision: str | None = None
    cluster_version: str | None = None
    cluster_nodes: int | None = None
    esbench_version: str = ""
    test_mode: bool = False
    status: str = STATUS_COMPLETED
    error: str | None = None
    duration_s: float = 0.0
    tasks: tuple[TaskResult, ...] = ()
    cluster_metrics: tuple[ClusterMetric, ...] = ()
    telemetry: tuple[TelemetrySeries, ...] = ()
    distribution_repository: str | None = None
    distribution_note: str | None = None
    cluster_flavor: str | None = None
    load_driver: dict[str, Any] = field(default_factory=dict)
    track_fingerprint: str | None = None

    def task(self, name: str) -> TaskResult | None:
        """The result of the task called ``name``, or None."""
        return next((t for t in self.tasks if t.task == name), None)

    def to_dict(self, fields: Sequence[str] | None = None) -> dict[str, Any]:
        """The JSON-ready dict of ``results.json`` (includes ``format-version``).

        With ``fields`` (names of this class's fields), only those keys, in that order and without
        ``format_version``: the race header of ``esbench list races --format=json`` and of the JSON
        summary report.

        Raises:
            KeyError: a name in ``fields`` is not a field of :class:`RaceResult`.
        """
        out = dataclasses.asdict(self)
        if fields is not None:
            return {name: out[name] for name in fields}
        out["format_version"] = RESULTS_FORMAT_VERSION
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RaceResult:
        """Inverse of :meth:`to_dict`; unknown keys are ignored (forward compatibility)."""
        task_fields = {f.name for f in dataclasses.fields(TaskResult)}
        metric_fields = {f.name for f in dataclasses.fields(ClusterMetric)}
        race_fields = {f.name for f in dataclasses.fields(cls)}
        tasks = tuple(
            TaskResult(**{k: _task_value(k, v) for k, v in t.items() if k in task_fields})
            for t in data.get("tasks", ())
        )
        metrics = tuple(
            ClusterMetric(**{k: v for k, v in m.items() if k in metric_fields})
            for m in data.get("cluster_metrics", ())
        )
        telemetry = tuple(TelemetrySeries.from_dict(s) for s in data.get("telemetry", ()))
        nested = ("tasks", "cluster_metrics", "telemetry")
        kwargs = {k: v for k, v in data.items() if k in race_fields and k not in nested}
        return cls(**kwargs, tasks=tasks, cluster_metrics=metrics, telemetry=telemetry)


_WINDOW_SERIES = frozenset({"latency_windows_ms", "service_time_windows_ms"})


def _task_value(key: str, value: Any) -> Any:
    # JSON turns tuples into lists; the frozen model keeps tuples so results compare equal.
    if key == "throughput_windows":
        return tuple(value)
    if key in _WINDOW_SERIES:
        return {label: tuple(series) for label, series in value.items()}
    if key == "error_descriptions":
        return tuple(d if isinstance(d, ErrorDescription) else ErrorDescription(**d) for d in value)
    return value
