"""Race documents of the metrics store (Rally's ``rally-races-*``, OSB's ``benchmark-test-runs-*``)
read as esbench records.

Rally 2.13 writes one document per race (``esrally/metrics.py``: ``Race.as_dict``, stored by
``EsRaceStore.store_race``): the race header (``race-id``, ``race-timestamp`` as ``20261128T123750Z``,
``environment``, ``track``, ``challenge``, ``car``, ``user-tags``, ``track-params``,
``cluster.distribution-version``...) and ``results``, ``GlobalStats.as_dict()``: per reported task
one ``op_metrics`` entry (``throughput`` min/mean/median/max/unit; ``latency``, ``service_time`` and
``processing_time`` with percentiles keyed ``"50_0"``, ``"99_9"``, ``"100_0"`` plus ``mean`` and
``unit`` ms; ``error_rate`` a fraction; ``duration`` in ms, the relative time of the task's last
sample) and the cluster-level values (``total_time`` ms, ``merge_count``, ``young_gc_time`` ms,
``store_size`` bytes, ...).

OSB 2.4.0 writes the same document under other names (``TestRun.as_dict``: ``test-run-id``,
``workload``, ``test_procedure``, ``cluster-config-instance``...; OSB's ``results`` have its own
cluster keys, such as ``docs_count``, and no ZGC rows); the names come from the
:class:`~esbench.results.store_layout.StoreLayout`.

:func:`race_from_rally_document` maps it onto :class:`~esbench.records.RaceResult` so that
``esbench report``, ``compare`` and ``trend`` read a Rally race like one of their own: every value
they use is kept, converted to esbench's units (cluster rows with the names and units of
:mod:`esbench.metrics.cluster`: times of primary shards in min, GC and ingest times in s, sizes in
GB). Rally's document has no request counts; the caller passes them (counted from the race's
``service_time`` samples in ``rally-metrics-*``, as Rally's ``get_error_rate`` does) or, when the
samples are gone, the error rate is kept exactly as a fraction (see :func:`request_counts`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from esbench.exceptions import StoreError
from esbench.records import ClusterMetric, RaceResult, TaskResult
from esbench.results.store_layout import RACE_TIMESTAMP_FORMAT, RALLY, StoreLayout

_MS_PER_MIN = 60_000.0
_BYTES_PER_GB = 1024.0**3

#: (Rally's ``results`` key, esbench's row label) of the times and counts of primary shards, in the
#: order of :func:`esbench.metrics.cluster.cluster_metrics`.
_SHARD_TIMES: tuple[tuple[str, str], ...] = (
    ("total_time", "indexing time"),
    ("indexing_throttle_time", "indexing throttle time"),
    ("merge_time", "merge time"),
    ("merge_throttle_time", "merge throttle time"),
    ("refresh_time", "refresh time"),
    ("flush_time", "flush time"),
)
_SHARD_COUNTS: dict[str, tuple[str, str]] = {
    # after the time of: (Rally key, row label)
    "merge_time": ("merge_count", "merge count"),
    "refresh_time": ("refresh_count", "refresh count"),
    "flush_time": ("flush_count", "flush count"),
}
_GC: tuple[tuple[str, str], ...] = (
    ("young_gc", "Young Gen"),
    ("old_gc", "Old Gen"),
    ("zgc_cycles_gc", "ZGC Cycles"),
    ("zgc_pauses_gc", "ZGC Pauses"),
)
_SIZES: tuple[tuple[str, str], ...] = (
    ("dataset_size", "Dataset size"),
    ("store_size", "Store size"),
    ("translog_size", "Translog size"),
)


def parse_race_timestamp(text: str) -> datetime:
    """``"20261128T123750Z"`` -> an aware UTC datetime.

    Raises:
        ValueError: not in Rally's format (:data:`~esbench.results.store_layout.RACE_TIMESTAMP_FORMAT`).
    """
    return datetime.strptime(text, RACE_TIMESTAMP_FORMAT).replace(tzinfo=UTC)


def iso_timestamp(race_timestamp: str) -> str:
    """Rally's ``20261128T123750Z`` as esbench's ``2026-11-28T12:37:50Z`` (ISO-8601 UTC); a value that is
    already ISO (esbench's own layout) is returned as it is."""
    try:
        return parse_race_timestamp(race_timestamp).strftime("%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return race_timestamp


def rally_timestamp(iso: str) -> str:
    """esbench's ISO-8601 race timestamp as Rally's ``20261128T123750Z`` (the inverse of
    :func:`iso_timestamp`; a value that does not parse is returned as it is)."""
    try:
        parsed = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC)
    return parsed.strftime(RACE_TIMESTAMP_FORMAT)


def percentile_label(key: str) -> str | None:
    """Rally's encoded percentile key -> esbench's label: ``"99_9" -> "99.9"``, ``"100_0" -> "100"``;
    None for ``mean``, ``unit`` and other non-percentile keys (``esrally/metrics.py``,
    ``encode_float_key``)."""
    try:
        value = float(key.replace("_", "."))
    except ValueError:
        return None
    return f"{value:g}" if value != int(value) else str(int(value))


def _percentiles(group: Mapping[str, Any] | None) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, value in (group or {}).items():
        label = percentile_label(str(key))
        if label is not None and value is not None:
            out[label] = float(value)
    return out


def request_counts(error_rate: float, counted: tuple[int, int] | None) -> tuple[int, int]:
    """``(sample_count, error_count)`` of a Rally task.

    ``counted`` is (requests, failed requests) of its ``service_time`` samples when the metrics store
    still has them. Without them, the error rate is kept exactly as the smallest fraction that
    equals it (a rate of 0 is 0 of 1), so reports, compare and trend show Rally's error rate; the
    counts are then not request counts.
    """
    if counted is not None and counted[0] > 0:
        return counted
    fraction = Fraction(error_rate).limit_denominator(1_000_000)
    return fraction.denominator, fraction.numerator


def task_from_op_metrics(op: Mapping[str, Any], counted: tuple[int, int] | None = None) -> TaskResult:
    """A :class:`TaskResult` of one ``results.op_metrics`` entry of a Rally race document.

    ``counted``: see :func:`request_counts`. Rally lists a task there only if it is reported
    (``include_in_reporting`` or an error rate above 0), so the result is always reported.

    Raises:
        KeyError: the entry has no ``task`` and no ``operation``.
    """
    throughput: Mapping[str, Any] = op.get("throughput") or {}
    service: Mapping[str, Any] = op.get("service_time") or {}
    error_rate = float(op.get("error_rate") or 0.0)
    samples, errors = request_counts(error_rate, counted)
    duration_ms = op.get("duration")
    name = op.get("task") or op["operation"]
    return TaskResult(
        task=name,
        operation=op.get("operation") or name,
        # Rally's race document does not say; reports only show it, compare and trend never use it.
        operation_type="",
        throughput_unit=throughput.get("unit") or "ops/s",
        throughput_min=throughput.get("min"),
        throughput_mean=throughput.get("mean"),
        throughput_median=throughput.get("median"),
        throughput_max=throughput.get("max"),
        latency_ms=_percentiles(op.get("latency")),
        service_time_ms=_percentiles(service),
        processing_time_ms=_percentiles(op.get("processing_time")),
        mean_service_time_ms=service.get("mean"),
        sample_count=samples,
        error_count=errors,
        duration_s=float(duration_ms) / 1000.0 if duration_ms is not None else 0.0,
    )


def cluster_metrics_of(results: Mapping[str, Any]) -> tuple[ClusterMetric, ...]:
    """esbench's cluster rows of Rally's ``results`` values, in the order, names and units of
    :func:`esbench.metrics.cluster.cluster_metrics`; values Rally left ``null`` are left out."""
    rows: list[ClusterMetric] = []

    def add(name: str, value: Any, unit: str, convert: Callable[[float], float] = float) -> None:
        if isinstance(value, int | float) and not isinstance(value, bool):
            rows.append(ClusterMetric(name=name, value=convert(float(value)), unit=unit))

    def minutes(v: float) -> float:
        return v / _MS_PER_MIN

    for key, label in _SHARD_TIMES:
        add(f"Cumulative {label} of primary shards", results.get(key), "min", minutes)
        if key in _SHARD_COUNTS:
            count_key, count_label = _SHARD_COUNTS[key]
            add(f"Cumulative {count_label} of primary shards", results.get(count_key), "", int)
        per_shard: Mapping[str, Any] = results.get(f"{key}_per_shard") or {}
        for stat in ("min", "median", "max"):
            add(
                f"{stat.title()} cumulative {label} across primary shards",
                per_shard.get(stat),
                "min",
                minutes,
            )
    for key, label in _GC:
        add(f"Total {label} GC time", results.get(f"{key}_time"), "s", lambda v: v / 1000.0)
        add(f"Total {label} GC count", results.get(f"{key}_count"), "", int)
    for key, label in _SIZES:
        add(label, results.get(key), "GB", lambda v: v / _BYTES_PER_GB)
    add("Segment count", results.get("segment_count"), "", int)
    add("Total Ingest Pipeline count", results.get("ingest_pipeline_cluster_count"), "", int)
    add("Total Ingest Pipeline time", results.get("ingest_pipeline_cluster_time"), "s", lambda v: v / 1000.0)
    add("Total Ingest Pipeline failed", results.get("ingest_pipeline_cluster_failed"), "", int)
    return tuple(rows)


def car_name(car: Any) -> str:
    """Rally's ``car`` (a list of car names or one name) as esbench writes cars: ``"defaults,4gheap"``."""
    if isinstance(car, list):
        return ",".join(str(c) for c in car)
    return str(car) if car else "external"


def race_from_rally_document(
    doc: Mapping[str, Any],
    counts: Mapping[str, tuple[int, int]] | None = None,
    layout: StoreLayout = RALLY,
) -> RaceResult:
    """A :class:`RaceResult` of a race document of ``layout`` (the ``_source`` of a
    ``rally-races-*`` or ``benchmark-test-runs-*`` hit).

    ``counts``: task name -> (requests, failed requests) of its ``service_time`` samples (see
    :func:`request_counts`). Rally stores only races that ended, so the status is ``completed``.
    The race timestamp becomes ISO-8601 UTC; the cluster's ``distribution-version`` is the cluster
    version (and, for a pipeline that provisioned the cluster, also the distribution version);
    ``esbench_version`` says which tool ran the race: ``"Rally 2.13.0"``,
    ``"OpenSearch Benchmark 2.4.0"``.

    Raises:
        StoreError: the document lacks the race id, race timestamp or track, or its timestamp is
            not in the tools' format (the message names the race id and the fields).
    """
    f = layout.fields
    race_id = doc.get(f.race_id, "?")
    try:
        timestamp = parse_race_timestamp(str(doc[f.race_timestamp])).strftime("%Y-%m-%dT%H:%M:%SZ")
        track = str(doc[f.track])
    except (KeyError, ValueError) as e:
        raise StoreError(
            f"The {layout.tool} race document {race_id} in the metrics store lacks a valid "
            f"{f.race_timestamp} or {f.track} ({e}); it is not in the layout of {layout.tool} "
            f"{layout.tool_version}."
        ) from e
    cluster: Mapping[str, Any] = doc.get("cluster") or {}
    results: Mapping[str, Any] = doc.get("results") or {}
    version = cluster.get("distribution-version")
    pipeline = doc.get("pipeline") or "benchmark-only"
    tasks = tuple(
        task_from_op_metrics(op, (counts or {}).get(op.get("task") or op.get("operation", "")))
        for op in results.get("op_metrics") or ()
    )
    return RaceResult(
        race_id=str(doc[f.race_id]),
        timestamp=timestamp,
        track=track,
        challenge=str(doc.get(f.challenge) or ""),
        track_params=dict(doc.get(f.track_params) or {}),
        car=car_name(doc.get(f.car)),
        car_params=dict(doc.get(f.car_params) or {}),
        user_tags={str(k): v for k, v in (doc.get("user-tags") or {}).items()},
        pipeline=pipeline,
        distribution_version=version if pipeline != "benchmark-only" else None,
        track_revision=doc.get(f.track_revision),
        cluster_version=version,
        esbench_version=f"{layout.tool} {doc.get(f.tool_version) or '?'}",
        tasks=tasks,
        cluster_metrics=cluster_metrics_of(results),
    )
