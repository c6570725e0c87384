"""Annotations of the metrics store (``rally-annotations``), shared with Rally and its dashboards.

An annotation is a note on the charts of one day: Rally 2.13's ``esrally add annotation`` writes one
document per note (``esrally/metrics.py``, ``EsRaceStore.add_annotation``) with the fields
``environment``, ``race-timestamp`` (midnight UTC of the given race timestamp's day, in Rally's
``20261128T000000Z`` format, so that it lines up with the daily chart points), ``track``,
``chart`` (a chart type), ``chart-name`` and ``message``; its id is a random UUID. ``esrally list
annotations`` filters by environment, track and day, newest first; ``esrally delete annotation``
deletes by id. esbench reads and writes the same documents, so either tool lists the other's notes.

Errors are :class:`~esbench.exceptions.StoreError` (store unreachable or refusing) and
:class:`~esbench.exceptions.UserError` (a race timestamp not in Rally's format).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date
from typing import Any

from esbench.exceptions import UserError
from esbench.results.metrics_store import MetricsStoreSettings, metrics_store_client
from esbench.results.store_layout import ANNOTATIONS_INDEX, RACE_TIMESTAMP_FORMAT
from esbench.results.store_races import parse_race_timestamp

#: The chart types an annotation may target (``esrally/rally.py``, ``add_parser --chart-type``).
CHART_TYPES: tuple[str, ...] = (
    "query",
    "script",
    "stats",
    "indexing",
    "gc",
    "index_times",
    "merge_times",
    "merge_count",
    "refresh_times",
    "segment_count",
    "io",
    "ml_processing_time",
)

#: The composable index template of ``rally-annotations``, field for field the mapping of Rally's
#: ``esrally/resources/annotation-template.json``: strings as keywords, the race timestamp a date in
#: Rally's basic format (with a ``raw`` keyword beside it).
ANNOTATION_TEMPLATE: dict[str, Any] = {
    "index_patterns": [ANNOTATIONS_INDEX],
    "template": {
        "mappings": {
            "dynamic_templates": [
                {"strings": {"match": "*", "match_mapping_type": "string", "mapping": {"type": "keyword"}}}
            ],
            "properties": {
                "race-timestamp": {
                    "type": "date",
                    "format": "basic_date_time_no_millis",
                    "fields": {"raw": {"type": "keyword"}},
                },
                **{
                    name: {"type": "keyword"}
                    for name in ("environment", "user-tag", "track", "chart", "chart-name", "message")
                },
            },
        }
    },
}


@dataclass(frozen=True, kw_only=True)
class Annotation:
    """One annotation document.

    Attributes:
        annotation_id: the document id (a UUID for annotations either tool added).
        environment: Rally's ``env.name``.
        race_timestamp: the day it annotates, ``20261128T000000Z``.
        track / chart / chart_name: what it targets (None: every track / chart).
        message: the note.
    """

    annotation_id: str
    environment: str
    race_timestamp: str
    track: str | None
    chart: str | None
    chart_name: str | None
    message: str

    def document(self) -> dict[str, Any]:
        """The ``_source`` Rally writes (its field names, ``null`` for an unset target)."""
        return {
            "environment": self.environment,
            "race-timestamp": self.race_timestamp,
            "track": self.track,
            "chart": self.chart,
            "chart-name": self.chart_name,
            "message": self.message,
        }

    def row(self) -> list[str]:
        """The columns of ``list annotations`` (:data:`LIST_HEADERS`)."""
        cells = (
            self.annotation_id,
            self.race_timestamp,
            self.track,
            self.chart,
            self.chart_name,
            self.message,
        )
        return ["" if c is None else str(c) for c in cells]


#: Rally's ``list annotations`` columns (``esrally/metrics.py``, ``EsRaceStore.list_annotations``).
LIST_HEADERS: tuple[str, ...] = ("Annotation Id", "Timestamp", "Track", "Chart Type", "Chart Name", "Message")


def midnight(race_timestamp: str, option: str = "--race-timestamp") -> str:
    """Midnight UTC of the day of ``race_timestamp`` (``20261128T123750Z`` -> ``20261128T000000Z``),
    as Rally stores an annotation's day.

    Raises:
        UserError: not Rally's ``yyyyMMddTHHmmssZ`` format; names ``option``.
    """
    try:
        day = parse_race_timestamp(race_timestamp.strip())
    except ValueError:
        raise UserError(
            f"Invalid {option} value {race_timestamp!r}: write a race timestamp as Rally prints it in "
            "`list races`, e.g. 20261128T123750Z."
        ) from None
    return day.replace(hour=0, minute=0, second=0).strftime(RACE_TIMESTAMP_FORMAT)


def new_annotation(
    *,
    environment: str,
    race_timestamp: str,
    track: str | None,
    chart: str | None,
    chart_name: str | None,
    message: str,
) -> Annotation:
    """An annotation with a fresh UUID, its day at midnight (:func:`midnight`).

    Raises:
        UserError: ``race_timestamp`` is not in Rally's format, or ``chart`` is not one of
            :data:`CHART_TYPES`.
    """
    if chart is not None and chart not in CHART_TYPES:
        raise UserError(f"Invalid --chart-type {chart!r}: use one of {', '.join(CHART_TYPES)}.")
    return Annotation(
        annotation_id=str(uuid.uuid4()),
        environment=environment,
        race_timestamp=midnight(race_timestamp),
        track=track,
        chart=chart,
        chart_name=chart_name,
        message=message,
    )


def _check_layout(settings: MetricsStoreSettings) -> None:
    """Refuse annotations in a layout whose tool has none (OSB 2.4.0 has no annotation commands and
    no annotations index).

    Raises:
        UserError: the layout has no annotations index.
    """
    if settings.layout.annotations_index is None:
        raise UserError(
            f"Annotations are Rally's ({ANNOTATIONS_INDEX}); {settings.layout.tool} has none, and the "
            f"metrics store is configured in its layout ({settings.layout.name}). To annotate Rally's "
            "charts in this store, add --metrics-store-layout=rally."
        )


def add_annotation(settings: MetricsStoreSettings, annotation: Annotation) -> None:
    """Index ``annotation`` in ``rally-annotations``; when that index does not exist yet, put its
    template first and create it (as Rally does). The document is searchable when this returns.

    Raises:
        StoreError: the metrics store is unreachable or refuses a request.
        UserError: the store is configured in a layout without annotations (OSB's).
    """
    _check_layout(settings)
    with metrics_store_client(settings, "annotation") as es:
        if not es.indices.exists(index=ANNOTATIONS_INDEX):
            es.indices.put_index_template(name=ANNOTATIONS_INDEX, **ANNOTATION_TEMPLATE)
            es.options(ignore_status=400).indices.create(index=ANNOTATIONS_INDEX)
        es.index(
            index=ANNOTATIONS_INDEX,
            id=annotation.annotation_id,
            document=annotation.document(),
            refresh="wait_for",
        )


def list_annotations(
    settings: MetricsStoreSettings,
    *,
    environment: str,
    track: str | None = None,
    from_date: date | None = None,
    to_date: date | None = None,
    limit: int = 10,
) -> list[Annotation]:
    """The annotations of ``environment`` (and ``track``), on days from ``from_date`` to ``to_date``
    (both included, None: open), newest first, then by track and chart, at most ``limit``: Rally's
    query (``EsRaceStore.list_annotations``). No ``rally-annotations`` index: no annotations.

    Raises:
        StoreError: the metrics store is unreachable or refuses the search.
        UserError: the store is configured in a layout without annotations (OSB's).
    """
    _check_layout(settings)
    bounds = {
        "gte": f"{from_date:%Y%m%d}" if from_date else None,
        "lte": f"{to_date:%Y%m%d}" if to_date else None,
        "format": "basic_date",
    }
    filters: list[dict[str, Any]] = [
        {"term": {"environment": environment}},
        {"range": {"race-timestamp": bounds}},
    ]
    if track is not None:
        filters.append({"term": {"track": track}})
    with metrics_store_client(settings, "search") as es:
        body = es.search(
            index=ANNOTATIONS_INDEX,
            query={"bool": {"filter": filters}},
            sort=[{"race-timestamp": "desc"}, {"track": "asc"}, {"chart": "asc"}],
            size=limit,
            ignore_unavailable=True,
            allow_no_indices=True,
        )
    return [
        Annotation(
            annotation_id=hit["_id"],
            environment=hit["_source"].get("environment", environment),
            race_timestamp=str(hit["_source"].get("race-timestamp", "")),
            track=hit["_source"].get("track"),
            chart=hit["_source"].get("chart"),
            chart_name=hit["_source"].get("chart-name"),
            message=str(hit["_source"].get("message", "")),
        )
        for hit in body["hits"]["hits"]
    ]


def delete_annotation(settings: MetricsStoreSettings, annotation_id: str) -> bool:
    """Delete the annotation ``annotation_id``; False if there was none.

    Raises:
        StoreError: the metrics store is unreachable or refuses the request.
        UserError: the store is configured in a layout without annotations (OSB's).
    """
    _check_layout(settings)
    with metrics_store_client(settings, "delete") as es:
        result = es.options(ignore_status=404).delete(
            index=ANNOTATIONS_INDEX, id=annotation_id, refresh="wait_for"
        )
    return bool(result.get("result") == "deleted")
