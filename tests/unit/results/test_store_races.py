"""Rally's race documents as esbench records, the list filters and rows, and annotations' days.

The documents here are written by hand in the layout of Rally 2.13's ``Race.as_dict`` (with
``GlobalStats.as_dict`` as ``results``); tests/integration/test_metrics_store_read.py reads documents
Rally itself wrote.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from esbench.exceptions import StoreError, UserError
from esbench.records import RaceResult
from esbench.results.annotations import midnight, new_annotation
from esbench.results.es_read import race_query, rally_race_query
from esbench.results.race_listing import ListedRace, RaceFilter, parse_list_date
from esbench.results.store_races import (
    iso_timestamp,
    percentile_label,
    race_from_rally_document,
    rally_timestamp,
    request_counts,
)


def rally_doc(**overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "rally-version": "2.13.0",
        "environment": "nightly",
        "race-id": "r1",
        "race-timestamp": "20261128T123750Z",
        "pipeline": "benchmark-only",
        "user-tags": {"setup": "3nodes", "n": 1},
        "track": "geonames",
        "challenge": "append-no-conflicts",
        "car": ["defaults", "4gheap"],
        "cluster": {"revision": "abc", "distribution-version": "8.8.2", "distribution-flavor": "default"},
        "track-params": {"bulk_size": 500},
        "results": {
            "op_metrics": [
                {
                    "task": "term",
                    "operation": "term-op",
                    "throughput": {"min": 9.0, "mean": 10.0, "median": 10.5, "max": 11.0, "unit": "ops/s"},
                    "latency": {"50_0": 4.0, "99_9": 9.0, "100_0": 12.0, "mean": 5.0, "unit": "ms"},
                    "service_time": {"50_0": 3.0, "100_0": 11.0, "mean": 3.5, "unit": "ms"},
                    "processing_time": {"50_0": 3.2, "unit": "ms"},
                    "error_rate": 0.25,
                    "duration": 4500.0,
                }
            ],
            "total_time": 120_000,
            "total_time_per_shard": {"min": 60_000, "median": 60_000, "max": 60_000, "unit": "ms"},
            "merge_count": 7,
            "young_gc_time": 1500,
            "young_gc_count": 3,
            "zgc_cycles_gc_time": None,
            "store_size": 2 * 1024**3,
            "segment_count": 12,
        },
    }
    doc.update(overrides)
    return doc


def test_race_header_is_mapped() -> None:
    race = race_from_rally_document(rally_doc())
    assert race.race_id == "r1" and race.timestamp == "2026-11-28T12:37:50Z"
    assert (race.track, race.challenge, race.car) == ("geonames", "append-no-conflicts", "defaults,4gheap")
    # Rally's typed tags stay typed (esrally/utils/opts.py to_dict turns n:1 into the int 1).
    assert race.user_tags == {"setup": "3nodes", "n": 1} and race.track_params == {"bulk_size": 500}
    assert race.cluster_version == "8.8.2" and race.distribution_version is None  # benchmark-only
    assert race.status == "completed" and race.esbench_version == "Rally 2.13.0"


def test_task_values_and_units() -> None:
    (task,) = race_from_rally_document(rally_doc(), {"term": (400, 100)}).tasks
    assert (task.task, task.operation) == ("term", "term-op")
    assert (task.throughput_min, task.throughput_median, task.throughput_max) == (9.0, 10.5, 11.0)
    assert task.latency_ms == {"50": 4.0, "99.9": 9.0, "100": 12.0}
    assert task.service_time_ms == {"50": 3.0, "100": 11.0} and task.mean_service_time_ms == 3.5
    assert task.processing_time_ms == {"50": 3.2}
    assert task.duration_s == 4.5  # Rally's duration is in ms
    assert (task.sample_count, task.error_count, task.error_rate) == (400, 100, 0.25)
    assert task.reported


def test_error_rate_without_samples_is_kept_exactly() -> None:
    (task,) = race_from_rally_document(rally_doc()).tasks
    assert task.error_rate == 0.25
    assert request_counts(0.0, None) == (1, 0)
    samples, errors = request_counts(1 / 3, None)
    assert errors / samples == pytest.approx(1 / 3, abs=1e-12)


def test_cluster_rows_have_esbenchs_names_and_units() -> None:
    rows = {m.name: (m.value, m.unit) for m in race_from_rally_document(rally_doc()).cluster_metrics}
    assert rows["Cumulative indexing time of primary shards"] == (2.0, "min")
    assert rows["Median cumulative indexing time across primary shards"] == (1.0, "min")
    assert rows["Cumulative merge count of primary shards"] == (7, "")
    assert rows["Total Young Gen GC time"] == (1.5, "s") and rows["Total Young Gen GC count"] == (3, "")
    assert rows["Store size"] == (2.0, "GB") and rows["Segment count"] == (12, "")
    assert not any(name.startswith("Total ZGC") for name in rows)  # null in Rally's document


def test_a_document_without_a_timestamp_is_a_store_error() -> None:
    with pytest.raises(StoreError, match=r"r1.*race-timestamp"):
        race_from_rally_document(rally_doc(**{"race-timestamp": "2026-11-28"}))


def test_timestamps_and_percentile_keys() -> None:
    assert iso_timestamp("20261128T123750Z") == "2026-11-28T12:37:50Z"
    assert iso_timestamp("2026-11-28T12:37:50Z") == "2026-11-28T12:37:50Z"
    assert rally_timestamp("2026-11-28T12:37:50Z") == "20261128T123750Z"
    assert rally_timestamp("2026-11-28T13:37:50+01:00") == "20261128T123750Z"
    assert [percentile_label(k) for k in ("50_0", "99_99", "100_0", "mean", "unit")] == [
        "50",
        "99.99",
        "100",
        None,
        None,
    ]


def test_listed_rally_race_keeps_rallys_keys_and_columns() -> None:
    listed = ListedRace.from_rally_document(rally_doc())
    row = listed.row()
    assert row[:5] == ["r1", "20261128T123750Z", "geonames", "append-no-conflicts", "defaults+4gheap"]
    assert row[5:8] == ["8.8.2", "abc", "2.13.0"] and row[-1] == "n=1, setup=3nodes"
    as_dict = listed.as_dict()
    assert as_dict["environment"] == "nightly" and as_dict["car"] == ["defaults", "4gheap"]
    assert as_dict["cluster"]["distribution-version"] == "8.8.2"
    # Rally's Race.as_dict lists the stored user tags (typed: kv_to_map made 1 an int) and results as
    # they are.
    assert as_dict["user-tags"] == {"setup": "3nodes", "n": 1}
    assert as_dict["results"] == rally_doc()["results"]


def test_listed_esbench_race() -> None:
    race = RaceResult(
        race_id="e1", timestamp="2026-11-28T01:02:03Z", track="t", challenge="c", cluster_version="8.19.0"
    )
    as_dict = ListedRace.from_race(race).as_dict()
    assert as_dict["race-timestamp"] == "20261128T010203Z" and as_dict["car"] == ["external"]
    assert as_dict["cluster"]["distribution-version"] == "8.19.0" and as_dict["challenge"] == "c"


def test_filter_matches() -> None:
    race = RaceResult(
        race_id="e1",
        timestamp="2026-11-28T23:59:00Z",
        track="t",
        challenge="c",
        user_tags={"benchmark-name": "nightly", "setup": "a"},
    )
    assert RaceFilter(from_date=date(2026, 11, 28), to_date=date(2026, 11, 28)).matches(race)
    assert not RaceFilter(to_date=date(2026, 11, 27)).matches(race)
    assert not RaceFilter(from_date=date(2026, 11, 29)).matches(race)
    assert RaceFilter(benchmark_name="nightly", user_tags={"setup": ("b", "a")}).matches(race)
    assert not RaceFilter(benchmark_name="weekly").matches(race)
    assert not RaceFilter(challenge="other").matches(race)
    assert RaceFilter(since="2026-11-28").matches(race) and not RaceFilter(since="2026-11-29").matches(race)


def test_store_queries_use_each_layouts_timestamp_format() -> None:
    flt = RaceFilter(environment="nightly", from_date=date(2026, 11, 1), to_date=date(2026, 11, 30))
    rally = rally_race_query(flt)
    assert rally is not None
    clauses = rally["bool"]["filter"]  # type: ignore[index]
    assert {"term": {"environment": "nightly"}} in clauses
    assert {
        "range": {
            "race-timestamp": {
                "gte": "20261101T000000Z",
                "lt": "20261201T000000Z",
                "format": "basic_date_time_no_millis",
            }
        }
    } in clauses
    # esbench's own layout has no environment and ISO timestamps.
    own = race_query(flt)["bool"]["filter"]  # type: ignore[index]
    assert not any("environment" in str(c) for c in own)
    assert any("2026-12-01T00:00:00Z" in str(c) for c in own)
    # Rally stores races that ended only.
    assert rally_race_query(RaceFilter(status="failed")) is None


def test_list_dates_and_annotation_days() -> None:
    assert parse_list_date("20261128", "--from-date") == date(2026, 11, 28)
    with pytest.raises(UserError, match=r"--to-date.*yyyyMMdd"):
        parse_list_date("2026-11-28", "--to-date")
    assert midnight("20261128T123750Z") == "20261128T000000Z"
    with pytest.raises(UserError, match="--race-timestamp"):
        midnight("2026-11-28")
    note = new_annotation(
        environment="e",
        race_timestamp="20261128T123750Z",
        track=None,
        chart="gc",
        chart_name=None,
        message="m",
    )
    assert note.document() == {
        "environment": "e",
        "race-timestamp": "20261128T000000Z",
        "track": None,
        "chart": "gc",
        "chart-name": None,
        "message": "m",
    }
    with pytest.raises(UserError, match="--chart-type"):
        new_annotation(
            environment="e",
            race_timestamp="20261128T000000Z",
            track=None,
            chart="x",
            chart_name=None,
            message="m",
        )
