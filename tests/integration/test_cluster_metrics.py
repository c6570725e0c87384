"""Cluster snapshots and Rally's cluster rows against a real Elasticsearch node."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
from elasticsearch import AsyncElasticsearch

from esbench.metrics.cluster import (
    DOC_COUNT,
    INDEXING_TIME,
    REFRESH_COUNT,
    cluster_metrics,
    take_cluster_snapshot,
    unclean_cluster_warnings,
)

pytestmark = pytest.mark.integration


@pytest.fixture
async def es(es_hosts: list[str]) -> AsyncIterator[AsyncElasticsearch]:
    client = AsyncElasticsearch([f"http://{h}" for h in es_hosts], request_timeout=60)
    try:
        yield client
    finally:
        await client.close()


@pytest.fixture
async def index(es: AsyncElasticsearch) -> AsyncIterator[str]:
    name = f"esbench-it-cluster-metrics-{uuid.uuid4().hex[:10]}"
    await es.indices.create(index=name, settings={"number_of_shards": 2, "number_of_replicas": 0})
    try:
        yield name
    finally:
        await es.indices.delete(index=name, ignore_unavailable=True)


async def _index_docs(es: AsyncElasticsearch, index: str, n: int, **kw) -> None:
    ops: list[dict] = []
    for i in range(n):
        ops += [{"index": {"_index": index, "_id": str(i)}}, {"n": i, "text": f"document {i}"}]
    resp = await es.bulk(operations=ops, **kw)
    assert not resp["errors"]


def _rows(before, after) -> dict[str, float]:
    rows = cluster_metrics(before, after)
    names = [r.name for r in rows]
    assert len(names) == len(set(names)), "duplicate row names"
    assert all(r.task == "" for r in rows)
    return {r.name: r.value for r in rows}


async def test_rows_reflect_indexing_between_two_snapshots(es: AsyncElasticsearch, index: str) -> None:
    before = await take_cluster_snapshot(es, index=index)
    assert before.errors == ()
    assert before.primaries.get(DOC_COUNT, 0) == 0

    await _index_docs(es, index, 500, refresh=True)
    await es.indices.flush(index=index)
    after = await take_cluster_snapshot(es, index=index)

    assert after.errors == ()
    assert after.primaries[DOC_COUNT] == 500
    # two primary shards -> two per-shard values, summing to the primaries total
    shard_times = after.primary_shards[INDEXING_TIME]
    assert len(shard_times) == 2
    assert sum(shard_times) == after.primaries[INDEXING_TIME]
    assert after.primaries[REFRESH_COUNT] > before.primaries.get(REFRESH_COUNT, 0)

    rows = _rows(before, after)
    assert rows["Cumulative indexing time of primary shards"] == pytest.approx(
        after.primaries[INDEXING_TIME] / 60_000
    )
    assert (
        rows["Min cumulative indexing time across primary shards"]
        <= rows["Median cumulative indexing time across primary shards"]
        <= rows["Max cumulative indexing time across primary shards"]
    )
    assert rows["Cumulative refresh count of primary shards"] >= 1
    assert rows["Cumulative flush count of primary shards"] >= 1
    # Sizes and segments agree with what Elasticsearch reports through other APIs right now
    # (nothing writes to the index after the flush).
    stats = (await es.indices.stats(index=index, metric="store,translog"))["_all"]["total"]
    assert rows["Store size"] == pytest.approx(stats["store"]["size_in_bytes"] / 1024**3)
    assert rows["Translog size"] == pytest.approx(stats["translog"]["size_in_bytes"] / 1024**3)
    assert 0 < rows["Store size"] < 1  # GB; 500 tiny docs
    assert rows["Dataset size"] >= rows["Store size"] * 0.999
    segments = (await es.indices.segments(index=index))["indices"][index]["shards"]
    primaries = [copy for copies in segments.values() for copy in copies if copy["routing"]["primary"]]
    assert rows["Segment count"] == sum(copy["num_search_segments"] for copy in primaries)
    # GC rows are the node counters' deltas between the snapshots, converted ms -> s.
    young = "jvm.gc.collectors.young"
    (node_id,) = after.nodes
    young_ms = (
        after.nodes[node_id][f"{young}.collection_time_in_millis"]
        - before.nodes[node_id][f"{young}.collection_time_in_millis"]
    )
    assert rows["Total Young Gen GC time"] == pytest.approx(young_ms / 1000)
    assert rows["Total Young Gen GC count"] == int(
        after.nodes[node_id][f"{young}.collection_count"] - before.nodes[node_id][f"{young}.collection_count"]
    )
    assert rows["Total Ingest Pipeline count"] == 0
    assert rows["Total Ingest Pipeline failed"] == 0
    # order is Rally's: index rows, GC, sizes, segments, ingest
    order = [r.name for r in cluster_metrics(before, after)]
    assert order[0] == "Cumulative indexing time of primary shards"
    assert order.index("Total Young Gen GC time") < order.index("Dataset size") < order.index("Segment count")
    assert order[-1] == "Total Ingest Pipeline failed"


async def test_ingest_pipeline_rows_count_documents_through_pipelines(
    es: AsyncElasticsearch, index: str
) -> None:
    pipeline = f"{index}-pipeline"
    # No processor modules are needed for an empty pipeline (the dev node is an integ-test-zip).
    await es.ingest.put_pipeline(id=pipeline, processors=[])
    try:
        before = await take_cluster_snapshot(es, index=index)
        await _index_docs(es, index, 40, pipeline=pipeline, refresh=True)
        after = await take_cluster_snapshot(es, index=index)
    finally:
        await es.ingest.delete_pipeline(id=pipeline)
    rows = _rows(before, after)
    # other tests may use pipelines on a shared node at the same time: at least ours
    assert rows["Total Ingest Pipeline count"] >= 40
    assert rows["Total Ingest Pipeline failed"] == 0
    assert rows["Total Ingest Pipeline time"] == pytest.approx(
        sum(n["ingest.total.time_in_millis"] for n in after.nodes.values()) / 1000
        - sum(n["ingest.total.time_in_millis"] for n in before.nodes.values()) / 1000
    )


async def test_unrestricted_snapshot_covers_all_indices(es: AsyncElasticsearch, index: str) -> None:
    """Without an index the snapshot counts every open index: beside the test's own index (2 shards, 30
    documents) a second one (1 shard, 7 documents) adds its documents and its primary shard, and the
    totals equal what ``_cat/indices`` says of all open indices."""
    other = f"{index}-other"
    await es.indices.create(index=other, settings={"number_of_shards": 1, "number_of_replicas": 0})
    try:
        await _index_docs(es, index, 30, refresh=True)
        await _index_docs(es, other, 7, refresh=True)
        snap = await take_cluster_snapshot(es)
        mine = await take_cluster_snapshot(es, index=index)
        theirs = await take_cluster_snapshot(es, index=other)
        every = (await es.cat.indices(format="json", h="index,docs.count,pri", expand_wildcards="open")).body
    finally:
        await es.indices.delete(index=other)
    assert mine.primaries[DOC_COUNT] == 30 and theirs.primaries[DOC_COUNT] == 7
    assert {index, other} <= {row["index"] for row in every}
    assert snap.primaries[DOC_COUNT] == sum(int(row["docs.count"]) for row in every)
    assert len(snap.primary_shards[INDEXING_TIME]) == sum(int(row["pri"]) for row in every)
    assert len(mine.primary_shards[INDEXING_TIME]) == 2 and len(theirs.primary_shards[INDEXING_TIME]) == 1
    assert snap.nodes, "node stats missing"


async def test_fresh_index_is_not_reported_as_unclean(es: AsyncElasticsearch, index: str) -> None:
    snap = await take_cluster_snapshot(es, index=index)
    assert unclean_cluster_warnings(snap) == ()


async def test_missing_index_is_recorded_as_error_not_raised(es: AsyncElasticsearch) -> None:
    snap = await take_cluster_snapshot(es, index=f"esbench-it-missing-{uuid.uuid4().hex[:8]}")
    assert any(e.startswith("_stats") for e in snap.errors)
    assert snap.primaries == {}
    rows = {r.name for r in cluster_metrics(snap, snap)}
    assert "Cumulative indexing time of primary shards" not in rows
    assert "Total Young Gen GC count" in rows
