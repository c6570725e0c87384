"""Index and data stream operations: create/delete index, create/delete data stream, refresh,
force-merge, index-stats.

Parameters and results follow Rally's track reference. The param sources resolve targets from
the track (``indices``/``data-streams``); runners send one request per target and stop at the
first failure, whose HTTP status becomes the error type.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import elastic_transport

from esbench.driver.transport.http import RawResponse
from esbench.driver.worker.runners.base import (
    Runner,
    RunnerResult,
    failed,
    json_or_none,
    mandatory,
    path_part,
    request_options,
    send,
)

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient


async def concrete_indices(
    es: EsbenchClient, pattern: str, headers: Any = None, timeout: Any = None
) -> list[str] | RawResponse:
    """The names of the indices matching ``pattern`` (open or closed), or the error response.

    Elasticsearch 8 refuses wildcard deletions by default (``action.destructive_requires_name``), so
    patterns are resolved to names first.
    """
    response = await send(
        es,
        "GET",
        f"/{path_part(pattern)}/_settings/index.uuid",
        query={"expand_wildcards": "open,closed", "allow_no_indices": "true", "ignore_unavailable": "true"},
        headers=headers,
        timeout=timeout,
    )
    if response.status == 404:
        return []
    if response.status >= 400:
        return response
    return sorted((json_or_none(response) or {}).keys())


def has_wildcard(name: Any) -> bool:
    """True for index expressions with ``*`` (or ``_all``)."""
    text = ",".join(name) if isinstance(name, list | tuple) else str(name)
    return "*" in text or text == "_all"


class CreateIndex(Runner):
    """``create-index``: ``PUT /<index>`` for each ``(name, body)`` in ``indices``; weight = created."""

    name = "create-index"

    async def __call__(self, es: EsbenchClient, params: Mapping[str, Any]) -> RunnerResult:
        indices = mandatory(params, "indices", self.name)
        query, headers, timeout = request_options(params)
        for created, (index, body) in enumerate(indices):
            response = await send(
                es, "PUT", f"/{path_part(index)}", query=query, body=body, headers=headers, timeout=timeout
            )
            if response.status >= 400:
                return failed(response, weight=created)
        return RunnerResult(weight=len(indices))


class DeleteIndex(Runner):
    """``delete-index``: ``DELETE /<index>`` for each of ``indices``; with ``only-if-exists`` (the
    default) only those that ``HEAD /<index>`` finds. A pattern (``logs-*``) is resolved to the
    matching index names first. Weight = indices deleted."""

    name = "delete-index"

    async def __call__(self, es: EsbenchClient, params: Mapping[str, Any]) -> RunnerResult:
        indices = mandatory(params, "indices", self.name)
        only_if_exists = params.get("only-if-exists", True)
        query, headers, timeout = request_options(params)
        deleted = 0
        for index in indices:
            if has_wildcard(index):
                names = await concrete_indices(es, index, headers, timeout)
                if isinstance(names, RawResponse):
                    return failed(names, weight=deleted)
                if not names:
                    continue
                response = await send(
                    es, "DELETE", f"/{path_part(names)}", query=query, headers=headers, timeout=timeout
                )
                if response.status >= 400:
                    return failed(response, weight=deleted)
                deleted += len(names)
                continue
            path = f"/{path_part(index)}"
            if only_if_exists:
                check = await send(es, "HEAD", path, headers=headers, timeout=timeout)
                if check.status == 404:
                    continue
            response = await send(es, "DELETE", path, query=query, headers=headers, timeout=timeout)
            if response.status >= 400:
                return failed(response, weight=deleted)
            deleted += 1
        return RunnerResult(weight=deleted)


class CreateDataStream(Runner):
    """``create-data-stream``: ``PUT /_data_stream/<name>`` for each of ``data-streams``."""

    name = "create-data-stream"

    async def __call__(self, es: EsbenchClient, params: Mapping[str, Any]) -> RunnerResult:
        streams = mandatory(params, "data-streams", self.name)
        query, headers, timeout = request_options(params)
        for created, stream in enumerate(streams):
            response = await send(
                es, "PUT", f"/_data_stream/{path_part(stream)}", query=query, headers=headers, timeout=timeout
            )
            if response.status >= 400:
                return failed(response, weight=created)
        return RunnerResult(weight=len(streams))


class DeleteDataStream(Runner):
    """``delete-data-stream``: ``DELETE /_data_stream/<name>``; with ``only-if-exists`` (default)
    only existing ones; without it a missing data stream is ignored (Rally: ``ignore=[404]``)."""

    name = "delete-data-stream"

    async def __call__(self, es: EsbenchClient, params: Mapping[str, Any]) -> RunnerResult:
        streams = mandatory(params, "data-streams", self.name)
        only_if_exists = params.get("only-if-exists", True)
        query, headers, timeout = request_options(params)
        deleted = 0
        for stream in streams:
            if only_if_exists:
                check = await send(es, "HEAD", f"/{path_part(stream)}", headers=headers, timeout=timeout)
                if check.status == 404:
                    continue
            response = await send(
                es,
                "DELETE",
                f"/_data_stream/{path_part(stream)}",
                query=query,
                headers=headers,
                timeout=timeout,
            )
            if response.status == 404 and not only_if_exists:
                continue
            if response.status >= 400:
                return failed(response, weight=deleted)
            deleted += 1
        return RunnerResult(weight=deleted)


class Refresh(Runner):
    """``refresh``: ``POST /<index>/_refresh`` (``index`` defaults to ``_all``)."""

    name = "refresh"

    async def __call__(self, es: EsbenchClient, params: Mapping[str, Any]) -> RunnerResult:
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

    async def __call__(self, es: EsbenchClient, params: Mapping[str, Any]) -> RunnerResult:
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
        except elastic_transport.ConnectionTimeout:
            pass
        poll_period = float(params.get("poll-period", 10))
        while True:
            await asyncio.sleep(poll_period)
            response = await send(es, "GET", "/_tasks", query={"actions": FORCE_MERGE_TASKS}, headers=headers)
            if response.status >= 400:
                return failed(response)
            tasks = json_or_none(response) or {}
            if not tasks.get("nodes"):
                return RunnerResult()


def value_at(document: Any, path: str) -> Any:
    """The value at a dot-separated ``path`` in nested dicts, or None."""
    current = document
    for key in path.split("."):
        if not isinstance(current, Mapping):
            return None
        current = current.get(key)
    return current


class IndexStats(Runner):
    """``index-stats``: ``GET /<index>/_stats/_all``; with ``condition`` (``path``,
    ``expected-value``) the operation succeeds only if the value at ``path`` equals the expected
    one (combine with ``retry-until-success`` to wait for it)."""

    name = "index-stats"

    async def __call__(self, es: EsbenchClient, params: Mapping[str, Any]) -> RunnerResult:
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
