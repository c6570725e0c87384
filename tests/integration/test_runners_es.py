"""Every built-in runner against a real Elasticsearch node (API drift that mocks cannot catch)."""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from esbench.corpus.model import CorpusSet, PreparedDocuments
from esbench.corpus.offsets import ensure_offset_index
from esbench.driver.coordinator.run import DriverSettings, run_challenge, tasks_of
from esbench.driver.transport.client import ClientOptions, ConnectionSettings, EsbenchClient, create_client
from esbench.driver.transport.timing import RequestTiming, current_timing
from esbench.driver.worker.context import RaceContext, current_context
from esbench.driver.worker.registry import default_registry
from esbench.driver.worker.runners.base import RunnerResult
from esbench.track.model import Challenge, Documents, Index, IndexTemplate, Operation, Parallel, Task, Track

pytestmark = pytest.mark.integration


def name(prefix: str) -> str:
    return f"esbench-it-{prefix}-{uuid.uuid4().hex[:8]}"


def make_track(indices: tuple[Index, ...] = (), **fields: Any) -> Track:
    return Track(name="it", root=Path("/nonexistent"), challenges=(), indices=indices, **fields)


def make_task(
    op_type: str, *, op_name: str | None = None, task_name: str | None = None, **fields: Any
) -> Task:
    params = {k.replace("_", "-"): v for k, v in fields.pop("params", {}).items()}
    operation = Operation(name=op_name or op_type, operation_type=op_type, params=params)
    return Task(name=task_name or operation.name, operation=operation, **fields)


class Harness:
    """Runs one operation the way a client would: param source, partition, runner, timing."""

    def __init__(self, es: EsbenchClient) -> None:
        self.es = es
        self.registry = default_registry()
        self.context = RaceContext()

    async def run(self, op_type: str, track: Track | None = None, **params: Any) -> RunnerResult:
        task = make_task(op_type, op_name=params.pop("name", None), params=params)
        if op_type == "bulk":
            # a literal body instead of a corpus: the runner gets the params as given
            call_params = {k.replace("_", "-"): v for k, v in params.items()}
        else:
            call_params = self.registry.param_source(task, track or make_track()).partition(0, 1).params()
        timing = RequestTiming()
        t1, t2 = current_timing.set(timing), current_context.set(self.context)
        try:
            result = await self.registry.runner(op_type)(self.es, call_params)
        finally:
            current_timing.reset(t1)
            current_context.reset(t2)
        if op_type != "sleep":
            assert timing.observed and timing.end >= timing.start  # every runner is timed on the wire
        return result

    async def get(self, path: str) -> Any:
        response = await self.es.http.request("GET", path)
        return response.status, (json.loads(response.body) if response.body else None)

    async def delete(self, path: str) -> None:
        await self.es.http.request("DELETE", path)


@pytest.fixture
async def h(es_hosts: list[str]) -> AsyncIterator[Harness]:
    client = create_client(ConnectionSettings.create(es_hosts, ClientOptions(timeout=30)))
    try:
        yield Harness(client)
    finally:
        await client.close()


async def index_docs(h: Harness, index: str, count: int) -> None:
    lines = "".join(
        json.dumps({"index": {"_index": index}}) + "\n" + json.dumps({"n": i, "k": i % 3}) + "\n"
        for i in range(count)
    )
    result = await h.run("bulk", body=lines.encode(), bulk_size=count, refresh="true")
    assert result.success, result.error_description


async def test_create_and_delete_index_with_track_body_and_settings(h):
    idx = name("idx")
    track = make_track(
        (
            Index(
                name=idx,
                body={
                    "settings": {"index.number_of_shards": 2},
                    "mappings": {"properties": {"n": {"type": "integer"}}},
                },
            ),
        )
    )
    created = await h.run("create-index", track, settings={"index.number_of_replicas": 0})
    assert created.success and created.weight == 1
    _, settings = await h.get(f"/{idx}/_settings")
    assert settings[idx]["settings"]["index"]["number_of_shards"] == "2"
    assert settings[idx]["settings"]["index"]["number_of_replicas"] == "0"
    again = await h.run("create-index", track)
    assert (
        not again.success
        and again.error_type == "400"
        and "resource_already_exists_exception" in again.error_description
    )
    deleted = await h.run("delete-index", track)
    assert deleted.success and deleted.weight == 1
    assert (await h.get(f"/{idx}"))[0] == 404
    skipped = await h.run("delete-index", track)
    assert skipped.success and skipped.weight == 0  # only-if-exists (default)
    missing = await h.run("delete-index", track, only_if_exists=False)
    assert not missing.success and missing.error_type == "404"


async def test_bulk_search_scroll_composite_and_stats(h):
    idx = name("data")
    await h.run(
        "create-index",
        index=idx,
        body={
            "settings": {"number_of_replicas": 0},
            "mappings": {"properties": {"n": {"type": "integer"}, "k": {"type": "keyword"}}},
        },
    )
    try:
        await index_docs(h, idx, 35)
        search = await h.run(
            "search", index=idx, body={"query": {"range": {"n": {"gte": 30}}}}, detailed_results=True
        )
        assert search.success and search.meta["hits"] == 5 and search.meta["hits_relation"] == "eq"
        scroll = await h.run(
            "scroll-search", index=idx, pages="all", results_per_page=10, body={"query": {"match_all": {}}}
        )
        # 4 pages of hits plus the empty page that ends the scroll (counted, as in Rally)
        assert scroll.success and scroll.weight == 5 and scroll.meta["hits"] == 35
        body = {"size": 0, "aggs": {"by_k": {"composite": {"sources": [{"k": {"terms": {"field": "k"}}}]}}}}
        composite = await h.run("composite-agg", index=idx, body=body, results_per_page=1)
        # 3 buckets, one per page, then a page without buckets
        assert composite.success and composite.weight == 4
        paged = await h.run(
            "paginated-search", index=idx, pages="all", results_per_page=10, body={"sort": [{"n": "asc"}]}
        )
        assert paged.success and paged.weight == 4 and paged.unit == "pages"
        assert (await h.run("refresh", index=idx)).success
        stats = await h.run(
            "index-stats", index=idx, condition={"path": "_all.primaries.docs.count", "expected-value": 35}
        )
        assert stats.success
        wrong = await h.run(
            "index-stats", index=idx, condition={"path": "_all.primaries.docs.count", "expected-value": 1}
        )
        assert not wrong.success and wrong.error_type == "condition"
        assert (await h.run("node-stats")).success
        caps = await h.run("field-caps", index=idx, fields="n")
        assert caps.success
        raw = await h.run("raw-request", path=f"/{idx}/_count", body={"query": {"term": {"k": "1"}}})
        assert raw.success
        missing = await h.run("raw-request", path="/esbench-it-no-such-index/_doc/1", ignore=[404])
        assert missing.success
        not_ignored = await h.run("raw-request", path="/esbench-it-no-such-index/_doc/1")
        assert not not_ignored.success and not_ignored.error_type == "404"
    finally:
        await h.delete(f"/{idx}")


async def test_bulk_with_mapping_errors_counts_failed_items_by_status(h):
    idx = name("map")
    await h.run(
        "create-index",
        index=idx,
        body={"settings": {"number_of_replicas": 0}, "mappings": {"properties": {"n": {"type": "integer"}}}},
    )
    try:
        docs = [{"n": i} if i % 4 else {"n": f"not-a-number-{i}"} for i in range(20)]
        body = "".join(json.dumps({"index": {"_index": idx}}) + "\n" + json.dumps(d) + "\n" for d in docs)
        result = await h.run("bulk", body=body.encode(), bulk_size=20)
        assert not result.success and result.error_type == "bulk"
        assert result.error_counts == {"400": 5}
        assert result.meta["success-count"] == 15 and "failed to parse field [n]" in result.error_description
        detailed = await h.run("bulk", body=body.encode(), bulk_size=20, detailed_results=True)
        assert detailed.error_counts == {"400": 5}
        assert detailed.meta["ops"]["index"]["item-count"] == 20
    finally:
        await h.delete(f"/{idx}")


async def test_index_templates_round_trip(h):
    legacy, comp, composable = name("legacy"), name("comp"), name("composable")
    pattern = f"{composable}-*"
    track = make_track(
        component_templates=(
            IndexTemplate(name=comp, content={"template": {"settings": {"index.number_of_replicas": 0}}}),
        ),
        composable_templates=(
            IndexTemplate(
                name=composable,
                pattern=pattern,
                content={"index_patterns": [pattern], "composed_of": [comp], "priority": 500},
                delete_matching_indices=True,
            ),
        ),
    )
    assert (await h.run("create-component-template", track)).success
    created = await h.run("create-composable-template", track, settings={"index.number_of_shards": 3})
    assert created.success and created.weight == 1
    status, body = await h.get(f"/_index_template/{composable}")
    assert status == 200
    assert (
        body["index_templates"][0]["index_template"]["template"]["settings"]["index"]["number_of_shards"]
        == "3"
    )
    await h.run("create-index", index=f"{composable}-1")
    _, settings = await h.get(f"/{composable}-1/_settings")
    assert settings[f"{composable}-1"]["settings"]["index"]["number_of_shards"] == "3"
    assert settings[f"{composable}-1"]["settings"]["index"]["number_of_replicas"] == "0"
    deleted = await h.run("delete-composable-template", track)
    assert deleted.success and deleted.weight == 2  # the template and its matching indices
    assert (await h.get(f"/_index_template/{composable}"))[0] == 404
    assert (await h.get(f"/{composable}-1"))[0] == 404
    assert (await h.run("delete-component-template", track)).success
    assert (await h.get(f"/_component_template/{comp}"))[0] == 404

    assert (
        await h.run(
            "create-index-template", template=legacy, body={"index_patterns": [f"{legacy}-*"], "order": 1}
        )
    ).success
    assert (await h.get(f"/_template/{legacy}"))[0] == 200
    assert (await h.run("delete-index-template", template=legacy)).weight == 1
    assert (await h.get(f"/_template/{legacy}"))[0] == 404


async def test_cluster_health_timeout_below_the_expected_status_is_a_failure(h):
    idx = name("health")
    await h.run("create-index", index=idx, body={"settings": {"number_of_replicas": 1}})  # yellow on one node
    try:
        result = await h.run(
            "cluster-health", index=idx, request_params={"wait_for_status": "green", "timeout": "1s"}
        )
        assert not result.success and result.error_type == "408"
        assert result.meta["cluster-status"] == "yellow"
        ok = await h.run("cluster-health", index=idx, request_params={"wait_for_status": "yellow"})
        assert ok.success and ok.meta["cluster-status"] == "yellow"
    finally:
        await h.delete(f"/{idx}")


async def test_force_merge_blocking(h):
    idx = name("merge")
    await h.run("create-index", index=idx, body={"settings": {"number_of_replicas": 0}})
    try:
        for _ in range(3):
            await index_docs(h, idx, 10)  # refresh after each bulk: several segments
        blocking = await h.run("force-merge", index=idx, max_num_segments=1)
        assert blocking.success
        _, segments = await h.get(f"/{idx}/_segments")
        assert segments["indices"][idx]["shards"]["0"][0]["num_search_segments"] == 1
    finally:
        await h.delete(f"/{idx}")


class SlowForceMergeProxy:
    """A loopback TCP proxy in front of the real node that forwards every request at once but holds
    the *response* of ``_forcemerge`` for ``hold_s`` seconds.

    A force merge of a test-sized index finishes in well under the polling runner's 1 s request
    timeout, so without the hold the ``_tasks`` polling loop would never run against a real node.
    With it, the merge runs on the node as usual while the runner's request times out, and every
    ``_tasks`` reply the loop parses is the node's own.
    """

    def __init__(self, upstream: str, hold_s: float) -> None:
        self.upstream_host, port = upstream.rsplit(":", 1)
        self.upstream_port = int(port)
        self.hold_s = hold_s
        self.request_lines: list[str] = []
        self.server: Any = None

    async def __aenter__(self) -> str:
        import asyncio

        self._asyncio = asyncio
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return f"127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()
        await self.server.wait_closed()

    async def _serve(self, client_r: Any, client_w: Any) -> None:
        asyncio = self._asyncio
        up_r, up_w = await asyncio.open_connection(self.upstream_host, self.upstream_port)
        holding = asyncio.Event()

        async def upstream_to_client() -> None:
            while data := await up_r.read(65536):
                if holding.is_set():
                    await asyncio.sleep(self.hold_s)
                    holding.clear()
                client_w.write(data)
                await client_w.drain()

        pump = asyncio.ensure_future(upstream_to_client())
        try:
            while data := await client_r.read(65536):
                line = data.split(b"\r\n", 1)[0].decode("latin-1")
                if line.split(" ")[0] in ("GET", "POST", "PUT", "DELETE", "HEAD"):
                    self.request_lines.append(line)
                    if "/_forcemerge" in line:
                        holding.set()
                up_w.write(data)
                await up_w.drain()
        except ConnectionError:
            pass
        finally:
            pump.cancel()
            up_w.close()
            client_w.close()


async def test_force_merge_polling_waits_on_the_nodes_tasks(es_hosts, h):
    idx = name("merge-poll")
    await h.run("create-index", index=idx, body={"settings": {"number_of_replicas": 0}})
    try:
        for _ in range(3):
            await index_docs(h, idx, 10)
        proxy = SlowForceMergeProxy(es_hosts[0], hold_s=1.5)
        async with proxy as proxied:
            client = create_client(ConnectionSettings.create([proxied], ClientOptions(timeout=30)))
            try:
                polling = await Harness(client).run(
                    "force-merge", index=idx, max_num_segments=1, mode="polling", poll_period=0.1
                )
            finally:
                await client.close()
        assert polling.success, polling.error_description
        merges = [line for line in proxy.request_lines if "/_forcemerge" in line]
        polls = [line for line in proxy.request_lines if line.startswith("GET /_tasks")]
        assert len(merges) == 1  # the timed-out request is not retried
        assert polls and all(
            "actions=indices%3Aadmin%2Fforcemerge" in p or "indices:admin/forcemerge" in p for p in polls
        )
        _, segments = await h.get(f"/{idx}/_segments")
        assert segments["indices"][idx]["shards"]["0"][0]["num_search_segments"] == 1
    finally:
        await h.delete(f"/{idx}")


async def test_point_in_time_open_close(h):
    idx = name("pit")
    await h.run("create-index", index=idx, body={"settings": {"number_of_replicas": 0}})
    try:
        await index_docs(h, idx, 5)
        opened = await h.run("open-point-in-time", index=idx, name="pit-op", keep_alive="1m")
        assert opened.success and h.context.get("pit-op")
        paged = await h.run(
            "paginated-search",
            pages="all",
            results_per_page=2,
            with_point_in_time_from="pit-op",
            body={"sort": [{"n": "asc"}]},
        )
        assert paged.success and paged.weight == 3 and paged.meta["hits"] == 5
        closed = await h.run("close-point-in-time", with_point_in_time_from="pit-op")
        assert closed.success
    finally:
        await h.delete(f"/{idx}")


async def test_pipeline_settings_sleep(h):
    pipeline = name("pipe")
    assert (await h.run("put-pipeline", id=pipeline, body={"description": "it", "processors": []})).success
    assert (await h.get(f"/_ingest/pipeline/{pipeline}"))[0] == 200
    await h.delete(f"/_ingest/pipeline/{pipeline}")
    put = await h.run(
        "put-settings", body={"persistent": {"cluster.routing.allocation.node_concurrent_recoveries": 3}}
    )
    assert put.success
    _, settings = await h.get("/_cluster/settings")
    assert settings["persistent"]["cluster"]["routing"]["allocation"]["node_concurrent_recoveries"] == "3"
    await h.run(
        "put-settings", body={"persistent": {"cluster.routing.allocation.node_concurrent_recoveries": None}}
    )
    assert (await h.run("sleep", duration=0.01)).success


async def test_data_streams_when_the_node_supports_them(h):
    # Probe the API once, by name, before touching anything: a runner that sent the wrong method
    # must fail this test, not skip it.
    status, _ = await h.get("/_data_stream")
    if status in (400, 404, 405):
        pytest.skip(
            f"GET /_data_stream answered {status}: this node has no data-streams module (the Maven "
            "integ-test distribution lacks it); the request shapes are checked against Rally's in "
            "tests/unit/driver/test_runners_data_streams.py"
        )
    assert status == 200
    stream = name("ds")
    template = {
        "index_patterns": [f"{stream}*"],
        "data_stream": {},
        "template": {"mappings": {"properties": {"@timestamp": {"type": "date"}}}},
    }
    assert (await h.run("create-composable-template", template=stream, body=template)).success
    try:
        created = await h.run("create-data-stream", data_stream=stream)
        assert created.success, created.error_description
        deleted = await h.run("delete-data-stream", data_stream=stream)
        assert deleted.success and deleted.weight == 1
    finally:
        await h.delete(f"/_index_template/{stream}")


# ------------------------------------------------------------------------------ whole races


def corpus_with_bad_documents(tmp_path: Path, index: str, docs: int, bad_every: int) -> CorpusSet:
    path = tmp_path / "docs.json"
    with path.open("w") as f:
        for i in range(docs):
            f.write(json.dumps({"n": f"bad-{i}" if i % bad_every == 0 else i}) + "\n")
    offsets = tmp_path / "docs.json.offset"
    ensure_offset_index(path, offsets)
    prepared = PreparedDocuments(
        corpus="c",
        documents=Documents(source_file="docs.json", document_count=docs, target_index=index),
        path=path,
        offsets_path=offsets,
        document_count=docs,
        target_index=index,
    )
    return CorpusSet(by_corpus={"c": (prepared,)})


def test_race_with_bulk_errors_pit_across_tasks_and_parallel_searches(es_hosts, tmp_path):
    idx = name("race")
    body = {"settings": {"number_of_replicas": 0}, "mappings": {"properties": {"n": {"type": "integer"}}}}
    track = make_track((Index(name=idx, body=body),))
    corpora = corpus_with_bad_documents(tmp_path, idx, docs=1000, bad_every=10)
    schedule = (
        make_task("delete-index"),
        make_task("create-index"),
        make_task("bulk", clients=2, params={"bulk_size": 100}),
        make_task("refresh"),
        make_task("open-point-in-time", op_name="pit"),
        Parallel(
            tasks=(
                make_task(
                    "paginated-search",
                    task_name="pages",
                    clients=2,
                    iterations=2,
                    params={
                        "pages": "all",
                        "results-per-page": 100,
                        "with-point-in-time-from": "pit",
                        "body": {"sort": [{"n": "asc"}]},
                    },
                ),
                make_task(
                    "search",
                    task_name="count",
                    clients=2,
                    iterations=20,
                    params={"body": {"query": {"match_all": {}}}, "detailed-results": True},
                ),
            )
        ),
        make_task("close-point-in-time", params={"with-point-in-time-from": "pit"}),
        make_task("delete-index", task_name="cleanup"),
    )
    outcome = run_challenge(
        track=track,
        challenge=Challenge(name="it", schedule=schedule, default=True),
        hosts=es_hosts,
        client_options=ClientOptions(timeout=30),
        settings=DriverSettings(workers=2, task_pause_s=0),
        corpora=corpora,
    )
    assert outcome.status == "completed", outcome.error
    results = tasks_of(outcome)
    bulk = results["bulk"]
    assert bulk.sample_count == 10 and bulk.error_count == 10  # every bulk had a bad document
    assert bulk.errors_by_type == {"bulk": 10}  # failed requests...
    assert bulk.item_errors_by_status == {"400": 100}  # ...and their failed documents, by status
    assert bulk.total_weight == 1000 and bulk.throughput_unit == "docs/s"
    pages = results["pages"]
    assert pages.error_count == 0 and pages.sample_count == 4
    assert pages.total_weight == 4 * math.ceil(900 / 100) and pages.throughput_unit == "pages/s"
    assert results["count"].sample_count == 40 and results["count"].error_count == 0
    assert results["close-point-in-time"].error_count == 0
