"""Rally's index templates of the metrics store, and the one probe that picks ``wildcard`` or ``keyword``.

Written from Rally 2.13's ``esrally/resources/{metrics,races,results,annotation}-template.json``:
the same names (``rally-metrics``, ``rally-races``, ``rally-results``, ``rally-annotations``), index
patterns and mappings, put with the composable template API as Rally's ``EsClient.put_template``
does. One field, ``meta.error-description`` of ``rally-metrics``, is a ``wildcard`` in Rally's
template; nodes without that mapper (the Maven integ-test build has no x-pack) refuse the whole
template ("No handler for type [wildcard]"), so :func:`wildcard_supported` asks the node once and
the template then says ``keyword``, which Rally's queries read the same way (term filters).

esbench adds one thing Rally ignores: an ``esbench`` object in race documents, not indexed
(``enabled: false``), that holds esbench's own task results (per-second windows, merged
HdrHistograms) so that a reader can rebuild the race exactly.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from esbench.results.rally_layout import ANNOTATIONS_INDEX, StoreIndex, index_pattern

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


def metrics_template(*, wildcard: bool) -> dict[str, Any]:
    """``rally-metrics`` (esrally/resources/metrics-template.json): one document per sample."""
    return {
        "index_patterns": [index_pattern(StoreIndex.METRICS)],
        "template": {
            "settings": {"index": {"mapping.total_fields.limit": 2000}},
            "mappings": {
                "date_detection": False,
                "dynamic_templates": _strings_as_keywords(8191),
                "_source": {"enabled": True},
                "properties": {
                    "@timestamp": {"type": "date", "format": "epoch_millis"},
                    **_keywords("car", "challenge", "environment", "job", "name", "operation"),
                    **_keywords("operation-type", "race-id", "sample-type", "task", "track", "unit"),
                    **{stat: {"type": "float"} for stat in ("max", "mean", "median", "min")},
                    "meta": {
                        "properties": {"error-description": {"type": "wildcard" if wildcard else "keyword"}}
                    },
                    "race-timestamp": dict(_RACE_TIMESTAMP),
                    "relative-time": {"type": "float"},
                    "value": {"type": "float"},
                },
            },
        },
    }


def races_template() -> dict[str, Any]:
    """``rally-races`` (esrally/resources/races-template.json): one document per race."""
    return {
        "index_patterns": [index_pattern(StoreIndex.RACES)],
        "template": {
            "settings": {"index": {}},
            "mappings": {
                "date_detection": False,
                "dynamic_templates": _strings_as_keywords(),
                "_source": {"enabled": True},
                "properties": {
                    "race-id": dict(_KEYWORD),
                    "race-timestamp": dict(_RACE_TIMESTAMP),
                    **_keywords("rally-version", "rally-revision", "environment", "pipeline", "track"),
                    **_keywords("challenge", "car", "plugins"),
                    "node-count": {"type": "short"},
                    "results": {"properties": {"op_metrics": {"type": "nested"}}},
                    # esbench's own results: kept in _source, never indexed (Rally ignores them).
                    "esbench": {"type": "object", "enabled": False},
                },
            },
        },
    }


def results_template() -> dict[str, Any]:
    """``rally-results`` (esrally/resources/results-template.json): one document per metric and task."""
    return {
        "index_patterns": [index_pattern(StoreIndex.RESULTS)],
        "template": {
            "settings": {"index": {}},
            "mappings": {
                "date_detection": False,
                "dynamic_templates": _strings_as_keywords(),
                "_source": {"enabled": True},
                "properties": {
                    "race-id": dict(_KEYWORD),
                    "race-timestamp": dict(_RACE_TIMESTAMP),
                    "active": {"type": "boolean"},
                    **_keywords("rally-version", "rally-revision", "environment", "track", "challenge"),
                    **_keywords("car", "plugins", "distribution-flavor", "distribution-version"),
                    **_keywords("task", "operation", "job", "name"),
                    "node-count": {"type": "short"},
                    "distribution-major-version": {"type": "short"},
                    "value": {
                        "type": "object",
                        "properties": {
                            stat: {"type": "double"} for stat in ("single", "min", "mean", "median", "max")
                        },
                    },
                },
            },
        },
    }


def annotations_template() -> dict[str, Any]:
    """``rally-annotations`` (esrally/resources/annotation-template.json), for the readers' annotations."""
    return {
        "index_patterns": [ANNOTATIONS_INDEX],
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


def index_templates(*, wildcard: bool) -> dict[str, dict[str, Any]]:
    """Template name -> body of all four, as Rally names them."""
    return {
        StoreIndex.METRICS.value: metrics_template(wildcard=wildcard),
        StoreIndex.RACES.value: races_template(),
        StoreIndex.RESULTS.value: results_template(),
        ANNOTATIONS_INDEX: annotations_template(),
    }


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
