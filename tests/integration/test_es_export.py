"""Export of races to a real Elasticsearch metrics store: templates, mappings, documents, idempotence."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch

from esbench.exceptions import StoreError
from esbench.results.es_export import export_race, export_races_esbench_layout
from esbench.results.metrics_store import MetricsStoreSettings

_spec = importlib.util.spec_from_file_location(
    "_results_racefactory", Path(__file__).resolve().parents[1] / "unit" / "results" / "racefactory.py"
)
assert _spec is not None and _spec.loader is not None
racefactory = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(racefactory)


@pytest.fixture
def prefix(metrics_store_prefix: str) -> str:
    return metrics_store_prefix


def test_export_creates_kibana_friendly_indices(es_hosts: list[str], prefix: str) -> None:
    # Credentials in the URL must be stripped from the hosts; security is off on the test node, so
    # the basic auth header they become is accepted and ignored.
    settings = MetricsStoreSettings.from_url(f"http://bench:pw%21@{es_hosts[0]}", index_prefix=prefix)
    assert "pw" not in settings.display_url and settings.password == "pw!"
    base = racefactory.make_race(seed=1, tags={"setup": "1node"}, timestamp="2026-03-04T05:06:07Z")
    other = racefactory.make_race(seed=2, tags={"setup": "3nodes"}, timestamp="2026-04-01T00:00:00Z")
    counts = export_races_esbench_layout([base, other], settings, refresh=True)
    windows = sum(len(t.throughput_windows) for t in base.tasks) * 2
    assert (counts.races, counts.results, counts.metrics) == (2, 2 * (2 + 3), windows)

    es = Elasticsearch(f"http://{es_hosts[0]}")
    try:
        indices = sorted(es.indices.get(index=f"{prefix}-*"))
        assert indices == sorted(
            f"{prefix}-{kind}-{month}"
            for kind in ("races", "results", "metrics")
            for month in ("2026-03", "2026-04")
        )
        mapping = es.indices.get_mapping(index=f"{prefix}-results-2026-03")[f"{prefix}-results-2026-03"][
            "mappings"
        ]
        props = mapping["properties"]
        assert props["race-timestamp"]["type"] == "date"
        assert props["throughput"]["properties"]["median"]["type"] == "double"
        assert props["latency"]["properties"]["p99"]["type"] == "double"
        assert props["user-tags"]["properties"]["setup"]["type"] == "keyword"
        race_props = es.indices.get_mapping(index=f"{prefix}-races-2026-03")[f"{prefix}-races-2026-03"][
            "mappings"
        ]["properties"]
        assert race_props["track-params"]["type"] == "flattened"

        # What a Kibana chart does: median throughput per task, split by a user tag.
        resp = es.search(
            index=f"{prefix}-results-*",
            size=0,
            query={"term": {"kind": "task"}},
            aggs={
                "setup": {
                    "terms": {"field": "user-tags.setup"},
                    "aggs": {
                        "tasks": {
                            "terms": {"field": "task"},
                            "aggs": {"m": {"max": {"field": "throughput.median"}}},
                        }
                    },
                }
            },
        )
        buckets = {b["key"]: b for b in resp["aggregations"]["setup"]["buckets"]}
        assert set(buckets) == {"1node", "3nodes"}
        got = {t["key"]: t["m"]["value"] for t in buckets["1node"]["tasks"]["buckets"]}
        assert got == pytest.approx({t.task: t.throughput_median for t in base.tasks})

        doc = es.get(index=f"{prefix}-races-2026-03", id=base.race_id)["_source"]
        assert doc["user-tags"] == {"setup": "1node"} and doc["status"] == "completed"
        assert doc["track-params"]["bulk_size"] == 500

        hist = es.search(
            index=f"{prefix}-metrics-*",
            size=0,
            query={
                "bool": {"filter": [{"term": {"race-id": base.race_id}}, {"term": {"task": "index-append"}}]}
            },
            aggs={
                "over_time": {
                    "histogram": {"field": "relative-time-s", "interval": 5},
                    "aggs": {"v": {"avg": {"field": "value"}}},
                }
            },
        )
        assert sum(b["doc_count"] for b in hist["aggregations"]["over_time"]["buckets"]) == len(
            base.tasks[0].throughput_windows
        )

        # Exporting again overwrites (deterministic ids) instead of duplicating.
        changed = dataclasses.replace(base, status="failed", error="x")
        export_races_esbench_layout([changed], settings, refresh=True)
        assert es.count(index=f"{prefix}-races-*")["count"] == 2
        assert es.count(index=f"{prefix}-results-*")["count"] == counts.results
        assert es.get(index=f"{prefix}-races-2026-03", id=base.race_id)["_source"]["status"] == "failed"
    finally:
        es.close()


def test_unreachable_metrics_store_is_a_store_error_without_credentials(prefix: str) -> None:
    settings = MetricsStoreSettings.from_url("http://user:topsecret@127.0.0.1:1", index_prefix=prefix)
    settings = dataclasses.replace(settings, timeout_s=2.0)
    with pytest.raises(StoreError, match=r"Cannot reach the metrics store http://127\.0\.0\.1:1") as info:
        export_race(racefactory.make_race(seed=3), settings)
    assert "topsecret" not in str(info.value)


def test_export_command_exports_stored_races_by_tag(
    es_hosts: list[str], prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from esbench.cli import main
    from esbench.results.store import ResultsStore

    # Scalar track params: Elasticsearch's dynamic mapping of Rally's track-params refuses arrays
    # of mixed types.
    races = [
        dataclasses.replace(racefactory.make_race(seed=10 + i, tags={"setup": "x"}), track_params={"n": i})
        for i in range(2)
    ]
    with ResultsStore.open() as store:
        for race in races:
            store.save(race)
        store.save(racefactory.make_race(seed=12, tags={"setup": "y"}))
    monkeypatch.setenv("ESBENCH_METRICS_STORE_PASSWORD", "never-shown")
    result = CliRunner().invoke(
        main,
        [
            "export",
            "tag:setup:x",
            f"--metrics-store=http://bench@{es_hosts[0]}",
            f"--metrics-store-prefix={prefix}",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert f"Exported 2 race(s) to http://{es_hosts[0]}" in result.stderr
    assert "never-shown" not in result.output and "bench@" not in result.output
    es = Elasticsearch(f"http://{es_hosts[0]}")
    try:
        # Rally's layout: the prefix names only esbench's former indices, which the readers read.
        es.indices.refresh(index="rally-races-*")
        hits = es.search(index="rally-races-*", query={"match_all": {}})["hits"]["hits"]
        assert {h["_id"] for h in hits} == {r.race_id for r in races}
        assert {h["_source"]["environment"] for h in hits} == {"local"}
    finally:
        # Also on an ESBENCH_TEST_HOSTS node, which the per-test clean-up leaves alone.
        for index in es.indices.get(index="rally-*", expand_wildcards="all"):
            es.indices.delete(index=index)
        es.close()
