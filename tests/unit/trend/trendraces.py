"""Small stored-race records for the trend tests (not a test module)."""

from __future__ import annotations

import uuid

from esbench.records import RaceResult, TaskResult


def task(
    name: str = "search",
    *,
    latency_p50: float | None = 10.0,
    throughput: float | None = 100.0,
    errors: int = 0,
    samples: int = 1000,
    start_epoch: float | None = None,
    reported: bool = True,
) -> TaskResult:
    """A task result with the metrics a trend follows (p90 and p99.9 derived from p50)."""
    latency = (
        {} if latency_p50 is None else {"50": latency_p50, "90": latency_p50 * 1.5, "99.9": latency_p50 * 3}
    )
    return TaskResult(
        task=name,
        operation=name,
        operation_type="search",
        throughput_median=throughput,
        throughput_mean=None if throughput is None else throughput * 0.99,
        latency_ms=latency,
        service_time_ms={label: v * 0.9 for label, v in latency.items()},
        sample_count=samples,
        error_count=errors,
        start_epoch=start_epoch,
        include_in_reporting=reported,
    )


def race(
    n: int,
    *tasks: TaskResult,
    tags: dict[str, str] | None = None,
    track: str = "t",
    challenge: str = "c",
    status: str = "completed",
    timestamp: str | None = None,
) -> RaceResult:
    """Race number ``n`` (its timestamp ``n`` minutes after 2026-11-01T00:00:00Z unless given)."""
    return RaceResult(
        race_id=str(uuid.UUID(int=n + 1)),
        timestamp=timestamp or f"2026-11-01T{n // 60:02d}:{n % 60:02d}:00Z",
        track=track,
        challenge=challenge,
        user_tags=tags or {},
        status=status,
        tasks=tasks or (task(),),
    )


def history(latencies: list[float], *, tags: dict[str, str] | None = None) -> list[RaceResult]:
    """One race per latency p50 (ms), throughput ``1000 / latency`` ops/s, oldest first."""
    return [
        race(n, task(latency_p50=lat, throughput=1000.0 / lat), tags=tags) for n, lat in enumerate(latencies)
    ]
