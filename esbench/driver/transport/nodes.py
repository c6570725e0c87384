"""The elasticsearch-py side of the HTTP seam: elastic_transport's aiohttp node, timed, and a
:class:`esbench.driver.transport.http.HttpTransport` that sends through such nodes.

Apart from :mod:`esbench.driver.transport.http` because importing elastic_transport imports aiohttp
and requests (~18 MiB per process, issue 25), which the fast path does not use.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from elastic_transport import AiohttpHttpNode, HttpHeaders
from elastic_transport._node import NodeApiResponse
from elastic_transport.client_utils import DEFAULT, DefaultType

from esbench.driver.transport.failures import DefaultTimeout, is_default
from esbench.driver.transport.http import RawResponse, RequestBody
from esbench.driver.transport.timing import current_timing

perf_counter = time.perf_counter


class TimedAiohttpNode(AiohttpHttpNode):
    """elastic_transport's aiohttp node, reporting each request's start and end (see module doc)."""

    # The base class declares a synchronous perform_request; its aiohttp node is async.
    async def perform_request(  # type: ignore[override]
        self,
        method: str,
        target: str,
        body: bytes | None = None,
        headers: HttpHeaders | None = None,
        request_timeout: DefaultType | float | None = DEFAULT,
    ) -> NodeApiResponse:
        timing = current_timing.get()
        start = perf_counter()
        received = 0
        try:
            response = await super().perform_request(
                method, target, body=body, headers=headers, request_timeout=request_timeout
            )
            received = len(response[1] or b"")
            return response
        finally:
            if timing is not None:
                timing.observe(start, perf_counter(), len(body) if body else 0, received)


class NodeHttpTransport:
    """Sends requests through elastic_transport nodes, round-robin (see module doc).

    Args:
        nodes: the client's nodes (``es.transport.node_pool.all()``).
        headers: headers sent with every request (content type, accept, authorization); a request's
            own headers override them.
    """

    def __init__(self, nodes: Sequence[Any], headers: Mapping[str, str]) -> None:
        if not nodes:
            raise ValueError("NodeHttpTransport needs at least one node")
        self._nodes = list(nodes)
        self._next = 0
        self._headers = dict(headers)

    async def request(
        self,
        method: str,
        target: str,
        *,
        body: RequestBody | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | DefaultTimeout | DefaultType | None = DEFAULT,
    ) -> RawResponse:
        nodes = self._nodes
        if len(nodes) == 1:
            node = nodes[0]
        else:
            node = nodes[self._next % len(nodes)]
            self._next += 1
        merged = self._headers if not headers else {**self._headers, **headers}
        response = await node.perform_request(
            method,
            target,
            body=body,
            headers=merged,
            # The fast path's DEFAULT is elastic_transport's here.
            request_timeout=DEFAULT if is_default(timeout) else timeout,
        )
        meta = response.meta
        return RawResponse(meta.status, response.body, meta.headers)

    async def close(self) -> None:
        # The nodes belong to the Elasticsearch client, which closes them.
        pass
