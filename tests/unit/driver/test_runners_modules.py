"""Request shapes and results of the runners whose APIs are in modules the integ-test distribution
lacks (ML, transforms, ILM, async search, SQL, ES|QL, downsample) and of ``run-until``.

Each expected request is the one Rally 2.13 sends (``esrally/driver/runner.py``, the class named in
the test) through elasticsearch-py's client method for that API.
"""

from __future__ import annotations

import asyncio

import pytest
from driver_helpers import static_es, task, track
from wire import NO_HANDLER, Wire, call

from esbench.driver.worker.context import RaceContext
from esbench.driver.worker.registry import default_registry
from esbench.driver.worker.runners.features import OperationFailed
from esbench.driver.worker.runners.run_until import criterion_met, json_path_value
from esbench.driver.worker.runners.sql import profile_metrics
from esbench.exceptions import ConfigError
from esbench.track.model import Operation

JOB = {"analysis_config": {"detectors": [{"function": "count"}]}}


# ----------------------------------------------------------------------------------------- ML


@pytest.mark.parametrize(
    ("op_type", "params", "expected"),
    [
        # CreateMlJob: es.ml.put_job(job_id, body)
        ("create-ml-job", {"job-id": "j", "body": JOB}, ("PUT", "/_ml/anomaly_detectors/j", {}, JOB)),
        # DeleteMlJob: es.ml.delete_job(job_id, force=False, ignore=[404])
        ("delete-ml-job", {"job-id": "j"}, ("DELETE", "/_ml/anomaly_detectors/j", {"force": "false"}, None)),
        # OpenMlJob: es.ml.open_job(job_id)
        ("open-ml-job", {"job-id": "j"}, ("POST", "/_ml/anomaly_detectors/j/_open", {}, None)),
        # CloseMlJob: es.ml.close_job(job_id, force=False, timeout=...) (body fields of the client)
        (
            "close-ml-job",
            {"job-id": "j", "timeout": "5s"},
            ("POST", "/_ml/anomaly_detectors/j/_close", {}, {"force": False, "timeout": "5s"}),
        ),
        # CreateMlDatafeed: es.ml.put_datafeed(datafeed_id, body)
        (
            "create-ml-datafeed",
            {"datafeed-id": "d", "body": {"job_id": "j"}},
            ("PUT", "/_ml/datafeeds/d", {}, {"job_id": "j"}),
        ),
        # DeleteMlDatafeed: es.ml.delete_datafeed(datafeed_id, force=..., ignore=[404])
        (
            "delete-ml-datafeed",
            {"datafeed-id": "d", "force": True},
            ("DELETE", "/_ml/datafeeds/d", {"force": "true"}, None),
        ),
        # StartMlDatafeed: es.ml.start_datafeed(datafeed_id, body, start, end, timeout)
        (
            "start-ml-datafeed",
            {"datafeed-id": "d", "start": "2020-01-01", "end": "now"},
            ("POST", "/_ml/datafeeds/d/_start", {}, {"start": "2020-01-01", "end": "now"}),
        ),
        (
            "start-ml-datafeed",
            {"datafeed-id": "d", "body": {"end": "x"}},
            ("POST", "/_ml/datafeeds/d/_start", {}, {"end": "x"}),
        ),
        # StopMlDatafeed: es.ml.stop_datafeed(datafeed_id, force=False, timeout=None)
        ("stop-ml-datafeed", {"datafeed-id": "d"}, ("POST", "/_ml/datafeeds/d/_stop", {}, {"force": False})),
    ],
)
async def test_ml_requests(op_type, params, expected) -> None:
    wire = Wire()
    result = await call(op_type, wire, params)
    assert result.success and result.weight == 1 and result.unit == "ops"
    assert wire.requests == [expected]


async def test_ml_falls_back_to_the_xpack_path_on_400_and_keeps_the_first_error() -> None:
    bad = (400, {"error": {"type": "x_content_parse_exception", "reason": "bad job"}, "status": 400})
    wire = Wire(
        {("PUT", "/_ml/anomaly_detectors/j"): bad, ("PUT", "/_xpack/ml/anomaly_detectors/j"): NO_HANDLER}
    )
    result = await call("create-ml-job", wire, {"job-id": "j", "body": JOB})
    # Rally retries on the 6.8 path after a BadRequestError; an 8.x cluster has no such path
    assert [r[1] for r in wire.requests] == ["/_ml/anomaly_detectors/j", "/_xpack/ml/anomaly_detectors/j"]
    assert not result.success and "bad job" in result.error_description


async def test_ml_404_of_a_delete_is_not_an_error_but_other_errors_are() -> None:
    wire = Wire({("DELETE", "/_ml/datafeeds/d"): (404, {"error": "not found"})})
    assert (await call("delete-ml-datafeed", wire, {"datafeed-id": "d"})).success
    wire = Wire(
        {("POST", "/_ml/anomaly_detectors/j/_open"): (409, {"error": {"type": "conflict", "reason": "r"}})}
    )
    result = await call("open-ml-job", wire, {"job-id": "j"})
    assert not result.success and result.error_type == "409"


# ---------------------------------------------------------------------------------- transforms


async def test_transform_requests() -> None:
    body = {"source": {"index": "s"}, "dest": {"index": "d"}}
    wire = Wire()
    # CreateTransform: put_transform(transform_id, body, defer_validation)
    await call("create-transform", wire, {"transform-id": "t", "body": body, "defer-validation": True})
    # StartTransform: start_transform(transform_id, timeout)
    await call("start-transform", wire, {"transform-id": "t", "timeout": "1m"})
    # DeleteTransform: delete_transform(transform_id, force, ignore=[404])
    await call("delete-transform", wire, {"transform-id": "t"})
    assert wire.requests == [
        ("PUT", "/_transform/t", {"defer_validation": "true"}, body),
        ("POST", "/_transform/t/_start", {"timeout": "1m"}, None),
        ("DELETE", "/_transform/t", {"force": "false"}, None),
    ]


async def test_transform_stats_condition() -> None:
    stats = {"transforms": [{"id": "t", "state": "stopped", "stats": {"documents_processed": 7}}]}
    wire = Wire({("GET", "/_transform/t/_stats"): (200, stats)})
    ok = await call(
        "transform-stats",
        wire,
        {"transform-id": "t", "condition": {"path": "stats.documents_processed", "expected-value": 7}},
    )
    assert ok.success and ok.meta["condition"] == {
        "path": "stats.documents_processed",
        "actual-value": "7",
        "expected-value": "7",
    }
    bad = await call(
        "transform-stats",
        wire,
        {"transform-id": "t", "condition": {"path": "state", "expected-value": "started"}},
    )
    assert not bad.success and bad.meta["condition"]["actual-value"] == "stopped"


async def test_wait_for_transform_stops_once_then_reports_when_stopped() -> None:
    running = {
        "transforms": [
            {
                "state": "indexing",
                "stats": {"documents_processed": 10, "search_time_in_ms": 1},
                "checkpointing": {"next": {"checkpoint_progress": {"percent_complete": 40.0}}},
            }
        ]
    }
    stopped = {
        "transforms": [
            {
                "state": "stopped",
                "stats": {
                    "documents_processed": 3000,
                    "search_time_in_ms": 500,
                    "processing_time_in_ms": 250,
                    "index_time_in_ms": 250,
                },
            }
        ]
    }
    wire = Wire({("GET", "/_transform/t/_stats"): [(200, running), (200, stopped)]})
    runner = default_registry().runner("wait-for-transform")
    result = await runner(static_es(wire), {"transform-id": "t", "poll-interval": 0})
    # WaitForTransform: stop_transform(force=False, wait_for_completion=False, wait_for_checkpoint=True)
    assert wire.requests[0] == (
        "POST",
        "/_transform/t/_stop",
        {"force": "false", "wait_for_completion": "false", "wait_for_checkpoint": "true"},
        None,
    )
    assert [r[1] for r in wire.requests[1:]] == ["/_transform/t/_stats"] * 2
    assert result.success and result.weight == 3000 and result.unit == "docs"
    assert result.meta == {"transform-id": "t", "throughput": 3000 / 1000 * 1000}
    assert runner.completed


async def test_wait_for_transform_failure_ends_the_race() -> None:
    failed = {"transforms": [{"state": "failed", "reason": "boom", "stats": {}}]}
    wire = Wire({("GET", "/_transform/t/_stats"): (200, failed)})
    with pytest.raises(OperationFailed, match=r"transform \[t\] failed with \[boom\]"):
        await call("wait-for-transform", wire, {"transform-id": "t", "poll-interval": 0})


# ----------------------------------------------------------------------------------------- ILM


async def test_ilm_requests() -> None:
    policy = {"phases": {"hot": {"actions": {}}}}
    wire = Wire()
    # CreateIlmPolicy: ilm.put_lifecycle(name, policy, error_trace, filter_path, master_timeout, timeout)
    await call(
        "create-ilm-policy",
        wire,
        {
            "policy-name": "p",
            "body": {"policy": policy},
            "request-params": {"master_timeout": "30s", "other": "x"},
        },
    )
    wire.answers[("DELETE", "/_ilm/policy/p")] = (404, {"error": "missing"})
    deleted = await call("delete-ilm-policy", wire, {"policy-name": "p"})
    assert wire.requests == [
        ("PUT", "/_ilm/policy/p", {"master_timeout": "30s"}, {"policy": policy}),
        ("DELETE", "/_ilm/policy/p", {}, None),
    ]
    assert deleted.success  # ignore=[404]
    with pytest.raises(ConfigError, match=r"root field \[policy\]"):
        await call("create-ilm-policy", wire, {"policy-name": "p", "body": {"phases": {}}})


# -------------------------------------------------------------------------------- async search


async def test_async_search_submit_get_delete() -> None:
    ctx = RaceContext()
    done = {
        "id": "abc",
        "is_running": False,
        "response": {"took": 3, "timed_out": False, "hits": {"total": {"value": 5, "relation": "eq"}}},
    }
    wire = Wire(
        {
            ("POST", "/logs/_async_search"): (200, {"id": "abc", "is_running": True}),
            ("GET", "/_async_search/abc"): [(200, {"id": "abc", "is_running": True}), (200, done)],
        }
    )
    body = {"query": {"match_all": {}}}
    await call("submit-async-search", wire, {"name": "q", "index": "logs", "body": body}, ctx)
    # SubmitAsyncSearch: wait_for_completion_timeout defaults to 0
    assert wire.requests[0] == ("POST", "/logs/_async_search", {"wait_for_completion_timeout": "0"}, body)
    assert ctx.get("q") == "abc"
    # Rally registers get-async-search with Retry(retry_until_success=True)
    result = await call(
        "get-async-search", wire, {"retrieve-results-for": ["q"], "retry-wait-period": 0}, ctx
    )
    assert [r[1] for r in wire.requests[1:]] == ["/_async_search/abc"] * 2
    assert result.success and result.weight == 1
    assert result.meta == {"stats": {"q": {"timed_out": False, "took": 3, "hits": 5, "hits_relation": "eq"}}}
    await call("delete-async-search", wire, {"delete-results-for": "q"}, ctx)
    assert wire.requests[-1] == ("DELETE", "/_async_search/abc", {}, None)
    assert "q" not in ctx.snapshot()


# ------------------------------------------------------------------------------------ sql, esql


async def test_sql_pages_through_cursors() -> None:
    wire = Wire({("POST", "/_sql"): [(200, {"cursor": "c1"}), (200, {"cursor": "c2"}), (200, {"rows": []})]})
    result = await call("sql", wire, {"body": {"query": "SELECT 1", "fetch_size": 10}, "pages": 3})
    # Sql: perform_request(POST, /_sql, body) then {"cursor": ...} per further page
    assert [r[3] for r in wire.requests] == [
        {"query": "SELECT 1", "fetch_size": 10},
        {"cursor": "c1"},
        {"cursor": "c2"},
    ]
    assert result.success and result.weight == 3
    wire = Wire({("POST", "/_sql"): (200, {"rows": []})})
    with pytest.raises(OperationFailed, match=r"exhausted .* 1 page\(s\) remaining"):
        await call("sql", wire, {"body": {"query": "SELECT 1"}, "pages": 2})
    with pytest.raises(ConfigError, match=r"body\.query"):
        await call("sql", wire, {"body": {}})


async def test_esql_request_and_partial_results() -> None:
    answer = (
        b'{"took":4,"is_partial":true,"documents_found":9,"values_loaded":18,'
        b'"columns":[],"values":[["\\"took\\":99"]]}'
    )
    wire = Wire({("POST", "/_query"): (200, answer)})
    result = await call(
        "esql",
        wire,
        {
            "query": "FROM i",
            "filter": {"term": {"a": 1}},
            "body": {"columnar": True},
            "detailed-results": True,
            "request-params": {"format": "json"},
        },
    )
    # Esql: perform_request(POST, /_query, body={**body, query, filter}, params=request-params)
    assert wire.requests == [
        (
            "POST",
            "/_query",
            {"format": "json"},
            {"columnar": True, "query": "FROM i", "filter": {"term": {"a": 1}}},
        )
    ]
    assert not result.success and result.error_type == "esql"
    assert (
        result.meta["took"] == 4
        and result.meta["documents_found"] == 9
        and result.meta["values_loaded"] == 18
    )
    complete = Wire({("POST", "/_query"): (200, b'{"is_partial":false,"columns":[]}')})
    ok = await call("esql", complete, {"query": "FROM i"})
    assert ok.success and ok.meta == {"is_partial": False}


async def test_esql_profile_metrics() -> None:
    profile = {
        "query": {"took_nanos": 2_000_000},
        "drivers": [
            {
                "description": "data",
                "took_nanos": 1_000_000,
                "cpu_nanos": 500_000,
                "operators": [
                    {
                        "operator": "LuceneSourceOperator[x]",
                        "status": {"process_nanos": 3_000_000, "processed_slices": 2},
                    }
                ],
            },
            {"description": "data", "took_nanos": 3_000_000, "cpu_nanos": 100_000, "operators": []},
        ],
        "plans": [{"description": "final", "logical_optimization_nanos": 1_000_000}],
    }
    wire = Wire({("POST", "/_query"): (200, {"profile": profile})})
    result = await call("esql-profile", wire, {"query": "FROM i"})
    assert wire.requests[0][3] == {"query": "FROM i", "profile": True}
    assert (
        result.meta
        == profile_metrics(profile)
        == {
            "query.took_ms": 2.0,
            "data.number": 2,
            "data.took_ms": 3.0,
            "data.cpu_ms": 0.5,
            "data.took_total_ms": 4.0,
            "data.cpu_total_ms": 0.6,
            "data.LuceneSourceOperator.process_ms": 3.0,
            "data.LuceneSourceOperator.processed_slices": 2,
            "final.logical_optimization.took_ms": 1.0,
        }
    )


# ---------------------------------------------------------------------------------- downsample


async def test_downsample_param_source_defaults_and_request() -> None:
    operation = Operation(name="ds", operation_type="downsample", params={"sampling-method": "last_value"})
    trk = track(indices=("tsdb",))
    params = default_registry().param_source(task(operation), trk).partition(0, 1).params()
    # DownsampleParamSource: fixed-interval 1h, source = the track's only index, target <source>-<interval>
    assert (
        params["fixed-interval"] == "1h"
        and params["source-index"] == "tsdb"
        and params["target-index"] == "tsdb-1h"
    )
    wire = Wire()
    result = await call("downsample", wire, params)
    assert wire.requests == [
        ("POST", "/tsdb/_downsample/tsdb-1h", {}, {"fixed_interval": "1h", "sampling_method": "last_value"})
    ]
    assert result.success


# ------------------------------------------------------------------------------ missing modules


@pytest.mark.parametrize(
    ("op_type", "params", "module"),
    [
        ("create-ml-job", {"job-id": "j", "body": {}}, "x-pack-ml"),
        ("delete-transform", {"transform-id": "t"}, "x-pack-transform"),
        ("delete-ilm-policy", {"policy-name": "p"}, "x-pack-ilm"),
        ("submit-async-search", {"name": "q", "body": {}}, "x-pack-async-search"),
        # retry-until-success (Rally's registration): a missing module is answered once, not polled.
        ("get-async-search", {"retrieve-results-for": "q", "retry-wait-period": 0}, "x-pack-async-search"),
        ("sql", {"body": {"query": "SELECT 1"}}, "x-pack-sql"),
        ("esql", {"query": "FROM i"}, "x-pack-esql"),
        (
            "downsample",
            {"fixed-interval": "1h", "source-index": "a", "target-index": "b"},
            "x-pack-downsample",
        ),
    ],
)
async def test_no_handler_answer_names_the_missing_module(op_type, params, module) -> None:
    wrong_method = (
        405,
        b'{"error":"Incorrect HTTP method for uri [/_sql] and method [POST], allowed: [GET]","status":405}',
    )
    for answer in (NO_HANDLER, wrong_method):
        wire = Wire()
        ml_paths = ["/_ml/anomaly_detectors/j", "/_xpack/ml/anomaly_detectors/j"]
        wire.answers = {("PUT", p): answer for p in ml_paths}
        for method in ("GET", "PUT", "POST", "DELETE"):
            for path in (
                "/_transform/t",
                "/_ilm/policy/p",
                "/_async_search",
                "/_async_search/an-async-search-id",
                "/_sql",
                "/_query",
                "/a/_downsample/b",
            ):
                wire.answers[(method, path)] = answer
        context = RaceContext()
        context.put("q", "an-async-search-id")
        result = await asyncio.wait_for(call(op_type, wire, params, context), timeout=5)
        assert not result.success and result.weight == 0
        # One request, not polled under retry-until-success; ML's HTTP 400 also on the legacy path (Rally).
        assert len(wire.requests) == (2 if module == "x-pack-ml" and answer is NO_HANDLER else 1)
        assert f"the cluster lacks the Elasticsearch module '{module}'" in (result.error_description or "")


# ----------------------------------------------------------------------------------- run-until


async def test_run_until_polls_until_the_criterion_holds() -> None:
    wire = Wire({("GET", "/_cat/count"): [(200, {"a": [{"n": 1}]}), (200, {"a": [{"x": 0}, {"n": 5}]})]})
    params = {
        "path": "/_cat/count",
        "json-path": "a.item.n",
        "criterion": {"operator": "gte", "value": 5},
        "retry-wait-interval": 0,
        "request-params": {"v": "true"},
    }
    result = await call("run-until", wire, params)
    assert result.success and [r[:3] for r in wire.requests] == [("GET", "/_cat/count", {"v": "true"})] * 2


def test_run_until_criteria_and_json_paths() -> None:
    assert json_path_value({"a": {"b": [{"c": 1}]}}, "a.b.item.c") == 1
    assert json_path_value({"a": 1}, "b") is None
    assert criterion_met({"operator": "exists"}, 0) and not criterion_met({"operator": "exists"}, None)
    assert criterion_met({"operator": "not_exists"}, None)
    assert criterion_met({"operator": "neq", "value": "3"}, "4") and not criterion_met(
        {"operator": "lte", "value": 3}, None
    )


async def test_run_until_rejects_bad_criteria() -> None:
    with pytest.raises(ConfigError, match="unsupported criterion operator 'gt'"):
        await call("run-until", Wire(), {"path": "/", "json-path": "x", "criterion": {"operator": "gt"}})
    with pytest.raises(ConfigError, match="requires a 'value'"):
        await call("run-until", Wire(), {"path": "/", "json-path": "x", "criterion": {"operator": "eq"}})
