"""Runners' request building and response handling, against static responses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from driver_helpers import SEARCH_RESPONSE, static_es, task, track

from esbench.driver.transport.timing import RequestTiming, current_timing
from esbench.driver.worker.context import RaceContext, current_context
from esbench.driver.worker.registry import default_registry
from esbench.driver.worker.runners.bulk import Bulk
from esbench.driver.worker.runners.search_summary import last_sort_values, summarize
from esbench.exceptions import ConfigError
from esbench.track.model import Operation


class Routes:
    """Answers by (method, path prefix); records every request."""

    def __init__(self, routes: dict[tuple[str, str], Any]) -> None:
        self.routes = routes
        self.requests: list[tuple[str, str, Any]] = []

    def __call__(self, method: str, target: str, body: bytes | None) -> tuple[int, bytes]:
        try:
            decoded = json.loads(body) if body else body
        except ValueError:
            decoded = body  # NDJSON
        self.requests.append((method, target, decoded))
        path = target.split("?")[0]
        for (m, prefix), answer in self.routes.items():
            if m == method and path.startswith(prefix):
                if callable(answer):
                    return answer(method, target, body)
                if isinstance(answer, list):
                    return answer.pop(0)
                return answer
        return 200, b"{}"


def params_for(op_type: str, trk=None, **params: Any) -> dict[str, Any]:
    """What the built-in param source of ``op_type`` produces for these operation params."""
    registry = default_registry()
    params = {k.replace("_", "-"): v for k, v in params.items()}
    operation = Operation(name=params.pop("name", op_type), operation_type=op_type, params=params)
    source = registry.param_source(task(operation), trk or track(), corpora=None)
    return source.partition(0, 1).params()


async def run(op_type: str, routes: Routes, params: dict[str, Any]):
    runner = default_registry().runner(op_type)
    return await runner(static_es(routes), params)


# ------------------------------------------------------------------------------------ search


async def test_search_request_is_built_once_and_not_parsed():
    p = params_for(
        "search",
        body={"query": {"match_all": {}}},
        cache=True,
        request_params={"_source_includes": "a", "track_total_hits": False},
        results_per_page=25,
    )
    routes = Routes({("GET", "/idx/_search"): (200, b"not json at all")})
    result = await run("search", routes, p)
    method, target, body = routes.requests[0]
    assert method == "GET"
    assert target.startswith("/idx/_search?")
    assert set(target.split("?")[1].split("&")) == {
        "_source_includes=a",
        "track_total_hits=false",
        "request_cache=true",
    }
    assert body == {"query": {"match_all": {}}, "size": 25}
    assert result.success and result.weight == 1 and result.unit == "ops" and result.meta is None


async def test_search_detailed_results_and_errors():
    p = params_for("search", body={}, detailed_results=True)
    result = await run("search", Routes({("GET", "/idx/_search"): (200, SEARCH_RESPONSE)}), p)
    assert result.meta == {"hits": 1, "hits_relation": "eq", "timed_out": False, "took": 1}
    failed = await run(
        "search",
        Routes(
            {("GET", "/idx/_search"): (400, b'{"error":{"type":"parsing_exception","reason":"bad query"}}')}
        ),
        p,
    )
    assert (
        not failed.success
        and failed.error_type == "400"
        and "parsing_exception: bad query" in failed.error_description
    )


def test_search_needs_a_target():
    with pytest.raises(ConfigError, match="needs 'index' or 'data-stream'"):
        params_for("search", trk=track(indices=("a", "b")), body={})
    assert params_for("search", trk=track(indices=("a", "b")), index="b", body={})["index"] == "b"


async def test_search_from_plugin_params_is_prepared_per_call():
    routes = Routes({})
    await run("search", routes, {"index": ["a", "b"], "body": {"size": 0}, "type": None, "cache": False})
    assert routes.requests == [("GET", "/a,b/_search?request_cache=false", {"size": 0})]


def test_summarize_reads_the_head_only():
    body = (
        b'{"pit_id":"abc==","took":12,"timed_out":true,"_shards":{},"hits":{"total":{"value":10000,'
        b'"relation":"gte"},"max_score":null,"hits":[{"_source":{"took":99,"timed_out":false}}]}}'
    )
    s = summarize(body)
    assert (s.took, s.timed_out, s.hits, s.hits_relation, s.pit_id) == (12, True, 10000, "gte", "abc==")
    pretty = json.dumps({"took": 5, "timed_out": False, "hits": {"total": 3, "hits": []}}, indent=2).encode()
    assert summarize(pretty).hits == 3 and summarize(pretty).took == 5


def test_last_sort_values():
    body = b'{"hits":{"hits":[{"sort":[1,"a]"]},{"sort":[2,"b\\"]"]}]},"aggregations":{"x":{"sort":[9]}}}'
    assert last_sort_values(body) == [2, 'b"]']
    assert last_sort_values(b'{"hits":{"hits":[]}}') is None


async def test_paginated_search_follows_search_after_until_hits_are_read():
    def page(sort_value: int, hits: int = 25) -> tuple[int, bytes]:
        return 200, (
            b'{"took":2,"timed_out":false,"hits":{"total":{"value":%d,"relation":"eq"},"hits":[{"sort":[%d]}]}}'
            % (hits, sort_value)
        )

    p = params_for("paginated-search", pages=10, results_per_page=10, body={"sort": [{"n": "asc"}]})
    routes = Routes({("GET", "/idx/_search"): [page(1), page(2), page(3)]})
    result = await run("paginated-search", routes, p)
    assert [r[2].get("search_after") for r in routes.requests] == [None, [1], [2]]
    assert all(r[2]["size"] == 10 for r in routes.requests)
    assert result.weight == 3 and result.unit == "pages"
    assert result.meta == {"pages": 3, "hits": 25, "hits_relation": "eq", "timed_out": False, "took": 6}


async def test_paginated_search_with_point_in_time_from_the_race_context():
    ctx = RaceContext({"open-pit": "pit-1"})
    token = current_context.set(ctx)
    try:
        p = params_for(
            "paginated-search",
            pages=2,
            results_per_page=1,
            body={"sort": ["_shard_doc"]},
            with_point_in_time_from="open-pit",
        )
        answer = (
            200,
            b'{"pit_id":"pit-2","took":1,"timed_out":false,"hits":{"total":{"value":5,"relation":"eq"},'
            b'"hits":[{"sort":[7]}]}}',
        )
        routes = Routes({("GET", "/_search"): [answer, answer]})
        result = await run("paginated-search", routes, p)
    finally:
        current_context.reset(token)
    assert [r[1] for r in routes.requests] == ["/_search", "/_search"]
    assert routes.requests[0][2]["pit"] == {"id": "pit-1", "keep_alive": "1m"}
    assert routes.requests[1][2]["pit"]["id"] == "pit-2"  # the newest id from the response
    assert ctx.get("open-pit") == "pit-2"
    assert result.weight == 2


async def test_scroll_search_reads_pages_and_clears_the_scroll():
    first = (
        200,
        b'{"_scroll_id":"s1","took":3,"timed_out":false,"hits":{"total":{"value":30,"relation":"eq"},'
        b'"hits":[{"_id":"1"}]}}',
    )
    second = (
        200,
        b'{"_scroll_id":"s2","took":4,"timed_out":false,"hits":{"total":{"value":30},"hits":[{"_id":"2"}]}}',
    )
    empty = (200, b'{"_scroll_id":"s2","took":1,"timed_out":false,"hits":{"total":{"value":30},"hits":[]}}')
    p = params_for("scroll-search", pages="all", results_per_page=10, body={"query": {"match_all": {}}})
    routes = Routes({("GET", "/idx/_search"): first, ("GET", "/_search/scroll"): [second, empty]})
    result = await run("scroll-search", routes, p)
    assert routes.requests[0][1].startswith("/idx/_search?")
    assert "scroll=10s" in routes.requests[0][1] and "size=10" in routes.requests[0][1]
    assert routes.requests[1][2] == {"scroll_id": "s1", "scroll": "10s"}
    assert routes.requests[-1] == ("DELETE", "/_search/scroll", {"scroll_id": ["s2"]})
    assert result.weight == 3 and result.meta["took"] == 8


async def test_composite_agg_pages_through_after_keys():
    def page(after: dict | None, buckets: int) -> tuple[int, bytes]:
        agg: dict[str, Any] = {"buckets": [{"key": {}}] * buckets}
        if after is not None:
            agg["after_key"] = after
        return 200, json.dumps(
            {"took": 1, "timed_out": False, "hits": {"total": {"value": 9}}, "aggregations": {"by": agg}}
        ).encode()

    body = {"size": 0, "aggs": {"by": {"composite": {"sources": [{"k": {"terms": {"field": "k"}}}]}}}}
    p = params_for("composite-agg", body=body, results_per_page=2)
    routes = Routes({("GET", "/idx/_search"): [page({"k": 1}, 2), page({"k": 2}, 2), page(None, 0)]})
    result = await run("composite-agg", routes, p)
    sent = [r[2]["aggs"]["by"]["composite"] for r in routes.requests]
    assert [c.get("after") for c in sent] == [None, {"k": 1}, {"k": 2}]
    assert all(c["size"] == 2 for c in sent)
    assert "after" not in body["aggs"]["by"]["composite"]  # the track's body is not modified
    assert result.weight == 3 and result.unit == "pages"


# -------------------------------------------------------------------------------------- bulk


async def test_bulk_fast_path_and_item_errors():
    params = {"body": b'{"index":{}}\n{"a":1}\n', "bulk-size": 1, "unit": "docs", "pipeline": "p1"}
    routes = Routes(
        {("POST", "/_bulk"): (200, b'{"errors":false,"took":1,"items":[{"index":{"status":201}}]}')}
    )
    ok = await Bulk()(static_es(routes), params)
    assert routes.requests[0][1] == "/_bulk?pipeline=p1"
    assert ok.success and ok.weight == 1 and ok.unit == "docs"

    items = {"errors": True, "took": 1, "items": [{"index": {"status": 201}}] * 7}
    items["items"] += [{"index": {"status": 409, "error": {"type": "version_conflict_engine_exception"}}}] * 2
    items["items"] += [{"create": {"status": 201, "_shards": {"total": 2, "successful": 0, "failed": 2}}}]
    routes = Routes({("POST", "/_bulk"): (200, json.dumps(items).encode())})
    result = await Bulk()(static_es(routes), {**params, "bulk-size": 10})
    assert not result.success and result.error_type == "bulk"
    assert result.error_counts == {"409": 2, "shards-failed": 1}
    assert result.weight == 10
    assert result.meta["success-count"] == 7 and result.meta["error-count"] == 3

    rejected = await Bulk()(static_es(Routes({("POST", "/_bulk"): (429, b"{}")})), params)
    assert not rejected.success and rejected.error_type == "429" and rejected.weight == 0


async def test_bulk_detailed_results():
    body = b'{"index":{}}\n{"a":1}\n{"index":{}}\n{"bb":22}\n'
    response = {
        "errors": False,
        "took": 3,
        "items": [
            {
                "index": {
                    "status": 201,
                    "result": "created",
                    "_shards": {"total": 2, "successful": 1, "failed": 0},
                }
            }
        ]
        * 2,
    }
    routes = Routes({("POST", "/_bulk"): (200, json.dumps(response).encode())})
    result = await Bulk()(static_es(routes), {"body": body, "bulk-size": 2, "detailed-results": True})
    assert result.meta["ops"] == {"index": {"item-count": 2, "created": 2}}
    assert result.meta["shards_histogram"] == [
        {"item-count": 2, "shards": {"total": 2, "successful": 1, "failed": 0}}
    ]
    assert result.meta["bulk-request-size-bytes"] == len(body) - 4
    assert result.meta["total-document-size-bytes"] == len(b'{"a":1}') + len(b'{"bb":22}')


# ------------------------------------------------------------------------------------- admin


async def test_create_index_uses_track_bodies_and_merges_settings():
    trk = track(indices=("a", "b"))
    p = params_for(
        "create-index",
        trk=trk,
        settings={"number_of_replicas": 0},
        request_params={"wait_for_active_shards": "1"},
    )
    routes = Routes({})
    result = await run("create-index", routes, p)
    assert [(m, t) for m, t, _ in routes.requests] == [
        ("PUT", "/a?wait_for_active_shards=1"),
        ("PUT", "/b?wait_for_active_shards=1"),
    ]
    assert routes.requests[0][2] == {"settings": {"number_of_shards": 1, "number_of_replicas": 0}}
    assert trk.indices[0].body == {"settings": {"number_of_shards": 1}}  # model untouched
    assert result.weight == 2
    only_b = params_for("create-index", trk=trk, index="b")
    assert [name for name, _ in only_b["indices"]] == ["b"]
    other = params_for("create-index", trk=trk, index="new", body={"mappings": {}})
    assert other["indices"] == [("new", {"mappings": {}})]


async def test_delete_index_only_if_exists():
    routes = Routes({("HEAD", "/a"): (404, b""), ("HEAD", "/b"): (200, b"")})
    result = await run("delete-index", routes, params_for("delete-index", trk=track(indices=("a", "b"))))
    assert [(m, t) for m, t, _ in routes.requests] == [("HEAD", "/a"), ("HEAD", "/b"), ("DELETE", "/b")]
    assert result.weight == 1
    routes = Routes(
        {("DELETE", "/x"): (404, b'{"error":{"type":"index_not_found_exception","reason":"no such index"}}')}
    )
    failed = await run("delete-index", routes, params_for("delete-index", index="x", only_if_exists=False))
    assert not failed.success and failed.error_type == "404"


async def test_cluster_health_statuses():
    green = (200, b'{"status":"green","relocating_shards":0}')
    ok = await run(
        "cluster-health",
        Routes({("GET", "/_cluster/health"): green}),
        params_for("cluster-health", request_params={"wait_for_status": "yellow"}),
    )
    assert ok.success and ok.meta == {"cluster-status": "green", "relocating-shards": 0}
    timed_out = (408, b'{"status":"yellow","timed_out":true,"relocating_shards":0}')
    params = params_for(
        "cluster-health", index="i", request_params={"wait_for_status": "green", "timeout": "1s"}
    )
    routes = Routes({("GET", "/_cluster/health/i"): timed_out})
    bad = await run("cluster-health", routes, params)
    assert not bad.success and bad.error_type == "408" and "yellow" in bad.error_description
    assert routes.requests[0][1] == "/_cluster/health/i?wait_for_status=green&timeout=1s"
    relocating = (200, b'{"status":"green","relocating_shards":2}')
    moving = await run(
        "cluster-health",
        Routes({("GET", "/_cluster/health"): relocating}),
        params_for("cluster-health", request_params={"wait_for_no_relocating_shards": "true"}),
    )
    assert not moving.success


async def test_retry_until_success_repeats_failed_admin_operations():
    answers = [
        (408, b'{"status":"red","relocating_shards":0}'),
        (200, b'{"status":"yellow","relocating_shards":0}'),
        (200, b'{"status":"green","relocating_shards":0}'),
    ]
    routes = Routes({("GET", "/_cluster/health"): answers})
    params = params_for(
        "cluster-health",
        request_params={"wait_for_status": "green"},
        retry_until_success=True,
        retry_wait_period=0,
    )
    result = await run("cluster-health", routes, params)
    assert result.success and len(routes.requests) == 3
    no_retry = await run(
        "cluster-health",
        Routes({("GET", "/_cluster/health"): (200, b'{"status":"red","relocating_shards":0}')}),
        params_for("cluster-health", request_params={"wait_for_status": "green"}),
    )
    assert not no_retry.success


async def test_index_stats_condition():
    stats = (200, b'{"_all":{"total":{"merges":{"current":0}}}}')
    ok = await run(
        "index-stats",
        Routes({("GET", "/_all/_stats/_all"): stats}),
        {"condition": {"path": "_all.total.merges.current", "expected-value": 0}},
    )
    assert ok.success
    bad = await run(
        "index-stats",
        Routes({("GET", "/_all/_stats/_all"): stats}),
        {"condition": {"path": "_all.total.merges.current", "expected-value": 1}},
    )
    assert not bad.success and bad.error_type == "condition"


async def test_raw_request_ignore_and_validation():
    p = params_for(
        "raw-request", path="/_cat/x", method="post", body={"a": 1}, ignore=[404], request_params={"v": True}
    )
    routes = Routes({("POST", "/_cat/x"): (404, b"")})
    result = await run("raw-request", routes, p)
    assert routes.requests == [("POST", "/_cat/x?v=true", {"a": 1})]
    assert result.success
    with pytest.raises(ConfigError, match="must begin with '/'"):
        params_for("raw-request", path="_cat")


async def test_templates_create_and_delete():
    from esbench.track.model import IndexTemplate

    trk = track(
        composable_templates=(
            IndexTemplate(
                name="tpl",
                pattern="logs-*",
                content={"index_patterns": ["logs-*"], "template": {}},
                delete_matching_indices=True,
            ),
        )
    )
    p = params_for("create-composable-template", trk=trk, settings={"index.number_of_shards": 2})
    routes = Routes({})
    await run("create-composable-template", routes, p)
    assert routes.requests == [
        (
            "PUT",
            "/_index_template/tpl",
            {"index_patterns": ["logs-*"], "template": {"settings": {"index.number_of_shards": 2}}},
        )
    ]
    matching = b'{"logs-1":{"settings":{}},"logs-2":{"settings":{}}}'
    routes = Routes(
        {("HEAD", "/_index_template/tpl"): (200, b""), ("GET", "/logs-*/_settings"): (200, matching)}
    )
    result = await run(
        "delete-composable-template", routes, params_for("delete-composable-template", trk=trk)
    )
    # Elasticsearch 8 refuses wildcard deletions by default: the pattern is resolved to names
    assert [(m, t.split("?")[0]) for m, t, _ in routes.requests] == [
        ("HEAD", "/_index_template/tpl"),
        ("DELETE", "/_index_template/tpl"),
        ("GET", "/logs-*/_settings/index.uuid"),
        ("DELETE", "/logs-1,logs-2"),
    ]
    assert result.weight == 2
    legacy = params_for("create-index-template", template="old", body={"index_patterns": ["o*"]})
    routes = Routes({})
    await run("create-index-template", routes, legacy)
    assert routes.requests == [("PUT", "/_template/old", {"index_patterns": ["o*"]})]


async def test_point_in_time_open_and_close():
    ctx = RaceContext()
    token = current_context.set(ctx)
    try:
        p = params_for("open-point-in-time", name="pit", keep_alive="2m")
        routes = Routes({("POST", "/idx/_pit"): (200, b'{"id":"P1"}')})
        await run("open-point-in-time", routes, p)
        assert routes.requests[0][1] == "/idx/_pit?keep_alive=2m"
        assert ctx.get("pit") == "P1"
        routes = Routes({})
        await run(
            "close-point-in-time", routes, params_for("close-point-in-time", with_point_in_time_from="pit")
        )
        assert routes.requests == [("DELETE", "/_pit", {"id": "P1"})]
        assert ctx.take_changes() == {"pit": None}
        with pytest.raises(ConfigError, match="open-point-in-time named 'pit'"):
            ctx.get("pit")
    finally:
        current_context.reset(token)


async def test_sleep_counts_as_service_time():
    timing = RequestTiming()
    token = current_timing.set(timing)
    try:
        await run("sleep", Routes({}), params_for("sleep", duration=0.02))
    finally:
        current_timing.reset(token)
    assert timing.end - timing.start >= 0.02
    with pytest.raises(ConfigError, match="non-negative"):
        params_for("sleep", duration=-1)


async def test_force_merge_and_field_caps_targets():
    routes = Routes({})
    await run(
        "force-merge", routes, params_for("force-merge", trk=track(indices=("a", "b")), max_num_segments=1)
    )
    assert routes.requests[0][:2] == ("POST", "/a,b/_forcemerge?max_num_segments=1")
    routes = Routes({})
    await run("field-caps", routes, params_for("field-caps", index="logs-*", fields="message*"))
    assert routes.requests[0][:2] == ("GET", "/logs-*/_field_caps?fields=message%2A")


async def test_force_merge_polling_waits_for_merge_tasks():
    answers = [(200, b'{"nodes":{"n1":{"tasks":{}}}}'), (200, b'{"nodes":{}}')]
    routes = Routes({("POST", "/idx/_forcemerge"): (200, b"{}"), ("GET", "/_tasks"): answers})
    result = await run("force-merge", routes, {"index": "idx", "mode": "polling", "poll-period": 0})
    # the merge answered within its 1 s budget: no polling needed
    assert result.success and [r[0] for r in routes.requests] == ["POST"]

    import elastic_transport

    def slow(method, target, body):
        raise elastic_transport.ConnectionTimeout("timeout")

    routes = Routes({("POST", "/idx/_forcemerge"): slow, ("GET", "/_tasks"): answers})
    result = await run("force-merge", routes, {"index": "idx", "mode": "polling", "poll-period": 0})
    assert result.success
    assert [r[1] for r in routes.requests[1:]] == ["/_tasks?actions=indices%3Aadmin%2Fforcemerge"] * 2


def test_summarize_reads_the_total_of_the_hits_object_not_of_the_shards():
    shards = b'"_shards":{"total":5,"successful":5,"skipped":0,"failed":0}'
    as_int = b'{"took":2,"timed_out":false,' + shards + b',"hits":{"total":1234,"max_score":1.0,"hits":[]}}'
    assert (summarize(as_int).hits, summarize(as_int).hits_relation) == (1234, "eq")
    untracked = b'{"took":2,"timed_out":false,' + shards + b',"hits":{"max_score":null,"hits":[]}}'
    assert (summarize(untracked).hits, summarize(untracked).hits_relation) == (None, None)
    no_relation = b'{"took":2,"timed_out":false,' + shards + b',"hits":{"total":{"value":7},"hits":[]}}'
    assert summarize(no_relation).hits == 7


@pytest.mark.parametrize(
    "hits_object",
    [b'"hits":{"total":25,"max_score":null,', b'"hits":{"max_score":null,'],
    ids=["rest_total_hits_as_int", "track_total_hits_false"],
)
async def test_paginated_search_pages_on_with_an_int_total_or_without_a_total(hits_object):
    shards = b'"_shards":{"total":1,"successful":1,"skipped":0,"failed":0}'

    def page(sort_value: int | None) -> tuple[int, bytes]:
        hits = b'[{"sort":[%d]}]' % sort_value if sort_value is not None else b"[]"
        return 200, b'{"took":2,"timed_out":false,' + shards + b"," + hits_object + b'"hits":' + hits + b"}}"

    p = params_for("paginated-search", pages=10, results_per_page=10, body={"sort": [{"n": "asc"}]})
    routes = Routes({("GET", "/idx/_search"): [page(1), page(2), page(3), page(None)]})
    result = await run("paginated-search", routes, p)
    if hits_object.startswith(b'"hits":{"total"'):
        assert result.weight == 3 and result.meta["hits"] == 25  # 25 hits / 10 per page
    else:
        assert result.weight == 4 and result.meta["hits"] is None  # until the empty page
    assert [r[2].get("search_after") for r in routes.requests][:3] == [None, [1], [2]]


async def test_runner_results_are_immutable_so_shared_ones_stay_intact():
    import dataclasses

    from esbench.driver.worker.runners.base import RunnerResult

    routes = Routes({("GET", "/idx/_search"): (200, b'{"took":1}')})
    first = await run("search", routes, params_for("search", body={}))
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.weight = 0  # a caller changing one result would change every later one
    assert first == RunnerResult()
