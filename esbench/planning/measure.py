"""What planning reads from one race: a :class:`PointResult` for the swept task.

Percentiles are recomputed from the task's stored HDR histograms (microseconds) with Rally's
percentile rule (:func:`esbench.metrics.stats.percentile_values`), so an SLO can use any percentile,
also one the summary report does not show for the sample count.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from esbench.exceptions import EsbenchError
from esbench.metrics.recorder import decode_histogram
from esbench.metrics.stats import percentile_values
from esbench.planning.driver_cpu import DriverCpu
from esbench.records import STATUS_COMPLETED, RaceResult, TaskResult

#: Percentiles of the sweep table (seed 003's table, with p50/p90/p99 as issue 10 asks).
TABLE_PERCENTILES: tuple[float, ...] = (50.0, 90.0, 99.0)


def percentile_key(p: float) -> str:
    """The key of percentile ``p`` in :attr:`PointResult.latency_ms`: ``99.0 -> "99"``, ``99.9 -> "99.9"``."""
    return f"{p:g}"


@dataclass(frozen=True, kw_only=True)
class PointResult:
    """The swept task's measurements in one race.

    Attributes:
        label: the swept value as shown (``"4"``, ``"bulk_size=200"``).
        race_id: the stored race; status: its status (``completed``...).
        reused: the race was already stored and not run again.
        ran_at: when the race started (ISO-8601 UTC, :attr:`RaceResult.timestamp`).
        samples: measurement requests of the task.
        throughput: mean throughput in ``throughput_unit`` (None without a full 1 s window).
        latency_ms / service_time_ms: percentile key (:func:`percentile_key`) -> ms.
        error_rate: failed / all measurement requests (None without samples).
        driver_cpu: the load driver's CPU during the task (None when not measured, e.g. a race
            stored by an older esbench).
        received_kb_s / sent_kb_s: mean KB/s (1 KB = 1,024 bytes, as JMeter's "Received KB/sec" and
            "Sent KB/sec" of seed 003) the measurement requests received and sent
            (:attr:`esbench.records.TaskResult.received_bytes_per_s`); None for races stored
            before esbench counted bytes.
    """

    label: str
    race_id: str
    status: str
    reused: bool
    samples: int
    throughput: float | None
    throughput_unit: str
    latency_ms: Mapping[str, float] = field(default_factory=dict)
    service_time_ms: Mapping[str, float] = field(default_factory=dict)
    error_rate: float | None = None
    driver_cpu: DriverCpu | None = None
    received_kb_s: float | None = None
    sent_kb_s: float | None = None
    ran_at: str = ""

    @property
    def completed(self) -> bool:
        """True when the race completed."""
        return self.status == STATUS_COMPLETED

    @property
    def driver_saturated(self) -> bool:
        """True when the load driver's CPU was saturated during the task."""
        return self.driver_cpu is not None and self.driver_cpu.saturated


def find_task(race: RaceResult, task_name: str) -> TaskResult:
    """The result of ``task_name`` in ``race``.

    Raises:
        EsbenchError: the race has no result for that task (it did not run or was filtered out).
    """
    for task in race.tasks:
        if task.task == task_name:
            return task
    names = ", ".join(t.task for t in race.tasks) or "none"
    raise EsbenchError(
        f"Race {race.race_id} has no result for task '{task_name}' (its tasks: {names}); "
        "check --task and --include-tasks."
    )


def point_from_race(
    race: RaceResult,
    task_name: str,
    *,
    label: str,
    reused: bool,
    driver_cpu: DriverCpu | None,
    percentiles: Iterable[float] = TABLE_PERCENTILES,
) -> PointResult:
    """The :class:`PointResult` of ``task_name`` in ``race`` with the given ``percentiles``.

    Raises:
        EsbenchError: the race has no result for the task.
    """
    task = find_task(race, task_name)
    wanted = sorted(set(TABLE_PERCENTILES) | set(percentiles))
    return PointResult(
        label=label,
        race_id=race.race_id,
        status=race.status,
        reused=reused,
        samples=task.sample_count,
        throughput=task.throughput_mean,
        throughput_unit=task.throughput_unit,
        latency_ms=_percentiles(task, "latency", task.latency_ms, wanted),
        service_time_ms=_percentiles(task, "service_time", task.service_time_ms, wanted),
        error_rate=(task.error_count / task.sample_count) if task.sample_count else None,
        driver_cpu=driver_cpu,
        received_kb_s=_kb_s(task.received_bytes_per_s) if task.bytes_received else None,
        sent_kb_s=_kb_s(task.sent_bytes_per_s) if task.bytes_sent else None,
        ran_at=race.timestamp,
    )


def _kb_s(bytes_per_s: float | None) -> float | None:
    return None if bytes_per_s is None else bytes_per_s / 1024.0


def _percentiles(
    task: TaskResult, metric: str, reported: Mapping[str, float], wanted: list[float]
) -> dict[str, float]:
    encoded = task.histograms.get(metric)
    if encoded:
        hist = decode_histogram(encoded)
        values = percentile_values(hist, wanted)
        if values:
            return {percentile_key(p): v / 1000.0 for p, v in zip(wanted, values, strict=True)}
    # No histogram stored: only the percentiles the summary kept.
    return {percentile_key(p): reported[percentile_key(p)] for p in wanted if percentile_key(p) in reported}
