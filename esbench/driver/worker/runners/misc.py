"""Other operations: ``raw-request``, ``sleep``, ``field-caps``, ``open-point-in-time``,
``close-point-in-time``."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from esbench.driver.transport import jsonutil
from esbench.driver.transport.timing import observe
from esbench.driver.worker.context import race_context
from esbench.driver.worker.runners.base import (
    PREPARED,
    RallyParams,
    Runner,
    RunnerResult,
    build_target,
    failed,
    json_or_none,
    mandatory,
    path_part,
    request_options,
    send,
)
from esbench.exceptions import ConfigError

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient

_OK = RunnerResult()


class RawRequestSpec:
    """A ``raw-request`` ready to send (built once by the param source)."""

    __slots__ = ("body", "headers", "ignore", "method", "target", "timeout")

    def __init__(self, params: RallyParams) -> None:
        path = mandatory(params, "path", "raw-request")
        if not str(path).startswith("/"):
            raise ConfigError(f"The path of a raw-request must begin with '/', got '{path}'.")
        query, headers, timeout = request_options(params)
        ignore = params.get("ignore", ())
        self.method = str(params.get("method", "GET")).upper()
        self.target = build_target(str(path), query)
        self.body = jsonutil.body_bytes(params.get("body"))
        self.headers = headers
        self.timeout = timeout
        self.ignore = frozenset(int(s) for s in ([ignore] if isinstance(ignore, int | str) else ignore))


class RawRequest(Runner):
    """``raw-request``: any request (``method`` default GET, ``path``, ``body``, ``request-params``,
    ``headers``); a status in ``ignore`` (a number or a list) is not an error."""

    name = "raw-request"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        spec = params.get(PREPARED) or RawRequestSpec(params)
        response = await es.http.request(
            spec.method, spec.target, body=spec.body, headers=spec.headers, timeout=spec.timeout
        )
        if response.status >= 400 and response.status not in spec.ignore:
            return failed(response)
        return _OK


class Sleep(Runner):
    """``sleep``: waits ``duration`` seconds without a request; the wait counts as service time."""

    name = "sleep"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        duration = float(mandatory(params, "duration", self.name))
        start = time.perf_counter()
        try:
            await asyncio.sleep(duration)
        finally:
            observe(start, time.perf_counter())
        return _OK


class FieldCaps(Runner):
    """``field-caps``: ``GET /<index>/_field_caps?fields=<fields>`` (``index`` default ``_all``,
    ``fields`` default ``*``, optional ``index_filter`` body)."""

    name = "field-caps"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        query["fields"] = params.get("fields", "*")
        index = params.get("index") or "_all"
        body = {"index_filter": params["index_filter"]} if params.get("index_filter") else None
        response = await send(
            es,
            "GET",
            f"/{path_part(index)}/_field_caps",
            query=query,
            body=body,
            headers=headers,
            timeout=timeout,
        )
        return failed(response) if response.status >= 400 else _OK


class OpenPointInTime(Runner):
    """``open-point-in-time``: ``POST /<index>/_pit?keep_alive=<keep-alive>`` (default 1m); the id is
    stored under the operation's ``name`` for ``with-point-in-time-from`` in later operations."""

    name = "open-point-in-time"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        name = mandatory(params, "name", self.name)
        index = mandatory(params, "index", self.name)
        query, headers, timeout = request_options(params)
        query["keep_alive"] = params.get("keep-alive") or "1m"
        response = await send(
            es, "POST", f"/{path_part(index)}/_pit", query=query, headers=headers, timeout=timeout
        )
        if response.status >= 400:
            return failed(response)
        data = json_or_none(response) or {}
        pit_id = data.get("id")
        if not pit_id:
            return RunnerResult(
                success=False, error_type="pit", error_description="the response has no point-in-time id"
            )
        race_context().put(str(name), pit_id)
        return _OK


class ClosePointInTime(Runner):
    """``close-point-in-time``: ``DELETE /_pit`` of the id stored by ``with-point-in-time-from``."""

    name = "close-point-in-time"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        source = mandatory(params, "with-point-in-time-from", self.name)
        query, headers, timeout = request_options(params)
        ctx = race_context()
        pit_id = ctx.get(str(source))
        response = await send(
            es, "DELETE", "/_pit", query=query, body={"id": pit_id}, headers=headers, timeout=timeout
        )
        ctx.remove(str(source))
        return failed(response) if response.status >= 400 else _OK
