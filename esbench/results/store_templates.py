"""The index templates of the metrics store in Rally's layout or OSB's, and the one probe that picks
``wildcard`` or ``keyword``.

Written from Rally 2.13's ``esrally/resources/{metrics,races,results,annotation}-template.json`` and
OSB 2.4.0's ``osbenchmark/resources/{metrics,test-runs,results}-template.json``, its fork: the same
mappings under the names of :class:`~esbench.results.store_layout.StoreLayout` (``rally-races`` /
``benchmark-test-runs``, ``race-id`` / ``test-run-id``...). Rally puts them with the composable
template API (``EsClient.put_template``), OSB with the legacy one (``OsClient.put_template``,
``indices.put_template``): :func:`index_templates` gives the body each API takes, and
:func:`put_templates` puts them the way the layout's tool does.

Two details are Rally's only: its metrics template maps ``meta.error-description`` as ``wildcard``,
and keywords of metrics documents ``ignore_above`` 8191. Nodes without the ``wildcard`` mapper
(the Maven integ-test build has no x-pack) refuse the whole template ("No handler for type
[wildcard]"), so :func:`wildcard_supported` asks the node once and the template then says
``keyword``, which Rally's queries read the same way (term filters).

esbench adds one thing the tools ignore: an ``esbench`` object in race documents, not indexed
(``enabled: false``), that holds esbench's own task results (per-second windows, merged
HdrHistograms) so that a reader can rebuild the race exactly.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from esbench.results.store_layout import RALLY, StoreIndex, StoreLayout

if TYPE_CHECKING:
    from elasticsearch import Elasticsearch

logger = logging.getLogger(__name__)

_KEYWORD = {"type": "keyword"}
_RACE_TIMESTAMP = {
    "type": "date",
    "format": "basic_date_time_no_millis",
    "fields": {"raw": {"type": "keyword"}},
}


def _strings_as_keywords(ignore_above: int | None = None) -> list[dict[str, Any]]:
    mapping: dict[str, Any] = {"type": "keyword"}
    if ignore_above is not None:
        mapping["ignore_above"] = ignore_above
    return [{"strings": {"match": "*", "match_mapping_type": "string", "mapping": mapping}}]


def _keywords(*names: str) -> dict[str, Any]:
    return {name: dict(_KEYWORD) for name in names}


def _template(
    layout: StoreLayout, patterns: list[str], settings: dict[str, Any], mappings: dict[str, Any]
) -> dict[str, Any]:
    """A body for the layout's template API: composable (settings and mappings under ``template``)
    or legacy (beside ``index_patterns``)."""
    if layout.composable_templates:
        return {"index_patterns": patterns, "template": {"settings": settings, "mappings": mappings}}
    return {"index_patterns": patterns, "settings": settings, "mappings": mappings}


def metrics_template(layout: StoreLayout = RALLY, *, wildcard: bool) -> dict[str, Any]:
    """The metrics template (``rally-metrics`` / ``benchmark-metrics``): one document per sample."""
    f = layout.fields
    properties: dict[str, Any] = {
        "@timestamp": {"type": "date", "format": "epoch_millis"},
        f.relative_time: {"type": "float"},
        f.race_id: dict(_KEYWORD),
        f.race_timestamp: dict(_RACE_TIMESTAMP),
        **_keywords("environment", f.track, f.challenge, f.car, "name"),
        "value": {"type": "float"},
        **{stat: {"type": "float"} for stat in ("min", "max", "mean", "median")},
        **_keywords("unit", "sample-type", "task", "operation", "operation-type", "job"),
    }
    if layout.error_description_mapping:
        properties["meta"] = {
            "properties": {"error-description": {"type": "wildcard" if wildcard else "keyword"}}
        }
    return _template(
        layout,
        [layout.index_pattern(StoreIndex.METRICS)],
        {"index": {"mapping.total_fields.limit": 2000}},
        {
            "date_detection": False,
            "dynamic_templates": _strings_as_keywords(layout.metrics_keyword_ignore_above),
            "_source": {"enabled": True},
            "properties": properties,
        },
    )


def races_template(layout: StoreLayout = RALLY) -> dict[str, Any]:
    """The race template (``rally-races`` / ``benchmark-test-runs``): one document per race."""
    f = layout.fields
    return _template(
        layout,
        [layout.index_pattern(StoreIndex.RACES)],
        {"index": {}},
        {
            "date_detection": False,
            "dynamic_templates": _strings_as_keywords(),
            "_source": {"enabled": True},
            "properties": {
                f.race_id: dict(_KEYWORD),
                f.race_timestamp: dict(_RACE_TIMESTAMP),
                **_keywords(f.tool_version, f.tool_revision, "environment", "pipeline", f.track),
                **_keywords(f.challenge, f.car),
                "node-count": {"type": "short"},
                **_keywords("plugins"),
                "results": {"properties": {"op_metrics": {"type": "nested"}}},
                # esbench's own results: kept in _source, never indexed (the tools ignore them).
                "esbench": {"type": "object", "enabled": False},
            },
        },
    )


def results_template(layout: StoreLayout = RALLY) -> dict[str, Any]:
    """The results template (``rally-results`` / ``benchmark-results``): one document per metric
    and task."""
    f = layout.fields
    return _template(
        layout,
        [layout.index_pattern(StoreIndex.RESULTS)],
        {"index": {}},
        {
            "date_detection": False,
            "dynamic_templates": _strings_as_keywords(),
            "_source": {"enabled": True},
            "properties": {
                f.race_id: dict(_KEYWORD),
                f.race_timestamp: dict(_RACE_TIMESTAMP),
                "active": {"type": "boolean"},
                **_keywords(f.tool_version, f.tool_revision, "environment", f.track, f.challenge),
                **_keywords(f.car),
                "node-count": {"type": "short"},
                **_keywords("plugins", "distribution-flavor", "distribution-version"),
                "distribution-major-version": {"type": "short"},
                **_keywords("task", "operation", "job", "name"),
                "value": {
                    "type": "object",
                    "properties": {
                        stat: {"type": "double"} for stat in ("single", "min", "mean", "median", "max")
                    },
                },
            },
        },
    )


def annotations_template(index: str) -> dict[str, Any]:
    """``rally-annotations`` (esrally/resources/annotation-template.json), for the readers' annotations."""
    return {
        "index_patterns": [index],
        "template": {
            "settings": {"index": {}},
            "mappings": {
                "dynamic_templates": _strings_as_keywords(),
                "properties": {
                    "environment": dict(_KEYWORD),
                    "race-timestamp": dict(_RACE_TIMESTAMP),
                    **_keywords("user-tag", "track", "chart", "chart-name", "message"),
                },
            },
        },
    }


def index_templates(layout: StoreLayout = RALLY, *, wildcard: bool) -> dict[str, dict[str, Any]]:
    """Template name -> body of all the layout's templates, as its tool names them (Rally's four,
    OSB's three)."""
    templates = {
        layout.template_name(StoreIndex.METRICS): metrics_template(layout, wildcard=wildcard),
        layout.template_name(StoreIndex.RACES): races_template(layout),
        layout.template_name(StoreIndex.RESULTS): results_template(layout),
    }
    if layout.annotations_index is not None:
        templates[layout.annotations_index] = annotations_template(layout.annotations_index)
    return templates


def put_templates(
    es: Elasticsearch, layout: StoreLayout, *, shards: int | None = None, replicas: int | None = None
) -> None:
    """Put the layout's templates (each time, as both tools do: "always update the mapping to the
    latest version"), asking first whether the node knows ``wildcard`` when the layout maps one.
    ``shards`` / ``replicas`` go into each template's index settings (``datastore.number_of_shards``
    and ``datastore.number_of_replicas``, the tools' ``IndexTemplateProvider._read``).

    Raises:
        elasticsearch.ApiError: the store refused a template (the caller reports it).
    """
    wildcard = wildcard_supported(es) if layout.error_description_mapping else False
    for name, body in index_templates(layout, wildcard=wildcard).items():
        settings = body["template"]["settings"] if layout.composable_templates else body["settings"]
        if shards is not None:
            settings.setdefault("index", {})["number_of_shards"] = shards
        if replicas is not None:
            settings.setdefault("index", {})["number_of_replicas"] = replicas
        if layout.composable_templates:
            es.indices.put_index_template(name=name, **body)
        else:
            es.indices.put_template(name=name, **body)


def wildcard_supported(es: Elasticsearch) -> bool:
    """Whether the node knows the ``wildcard`` field type: one simulated template (nothing is
    created). False when the node refuses the ``[wildcard]`` mapping.

    Raises:
        elasticsearch.ApiError: any other refusal (the caller turns it into a ``StoreError``).
    """
    from elasticsearch import BadRequestError

    try:
        es.indices.simulate_template(
            index_patterns=["esbench-wildcard-probe"],
            template={"mappings": {"properties": {"probe": {"type": "wildcard"}}}},
        )
    except BadRequestError as e:
        # The reason is nested and worded by version: "No handler for type [wildcard] declared on
        # field [probe]" (8.8), "The mapper type [wildcard] declared on field [probe] does not
        # exist..." (8.19). The probe has no other field type to complain about.
        if "[wildcard]" in str(e.body):
            logger.info("The metrics store has no wildcard field type: Rally's templates get keyword.")
            return False
        raise
    return True
