"""Synthetic but realistic races for the plot and HTML report tests (not a test module).

A race of a bulk task (docs/s in whole bulk multiples, as a 1-s window sees them) and a search task
(ops/s), each with per-second latency / service time percentile windows, a ``start_epoch`` and real
HdrHistograms of microseconds recorded from seeded random latencies; plus telemetry series shaped
like node-stats and the OS sampler's (CPU %, heap %, GC ms, disk bytes/s, page cache bytes,
write-pool rejections) and one series no panel matches.
"""

from __future__ import annotations

import random
import uuid

from esbench.metrics.recorder import new_histogram
from esbench.records import RaceResult, TaskResult, TelemetrySeries

T0 = 1_790_000_000.0  # 2026-09-21, an arbitrary wall-clock start


def latencies(rng: random.Random, n: int, median_ms: float) -> list[float]:
    """``n`` log-normal latencies (ms) around ``median_ms`` with a long tail."""
    return [median_ms * rng.lognormvariate(0.0, 0.6) for _ in range(n)]


def histogram(values_ms: list[float]) -> str:
    h = new_histogram()
    for v in values_ms:
        h.record_value(max(1, round(v * 1000)))
    return h.encode().decode()


def _windows(rng: random.Random, seconds: int, median_ms: float) -> dict[str, tuple[float, ...]]:
    rows = [sorted(latencies(rng, 50, median_ms)) for _ in range(seconds)]
    return {
        "50": tuple(r[24] for r in rows),
        "90": tuple(r[44] for r in rows),
        "99": tuple(r[49] * 0.98 for r in rows),
        "100": tuple(r[49] for r in rows),
    }


def task(
    name: str,
    *,
    seed: int,
    start: float | None,
    seconds: int,
    operation_type: str,
    unit: str,
    level: float,
    median_ms: float,
    samples: int = 2000,
) -> TaskResult:
    """A task with ``seconds`` throughput windows around ``level``; windows/start omitted when ``start``
    is None and ``operation_type`` is not bulk (an old race)."""
    rng = random.Random(seed)
    if operation_type == "bulk":
        windows = tuple(float(rng.choice((4, 5, 5, 6, 7)) * level / 5) for _ in range(seconds))
    else:
        windows = tuple(level * rng.uniform(0.9, 1.1) for _ in range(seconds))
    lat = latencies(rng, samples, median_ms)
    svc = [v * 0.8 for v in lat]
    return TaskResult(
        task=name,
        operation=name,
        operation_type=operation_type,
        throughput_unit=unit,
        throughput_min=min(windows),
        throughput_mean=sum(windows) / len(windows),
        throughput_median=sorted(windows)[len(windows) // 2],
        throughput_max=max(windows),
        throughput_windows=windows,
        latency_ms={"50": sorted(lat)[len(lat) // 2], "100": max(lat)},
        service_time_ms={"50": sorted(svc)[len(svc) // 2], "100": max(svc)},
        sample_count=samples,
        total_weight=sum(windows),
        duration_s=float(seconds),
        histograms={"latency": histogram(lat), "service_time": histogram(svc)},
        start_epoch=start,
        latency_windows_ms=_windows(rng, seconds, median_ms) if start is not None else {},
        service_time_windows_ms=_windows(rng, seconds, median_ms * 0.8) if start is not None else {},
    )


def _series(
    device: str, metric: str, unit: str, node: str, start: float, values: list[float]
) -> TelemetrySeries:
    return TelemetrySeries(
        device=device,
        metric=metric,
        unit=unit,
        node=node,
        timestamps=tuple(start + i for i in range(len(values))),
        values=tuple(values),
    )


def telemetry(seed: int, start: float, seconds: int) -> tuple[TelemetrySeries, ...]:
    """Series of the six panels' kinds (and one unmatched), one sample per second from ``start``."""
    rng = random.Random(seed)
    n = seconds

    def noisy(level: float, spread: float) -> list[float]:
        return [max(0.0, level + rng.uniform(-spread, spread)) for _ in range(n)]

    return (
        _series("node-stats", "os.cpu.percent", "%", "node-0", start, noisy(60, 20)),
        _series("os", "process.cpu_percent", "%", "load-driver", start, noisy(30, 10)),
        _series("node-stats", "jvm.mem.heap_used_percent", "%", "node-0", start, noisy(45, 15)),
        _series("node-stats", "jvm.gc.collectors.young.collection_time", "ms", "node-0", start, noisy(5, 5)),
        _series("os", "disk.read_bytes", "bytes/s", "node-0", start, noisy(2e7, 1e7)),
        _series("os", "disk.write_bytes", "bytes/s", "node-0", start, noisy(5e7, 2e7)),
        _series("os", "system.page_cache", "bytes", "", start, noisy(8e9, 1e8)),
        _series(
            "node-stats", "thread_pool.write.rejected", "", "node-0", start, [float(i // 5) for i in range(n)]
        ),
        _series("node-stats", "indices.segments.count", "", "node-0", start, noisy(40, 5)),
    )


def race(
    *, seed: int = 1, aligned: bool = True, with_telemetry: bool = True, speed: float = 1.0
) -> RaceResult:
    """A race: telemetry from T0, bulk from T0+2 for 20 s, search from T0+23 for 10 s (when ``aligned``;
    else no start_epoch, no window percentiles and no telemetry, like a race stored before them)."""
    bulk = task(
        "index-append",
        seed=seed,
        start=T0 + 2 if aligned else None,
        seconds=20,
        operation_type="bulk",
        unit="docs/s",
        level=40_000 * speed,
        median_ms=120 / speed,
    )
    search = task(
        "term",
        seed=seed + 1,
        start=T0 + 23 if aligned else None,
        seconds=10,
        operation_type="search",
        unit="ops/s",
        level=180 * speed,
        median_ms=4 / speed,
    )
    return RaceResult(
        race_id=str(uuid.UUID(int=random.Random(seed).getrandbits(128), version=4)),
        timestamp="2026-09-21T14:13:15Z",  # T0 - 5 s
        track="synthetic",
        challenge="index-and-query",
        cluster_version="8.15.0",
        cluster_nodes=1,
        duration_s=35.0,
        tasks=(bulk, search),
        telemetry=telemetry(seed, T0, 35) if (with_telemetry and aligned) else (),
    )
