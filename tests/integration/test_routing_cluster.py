"""Client-side routing against a real 3-node cluster provisioned here (issue 13).

* the shard computed by :mod:`esbench.driver.transport.routing` equals the shard Elasticsearch reports
  (``_search_shards?routing=``) and the shard a document really lands in (``preference=_shards:N``),
  for 1, 3, 5 shards, ``number_of_routing_shards``, ``_split`` indices and ``routing_partition_size``;
* a ``routing-aware`` bulk (node and shard mode) indexes exactly the corpus, each sub-bulk to the
  node of its primaries, every document in the shard the routing says;
* clear errors for a missing index and a time-series (``routing_path``) data stream.

The cluster: the session's 3 nodes of 512 MiB (``cluster3`` in clusters.py), which the green-cluster
check of test_provision.py reads too; what a test adds to it is deleted after it (conftest.py).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from clusters import StartedCluster

from esbench.driver.transport.client import ClientOptions, ConnectionSettings, create_client
from esbench.driver.transport.rawhttp import RawHttpTransport
from esbench.driver.transport.routing import IndexRouting, RoutingError
from esbench.driver.transport.shardmap import ShardMapCache, load_index_shards
from esbench.driver.worker.runners.base import PREPARED
from esbench.driver.worker.runners.bulk import Bulk, prepare_bulk
from esbench.driver.worker.runners.routed_bulk import RoutedBulk, RoutingAware

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
IDS = [f"doc-{i}" for i in range(60)] + ["hello", "Γειά σου Κόσμε", "Supplementary planes too 🙂", "ü/ß?#&"]


@pytest.fixture
def cluster(cluster3: StartedCluster) -> list[str]:
    """The hosts of the session's 3-node cluster (clusters.py)."""
    return cluster3.hosts


def call(host: str, method: str, path: str, body: Any = None, *, ndjson: bool = False) -> Any:
    data = None
    headers = {"content-type": "application/x-ndjson" if ndjson else "application/json"}
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(f"http://{host}{path}", data=data, method=method, headers=headers)
    try:
        with _OPENER.open(request, timeout=60) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        raise AssertionError(f"{method} {path}: HTTP {exc.code}: {exc.read()[:500]!r}") from None


def recreate(host: str, index: str, body: dict[str, Any]) -> None:
    call(host, "DELETE", f"/{index}?ignore_unavailable=true")
    call(host, "PUT", f"/{index}?wait_for_active_shards=all", body)
    call(host, "GET", f"/_cluster/health/{index}?wait_for_status=green&timeout=30s")


async def routing_of(hosts: list[str], index: str) -> IndexRouting:
    http = RawHttpTransport([f"http://{hosts[0]}"], {"accept": "application/json"}, timeout=30)
    try:
        return (await load_index_shards(http, index)).routing
    finally:
        await http.close()


def shard_by_id(host: str, index: str, shards: int) -> dict[str, int]:
    """Where each document really is: the ids found when searching one shard at a time."""
    placed: dict[str, int] = {}
    for shard in range(shards):
        found = call(host, "GET", f"/{index}/_search?preference=_shards:{shard}&size=10000&_source=false")
        for hit in found["hits"]["hits"]:
            placed[hit["_id"]] = shard
    return placed


def index_docs(host: str, index: str, ids: list[str], routing: dict[str, str] | None = None) -> None:
    lines = []
    for doc_id in ids:
        meta: dict[str, Any] = {"_index": index, "_id": doc_id}
        if routing:
            meta["routing"] = routing[doc_id]
        lines += [json.dumps({"index": meta}), json.dumps({"n": doc_id})]
    result = call(host, "POST", "/_bulk?refresh=true", ("\n".join(lines) + "\n").encode(), ndjson=True)
    assert result["errors"] is False


@pytest.mark.parametrize(
    "settings",
    [
        {"number_of_shards": 1},
        {"number_of_shards": 3},
        {"number_of_shards": 5, "number_of_routing_shards": 30},
        {"number_of_shards": 7},
    ],
    ids=["1-shard", "3-shards", "5-shards-30-routing-shards", "7-shards"],
)
async def test_computed_shard_equals_search_shards_and_placement(cluster: list[str], settings: dict) -> None:
    host = cluster[0]
    recreate(host, "routing-a", {"settings": {**settings, "number_of_replicas": 0}})
    routing = await routing_of(cluster, "routing-a")
    assert routing.number_of_shards == settings["number_of_shards"]
    index_docs(host, "routing-a", IDS)
    placed = shard_by_id(host, "routing-a", routing.number_of_shards)
    assert set(placed) == set(IDS)
    for doc_id in IDS:
        reported = call(host, "GET", "/routing-a/_search_shards?routing=" + urllib.parse.quote(doc_id))
        assert reported["shards"][0][0]["shard"] == routing.shard(doc_id) == placed[doc_id], doc_id
    if routing.number_of_shards > 1:
        assert len(set(placed.values())) > 1


@pytest.mark.parametrize(
    ("source", "target"),
    [({"number_of_shards": 3}, 12), ({"number_of_shards": 5, "number_of_routing_shards": 30}, 15)],
    ids=["3-to-12", "5-to-15-of-30"],
)
async def test_split_index_routing(cluster: list[str], source: dict, target: int) -> None:
    host = cluster[0]
    call(host, "DELETE", "/routing-split?ignore_unavailable=true")
    recreate(host, "routing-src", {"settings": {**source, "number_of_replicas": 0}})
    index_docs(host, "routing-src", IDS)
    call(host, "PUT", "/routing-src/_settings", {"index.blocks.write": True})
    call(
        host,
        "POST",
        "/routing-src/_split/routing-split?wait_for_active_shards=all",
        {"settings": {"index.number_of_shards": target, "index.blocks.write": None}},
    )
    call(host, "GET", "/_cluster/health/routing-split?wait_for_status=green&timeout=60s")
    call(host, "POST", "/routing-split/_forcemerge?max_num_segments=1")
    call(host, "POST", "/routing-split/_refresh")
    routing = await routing_of(cluster, "routing-split")
    assert routing.number_of_shards == target
    # A split keeps routing_num_shards, so the routing factor shrinks.
    assert routing.routing_num_shards == (await routing_of(cluster, "routing-src")).routing_num_shards
    placed = shard_by_id(host, "routing-split", target)
    # After a split, the copies of documents that do not belong to a shard are deleted by the
    # split's clean-up; the ones searched here are those the shard owns.
    assert set(placed) == set(IDS)
    assert all(placed[doc_id] == routing.shard(doc_id) for doc_id in IDS)
    index_docs(host, "routing-split", ["after-split-1", "after-split-2", "after-split-3"])
    placed = shard_by_id(host, "routing-split", target)
    assert all(placed[d] == routing.shard(d) for d in ("after-split-1", "after-split-2", "after-split-3"))
    call(host, "DELETE", "/routing-split,routing-src")


@pytest.mark.parametrize("routing_shards", [6, None], ids=["6-routing-shards", "default-routing-shards"])
async def test_routing_partition_size(cluster: list[str], routing_shards: int | None) -> None:
    host = cluster[0]
    settings: dict[str, Any] = {"number_of_shards": 6, "routing_partition_size": 3, "number_of_replicas": 0}
    if routing_shards:
        settings["number_of_routing_shards"] = routing_shards
    recreate(host, "routing-part", {"settings": settings, "mappings": {"_routing": {"required": True}}})
    routing = await routing_of(cluster, "routing-part")
    assert routing.partitioned and routing.routing_required
    values = {doc_id: f"user-{i % 4}" for i, doc_id in enumerate(IDS)}
    index_docs(host, "routing-part", IDS, values)
    placed = shard_by_id(host, "routing-part", 6)
    assert all(placed[doc_id] == routing.shard(doc_id, values[doc_id]) for doc_id in IDS)
    spread = len({placed[d] for d in IDS if values[d] == "user-0"})
    if routing_shards == 6:
        # One routing value spreads over more than one shard (that is what the partition is for).
        assert spread > 1
    else:
        # With the default routing_num_shards (768) the offset 0-2 rarely crosses a 128-wide
        # factor bucket: the partition hardly spreads (elastic/elasticsearch#48863); ES and the
        # client agree on it all the same (checked above).
        assert routing.routing_num_shards == 768 and spread == 1
    with pytest.raises(RoutingError, match="requires a routing value"):
        routing.shard("doc-0")


def corpus_body(index: str, count: int, start: int = 0) -> bytes:
    action = json.dumps({"index": {"_index": index}})
    lines = []
    for i in range(start, start + count):
        lines += [action, json.dumps({"message": f"GET /item/{i} HTTP/1.1", "status": 200 + i % 5})]
    return ("\n".join(lines) + "\n").encode()


async def routed_bulk(hosts: list[str], index: str, mode: str, bulks: int, size: int) -> list[dict]:
    client = create_client(ConnectionSettings.create(hosts[:1], ClientOptions(timeout=60)))
    runner = Bulk()
    base = {"routing-aware": mode, "index": index}
    base[PREPARED] = prepare_bulk(base)
    metas = []
    try:
        for b in range(bulks):
            params = {**base, "body": corpus_body(index, size, b * size), "bulk-size": size}
            result = await runner(client, params)
            assert result.success, result.error_description
            assert result.weight == size
            metas.append(result.meta)
    finally:
        await client.close()
    return metas


@pytest.mark.parametrize(("mode", "shards"), [("node", 3), ("shard", 30)])
async def test_routing_aware_bulk_indexes_the_corpus_into_the_right_shards(
    cluster: list[str], mode: str, shards: int
) -> None:
    host = cluster[0]
    index = f"routing-bulk-{mode}"
    recreate(host, index, {"settings": {"number_of_shards": shards, "number_of_replicas": 0}})
    metas = await routed_bulk(cluster, index, mode, bulks=3, size=500)
    call(host, "POST", f"/{index}/_refresh")
    assert call(host, "GET", f"/{index}/_count")["count"] == 1500
    routing = await routing_of(cluster, index)
    placed = shard_by_id(host, index, shards)
    assert len(placed) == 1500
    assert all(placed[doc_id] == routing.shard(doc_id) for doc_id in placed)
    node_ids = {
        info["name"]: node_id
        for node_id, info in call(host, "GET", "/_nodes?filter_path=nodes.*.name")["nodes"].items()
    }
    primaries = {
        int(row["shard"]): node_ids[row["node"]]
        for row in call(host, "GET", f"/_cat/shards/{index}?format=json&h=shard,prirep,node")
        if row["prirep"] == "p"
    }
    for meta in metas:
        subs = meta["sub-bulks"]
        assert sum(s["docs"] for s in subs) == 500
        assert all(s["status"] == 200 and s["service_time"] > 0 for s in subs)
        if mode == "node":
            assert len({s["node"] for s in subs}) == len(subs) == len(set(primaries.values()))
        else:
            assert all(primaries[s["shard"]] == s["node"] for s in subs)
            assert len(subs) > 3


async def test_routing_aware_bulk_to_missing_index_is_a_clear_error(cluster: list[str]) -> None:
    call(cluster[0], "DELETE", "/routing-missing?ignore_unavailable=true")
    with pytest.raises(RoutingError, match="does not exist"):
        await routed_bulk(cluster, "routing-missing", "node", bulks=1, size=10)


async def test_routing_aware_bulk_to_time_series_data_stream_is_refused(cluster: list[str]) -> None:
    host = cluster[0]
    call(
        host,
        "PUT",
        "/_index_template/routing-tsds",
        {
            "index_patterns": ["routing-tsds-*"],
            "data_stream": {},
            "template": {
                "settings": {
                    "index.mode": "time_series",
                    "index.routing_path": ["host"],
                    "number_of_replicas": 0,
                },
                "mappings": {"properties": {"host": {"type": "keyword", "time_series_dimension": True}}},
            },
        },
    )
    now = call(host, "GET", "/_nodes/_local/stats/jvm?filter_path=nodes.*.timestamp")
    millis = next(iter(now["nodes"].values()))["timestamp"]
    call(host, "POST", "/routing-tsds-a/_doc", {"@timestamp": millis, "host": "a"})
    with pytest.raises(RoutingError, match="routing_path"):
        await routed_bulk(cluster, "routing-tsds-a", "node", bulks=1, size=10)
    # No clean-up: the integ-test distribution has no data stream API to delete it (its module is
    # missing); the cluster is this module's own.


async def test_shard_map_follows_a_relocated_primary(cluster: list[str]) -> None:
    host = cluster[0]
    index = "routing-move"
    recreate(host, index, {"settings": {"number_of_shards": 1, "number_of_replicas": 0}})
    now = [0.0]
    cache = ShardMapCache(refresh_interval=10.0, clock=lambda: now[0])
    http = RawHttpTransport([f"http://{host}"], {"accept": "application/json"}, timeout=30)
    try:
        old = (await cache.load(http, index, secure=False)).primaries[0]
        new = next(node for node in cache.node_urls if node != old)
        call(
            host,
            "POST",
            "/_cluster/reroute",
            {"commands": [{"move": {"index": index, "shard": 0, "from_node": old, "to_node": new}}]},
        )
        call(
            host, "GET", f"/_cluster/health/{index}?wait_for_no_relocating_shards=true&wait_for_status=green"
        )
        # Within the refresh interval the stale copy is used; Elasticsearch forwards its documents.
        assert cache.cached(index).primaries[0] == old
        client = create_client(ConnectionSettings.create(cluster[:1], ClientOptions(timeout=60)))
        try:
            runner = RoutedBulk(cache=cache)
            req = prepare_bulk({"routing-aware": "node"})
            stale = await runner(client, {"index": index}, req, corpus_body(index, 50), RoutingAware.NODE)
            assert stale.success and [s["node"] for s in stale.meta["sub-bulks"]] == [old]
            now[0] = 11.0
            assert cache.cached(index) is None
            fresh = await runner(client, {"index": index}, req, corpus_body(index, 50, 50), RoutingAware.NODE)
            assert fresh.success and [s["node"] for s in fresh.meta["sub-bulks"]] == [new]
        finally:
            await client.close()
    finally:
        await http.close()
    call(host, "POST", f"/{index}/_refresh")
    assert call(host, "GET", f"/{index}/_count")["count"] == 100
