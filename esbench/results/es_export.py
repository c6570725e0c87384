"""Export of races to an Elasticsearch *metrics store*: Rally's layout, and esbench's former own.

:func:`export_races` (``esbench export``, ``race --metrics-store``) writes Rally's layout
(:mod:`esbench.results.store_writer`). The rest of this module is esbench's former own layout,
which the readers still read and :func:`export_races_esbench_layout` still writes (the readers'
tests build such stores with it). Three kinds of documents go into monthly indices, named after
the race timestamp, each covered by a composable index template installed on first use:

- ``<prefix>-races-YYYY-MM``: one document per race (``_id`` = race id);
- ``<prefix>-results-YYYY-MM``: one document per reported task (``kind: task``: throughput
  min/mean/median/max, latency / service time / processing time percentiles ``p50``, ``p99_9``...,
  error rate as a fraction) and one per cluster row (``kind: cluster``: ``metric``, ``value``,
  ``unit``);
- ``<prefix>-metrics-YYYY-MM``: one document per per-second throughput window (``value`` in
  ``unit``, ``relative-time-s`` = seconds since the task's measurement started), and one per
  telemetry sample (``kind: telemetry``, see :mod:`esbench.results.es_export_telemetry`).

Mappings are explicit so Kibana can chart them: dates are ``date``, numbers numeric, names, units and
user tags ``keyword``; track/car params are ``flattened`` (values of any type, filterable).
Document ids are deterministic, so exporting a race again overwrites it instead of duplicating it.

Where the store is and how esbench logs in (credentials never shown, stored or logged):
:mod:`esbench.results.metrics_store`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, cast

from esbench.exceptions import ConfigError, StoreError
from esbench.records import RaceResult, tag_text
from esbench.results.es_export_telemetry import telemetry_documents
from esbench.results.metrics_store import DEFAULT_PREFIX, MetricsStoreSettings, metrics_store_client
from esbench.results.store_writer import ExportCounts, write_races

logger = logging.getLogger(__name__)


_PERCENTILE_FIELDS = {
    "latency_ms": "latency",
    "service_time_ms": "service-time",
    "processing_time_ms": "processing-time",
}


# ---------------------------------------------------------------------------------- documents


def _month(race: RaceResult) -> str:
    return race.timestamp[:7] if len(race.timestamp) >= 7 else "unknown"


def index_name(prefix: str, kind: str, race: RaceResult) -> str:
    """``<prefix>-<kind>-YYYY-MM`` of the race timestamp (``kind``: races, results, metrics)."""
    return f"{prefix}-{kind}-{_month(race)}"


def percentile_field(label: str) -> str:
    """``"99.9" -> "p99_9"``: field names must not contain dots (they would nest objects)."""
    return "p" + label.replace(".", "_")


def _common(race: RaceResult) -> dict[str, object]:
    return {
        "@timestamp": race.timestamp,
        "race-id": race.race_id,
        "race-timestamp": race.timestamp,
        "track": race.track,
        "challenge": race.challenge,
        "car": race.car,
        # Text, as esbench's own templates map them: a typed tag (4 in one race, "abc" in the next)
        # would fix the field's type and reject the later documents.
        "user-tags": {str(k): tag_text(v) for k, v in race.user_tags.items()},
        "test-mode": race.test_mode,
    }


def race_document(race: RaceResult) -> dict[str, object]:
    """The race document (``<prefix>-races-*``)."""
    return {
        **_common(race),
        "track-params": race.track_params,
        "car-params": race.car_params,
        "pipeline": race.pipeline,
        "distribution-version": race.distribution_version,
        "cluster-version": race.cluster_version,
        "cluster-nodes": race.cluster_nodes,
        "esbench-version": race.esbench_version,
        "status": race.status,
        "error": race.error,
        "duration-s": race.duration_s,
        "tasks": [t.task for t in race.tasks],
    }


def result_documents(race: RaceResult) -> list[tuple[str, dict[str, object]]]:
    """``(id, doc)`` per reported task (:attr:`TaskResult.reported`: administrative tasks with a failed
    request too, as Rally's results) and per cluster row (``<prefix>-results-*``)."""
    docs: list[tuple[str, dict[str, object]]] = []
    for position, t in enumerate(race.tasks):
        if not t.reported:
            continue
        doc: dict[str, object] = {
            **_common(race),
            "kind": "task",
            "task": t.task,
            "operation": t.operation,
            "operation-type": t.operation_type,
            "throughput": {
                "min": t.throughput_min,
                "mean": t.throughput_mean,
                "median": t.throughput_median,
                "max": t.throughput_max,
                "unit": t.throughput_unit,
            },
            "mean-service-time-ms": t.mean_service_time_ms,
            "sample-count": t.sample_count,
            "error-count": t.error_count,
            "error-rate": t.error_rate,
            "duration-s": t.duration_s,
        }
        for attr, name in _PERCENTILE_FIELDS.items():
            values: Mapping[str, float] = getattr(t, attr)
            if values:
                doc[name] = {percentile_field(label): v for label, v in values.items()}
        docs.append((f"{race.race_id}-task-{position}", doc))
    for position, m in enumerate(race.cluster_metrics):
        docs.append(
            (
                f"{race.race_id}-cluster-{position}",
                {
                    **_common(race),
                    "kind": "cluster",
                    "metric": m.name,
                    "value": m.value,
                    "unit": m.unit,
                    "task": m.task,
                },
            )
        )
    return docs


def metric_documents(race: RaceResult) -> Iterator[tuple[str, dict[str, object]]]:
    """``(id, doc)`` per per-second throughput window of every reported task (``<prefix>-metrics-*``)."""
    for position, t in enumerate(race.tasks):
        if not t.reported:
            continue
        for i, value in enumerate(t.throughput_windows):
            yield (
                f"{race.race_id}-{position}-{i}",
                {
                    **_common(race),
                    "task": t.task,
                    "operation-type": t.operation_type,
                    "name": "throughput",
                    "value": value,
                    "unit": t.throughput_unit,
                    "sample-index": i,
                    "relative-time-s": float(i),
                },
            )


# ---------------------------------------------------------------------------------- templates

_STRINGS_AS_KEYWORDS = [
    {"strings_as_keywords": {"match_mapping_type": "string", "mapping": {"type": "keyword"}}}
]


def _common_properties() -> dict[str, object]:
    return {
        "@timestamp": {"type": "date"},
        "race-id": {"type": "keyword"},
        "race-timestamp": {"type": "date"},
        "track": {"type": "keyword"},
        "challenge": {"type": "keyword"},
        "car": {"type": "keyword"},
        "user-tags": {"type": "object", "dynamic": True},
        "test-mode": {"type": "boolean"},
    }


def _percentiles_mapping() -> dict[str, object]:
    return {
        "properties": {
            percentile_field(p): {"type": "double"} for p in ("50", "90", "99", "99.9", "99.99", "100")
        }
    }


def index_templates(prefix: str = DEFAULT_PREFIX) -> dict[str, dict[str, Any]]:
    """Composable index templates by name.

    Shape: ``{name: {"index_patterns": [...], "priority": N, "template": {...}, "meta": {...}}}``.
    """
    races = {
        **_common_properties(),
        "track-params": {"type": "flattened"},
        "car-params": {"type": "flattened"},
        "pipeline": {"type": "keyword"},
        "distribution-version": {"type": "keyword"},
        "cluster-version": {"type": "keyword"},
        "cluster-nodes": {"type": "integer"},
        "esbench-version": {"type": "keyword"},
        "status": {"type": "keyword"},
        "error": {"type": "text"},
        "duration-s": {"type": "double"},
        "tasks": {"type": "keyword"},
    }
    results = {
        **_common_properties(),
        "kind": {"type": "keyword"},
        "task": {"type": "keyword"},
        "operation": {"type": "keyword"},
        "operation-type": {"type": "keyword"},
        "throughput": {
            "properties": {
                "min": {"type": "double"},
                "mean": {"type": "double"},
                "median": {"type": "double"},
                "max": {"type": "double"},
                "unit": {"type": "keyword"},
            }
        },
        "latency": _percentiles_mapping(),
        "service-time": _percentiles_mapping(),
        "processing-time": _percentiles_mapping(),
        "mean-service-time-ms": {"type": "double"},
        "sample-count": {"type": "long"},
        "error-count": {"type": "long"},
        "error-rate": {"type": "double"},
        "duration-s": {"type": "double"},
        "metric": {"type": "keyword"},
        "value": {"type": "double"},
        "unit": {"type": "keyword"},
    }
    metrics = {
        **_common_properties(),
        "task": {"type": "keyword"},
        "operation-type": {"type": "keyword"},
        "name": {"type": "keyword"},
        "value": {"type": "double"},
        "unit": {"type": "keyword"},
        "sample-index": {"type": "integer"},
        "relative-time-s": {"type": "double"},
        "kind": {"type": "keyword"},
        "device": {"type": "keyword"},
        "node": {"type": "keyword"},
    }
    out = {}
    for kind, props in (("races", races), ("results", results), ("metrics", metrics)):
        out[f"{prefix}-{kind}"] = {
            "index_patterns": [f"{prefix}-{kind}-*"],
            "priority": 200,
            "template": {
                "settings": {"number_of_shards": 1},
                "mappings": {"dynamic_templates": _STRINGS_AS_KEYWORDS, "properties": props},
            },
            "meta": {"description": f"esbench {kind} (see docs/results.md)"},
        }
    return out


# ---------------------------------------------------------------------------------- export


def _actions(races: Sequence[RaceResult], prefix: str, counts: dict[str, int]) -> Iterator[dict[str, object]]:
    for race in races:
        counts["races"] += 1
        yield {
            "_index": index_name(prefix, "races", race),
            "_id": race.race_id,
            "_source": race_document(race),
        }
        for doc_id, doc in result_documents(race):
            counts["results"] += 1
            yield {"_index": index_name(prefix, "results", race), "_id": doc_id, "_source": doc}
        for doc_id, doc in metric_documents(race):
            counts["metrics"] += 1
            yield {"_index": index_name(prefix, "metrics", race), "_id": doc_id, "_source": doc}
        for doc_id, doc in telemetry_documents(race, _common(race)):
            counts["telemetry"] += 1
            yield {"_index": index_name(prefix, "metrics", race), "_id": doc_id, "_source": doc}


def export_races_esbench_layout(
    races: Iterable[RaceResult], settings: MetricsStoreSettings | str, *, refresh: bool = False
) -> ExportCounts:
    """Install esbench's own templates and index ``races`` in esbench's own layout
    (``<prefix>-races-*``...), the layout esbench wrote before it wrote Rally's; the readers still
    read it. ``esbench export`` and ``race`` write Rally's layout (:func:`export_races`).

    Args:
        settings: the metrics store, or its URL (credentials then come from the URL userinfo or the
            ``ESBENCH_METRICS_STORE_*`` variables, see :meth:`MetricsStoreSettings.from_env`).
        refresh: refresh the written indices before returning (tests, immediate dashboards).

    Raises:
        StoreError: the metrics store is unreachable, rejects the credentials or a document; the
            message names the hosts without credentials.
    """
    from elasticsearch import helpers

    settings = _settings(settings)
    races = list(races)
    counts = {"races": 0, "results": 0, "metrics": 0, "telemetry": 0}
    with metrics_store_client(settings, "export") as es:
        for name, body in index_templates(settings.index_prefix).items():
            es.indices.put_index_template(name=name, **body)
        _, errors = helpers.bulk(
            es,
            _actions(races, settings.index_prefix, counts),
            raise_on_error=False,
            chunk_size=1000,
            refresh="wait_for" if refresh else False,
        )
    if errors:
        # helpers.bulk types its second value "int | list" for both stats_only modes; it is the
        # list of failed items here (stats_only is off).
        errors = cast(list[dict[str, Any]], errors)
        first = errors[0]
        raise StoreError(
            f"the metrics store {settings.display_url} refused {len(errors)} exported document(s); "
            f"the first: {first}."
        )
    logger.debug("exported %s to %s", counts, settings.display_url)
    return ExportCounts(**counts)


def export_races(
    races: Iterable[RaceResult], settings: MetricsStoreSettings | str, *, refresh: bool = False
) -> ExportCounts:
    """Write ``races`` into Rally's metrics store layout (:func:`esbench.results.store_writer.write_races`).

    Args:
        settings: the metrics store, or its URL (credentials then come from the URL userinfo or the
            ``ESBENCH_METRICS_STORE_*`` variables, see :meth:`MetricsStoreSettings.from_env`).
        refresh: refresh the written indices before returning (tests, immediate dashboards).

    Raises:
        ConfigError: an empty or malformed URL.
        StoreError: the metrics store is unreachable, rejects the credentials or a document.
    """
    return write_races(races, _settings(settings), refresh=refresh)


def _settings(settings: MetricsStoreSettings | str) -> MetricsStoreSettings:
    if isinstance(settings, MetricsStoreSettings):
        return settings
    resolved = MetricsStoreSettings.from_env(settings)
    if resolved is None:
        raise ConfigError("The metrics store URL is empty (--metrics-store / ESBENCH_METRICS_STORE).")
    return resolved


def export_race(
    race: RaceResult, settings: MetricsStoreSettings | str, *, refresh: bool = False
) -> ExportCounts:
    """Export one race (see :func:`export_races`; ``settings`` may be the URL)."""
    return export_races([race], settings, refresh=refresh)
