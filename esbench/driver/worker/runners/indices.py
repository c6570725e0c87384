"""Index and data stream operations: create/delete index, create/delete data stream, refresh,
force-merge, index-stats.

Parameters and results follow Rally's track reference. The param sources resolve targets from
the track (``indices``/``data-streams``); runners send one request per target and stop at the
first failure, whose HTTP status becomes the error type.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from esbench.driver.transport.failures import is_instance
from esbench.driver.transport.http import RawResponse
from esbench.driver.worker.runners.base import (
    RallyParams,
    Runner,
    RunnerResult,
    failed,
    json_or_none,
    mandatory,
    path_part,
    request_options,
    send,
    value_at,
)
from esbench.driver.worker.runners.resources import (
    count_each,
    delete_matching,
    delete_one,
    has_wildcard,
    put_each,
)

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient


class CreateIndex(Runner):
    """``create-index``: ``PUT /<index>`` for each ``(name, body)`` in ``indices``; weight = created."""

    name = "create-index"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        return await put_each(es, params, mandatory(params, "indices", self.name), _index_request)


def _index_request(entry: tuple[object, object]) -> tuple[str, object]:
    index, body = entry
    return f"/{path_part(index)}", body


class DeleteIndex(Runner):
    """``delete-index``: ``DELETE /<index>`` for each of ``indices``; with ``only-if-exists`` (the
    default) only those that ``HEAD /<index>`` finds. A pattern (``logs-*``) is resolved to the
    matching index names first. Weight = indices deleted."""

    name = "delete-index"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        indices = mandatory(params, "indices", self.name)
        only_if_exists = params.get("only-if-exists", True)
        options = request_options(params)
        query, headers, timeout = options

        async def delete(index: object) -> int | bool | RawResponse:
            if has_wildcard(index):
                return await delete_matching(es, index, headers, timeout, query=query, missing_ok=False)
            path = f"/{path_part(index)}"
            return await delete_one(
                es, path, options, head=path if only_if_exists else None, missing_ok=False
            )

        return await count_each(indices, delete)


class CreateDataStream(Runner):
    """``create-data-stream``: ``PUT /_data_stream/<name>`` for each of ``data-streams``."""

    name = "create-data-stream"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        streams = mandatory(params, "data-streams", self.name)
        return await put_each(
            es, params, streams, lambda stream: (f"/_data_stream/{path_part(stream)}", None)
        )


class DeleteDataStream(Runner):
    """``delete-data-stream``: ``DELETE /_data_stream/<name>``; with ``only-if-exists`` (default)
    only existing ones; without it a missing data stream is ignored (Rally: ``ignore=[404]``)."""

    name = "delete-data-stream"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        streams = mandatory(params, "data-streams", self.name)
        only_if_exists = params.get("only-if-exists", True)
        options = request_options(params)

        async def delete(stream: object) -> bool | RawResponse:
            return await delete_one(
                es,
                f"/_data_stream/{path_part(stream)}",
                options,
                head=f"/{path_part(stream)}" if only_if_exists else None,
                missing_ok=not only_if_exists,
            )

        return await count_each(streams, delete)


class Refresh(Runner):
    """``refresh``: ``POST /<index>/_refresh`` (``index`` defaults to ``_all``)."""

    name = "refresh"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        index = params.get("index") or "_all"
        response = await send(
            es, "POST", f"/{path_part(index)}/_refresh", query=query, headers=headers, timeout=timeout
        )
        return failed(response) if response.status >= 400 else RunnerResult()


FORCE_MERGE_TASKS = "indices:admin/forcemerge"


class ForceMerge(Runner):
    """``force-merge``: ``POST /<index>/_forcemerge`` (``max-num-segments``).

    ``mode: polling`` gives the request 1 s, then polls ``_tasks?actions=indices:admin/forcemerge``
    every ``poll-period`` seconds (default 10) until no force merge runs (Rally's rule); the
    default ``blocking`` mode waits for the response within the client timeout.
    """

    name = "force-merge"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        if params.get("max-num-segments"):
            query["max_num_segments"] = params["max-num-segments"]
        index = params.get("index") or "_all"
        path = f"/{path_part(index)}/_forcemerge"
        if params.get("mode", "blocking") != "polling":
            response = await send(es, "POST", path, query=query, headers=headers, timeout=timeout)
            return failed(response) if response.status >= 400 else RunnerResult()
        try:
            response = await send(es, "POST", path, query=query, headers=headers, timeout=1.0)
            if response.status >= 400:
                return failed(response)
            return RunnerResult()
        except Exception as exc:
            # The 1 s timeout only ends the wait for the answer; the force-merge goes on. (Checked
            # without importing elastic_transport: the failures module.)
            if not is_instance(exc, "ConnectionTimeout"):
                raise
        poll_period = float(params.get("poll-period", 10))
        while True:
            await asyncio.sleep(poll_period)
            response = await send(es, "GET", "/_tasks", query={"actions": FORCE_MERGE_TASKS}, headers=headers)
            if response.status >= 400:
                return failed(response)
            tasks = json_or_none(response) or {}
            if not tasks.get("nodes"):
                return RunnerResult()


class IndexStats(Runner):
    """``index-stats``: ``GET /<index>/_stats/_all``; with ``condition`` (``path``,
    ``expected-value``) the operation succeeds only if the value at ``path`` equals the expected
    one (combine with ``retry-until-success`` to wait for it)."""

    name = "index-stats"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        index = params.get("index") or "_all"
        response = await send(
            es, "GET", f"/{path_part(index)}/_stats/_all", query=query, headers=headers, timeout=timeout
        )
        if response.status >= 400:
            return failed(response)
        condition = params.get("condition")
        if not condition:
            return RunnerResult()
        path = mandatory(condition, "path", f"{self.name} condition")
        expected = mandatory(condition, "expected-value", f"{self.name} condition")
        actual = value_at(json_or_none(response), path)
        success = actual == expected
        meta = {"condition": {"path": path, "actual-value": str(actual), "expected-value": str(expected)}}
        if success:
            return RunnerResult(meta=meta)
        return RunnerResult(
            success=False,
            error_type="condition",
            error_description=f"index stats at '{path}' is {actual!r}, expected {expected!r}",
            http_status=response.status,
            meta=meta,
        )
