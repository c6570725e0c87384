"""Races read back from an Elasticsearch metrics store (the documents :mod:`esbench.results.es_export`
writes), for commands that follow history there (``esbench trend``).

Two searches: the race documents of ``<prefix>-races-*`` that match the filters, then the task
documents (``kind: task``) of ``<prefix>-results-*`` of those races. Each race comes back as a
:class:`~esbench.records.RaceResult` with the race header and, per reported task, the summary
fields the export wrote (throughput statistics, latency / service time / processing time
percentiles, sample and error counts); what the export does not write (histograms, per-second
windows, error descriptions, telemetry) stays empty.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from esbench.records import RaceResult, TaskResult
from esbench.results.metrics_store import MetricsStoreSettings, metrics_store_client

if TYPE_CHECKING:
    from elasticsearch import Elasticsearch


@dataclass(frozen=True, kw_only=True)
class RaceFilter:
    """Which race documents to read (every given filter must match).

    Attributes:
        track / challenge / status: exact values (None: any).
        user_tags: tag key -> accepted values (one of them must match).
        since: only races with ``race-timestamp`` at or after this ISO-8601 time.
    """

    track: str | None = None
    challenge: str | None = None
    status: str | None = None
    user_tags: Mapping[str, Sequence[str]] = field(default_factory=dict)
    since: str | None = None


def race_query(flt: RaceFilter) -> dict[str, object]:
    """The query DSL of ``flt`` for the race documents."""
    clauses: list[dict[str, object]] = []
    for name, value in (("track", flt.track), ("challenge", flt.challenge), ("status", flt.status)):
        if value is not None:
            clauses.append({"term": {name: value}})
    for key, values in flt.user_tags.items():
        clauses.append({"terms": {f"user-tags.{key}": [str(v) for v in values]}})
    if flt.since is not None:
        clauses.append({"range": {"race-timestamp": {"gte": flt.since}}})
    return {"bool": {"filter": clauses}} if clauses else {"match_all": {}}


def percentile_label(field_name: str) -> str:
    """``"p99_9" -> "99.9"``: the inverse of :func:`esbench.results.es_export.percentile_field`."""
    return field_name.removeprefix("p").replace("_", ".")


def _percentiles(doc: Mapping[str, Any], group: str) -> dict[str, float]:
    values: Mapping[str, Any] = doc.get(group) or {}
    return {percentile_label(k): float(v) for k, v in values.items() if v is not None}


def task_from_document(doc: Mapping[str, Any]) -> TaskResult:
    """A :class:`TaskResult` of a ``kind: task`` result document (summary fields only)."""
    throughput: Mapping[str, Any] = doc.get("throughput") or {}
    return TaskResult(
        task=doc["task"],
        operation=doc.get("operation", doc["task"]),
        operation_type=doc.get("operation-type", ""),
        throughput_unit=throughput.get("unit") or "ops/s",
        throughput_min=throughput.get("min"),
        throughput_mean=throughput.get("mean"),
        throughput_median=throughput.get("median"),
        throughput_max=throughput.get("max"),
        mean_service_time_ms=doc.get("mean-service-time-ms"),
        sample_count=int(doc.get("sample-count") or 0),
        error_count=int(doc.get("error-count") or 0),
        duration_s=float(doc.get("duration-s") or 0.0),
        latency_ms=_percentiles(doc, "latency"),
        service_time_ms=_percentiles(doc, "service-time"),
        processing_time_ms=_percentiles(doc, "processing-time"),
    )


def race_from_documents(race_doc: Mapping[str, Any], tasks: Sequence[TaskResult]) -> RaceResult:
    """A :class:`RaceResult` of a race document and its tasks (in schedule order)."""
    return RaceResult(
        race_id=race_doc["race-id"],
        timestamp=race_doc["race-timestamp"],
        track=race_doc["track"],
        challenge=race_doc["challenge"],
        car=race_doc.get("car") or "external",
        user_tags={str(k): str(v) for k, v in (race_doc.get("user-tags") or {}).items()},
        track_params=race_doc.get("track-params") or {},
        car_params=race_doc.get("car-params") or {},
        pipeline=race_doc.get("pipeline") or "benchmark-only",
        distribution_version=race_doc.get("distribution-version"),
        cluster_version=race_doc.get("cluster-version"),
        cluster_nodes=race_doc.get("cluster-nodes"),
        esbench_version=race_doc.get("esbench-version") or "",
        test_mode=bool(race_doc.get("test-mode")),
        status=race_doc.get("status") or "completed",
        error=race_doc.get("error"),
        duration_s=float(race_doc.get("duration-s") or 0.0),
        tasks=tuple(tasks),
    )


def _task_position(doc_id: str) -> int:
    # es_export's ids are "<race id>-task-<position in the schedule>".
    tail = doc_id.rpartition("-task-")[2]
    return int(tail) if tail.isdigit() else 0


def _scan(es: Elasticsearch, index: str, query: Mapping[str, object]) -> Iterator[dict[str, Any]]:
    from elasticsearch import helpers

    yield from helpers.scan(es, index=index, query={"query": query}, ignore_unavailable=True)


def read_races(settings: MetricsStoreSettings, flt: RaceFilter) -> list[RaceResult]:
    """The races of the metrics store that match ``flt`` (in no particular order), with their tasks.

    Raises:
        StoreError: the metrics store is unreachable, rejects the credentials or the search; the
            message names the hosts without credentials.
    """
    prefix = settings.index_prefix
    with metrics_store_client(settings, "search") as es:
        race_docs = {
            h["_source"]["race-id"]: h["_source"] for h in _scan(es, f"{prefix}-races-*", race_query(flt))
        }
        tasks: dict[str, list[tuple[int, TaskResult]]] = {race_id: [] for race_id in race_docs}
        ids = list(race_docs)
        for start in range(0, len(ids), 1000):
            query = {
                "bool": {
                    "filter": [
                        {"term": {"kind": "task"}},
                        {"terms": {"race-id": ids[start : start + 1000]}},
                    ]
                }
            }
            for hit in _scan(es, f"{prefix}-results-*", query):
                tasks[hit["_source"]["race-id"]].append(
                    (_task_position(hit["_id"]), task_from_document(hit["_source"]))
                )
    return [
        race_from_documents(doc, [t for _, t in sorted(tasks[race_id], key=lambda pt: pt[0])])
        for race_id, doc in race_docs.items()
    ]
