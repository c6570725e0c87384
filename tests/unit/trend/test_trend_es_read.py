"""Races read back from metrics store documents: the query of a filter, and the documents that
:mod:`esbench.results.es_export` writes turned back into the summary fields a trend follows."""

from __future__ import annotations

from trendraces import race, task

from esbench.results.es_export import race_document, result_documents
from esbench.results.es_read import (
    percentile_label,
    race_from_documents,
    race_query,
    task_from_document,
)
from esbench.results.race_listing import RaceFilter
from esbench.trend import TrendSelection, build_series, parse_metric


def test_query_of_a_filter() -> None:
    assert race_query(RaceFilter()) == {"match_all": {}}
    query = race_query(
        RaceFilter(track="t", status="completed", user_tags={"env": ("ci", "nightly")}, since="2026-11-01")
    )
    assert query == {
        "bool": {
            "filter": [
                {"term": {"track": "t"}},
                {"term": {"status": "completed"}},
                {
                    "bool": {
                        "should": [
                            {"match": {"user-tags.env": {"query": "ci", "lenient": True}}},
                            {"match": {"user-tags.env": {"query": "nightly", "lenient": True}}},
                        ],
                        "minimum_should_match": 1,
                    }
                },
                {"range": {"race-timestamp": {"gte": "2026-11-01"}}},
            ]
        }
    }


def test_percentile_labels_invert_the_export_field_names() -> None:
    assert [percentile_label(f) for f in ("p50", "p99_9", "p99_99", "p100")] == ["50", "99.9", "99.99", "100"]


def test_exported_documents_read_back_give_the_same_series() -> None:
    original = race(
        3,
        task("index", throughput=812.5, latency_p50=40.0, errors=3, samples=600),
        task("admin", reported=False),
        task("search", throughput=95.25, latency_p50=10.5),
        tags={"env": "ci"},
    )
    docs = result_documents(original)
    tasks = [task_from_document(doc) for doc_id, doc in docs if doc["kind"] == "task"]
    back = race_from_documents(race_document(original), tasks)
    assert (back.race_id, back.timestamp, back.track, back.challenge, back.user_tags, back.status) == (
        original.race_id,
        original.timestamp,
        "t",
        "c",
        {"env": "ci"},
        "completed",
    )
    assert [t.task for t in back.tasks] == ["index", "search"]  # reported tasks only, as exported
    for metric in (
        "throughput-median",
        "throughput-mean",
        "latency-p50",
        "latency-p99.9",
        "service-time-p90",
        "error-rate",
    ):
        followed = parse_metric(metric)
        expected = build_series([original], TrendSelection(), followed)
        assert build_series([back], TrendSelection(), followed) == expected, metric
