"""Builds RaceResults from real recorded HdrHistograms (µs), for the results and compare tests.

Not a test module: imported by tests in this directory and, with this directory appended to
``sys.path``, by the compare and gate tests in ``tests/unit/reporting/``.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import statistics
import uuid
from collections.abc import Sequence
from typing import Any

from hdrh.histogram import HdrHistogram

from esbench.metrics.stats import percentile_values
from esbench.records import ClusterMetric, RaceResult, TaskResult
from esbench.reporting.compare import Side

_LOWEST_US = 1
_HIGHEST_US = 60_000_000  # 1 min: enough for these tests, small and fast to build
_DIGITS = 3


def percentile_labels(count: int) -> tuple[str, ...]:
    """Rally's sample-count rule (rally-compat.md, "Percentiles shown")."""
    if count <= 0:
        return ()
    if count == 1:
        return ("100",)
    if count < 10:
        return ("50", "100")
    if count < 100:
        return ("50", "90", "100")
    if count < 1000:
        return ("50", "90", "99", "100")
    if count < 10000:
        return ("50", "90", "99", "99.9", "100")
    return ("50", "90", "99", "99.9", "99.99", "100")


def record(values_ms: Sequence[float]) -> HdrHistogram:
    """A histogram of ``values_ms`` recorded as integer microseconds."""
    h = HdrHistogram(_LOWEST_US, _HIGHEST_US, _DIGITS)
    for v in values_ms:
        assert h.record_value(max(1, round(v * 1000)))
    return h


def percentiles_ms(h: HdrHistogram) -> dict[str, float]:
    labels = percentile_labels(h.get_total_count())
    values = percentile_values(h, [float(p) for p in labels])
    return {p: v / 1000.0 for p, v in zip(labels, values, strict=True)}


def make_task(
    name: str,
    *,
    latencies_ms: Sequence[float],
    windows: Sequence[float],
    operation_type: str = "search",
    unit: str = "ops/s",
    errors: int = 0,
    service_factor: float = 1.0,
) -> TaskResult:
    """A TaskResult whose percentiles come from histograms of the given latencies.

    Service time = latency × ``service_factor``; processing time = latency + 0.1 ms.
    """
    lat = record(latencies_ms)
    svc = record([v * service_factor for v in latencies_ms])
    proc = record([v + 0.1 for v in latencies_ms])
    return TaskResult(
        task=name,
        operation=name,
        operation_type=operation_type,
        throughput_unit=unit,
        throughput_min=min(windows) if windows else None,
        throughput_mean=statistics.fmean(windows) if windows else None,
        throughput_median=statistics.median(windows) if windows else None,
        throughput_max=max(windows) if windows else None,
        throughput_windows=tuple(windows),
        latency_ms=percentiles_ms(lat),
        service_time_ms=percentiles_ms(svc),
        processing_time_ms=percentiles_ms(proc),
        mean_service_time_ms=svc.get_mean_value() / 1000.0,
        sample_count=len(latencies_ms),
        error_count=errors,
        errors_by_type={"500": errors} if errors else {},
        total_weight=float(len(latencies_ms)),
        duration_s=float(len(windows)),
        histograms={
            "latency": lat.encode().decode("ascii"),
            "service_time": svc.encode().decode("ascii"),
            "processing_time": proc.encode().decode("ascii"),
        },
    )


def base_races() -> list[RaceResult]:
    """Three races of one setup (tag ``setup:base``), differing only by their noise."""
    return [make_race(seed=i, tags={"setup": "base"}) for i in range(3)]


def slow_races() -> list[RaceResult]:
    """Three races 25 % slower than :func:`base_races` (tag ``setup:slow``)."""
    return [make_race(seed=100 + i, slowdown=1.25, tags={"setup": "slow"}) for i in range(3)]


def side(label: str, *races: RaceResult) -> Side:
    """A comparison side of ``races``."""
    return Side(label=label, races=tuple(races))


def make_race(**kwargs: Any) -> RaceResult:
    """A realistic race (see :func:`_make_race`); cached, since building histograms takes ~0.1 s."""
    tags = kwargs.pop("tags", None)
    tasks = kwargs.pop("tasks", None)
    key = tuple(sorted(kwargs.items()))
    race = _cached(key, tuple(sorted((tags or {}).items())), tuple(tasks) if tasks is not None else None)
    return dataclasses.replace(race, user_tags=dict(tags or {}))


@functools.lru_cache(maxsize=256)
def _cached(key: tuple, tags: tuple, tasks: tuple | None) -> RaceResult:
    kwargs = dict(key)
    if tasks is not None:
        kwargs["tasks"] = tasks
    return _make_race(tags=dict(tags), **kwargs)


def _make_race(
    *,
    seed: int,
    slowdown: float = 1.0,
    track: str = "compare-tiny",
    tags: dict[str, str] | None = None,
    timestamp: str = "2026-11-21T20:10:18Z",
    status: str = "completed",
    tasks: Sequence[str] = ("index-append", "term-query"),
    samples: int = 400,
    error_rate: float = 0.0,
    race_id: str | None = None,
) -> RaceResult:
    """A realistic race: bulk-like and search-like tasks with noisy latencies and throughput windows.

    ``slowdown`` > 1 makes latencies that much longer and throughput that much lower.
    """
    rng = random.Random(seed)
    results = []
    for i, name in enumerate(tasks):
        base_latency = 5.0 + 10.0 * i
        latencies = [rng.lognormvariate(0, 0.25) * base_latency * slowdown for _ in range(samples)]
        base_tp = 1000.0 / (1 + i)
        windows = [rng.gauss(base_tp, base_tp * 0.01) / slowdown for _ in range(20)]
        results.append(
            make_task(
                name,
                latencies_ms=latencies,
                windows=windows,
                operation_type="bulk" if i == 0 else "search",
                unit="docs/s" if i == 0 else "ops/s",
                errors=round(samples * error_rate),
                service_factor=0.9,
            )
        )
    return RaceResult(
        race_id=race_id or str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        timestamp=timestamp,
        track=track,
        challenge="default",
        track_params={"bulk_size": 500, "search_clients": 2, "nested": {"a": [1, 2.5, None]}},
        car="defaults",
        car_params={"heap": "1g"},
        user_tags=dict(tags or {}),
        pipeline="benchmark-only",
        distribution_version=None,
        cluster_version="8.19.0",
        cluster_nodes=1,
        esbench_version="0.1.0",
        test_mode=False,
        status=status,
        error=None if status == "completed" else "boom: node left",
        duration_s=42.5,
        tasks=tuple(results),
        cluster_metrics=(
            ClusterMetric(
                name="Cumulative indexing time of primary shards", value=1.5 * slowdown, unit="min"
            ),
            ClusterMetric(name="Store size", value=0.25, unit="GB"),
            ClusterMetric(
                name="Min cumulative merge time across primary shards", value=0.1, unit="min", task=""
            ),
        ),
    )
