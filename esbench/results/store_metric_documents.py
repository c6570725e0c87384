"""The metrics documents of the metrics store in Rally's layout or OSB's: one per sample.

Rally 2.13's ``MetricsStore._put_metric`` / ``put_doc`` (esrally/metrics.py) and OSB 2.4.0's, its
fork (osbenchmark/metrics.py), under the names of the race's
:class:`~esbench.results.store_documents.RaceContext` layout: per-request ``latency``,
``service_time`` and ``processing_time`` (:func:`sample_documents`, the writer's hot path),
per-second ``throughput`` windows, telemetry samples and the end-of-race values the tools'
``GlobalStatsCalculator`` reads. The race and results documents are in
:mod:`esbench.results.store_documents`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

from esbench.records import RaceResult
from esbench.records.samples import FAILED, WARMUP, RequestSamples
from esbench.results.store_documents import RaceContext, global_stats, race_timestamp


def _metric(
    ctx: RaceContext,
    name: str,
    value: float,
    unit: str | None,
    at_s: float,
    relative_s: float,
    sample_type: str,
    meta: Mapping[str, Any],
) -> dict[str, Any]:
    """One ``MetricsStore._put_metric`` document (cluster level)."""
    return {
        "@timestamp": round(at_s * 1000),
        ctx.layout.fields.relative_time: relative_s * 1000.0,
        **ctx.common(),
        "name": name,
        "value": value,
        "unit": unit,
        "sample-type": sample_type,
        "meta": ctx.meta() | dict(meta),
    }


def throughput_documents(ctx: RaceContext, race: RaceResult) -> Iterator[dict[str, Any]]:
    """``throughput`` documents of the measurement: one per 1-second window of each task, at the
    window's end (Rally's ``ThroughputCalculator`` buckets are about 1 s too); ``relative-time`` is
    counted from the task's start. Warmup windows are not part of a stored race."""
    for task in race.tasks:
        if task.start_epoch is None:
            continue
        for i, value in enumerate(task.throughput_windows):
            doc = _metric(
                ctx,
                "throughput",
                value,
                task.throughput_unit,
                task.start_epoch + i + 1,
                i + 1.0,
                "normal",
                {},
            )
            doc.update(
                {"task": task.task, "operation": task.operation, "operation-type": task.operation_type}
            )
            yield doc


def sample_documents(ctx: RaceContext, samples: RequestSamples) -> Iterator[dict[str, Any]]:
    """``latency``, ``service_time`` and ``processing_time`` documents of every request
    (esrally/driver/driver.py ``SamplePostprocessor``): ``@timestamp`` = the request's start,
    ``relative-time`` = ms since the task's start, ``meta.success`` and, for a failed request,
    ``meta.error-type``."""
    zero = samples.task_start_epoch
    if zero is None:
        zero = min(samples.start_epoch, default=0.0)
    # The fields every sample repeats, built once: three documents per request.
    common = ctx.common()
    names = {"task": samples.task, "operation": samples.operation, "operation-type": samples.operation_type}
    tags = ctx.meta()
    relative = ctx.layout.fields.relative_time
    columns = (
        ("latency", samples.latency_ms),
        ("service_time", samples.service_time_ms),
        ("processing_time", samples.processing_time_ms),
    )
    for i, start in enumerate(samples.start_epoch):
        flags = samples.flags[i]
        meta: dict[str, Any] = tags | {"success": not flags & FAILED}
        if flags & FAILED:
            meta["error-type"] = samples.error_types.get(i, "unknown")
        sample_type = "warmup" if flags & WARMUP else "normal"
        at_ms = round(start * 1000)
        relative_ms = (start - zero) * 1000.0
        for name, column in columns:
            yield {
                "@timestamp": at_ms,
                relative: relative_ms,
                **common,
                "name": name,
                "value": column[i],
                "unit": "ms",
                "sample-type": sample_type,
                # One meta object for the three documents of a request: they are only serialized.
                "meta": meta,
                **names,
            }


def telemetry_documents(ctx: RaceContext, race: RaceResult, start_s: float) -> Iterator[dict[str, Any]]:
    """Telemetry as Rally's devices store it (``MetricsStore.put_doc``): one document per device,
    node and sample time, ``name`` = the device (``node-stats``...), each metric a field with its
    dots made underscores (``jvm.mem.heap_used_percent`` -> ``jvm_mem_heap_used_percent``, as
    esrally/telemetry.py ``flatten_stats_fields``), ``meta.node_name`` = the node."""
    grouped: dict[tuple[str, str, float], dict[str, Any]] = {}
    for series in race.telemetry:
        field = series.metric.replace(".", "_")
        for at, value in zip(series.timestamps, series.values, strict=True):
            if isinstance(value, float) and not math.isfinite(value):
                continue
            key = (series.device, series.node, at)
            doc = grouped.get(key)
            if doc is None:
                doc = grouped[key] = {
                    "name": series.device,
                    "@timestamp": round(at * 1000),
                    ctx.layout.fields.relative_time: (at - start_s) * 1000.0,
                    **ctx.common(),
                    "meta": ctx.meta() | ({"node_name": series.node} if series.node else {}),
                }
            doc[field] = value
    yield from grouped.values()


def cluster_documents(ctx: RaceContext, race: RaceResult, end_s: float) -> Iterator[dict[str, Any]]:
    """The end-of-race values Rally's ``GlobalStatsCalculator`` reads from the metrics store
    (``indexing_total_time``, ``segments_count``, ``store_size_in_bytes``...), one document each,
    in Rally's units."""
    # Counts have no unit (None), as in Rally's documents.
    names: dict[str, tuple[str, str | None]] = {
        "total_time": ("indexing_total_time", "ms"),
        "indexing_throttle_time": ("indexing_throttle_time", "ms"),
        "merge_time": ("merges_total_time", "ms"),
        "merge_count": ("merges_total_count", None),
        "merge_throttle_time": ("merges_total_throttled_time", "ms"),
        "refresh_time": ("refresh_total_time", "ms"),
        "refresh_count": ("refresh_total_count", None),
        "flush_time": ("flush_total_time", "ms"),
        "flush_count": ("flush_total_count", None),
        "young_gc_time": ("node_total_young_gen_gc_time", "ms"),
        "young_gc_count": ("node_total_young_gen_gc_count", None),
        "old_gc_time": ("node_total_old_gen_gc_time", "ms"),
        "old_gc_count": ("node_total_old_gen_gc_count", None),
        "dataset_size": ("dataset_size_in_bytes", "byte"),
        "store_size": ("store_size_in_bytes", "byte"),
        "translog_size": ("translog_size_in_bytes", "byte"),
        "segment_count": ("segments_count", None),
    }
    stats = global_stats(race, ctx.layout)
    relative = end_s - race_timestamp(race).timestamp()
    for key, (name, unit) in names.items():
        value = stats.get(key)
        if value is not None:
            yield _metric(ctx, name, value, unit, end_s, relative, "normal", {})
