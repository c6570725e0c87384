"""The documents of the metrics store in Rally's layout or OSB's, built from an esbench race.

The specification is Rally 2.13's ``esrally/metrics.py``: ``Race.as_dict`` (the race document),
``Race.to_result_dicts`` with ``GlobalStats.as_flat_list`` (one results document per metric and
task), ``MetricsStore._put_metric`` / ``put_doc`` (one metrics document per sample), and
``GlobalStatsCalculator`` (which values a race's ``results`` holds, in which units: times in ms,
sizes in bytes); and OSB 2.4.0's ``osbenchmark/metrics.py``, its fork, with the same functions
(``TestRun.as_dict``, ``TestRun.to_result_dicts``...) under other field names. Every function takes
the :class:`~esbench.results.store_layout.StoreLayout` whose names and keys it writes (default
Rally's); index names are there too.

What esbench puts where Rally (OSB) would put its own facts:

- ``rally-version`` (``benchmark-version``): the layout's tool version (``2.13.0``, ``2.4.0``),
  whose layout these documents follow (the tools' readers read it; esbench's own version is in
  ``esbench.version``);
- ``rally-revision`` (``benchmark-revision``): None (no revision of the tool built them);
- ``environment``: ``[system] env.name`` (:class:`~esbench.results.metrics_store.MetricsStoreSettings`);
- ``car`` (``cluster-config-instance``): the race's car names as a list, ``+``-joined in results
  and metrics documents (both tools);
- OSB's ``client_processing_time`` of a task: ``{}``, as OSB writes it for a task without such
  samples (esbench does not measure it);
- ``distribution-version``: the version of the benchmarked cluster.

esbench's extra data go where Rally does not look: an ``esbench`` object in race and results
documents (esbench version, race status, per-second throughput and latency windows, merged
HdrHistograms as base64) — Rally's ``Race.from_dict`` and its dashboards ignore unknown keys.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from esbench.metrics.state import decode_histogram
from esbench.records import RaceResult, TaskResult
from esbench.results.store_layout import RACE_TIMESTAMP_FORMAT, RALLY, StoreLayout

#: esbench's summary row name -> (Rally's ``GlobalStats`` key, factor to Rally's stored unit).
#: Rally stores times in ms and sizes in bytes; its reporter converts them for the rows
#: (esrally/reporter.py ``_report_*``: ``convert.ms_to_minutes``, ``ms_to_seconds``, ``bytes_to_gb``).
_MIN, _S, _GB = 60_000.0, 1_000.0, float(1024**3)
_CLUSTER_ROWS: dict[str, tuple[str, float]] = {
    "Cumulative indexing time of primary shards": ("total_time", _MIN),
    "Cumulative indexing throttle time of primary shards": ("indexing_throttle_time", _MIN),
    "Cumulative merge time of primary shards": ("merge_time", _MIN),
    "Cumulative merge count of primary shards": ("merge_count", 1.0),
    "Cumulative merge throttle time of primary shards": ("merge_throttle_time", _MIN),
    "Cumulative refresh time of primary shards": ("refresh_time", _MIN),
    "Cumulative refresh count of primary shards": ("refresh_count", 1.0),
    "Cumulative flush time of primary shards": ("flush_time", _MIN),
    "Cumulative flush count of primary shards": ("flush_count", 1.0),
    "Total Young Gen GC time": ("young_gc_time", _S),
    "Total Young Gen GC count": ("young_gc_count", 1.0),
    "Total Old Gen GC time": ("old_gc_time", _S),
    "Total Old Gen GC count": ("old_gc_count", 1.0),
    "Total ZGC Cycles GC time": ("zgc_cycles_gc_time", _S),
    "Total ZGC Cycles GC count": ("zgc_cycles_gc_count", 1.0),
    "Total ZGC Pauses GC time": ("zgc_pauses_gc_time", _S),
    "Total ZGC Pauses GC count": ("zgc_pauses_gc_count", 1.0),
    "Dataset size": ("dataset_size", _GB),
    "Store size": ("store_size", _GB),
    "Translog size": ("translog_size", _GB),
    "Segment count": ("segment_count", 1.0),
    "Total Ingest Pipeline count": ("ingest_pipeline_cluster_count", 1.0),
    "Total Ingest Pipeline time": ("ingest_pipeline_cluster_time", _S),
    "Total Ingest Pipeline failed": ("ingest_pipeline_cluster_failed", 1.0),
}
#: "<Min|Median|Max> cumulative <label> across primary shards" -> Rally's ``*_per_shard`` key.
_PER_SHARD = {
    "indexing time": "total_time_per_shard",
    "indexing throttle time": "indexing_throttle_time_per_shard",
    "merge time": "merge_time_per_shard",
    "merge throttle time": "merge_throttle_time_per_shard",
    "refresh time": "refresh_time_per_shard",
    "flush time": "flush_time_per_shard",
}
_LIST_KEYS = frozenset(("op_metrics", "correctness_metrics", "profile_metrics", "ml_processing_time"))


def _empty_results(layout: StoreLayout) -> dict[str, Any]:
    """``GlobalStats.__init__`` of the layout's tool: every key of a race's ``results`` with its
    empty value (lists, ``{}`` for the per-shard values, else None), in the tool's order."""
    return {
        key: [] if key in _LIST_KEYS else {} if key.endswith("_per_shard") else None
        for key in layout.results_keys
    }


#: Rally's metric names of the three request durations (esrally/driver/driver.py).
_DURATIONS = (
    ("latency", "latency_ms"),
    ("service_time", "service_time_ms"),
    ("processing_time", "processing_time_ms"),
)


@dataclass(frozen=True, kw_only=True)
class RaceContext:
    """What every document of one race repeats (``MetricsStore._put_metric``'s common fields), and
    the layout whose names they get."""

    layout: StoreLayout
    race_id: str
    race_timestamp: str
    environment: str
    track: str
    challenge: str
    car: str
    track_params: Mapping[str, Any]
    user_tags: Mapping[str, Any]

    def common(self) -> dict[str, Any]:
        """The fields every metrics document starts with (without times), in the layout's names."""
        f = self.layout.fields
        doc: dict[str, Any] = {
            f.race_id: self.race_id,
            f.race_timestamp: self.race_timestamp,
            "environment": self.environment,
            f.track: self.track,
            f.challenge: self.challenge,
            f.car: self.car,
        }
        if self.track_params:
            doc[f.track_params] = dict(self.track_params)
        return doc

    def meta(self) -> dict[str, Any]:
        """Cluster-level meta info: the user tags as ``tag_<key>`` (``MetricsStore.open``)."""
        return {f"tag_{k}": v for k, v in self.user_tags.items()}


def race_timestamp(race: RaceResult) -> datetime:
    """The race's start (UTC) from its stored ``YYYY-MM-DDTHH:MM:SSZ`` timestamp.

    Raises:
        ValueError: a timestamp in neither that nor Rally's ``YYYYMMDDTHHMMSSZ`` form.
    """
    for fmt in ("%Y-%m-%dT%H:%M:%SZ", RACE_TIMESTAMP_FORMAT):
        with contextlib.suppress(ValueError):
            return datetime.strptime(race.timestamp, fmt).replace(tzinfo=UTC)
    raise ValueError(f"race {race.race_id}: unreadable timestamp {race.timestamp!r}")


def car_names(race: RaceResult) -> list[str]:
    """The car as Rally's ``car.names`` list (esbench stores ``a,b``)."""
    return [c for c in race.car.split(",") if c] or ["external"]


def context(race: RaceResult, environment: str, layout: StoreLayout = RALLY) -> RaceContext:
    """The :class:`RaceContext` of ``race`` in ``environment`` (the tools' ``env.name``)."""
    return RaceContext(
        layout=layout,
        race_id=race.race_id,
        race_timestamp=race_timestamp(race).strftime(RACE_TIMESTAMP_FORMAT),
        environment=environment,
        track=race.track,
        challenge=race.challenge,
        car="+".join(car_names(race)),
        track_params=race.track_params,
        user_tags={str(k): v for k, v in race.user_tags.items()},
    )


def encode_percentile(label: str) -> str:
    """``"99.9" -> "99_9"``, ``"50" -> "50_0"``: Rally's ``encode_float_key`` (no dots in names)."""
    return str(float(label)).replace(".", "_")


def _version(race: RaceResult) -> str | None:
    return race.distribution_version or race.cluster_version


def _mean_ms(task: TaskResult, metric: str) -> float | None:
    if metric == "service_time" and task.mean_service_time_ms is not None:
        return task.mean_service_time_ms
    encoded = task.histograms.get(metric)
    if not encoded:
        return None
    try:
        histogram = decode_histogram(encoded)
    except ValueError:
        return None
    return histogram.get_mean_value() / 1000.0 if histogram.get_total_count() else None


def _durations(task: TaskResult, metric: str, attr: str) -> dict[str, Any]:
    """``GlobalStatsCalculator.single_latency``: percentiles, mean and unit; {} without samples."""
    values: Mapping[str, float] = getattr(task, attr)
    if not values:
        return {}
    stats: dict[str, Any] = {encode_percentile(k): v for k, v in values.items()}
    stats["mean"] = _mean_ms(task, metric)
    stats["unit"] = "ms"
    return stats


def _throughput(task: TaskResult) -> dict[str, Any]:
    """``GlobalStatsCalculator.summary_stats``: all None (with the unit) when a value is missing or 0."""
    values = (task.throughput_min, task.throughput_mean, task.throughput_median, task.throughput_max)
    if not (task.throughput_mean and task.throughput_median):
        values = (None, None, None, None)
    return dict(zip(("min", "mean", "median", "max"), values, strict=True)) | {"unit": task.throughput_unit}


def op_metrics(task: TaskResult, layout: StoreLayout = RALLY) -> dict[str, Any]:
    """One ``op_metrics`` entry (``GlobalStats.add_op_metrics``) with the layout's keys, in its
    order; ``duration`` in ms. A key esbench has no measurement for (OSB's
    ``client_processing_time``) is ``{}``, as the tool writes a metric without samples."""
    values: dict[str, Any] = {
        "task": task.task,
        "operation": task.operation,
        "throughput": _throughput(task),
        **{metric: _durations(task, metric, attr) for metric, attr in _DURATIONS},
        "error_rate": task.error_rate,
        "duration": task.duration_s * 1000.0 if task.sample_count else None,
    }
    return {key: values.get(key, {}) for key in layout.op_metrics_keys}


#: OSB's recall metrics of a task (``GlobalStats.as_flat_list``, ``correctness_metrics``), in its order.
_RECALLS = (
    "recall@k",
    "recall@1",
    "recall@max_distance",
    "recall@max_distance_1",
    "recall@min_score",
    "recall@min_score_1",
)


def correctness_metrics(task: TaskResult) -> dict[str, Any]:
    """One OSB ``correctness_metrics`` entry (``GlobalStats.add_correctness_metrics``, which OSB's
    ``GlobalStatsCalculator`` adds for every reported task): ``recall@k`` and ``recall@1`` are
    ``{}``, as OSB writes them for a task without recall samples (esbench measures no recall)."""
    return {
        "task": task.task,
        "operation": task.operation,
        "recall@k": {},
        "recall@1": {},
        "error_rate": task.error_rate,
        "duration": task.duration_s * 1000.0 if task.sample_count else None,
    }


def global_stats(race: RaceResult, layout: StoreLayout = RALLY) -> dict[str, Any]:
    """The race's ``results`` as the layout's tool stores them (``GlobalStats.as_dict``): reported
    tasks' ``op_metrics`` and the cluster-level values in the tools' units (ms, bytes, counts); a
    value the tool has no key for (Rally's ZGC and ingest rows in OSB's layout) is left out."""
    stats = _empty_results(layout)
    stats["op_metrics"] = [op_metrics(t, layout) for t in race.tasks if t.reported]
    if "correctness_metrics" in stats:
        stats["correctness_metrics"] = [correctness_metrics(t) for t in race.tasks if t.reported]
    for row in race.cluster_metrics:
        if row.task:
            continue
        if row.name in _CLUSTER_ROWS:
            key, factor = _CLUSTER_ROWS[row.name]
            if key not in stats:
                continue
            # Rally's values are whole ms, bytes and counts (sums of node and index statistics).
            stats[key] = round(row.value * factor)
            continue
        which, _, rest = row.name.partition(" cumulative ")
        label = rest.removesuffix(" across primary shards")
        if which in ("Min", "Median", "Max") and label in _PER_SHARD:
            shard = stats[_PER_SHARD[label]]
            shard[which.lower()] = round(row.value * _MIN, 3)
            shard["unit"] = "ms"
    return stats


def _esbench_extra(race: RaceResult) -> dict[str, Any]:
    return {
        "version": race.esbench_version,
        "status": race.status,
        "error": race.error,
        "duration-s": race.duration_s,
        "cluster-version": race.cluster_version,
        "cluster-nodes": race.cluster_nodes,
        "test-mode": race.test_mode,
    }


def race_document(race: RaceResult, environment: str, layout: StoreLayout = RALLY) -> dict[str, Any]:
    """The race document (Rally's ``Race.as_dict`` in ``rally-races-*``, OSB's ``TestRun.as_dict``
    in ``benchmark-test-runs-*``), ``_id`` = race id."""
    f = layout.fields
    ctx = context(race, environment, layout)
    doc: dict[str, Any] = {
        f.tool_version: layout.tool_version,
        f.tool_revision: None,
        "environment": environment,
        f.race_id: race.race_id,
        f.race_timestamp: ctx.race_timestamp,
        "pipeline": race.pipeline,
        "user-tags": dict(ctx.user_tags),
        f.track: race.track,
        f.car: car_names(race),
        "cluster": {
            "revision": None,
            "distribution-version": _version(race),
            "distribution-flavor": None,
            f.config_revision: None,
        },
        "results": global_stats(race, layout),
    }
    if race.track_revision:
        doc[f.track_revision] = race.track_revision
    if race.challenge or layout.challenge_always:
        doc[f.challenge] = race.challenge or None
    if race.track_params:
        doc[f.track_params] = dict(race.track_params)
    if race.car_params:
        doc[f.car_params] = dict(race.car_params)
    doc["esbench"] = _esbench_extra(race)
    return doc


_SINGLE_VALUES = frozenset(("error_rate", "duration"))


def _flat_list(stats: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``GlobalStats.as_flat_list``: one entry per metric of each task (in the order of the
    entry's keys) and per cluster value."""
    out: list[dict[str, Any]] = []
    for key, value in stats.items():
        if key == "op_metrics":
            for item in value:
                for name, metric in item.items():
                    if name in ("task", "operation"):
                        continue
                    out.append(
                        {
                            "task": item["task"],
                            "operation": item["operation"],
                            "name": name,
                            "value": {"single": metric} if name in _SINGLE_VALUES else metric,
                        }
                    )
        elif key == "correctness_metrics":
            out.extend(
                {"task": item["task"], "operation": item["operation"], "name": name, "value": item[name]}
                for item in value
                for name in _RECALLS
                if name in item
            )
        elif key.endswith("_time_per_shard"):
            if value:
                out.append({"name": key, "value": value})
        elif value is not None and not isinstance(value, list):
            out.append({"name": key, "value": {"single": value}})
    return sorted(out, key=lambda m: m["name"])


def result_documents(race: RaceResult, environment: str, layout: StoreLayout = RALLY) -> list[dict[str, Any]]:
    """The results documents (``Race.to_result_dicts`` / OSB's ``TestRun.to_result_dicts``), in
    the tools' order (by name)."""
    f = layout.fields
    version = _version(race)
    template: dict[str, Any] = {
        f.tool_version: layout.tool_version,
        f.tool_revision: None,
        "environment": environment,
        f.race_id: race.race_id,
        f.race_timestamp: context(race, environment, layout).race_timestamp,
        "distribution-version": version,
        "distribution-flavor": None,
        "user-tags": {str(k): v for k, v in race.user_tags.items()},
        f.track: race.track,
        f.challenge: race.challenge or None,
        f.car: "+".join(car_names(race)),
        "active": True,
    }
    major = (version or "").split(".", 1)[0]
    if major.isdigit():
        template["distribution-major-version"] = int(major)
    if race.track_revision:
        template[f.track_revision] = race.track_revision
    if race.track_params:
        template[f.track_params] = dict(race.track_params)
    if race.car_params:
        template[f.car_params] = dict(race.car_params)
    return [template | item for item in _flat_list(global_stats(race, layout))]
