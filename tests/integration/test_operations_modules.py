"""Operations whose API lives in a module the integ-test distribution lacks: against the real node
each is a failed request (as in Rally 2.13) whose reason names the module (their request shapes are
unit-tested in ``tests/unit/driver/test_runners_modules.py``)."""

from __future__ import annotations

from typing import Any

import pytest
from operations_harness import Harness, harness  # noqa: F401 - the fixture h

pytestmark = pytest.mark.integration

JOB = {"analysis_config": {"detectors": [{"function": "count"}]}, "data_description": {}}
TRANSFORM_BODY = {"source": {"index": "i"}, "dest": {"index": "d"}, "pivot": {}}

CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("create-ml-job", "x-pack-ml", {"job-id": "j", "body": JOB}),
    ("delete-ml-job", "x-pack-ml", {"job-id": "j"}),
    ("open-ml-job", "x-pack-ml", {"job-id": "j"}),
    ("close-ml-job", "x-pack-ml", {"job-id": "j"}),
    ("create-ml-datafeed", "x-pack-ml", {"datafeed-id": "d", "body": {"job_id": "j", "indices": ["i"]}}),
    ("delete-ml-datafeed", "x-pack-ml", {"datafeed-id": "d"}),
    ("start-ml-datafeed", "x-pack-ml", {"datafeed-id": "d"}),
    ("stop-ml-datafeed", "x-pack-ml", {"datafeed-id": "d"}),
    ("create-transform", "x-pack-transform", {"transform-id": "t", "body": TRANSFORM_BODY}),
    ("start-transform", "x-pack-transform", {"transform-id": "t"}),
    ("wait-for-transform", "x-pack-transform", {"transform-id": "t"}),
    ("delete-transform", "x-pack-transform", {"transform-id": "t"}),
    ("transform-stats", "x-pack-transform", {"transform-id": "t"}),
    ("submit-async-search", "x-pack-async-search", {"body": {"query": {"match_all": {}}}}),
    ("submit-async-search", "x-pack-async-search", {"index": "i", "body": {}}),
    ("get-async-search", "x-pack-async-search", {"retrieve-results-for": "submitted"}),
    ("delete-async-search", "x-pack-async-search", {"delete-results-for": ["submitted"]}),
    ("sql", "x-pack-sql", {"body": {"query": "SELECT 1"}}),
    ("esql", "x-pack-esql", {"query": "FROM i | LIMIT 1"}),
    ("esql-profile", "x-pack-esql", {"query": "FROM i | LIMIT 1"}),
    ("create-ilm-policy", "x-pack-ilm", {"policy-name": "p", "body": {"policy": {"phases": {}}}}),
    ("delete-ilm-policy", "x-pack-ilm", {"policy-name": "p"}),
    ("downsample", "x-pack-downsample", {"source-index": "i", "fixed-interval": "1h"}),
]


async def installed_modules(h: Harness) -> set[str]:
    status, body = await h.call("GET", "/_nodes/plugins?filter_path=nodes.*.modules.name")
    assert status == 200, body
    return {m["name"] for node in body["nodes"].values() for m in node["modules"]}


@pytest.mark.parametrize(
    ("op_type", "module", "params"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
async def test_missing_module_is_named(h: Harness, op_type: str, module: str, params: dict[str, Any]) -> None:
    if module in await installed_modules(h):
        pytest.skip(f"the test cluster has {module}; this test is about a cluster without it")
    h.context.put("submitted", "FmRldE8zREVEUzA2ZVpUeGs2ejJFUFEaMkZ5QTVrSTZSaVN3WlNFVmtlWHJsdzoxMDc=")
    result = await h.run(op_type, name=f"my-{op_type}", **params)
    assert not result.success and result.weight == 0 and result.http_status in (400, 405)
    message = result.error_description or ""
    assert f"the cluster lacks the Elasticsearch module '{module}'" in message
    assert "no handler found for uri" in message or "Incorrect HTTP method for uri" in message
