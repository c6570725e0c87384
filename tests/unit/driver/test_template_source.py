"""The ``templated-request`` param source and its response assertions (no cluster needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from esbench.driver.worker.params.template_assert import ResponseView, compile_assertion
from esbench.driver.worker.params.template_source import TemplatedRequestParamSource
from esbench.driver.worker.registry import default_registry
from esbench.driver.worker.runners.base import PREPARED
from esbench.exceptions import ConfigError
from esbench.track.model import Operation, Task, Track


def source(tmp_path: Path, **params):
    return TemplatedRequestParamSource(Track(name="t", root=tmp_path, challenges=()), params)


def test_bulk_body_and_size(tmp_path):
    body = '{"index": {"_index": "i"}}\n{"n": "$[[n]]"}\n{"delete": {"_index": "i", "_id": "x"}}\n'
    src = source(
        tmp_path,
        path="/_bulk",
        body=body,
        **{"body-repeat-times": 4},
        variables=[{"name": "n", "type": "sequence"}],
    )
    call = src.partition(0, 1).params()[PREPARED]
    assert call.method == "POST" and call.target == "/_bulk"
    assert call.bulk_size == 8  # two actions per line template, four times
    lines = call.body.decode().splitlines()
    assert [json.loads(x)["n"] for x in lines[1::3]] == ["1", "2", "3", "4"]
    assert call.headers["content-type"] == "application/x-ndjson"


def test_request_limit_is_shared_out_and_ends_the_clients(tmp_path):
    src = source(tmp_path, path="/_search", body="{}", **{"request-limit": 5})
    sizes = [src.partition(i, 3).size() for i in range(3)]
    assert sizes == [2, 2, 1]
    client = src.partition(2, 3)
    client.params()
    with pytest.raises(StopIteration):
        client.params()


def test_path_and_header_templates_and_runtime_variables(tmp_path):
    (tmp_path / "d.txt").write_text("a\nb\n")
    src = source(
        tmp_path,
        path="/idx-$[[r]]/_search?q=$RDICT",
        dictionary="d.txt",
        headers={"x-run": "$[[batch]]"},
        variables=[{"name": "r", "type": "range", "from": 1, "to": 1}, {"name": "s", "type": "sequence"}],
        **{"runtime-variables": {"batch": "s"}},
    )
    call = src.partition(0, 1).params()[PREPARED]
    assert call.target in ("/idx-1/_search?q=a", "/idx-1/_search?q=b")
    assert call.headers["x-run"] == "1" and call.body is None and call.method == "GET"


def test_unknown_parameter_and_runtime_source(tmp_path):
    with pytest.raises(ConfigError, match="unsupported parameter 'bodyy'"):
        source(tmp_path, path="/", bodyy="x")
    with pytest.raises(ConfigError, match=r"unknown variable \$\[\[nope\]\]"):
        source(tmp_path, path="/", body="$[[b]]", **{"runtime-variables": {"b": "nope"}})


def test_registered_as_builtin_operation():
    registry = default_registry()
    task = Task(
        name="q", operation=Operation(name="q", operation_type="templated-request", params={"path": "/"})
    )
    assert isinstance(
        registry.param_source(task, Track(name="t", root=Path("."), challenges=())),
        TemplatedRequestParamSource,
    )
    assert registry.runner("templated-request").name == "templated-request"


def view(status=200, body=b'{"hits": {"total": {"value": 3}}, "errors": false, "items": [{"a": 1}]}'):
    return ResponseView(
        status=status, body=body, headers={"X-Elastic-Product": "Elasticsearch"}, elapsed_ms=5
    )


@pytest.mark.parametrize(
    ("spec", "ok"),
    [
        ({"_ctx.response.status": 200}, True),
        ({"_ctx": {"response": {"status": 201}}}, False),
        ({"equals": {"_ctx.response.body_json.errors": False}}, True),
        ({"range": {"_ctx.response.body_json.hits.total.value": {"gte": 1, "lt": 3}}}, False),
        ({"contains": {"_ctx.response.body": "hits"}}, True),
        ({"exists": ["_ctx.response.body_json.items.0.a"]}, True),
        ({"exists": "_ctx.response.body_json.nope"}, False),
        ({"in": {"_ctx.response.status": [200, 201]}}, True),
        ({"regexp": {"_ctx.response.header.x-elastic-product": "^Elastic"}}, True),
        ({"or": [{"equals": {"_ctx.response.status": 500}}, {"prefix": {"_ctx.response.body": "{"}}]}, True),
        ({"not": {"equals": {"_ctx.response.status": 200}}}, False),
        ({"and": [{"range": {"_ctx.elapsed": {"lte": 100}}}, {"suffix": {"_ctx.response.body": "}"}}]}, True),
    ],
)
def test_assertions(spec, ok):
    assert (compile_assertion(spec, where="t").check(view()) is None) is ok


def test_unsupported_condition():
    with pytest.raises(ConfigError, match="'queue_has_lag' is not supported"):
        compile_assertion({"queue_has_lag": ["q"]}, where="t")
    with pytest.raises(ConfigError, match="not one Loadgen exposes"):
        compile_assertion({"equals": {"status": 200}}, where="t")
