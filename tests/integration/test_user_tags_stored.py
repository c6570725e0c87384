"""A race on the session node with ``--user-tags`` in Rally's JSON form stores the tags as Rally 2.13
stores them, typed (``esrally/utils/opts.py`` ``to_dict``; what Rally makes of each form is checked
against Rally itself in tests/unit/cli/test_value_forms.py): in results.json, in the results store,
in ``list races`` (from the store and from the metrics store) and in the metrics-store documents
(the race's ``user-tags`` and every metric's ``meta.tag_<key>``, Rally's ``MetricsStore.open``).
The race runs with ``--client-options=timeout:None`` (no client timeout, as in Rally)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from harness import TRACKS, esbench, ok, race, race_dir
from rally_oracle import delete_rally_store

from esbench.results.store import ResultsStore

TAGS = {"disk": "SSD", "data_node_count": 4, "ssd": True, "nested": {"a": [1, 2]}}


def _search(host: str, index: str, query: dict[str, Any]) -> list[dict[str, Any]]:
    request = urllib.request.Request(
        f"http://{host}/{index}/_search?size=5",
        data=json.dumps({"query": query}).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return [h["_source"] for h in json.load(response)["hits"]["hits"]]


@pytest.fixture
def rally_store(es_hosts: list[str]) -> Iterator[str]:
    """The session node as the race's metrics store (Rally's ``rally-*`` indices, deleted before and
    after: another test's races may have mapped these tag keys with other types)."""
    delete_rally_store(es_hosts[0])
    yield es_hosts[0]
    delete_rally_store(es_hosts[0])


def test_json_user_tags_are_stored_typed_everywhere(
    es_hosts: list[str], index: str, rally_store: str
) -> None:
    host = rally_store
    store = (f"--metrics-store=http://{host}",)
    proc = ok(
        race(
            TRACKS / "compare-tiny",
            es_hosts,
            *store,
            f"--track-params=index_name:{index},search_time_period:1",
            f"--user-tags={json.dumps(TAGS)}",
            "--client-options=timeout:None",  # Rally's "no client timeout": the race runs as any other
        )
    )
    results = json.loads((race_dir(proc) / "results.json").read_text(encoding="utf-8"))
    assert results["user_tags"] == TAGS
    (stored,) = ResultsStore.open().find(user_tags={"data_node_count": "4"})
    assert stored.user_tags == TAGS and stored.race_id == results["race_id"]

    # list races, in Rally's JSON form of the filter, from the results store and the metrics store
    # (refreshed first: the export does not wait for the documents to be searchable).
    urllib.request.urlopen(urllib.request.Request(f"http://{host}/rally-*/_refresh", method="POST"))
    for source in ((), ("--source=metrics-store", *store)):
        listed = ok(
            esbench("list", "races", '--user-tags={"disk":"SSD","ssd":true}', "--format=json", *source)
        )
        (race_doc,) = json.loads(listed.stdout)["races"]
        assert race_doc["race-id"] == results["race_id"] and race_doc["user-tags"] == TAGS, source
    # A tag reference as a user types it ("True") finds the typed boolean in the metrics store too
    # (a terms query of "True" fails on a boolean field there).
    for reference in ("tag:ssd:True", "tag:ssd:true", "tag:data_node_count:4"):
        compared = ok(
            esbench(
                "compare", f"--baseline={reference}", f"--contender={results['race_id']}",
                "--source=metrics-store", *store, "--report-format=json",
            )
        )  # fmt: skip
        assert results["race_id"] in compared.stdout, reference
    text = ok(esbench("list", "races", "--user-tags=data_node_count:4")).stdout
    assert "data_node_count=4, disk=SSD, nested={'a': [1, 2]}, ssd=True" in text  # Rally's format_dict

    # The metrics-store documents: typed, as Rally writes them.
    urllib.request.urlopen(urllib.request.Request(f"http://{host}/rally-*/_refresh", method="POST"))
    term = {"term": {"race-id": results["race_id"]}}
    (race_source,) = _search(host, "rally-races-*", term)
    assert race_source["user-tags"] == TAGS
    metric = _search(host, "rally-metrics-*", term)[0]
    assert {k: v for k, v in metric["meta"].items() if k.startswith("tag_")} == {
        f"tag_{k}": v for k, v in TAGS.items()
    }
