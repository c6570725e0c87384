"""Races read back from an Elasticsearch metrics store, for ``esbench list races``, ``report``,
``compare`` and ``trend`` with ``--source=metrics-store``.

Three layouts are read, and merged newest first:

- Rally's (``rally-races-*``) and OSB's (``benchmark-test-runs-*``, the same under other names;
  :mod:`esbench.results.store_layout`): what Rally 2.13 and OSB 2.4.0 write, and esbench too. Per
  layout one search for the race documents, whose ``results`` hold every task's summary (mapped by
  :mod:`esbench.results.store_races`), and one aggregation over its metrics indices for the request
  counts of each task (its ``service_time`` samples, as both tools count their error rate).
- esbench's older one (``<prefix>-races-*`` and ``<prefix>-results-*``, written by
  :mod:`esbench.results.es_export`): the race documents, then their task documents
  (``kind: task``) with the summary fields the export wrote (throughput statistics, latency /
  service time / processing time percentiles, sample and error counts).

Each race comes back as a :class:`~esbench.records.RaceResult`; what neither layout holds
(histograms, per-second windows, error descriptions, telemetry) stays empty. The filters are
:class:`~esbench.results.race_listing.RaceFilter`'s.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from esbench.exceptions import NotFound, UserError
from esbench.records import RaceResult, TaskResult
from esbench.results.metrics_store import MetricsStoreSettings, metrics_store_client
from esbench.results.race_listing import ListedRace, RaceFilter, race_datetime
from esbench.results.store import parse_tag_ref, tag_ref_values
from esbench.results.store_layout import LAYOUTS, RACE_TIMESTAMP_FORMAT, RALLY, StoreIndex, StoreLayout
from esbench.results.store_races import race_from_rally_document

if TYPE_CHECKING:
    from elasticsearch import Elasticsearch


def race_query(flt: RaceFilter) -> dict[str, object]:
    """The query DSL of ``flt`` for esbench's own race documents (``<prefix>-races-*``, ISO
    timestamps, no environment)."""
    clauses: list[dict[str, object]] = []
    for name, value in (("track", flt.track), ("challenge", flt.challenge), ("status", flt.status)):
        if value is not None:
            clauses.append({"term": {name: value}})
    clauses.extend(_tag_clauses(flt))
    bounds: dict[str, str] = {}
    if flt.from_date is not None:
        bounds["gte"] = f"{flt.from_date:%Y-%m-%d}T00:00:00Z"
    if flt.to_date is not None:
        bounds["lt"] = f"{flt.to_date + timedelta(days=1):%Y-%m-%d}T00:00:00Z"
    if bounds:
        clauses.append({"range": {"race-timestamp": {**bounds, "format": "strict_date_optional_time"}}})
    if flt.since is not None:
        clauses.append({"range": {"race-timestamp": {"gte": flt.since}}})
    return {"bool": {"filter": clauses}} if clauses else {"match_all": {}}


def rally_race_query(flt: RaceFilter, layout: StoreLayout = RALLY) -> dict[str, object] | None:
    """The query DSL of ``flt`` for the race documents of ``layout`` (``rally-races-*``,
    ``benchmark-test-runs-*``), as Rally's ``EsRaceStore.list`` filters them (environment, track,
    challenge, benchmark name, user tags, dates; ``esrally/metrics.py``; OSB's ``OsTestRunStore.list``
    filters by environment); None when no such race can match (a status other than ``completed``:
    both tools store only races that ended)."""
    if flt.status not in (None, "completed"):
        return None
    f = layout.fields
    clauses: list[dict[str, object]] = []
    for name, value in (("environment", flt.environment), (f.track, flt.track), (f.challenge, flt.challenge)):
        if value is not None:
            clauses.append({"term": {name: value}})
    clauses.extend(_tag_clauses(flt))
    bounds: dict[str, str] = {}
    if flt.from_date is not None:
        bounds["gte"] = f"{flt.from_date:%Y%m%d}T000000Z"
    if flt.to_date is not None:
        bounds["lt"] = f"{flt.to_date + timedelta(days=1):%Y%m%d}T000000Z"
    if flt.since is not None:
        since = race_datetime(flt.since) or race_datetime(f"{flt.since}T00:00:00Z")
        if since is not None:
            bounds["gte"] = max(bounds.get("gte", ""), since.strftime(RACE_TIMESTAMP_FORMAT))
    if bounds:
        clauses.append({"range": {f.race_timestamp: {**bounds, "format": "basic_date_time_no_millis"}}})
    return {"bool": {"filter": clauses}} if clauses else {"match_all": {}}


def _tag_clauses(flt: RaceFilter) -> list[dict[str, object]]:
    # Tags are typed in the store (Rally's kv_to_map: 4, true), so a field may be a number or a
    # boolean: a lenient match of each accepted text matches the value it parses to there, where a
    # terms query of strings fails on a boolean field ("Can't parse boolean value [True]").
    clauses: list[dict[str, object]] = [
        {
            "bool": {
                "should": [
                    {"match": {f"user-tags.{key}": {"query": str(v), "lenient": True}}} for v in values
                ],
                "minimum_should_match": 1,
            }
        }
        for key, values in flt.user_tags.items()
    ]
    if flt.benchmark_name is not None:
        either = [{"term": {f"user-tags.{k}": flt.benchmark_name}} for k in ("benchmark-name", "name")]
        clauses.append({"bool": {"should": either, "minimum_should_match": 1}})
    return clauses


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
        user_tags={str(k): v for k, v in (race_doc.get("user-tags") or {}).items()},
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


def _newest(
    es: Elasticsearch, index: str, query: Mapping[str, object], limit: int, timestamp: str
) -> list[dict[str, Any]]:
    body = es.search(
        index=index,
        query=query,
        sort=[{timestamp: {"order": "desc"}}],
        size=limit,
        ignore_unavailable=True,
        allow_no_indices=True,
    )
    return list(body["hits"]["hits"])


def _hits(
    es: Elasticsearch,
    index: str,
    query: Mapping[str, object],
    limit: int | None,
    timestamp: str = "race-timestamp",
) -> list[dict[str, Any]]:
    return _newest(es, index, query, limit, timestamp) if limit else list(_scan(es, index, query))


#: Which layout a race document came from: Rally's or OSB's (the tools write them, and esbench
#: too), or None for esbench's older export (``<prefix>-races-*`` with ``<prefix>-results-*``).
Layout = StoreLayout | None
ESBENCH: Layout = None


def _doc_id(layout: Layout, doc: Mapping[str, Any]) -> str:
    return str(doc.get((layout or RALLY).fields.race_id, ""))


def _doc_timestamp(layout: Layout, doc: Mapping[str, Any]) -> str:
    return str(doc.get((layout or RALLY).fields.race_timestamp, ""))


def _race_documents(
    es: Elasticsearch, settings: MetricsStoreSettings, flt: RaceFilter, limit: int | None
) -> list[tuple[Layout, dict[str, Any]]]:
    """(layout, ``_source``) of the matching race documents of every layout, newest first, at most
    ``limit``. A race id in several layouts (an esbench race also exported the old way) is kept
    once, in the first of Rally's, OSB's and esbench's older one."""
    found: dict[str, tuple[Layout, dict[str, Any]]] = {}
    prefix = settings.index_prefix
    for layout in settings.read_layouts:
        query = rally_race_query(flt, layout)
        if query is None:
            continue
        f = layout.fields
        for hit in _hits(es, layout.index_pattern(StoreIndex.RACES), query, limit, f.race_timestamp):
            found.setdefault(str(hit["_source"].get(f.race_id, hit["_id"])), (layout, hit["_source"]))
    for hit in _hits(es, f"{prefix}-races-*", race_query(flt), limit):
        found.setdefault(str(hit["_source"].get("race-id", hit["_id"])), (ESBENCH, hit["_source"]))
    docs = sorted(
        found.values(),
        key=lambda ld: race_datetime(_doc_timestamp(*ld)) or datetime.fromtimestamp(0, UTC),
        reverse=True,
    )
    return docs[:limit] if limit else docs


def _rally_counts(
    es: Elasticsearch, race_ids: Sequence[str], layout: StoreLayout = RALLY
) -> dict[str, dict[str, tuple[int, int]]]:
    """race id -> task -> (requests, failed requests) of the races' measurement ``service_time``
    samples in the layout's metrics indices (the tools' ``get_error_rate`` counts the same samples)."""
    out: dict[str, dict[str, tuple[int, int]]] = {}
    race_field = layout.fields.race_id
    for start in range(0, len(race_ids), 100):
        ids = list(race_ids[start : start + 100])
        query = {
            "bool": {
                "filter": [
                    {"terms": {race_field: ids}},
                    {"term": {"name": "service_time"}},
                    {"term": {"sample-type": "normal"}},
                ]
            }
        }
        aggs = {
            "races": {
                "terms": {"field": race_field, "size": len(ids)},
                "aggs": {
                    "tasks": {
                        "terms": {"field": "task", "size": 10_000},
                        "aggs": {"failed": {"filter": {"term": {"meta.success": False}}}},
                    }
                },
            }
        }
        body = es.search(
            index=layout.index_pattern(StoreIndex.METRICS),
            query=query,
            aggs=aggs,
            size=0,
            ignore_unavailable=True,
            allow_no_indices=True,
        )
        for race in (body.get("aggregations") or {}).get("races", {}).get("buckets", []):
            out[race["key"]] = {
                t["key"]: (int(t["doc_count"]), int(t["failed"]["doc_count"]))
                for t in race["tasks"]["buckets"]
            }
    return out


def _esbench_tasks(es: Elasticsearch, prefix: str, race_ids: Sequence[str]) -> dict[str, list[TaskResult]]:
    tasks: dict[str, list[tuple[int, TaskResult]]] = {race_id: [] for race_id in race_ids}
    for start in range(0, len(race_ids), 1000):
        query = {
            "bool": {
                "filter": [
                    {"term": {"kind": "task"}},
                    {"terms": {"race-id": list(race_ids[start : start + 1000])}},
                ]
            }
        }
        for hit in _scan(es, f"{prefix}-results-*", query):
            tasks[hit["_source"]["race-id"]].append(
                (_task_position(hit["_id"]), task_from_document(hit["_source"]))
            )
    return {race_id: [t for _, t in sorted(ts, key=lambda pt: pt[0])] for race_id, ts in tasks.items()}


def _to_races(
    es: Elasticsearch, prefix: str, docs: Sequence[tuple[Layout, dict[str, Any]]]
) -> list[RaceResult]:
    counts: dict[str, dict[str, tuple[int, int]]] = {}
    for layout in LAYOUTS.values():
        ids = [_doc_id(source, d) for source, d in docs if source is layout]
        if ids:
            counts.update(_rally_counts(es, ids, layout))
    esbench_ids = [str(d["race-id"]) for layout, d in docs if layout is ESBENCH]
    tasks = _esbench_tasks(es, prefix, esbench_ids) if esbench_ids else {}
    return [
        race_from_documents(d, tasks.get(str(d["race-id"]), []))
        if layout is None
        else race_from_rally_document(d, counts.get(_doc_id(layout, d)), layout)
        for layout, d in docs
    ]


def read_races(
    settings: MetricsStoreSettings, flt: RaceFilter, *, limit: int | None = None
) -> list[RaceResult]:
    """The races of the metrics store that match ``flt``, with their tasks, newest first (at most
    ``limit``): Rally's layout (``rally-races-*``) and OSB's (``benchmark-test-runs-*``), which
    esbench writes too, and esbench's older layout (``<prefix>-races-*`` with ``<prefix>-results-*``).

    Raises:
        StoreError: the metrics store is unreachable, rejects the credentials or the search, or holds
            a Rally race document without a valid timestamp; the message names the hosts without
            credentials.
    """
    with metrics_store_client(settings, "search") as es:
        return _to_races(es, settings.index_prefix, _race_documents(es, settings, flt, limit))


def list_races(
    settings: MetricsStoreSettings, flt: RaceFilter, *, limit: int | None = None
) -> list[ListedRace]:
    """The races of the metrics store that match ``flt`` as ``list races`` shows them, newest first
    (at most ``limit``), from both layouts (see :func:`read_races`).

    Raises:
        StoreError: as :func:`read_races`.
    """
    with metrics_store_client(settings, "search") as es:
        docs = _race_documents(es, settings, flt, limit)
    return [
        ListedRace.from_race(race_from_documents(d, []))
        if layout is None
        else ListedRace.from_rally_document(d, layout)
        for layout, d in docs
    ]


def resolve_races(settings: MetricsStoreSettings, ref: str, *, environment: str | None) -> list[RaceResult]:
    """The races of the metrics store named by ``ref``, as the results store resolves a reference
    (:meth:`esbench.results.store.ResultsStore.resolve`): a race id or an unambiguous id prefix
    (one race), or ``tag:KEY:VALUE`` (every race with that user tag, newest first). Rally's races
    count only in ``environment`` (None: any). Never empty.

    Raises:
        NotFound: nothing matches. UserError: an empty reference, or an id prefix of several races.
        StoreError: as :func:`read_races`.
    """
    ref = ref.strip()
    if not ref:
        raise UserError("An empty race reference was given; pass a race id, id prefix or tag:KEY:VALUE.")
    where = f"the metrics store {settings.display_url}"
    tag = parse_tag_ref(ref)
    if tag is not None:
        races = read_races(
            settings, RaceFilter(environment=environment, user_tags={tag[0]: tag_ref_values(tag[1])})
        )
        if not races:
            raise NotFound(f"No race in {where} has the user tag {tag[0]}:{tag[1]}{_in_env(environment)}.")
        return races
    prefix_query: dict[str, object] = {"prefix": {"race-id": ref.lower()}}
    with metrics_store_client(settings, "search") as es:
        docs: list[tuple[Layout, dict[str, Any]]] = []
        seen: set[str] = set()
        for layout in settings.read_layouts:
            tool_filter: list[dict[str, object]] = [{"prefix": {layout.fields.race_id: ref.lower()}}]
            if environment is not None:
                tool_filter.append({"term": {"environment": environment}})
            for h in _scan(es, layout.index_pattern(StoreIndex.RACES), {"bool": {"filter": tool_filter}}):
                if _doc_id(layout, h["_source"]) not in seen:
                    seen.add(_doc_id(layout, h["_source"]))
                    docs.append((layout, h["_source"]))
        docs += [
            (ESBENCH, h["_source"])
            for h in _scan(es, f"{settings.index_prefix}-races-*", prefix_query)
            if str(h["_source"].get("race-id")) not in seen
        ]
        exact = [ld for ld in docs if _doc_id(*ld).lower() == ref.lower()]
        docs = exact[:1] or docs
        if not docs:
            raise NotFound(
                f"No race with id or id prefix {ref!r} in {where}{_in_env(environment)}. "
                "See `esbench list races --source=metrics-store`."
            )
        if len(docs) > 1:
            listing = "\n".join(
                f"  {_doc_id(layout, d)}  {_doc_timestamp(layout, d)}  "
                f"{d.get((layout or RALLY).fields.track)}"
                for layout, d in docs[:20]
            )
            raise UserError(
                f"The race id prefix {ref!r} is ambiguous in {where}: it matches {len(docs)} races. "
                f"Give more characters of the id:\n{listing}"
            )
        return _to_races(es, settings.index_prefix, docs)


def _in_env(environment: str | None) -> str:
    return (
        f" (environment {environment!r} of Rally's and OSB's races; another one: --environment)"
        if environment
        else ""
    )
