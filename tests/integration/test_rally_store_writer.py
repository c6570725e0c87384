"""The writer of Rally's metrics store on the session node: indices, templates, idempotence, and a
race's per-request samples (the documents themselves are compared with Rally's in
test_rally_store.py)."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch
from harness import TRACKS, ok, race, race_dir
from rally_oracle import delete_rally_store

from esbench.results.es_export import export_races
from esbench.results.metrics_store import MetricsStoreSettings
from esbench.results.store_documents import result_documents
from esbench.results.store_templates import wildcard_supported

_spec = importlib.util.spec_from_file_location(
    "_results_racefactory", Path(__file__).resolve().parents[1] / "unit" / "results" / "racefactory.py"
)
assert _spec is not None and _spec.loader is not None
racefactory = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(racefactory)


@pytest.fixture
def store(es_hosts: list[str]) -> Iterator[Elasticsearch]:
    """A client of the session node; Rally's indices and templates are deleted afterwards (also on
    an ``ESBENCH_TEST_HOSTS`` node)."""
    es = Elasticsearch(f"http://{es_hosts[0]}", request_timeout=60)
    yield es
    es.close()
    delete_rally_store(es_hosts[0])


def test_export_writes_rallys_indices_templates_and_overwrites(
    es_hosts: list[str], store: Elasticsearch
) -> None:
    # Scalar track params: Elasticsearch's dynamic mapping refuses an array of mixed types (in
    # Rally's store as in esbench's, both map track-params dynamically).
    params = {"bulk_size": 500, "search_clients": 2}
    march = dataclasses.replace(
        racefactory.make_race(seed=1, tags={"setup": "a"}, timestamp="2026-03-04T05:06:07Z"),
        track_params=params,
    )
    april = dataclasses.replace(
        racefactory.make_race(seed=2, tags={"setup": "b"}, timestamp="2026-04-01T00:00:00Z"),
        track_params=params,
    )
    settings = MetricsStoreSettings.from_url(f"http://{es_hosts[0]}")
    counts = export_races([march, april], settings, refresh=True)
    assert counts.races == 2
    assert counts.results == len(result_documents(march, "local")) + len(result_documents(april, "local"))
    assert sorted(store.indices.get(index="rally-*")) == sorted(
        f"rally-{kind}-{month}"
        for kind in ("races", "results", "metrics")
        for month in ("2026-03", "2026-04")
    )
    templates = {t["name"]: t for t in store.indices.get_index_template(name="rally-*")["index_templates"]}
    assert set(templates) == {"rally-races", "rally-results", "rally-metrics", "rally-annotations"}
    meta = templates["rally-metrics"]["index_template"]["template"]["mappings"]["properties"]["meta"]
    expected = "wildcard" if wildcard_supported(store) else "keyword"
    assert meta["properties"]["error-description"]["type"] == expected
    doc = store.get(index="rally-races-2026-03", id=march.race_id)["_source"]
    assert doc["race-timestamp"] == "20260304T050607Z" and doc["user-tags"] == {"setup": "a"}
    assert len(doc["esbench"]["tasks"]) == len(march.tasks)
    mapping = store.indices.get_mapping(index="rally-results-2026-03")["rally-results-2026-03"]["mappings"]
    assert mapping["properties"]["value"]["properties"]["single"]["type"] == "double"
    assert mapping["properties"]["race-timestamp"]["format"] == "basic_date_time_no_millis"

    # Again: deterministic ids replace the documents instead of adding to them.
    again = export_races([march, april], settings, refresh=True)
    assert store.count(index="rally-races-*")["count"] == 2
    assert store.count(index="rally-results-*")["count"] == counts.results == again.results
    assert store.count(index="rally-metrics-*")["count"] == counts.metrics + counts.telemetry


def test_a_race_writes_every_requests_samples(es_hosts: list[str], store: Elasticsearch, index: str) -> None:
    proc = ok(
        race(
            TRACKS / "compare-tiny",
            es_hosts,
            f"--metrics-store=http://{es_hosts[0]}",
            f"--track-params=index_name:{index},search_time_period:2",
            "--user-tag=case:samples",
        )
    )
    results = json.loads((race_dir(proc) / "results.json").read_text(encoding="utf-8"))
    # The race writes without refreshing (off the race's clock): make every document searchable.
    store.indices.refresh(index="rally-*")
    hits = store.search(
        index="rally-metrics-*",
        query={
            "bool": {"filter": [{"term": {"race-id": results["race_id"]}}, {"term": {"name": "latency"}}]}
        },
        size=0,
        aggs={
            "tasks": {
                "terms": {"field": "task", "size": 50},
                "aggs": {"types": {"terms": {"field": "sample-type"}}},
            }
        },
    )
    found = {
        (bucket["key"], sample_type["key"]): sample_type["doc_count"]
        for bucket in hits["aggregations"]["tasks"]["buckets"]
        for sample_type in bucket["types"]["buckets"]
    }
    expected: Counter[tuple[str, str]] = Counter()
    for task in results["tasks"]:
        expected[(task["task"], "normal")] += task["sample_count"]
        expected[(task["task"], "warmup")] += task["warmup_sample_count"]
    assert found == {k: v for k, v in expected.items() if v}
    assert found[("term-query", "warmup")] > 0
    (race_doc,) = store.search(index="rally-races-*", query={"term": {"race-id": results["race_id"]}})[
        "hits"
    ]["hits"]
    assert race_doc["_source"]["user-tags"] == {"case": "samples"}
