"""A lean HTTP/1.1 client for the hot path: one asyncio protocol per keep-alive connection.

Why: with aiohttp (through elastic_transport's node) each request costs 0.2-0.3 ms of client CPU
and the timing points lie around that work; here a request is one ``transport.writelines`` of a
cached request head and the body, and the response is parsed in ``data_received``. Timing is as
close to the wire as Python gets: request start is taken just before the write (after the
connection is open, so connecting and the TLS handshake are not part of it), request end on entry
of the ``data_received`` call that completes the response (before any parsing or decompression),
like wrk.

Scope: HTTP/1.1 keep-alive to Elasticsearch nodes; request bodies with Content-Length (gzip when
``http_compress``, at :data:`GZIP_LEVEL`, before the request start; large bodies are compressed in
a thread so the event loop keeps serving the other clients); responses with Content-Length,
chunked encoding, or read-until-close; gzip response bodies are decompressed; TLS with certificate
verification (on by default). Failures raise elastic_transport's
``ConnectionError``/``ConnectionTimeout``/``TlsError``, so they are classified like those of the
elasticsearch-py path; connecting is bounded by the request timeout too. A request on a
connection taken from the idle pool that the server turns out to have closed before any response
byte is retried once on a new connection; a new connection is never retried (the server may have
acted on the request, e.g. indexed a bulk).
"""

from __future__ import annotations

import asyncio
import gzip
import os
import ssl
import time
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn
from urllib.parse import urlsplit

from esbench.driver.transport import failures
from esbench.driver.transport.connectioncore import send_prepared
from esbench.driver.transport.failures import DEFAULT, is_default
from esbench.driver.transport.http import RawResponse, RequestBody
from esbench.driver.transport.rawconnection import _Connection, _Stale
from esbench.driver.transport.timing import RequestTiming, current_timing

perf_counter = time.perf_counter

#: gzip level of request bodies with ``http_compress``. elasticsearch-py (elastic_transport's
#: aiohttp node) uses ``gzip.compress``'s default, 9: on a 1 MB bulk of log lines that costs ~28 ms
#: of CPU for a body 22 % smaller than level 1, which takes ~3.5 ms. The driver's CPU is the scarce
#: resource of a load generator; Elasticsearch decompresses either at about the same cost.
GZIP_LEVEL = 1
#: Bodies from this size on are compressed in a thread (zlib releases the GIL); smaller ones cost
#: less than the hand-over and are compressed on the event loop.
THREAD_COMPRESS_BYTES = 32 * 1024
#: Small bodies sent again and again (a task's prepared search) are compressed once.
_GZIP_CACHE_SIZE = 256
#: Bodies up to this size are sent joined to their head, in one ``write``: the copy costs less than
#: the kernel's ``writev`` of two buffers on the loopback (a prepared search is joined once).
JOIN_BODY_BYTES = 4096
#: Request heads kept per transport (by method, target, node and headers object).
_HEAD_CACHE_SIZE = 4096


def gzip_body(body: RequestBody) -> bytes:
    """``body`` gzip-compressed at :data:`GZIP_LEVEL`."""
    return gzip.compress(body, compresslevel=GZIP_LEVEL)


class RawHttpTransport:
    """:class:`~esbench.driver.transport.http.HttpTransport` over :class:`_Connection` pools (see module doc).

    Args:
        urls: node URLs (``http://host:port`` or ``https://...``); requests go round-robin.
        headers: headers of every request (authorization, accept...); a request's own override.
        timeout: default client-side timeout in seconds (None: none).
        ssl_context: TLS context for ``https`` nodes.
        http_compress: gzip request bodies and accept gzip responses.
    """

    def __init__(
        self,
        urls: Sequence[str],
        headers: Mapping[str, str],
        *,
        timeout: float | None = None,
        ssl_context: ssl.SSLContext | None = None,
        http_compress: bool = False,
    ) -> None:
        if not urls:
            raise ValueError("RawHttpTransport needs at least one node URL")
        self._nodes: list[tuple[str, int, bool, str]] = []
        for url in urls:
            parts = urlsplit(url)
            secure = parts.scheme == "https"
            host = parts.hostname or "127.0.0.1"
            port = parts.port or (443 if secure else 80)
            host_header = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
            self._nodes.append((host, port, secure, host_header))
        self._idle: list[list[_Connection]] = [[] for _ in self._nodes]
        self._next = 0
        self._timeout = timeout
        self._ssl = ssl_context
        self._compress = http_compress
        base = {k.lower(): v for k, v in headers.items()}
        if http_compress:
            base["accept-encoding"] = "gzip"
        base.setdefault("user-agent", "esbench")
        self._base_headers = base
        self._head_cache: dict[tuple[str, str, int, int], tuple[Any, bytes]] = {}
        self._gzip_cache: dict[int, tuple[RequestBody, bytes]] = {}
        self._node_transports: dict[str, RawHttpTransport] = {}
        self._headers = dict(headers)
        # Per node, (target, headers, body, method, node, parts, bytes): the previous request to that
        # node and its wire form, reused when the next request hands the same objects.
        self._last_request: list[
            tuple[str, Mapping[str, str] | None, bytes | None, str, int, tuple[RequestBody, ...], int] | None
        ] = [None for _ in self._nodes]

    def _request_head(self, method: str, target: str, node: int, headers: Mapping[str, str] | None) -> bytes:
        # Keyed by the identity of the headers object: prepared requests (a task's bulks and
        # searches) hand the same dict every time. The entry keeps that object alive, so its id
        # cannot be reused by another dict while the entry exists.
        key = (method, target, node, id(headers))
        cached = self._head_cache.get(key)
        if cached is not None and cached[0] is headers:
            return cached[1]
        if headers:
            merged = {**self._base_headers, **{k.lower(): v for k, v in headers.items()}}
        else:
            merged = self._base_headers
        head = self._build_head(method, target, node, merged)
        if len(self._head_cache) >= _HEAD_CACHE_SIZE:
            self._head_cache.clear()
        self._head_cache[key] = (headers, head)
        return head

    async def _gzip(self, body: RequestBody) -> bytes:
        if len(body) >= THREAD_COMPRESS_BYTES:
            return await asyncio.to_thread(gzip_body, body)
        cached = self._gzip_cache.get(id(body))
        if cached is not None and cached[0] is body:
            return cached[1]
        compressed = gzip_body(body)
        if len(self._gzip_cache) >= _GZIP_CACHE_SIZE:
            self._gzip_cache.clear()
        self._gzip_cache[id(body)] = (body, compressed)
        return compressed

    def _build_head(self, method: str, target: str, node: int, headers: Mapping[str, str]) -> bytes:
        lines = [f"{method} {target} HTTP/1.1", f"host: {self._nodes[node][3]}"]
        lines.extend(f"{k}: {v}" for k, v in headers.items())
        return ("\r\n".join(lines) + "\r\n").encode("latin-1")

    async def _connect(self, node: int, timeout: float | None) -> _Connection:
        host, port, secure, _ = self._nodes[node]
        loop = asyncio.get_running_loop()
        connecting = loop.create_connection(
            _Connection,
            host,
            port,
            ssl=self._ssl if secure else None,
            server_hostname=host if secure else None,
        )
        started = perf_counter()
        try:
            if timeout:
                _, protocol = await asyncio.wait_for(connecting, timeout)
            else:
                _, protocol = await connecting
        except BaseException as exc:
            # Timed before the error is built: the worker's first one imports elastic_transport.
            timing = current_timing.get()
            if timing is not None and not isinstance(exc, asyncio.CancelledError):
                timing.observe(started, perf_counter(), 0, 0)
            self._connect_failed(exc, host, port, timeout)
        return protocol

    @staticmethod
    def _connect_failed(exc: BaseException, host: str, port: int, timeout: float | None) -> NoReturn:
        """Raise the elastic_transport error of a failed connect (``exc`` itself if it is none).

        Raises:
            elastic_transport.TlsError, ConnectionTimeout, ConnectionError: by the kind of ``exc``.
        """
        # SSLError and TimeoutError are OSErrors too: the most specific first.
        if isinstance(exc, ssl.SSLError):
            raise failures.module().TlsError(f"TLS error connecting to {host}:{port}: {exc}") from None
        if isinstance(exc, TimeoutError):
            raise failures.module().ConnectionTimeout(
                f"Connecting to {host}:{port} timed out after {timeout} s (client-side timeout)"
            ) from None
        if isinstance(exc, OSError):
            raise failures.module().ConnectionError(
                f"Cannot connect to {host}:{port}: {exc.strerror or exc}"
            ) from None
        raise exc

    async def request(
        self,
        method: str,
        target: str,
        *,
        body: RequestBody | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: Any = DEFAULT,
    ) -> RawResponse:
        # The same request as the previous one on an idle connection: sent without building
        # anything, and the connection does the bookkeeping below when the response is whole.
        connection: _Connection | None = send_prepared(self, method, target, body, headers, timeout)
        if connection is None:
            return await self._request(method, target, body, headers, timeout)
        future = connection._future
        assert future is not None  # set by send_prepared
        try:
            return await future
        except BaseException as exc:
            if future.done() and not future.cancelled() and future.exception() is None:
                # The response was whole and the connection already back in the pool (maybe in
                # another request's hands) when this task was cancelled: leave it alone.
                raise
            return await self._prepared_failed(connection, exc, method, target, body, headers, timeout)

    async def _prepared_failed(
        self,
        connection: _Connection,
        exc: BaseException,
        method: str,
        target: str,
        body: RequestBody | None,
        headers: Mapping[str, str] | None,
        timeout: Any,
    ) -> RawResponse:
        """What :meth:`_request` does when a request fails, for one sent by ``send_prepared``."""
        pool = connection._pool
        connection._pool = connection._timing = connection._repeat = None
        if isinstance(exc, _Stale):
            node = next(i for i, idle in enumerate(self._idle) if idle is pool)
            return await self._request(method, target, body, headers, timeout, retry_node=node)
        limit = self._timeout if timeout is DEFAULT or is_default(timeout) else timeout
        _abandon(connection, exc, current_timing.get(), connection._start, connection._sent, limit)
        raise exc

    async def _request(
        self,
        method: str,
        target: str,
        body: RequestBody | None,
        headers: Mapping[str, str] | None,
        timeout: Any,
        *,
        retry_node: int | None = None,
    ) -> RawResponse:
        """Send one request and wait for its response; ``retry_node``: the node of a pooled
        connection the server had closed (sent once more on a new connection to it)."""
        nodes = len(self._nodes)
        if retry_node is not None:
            node = retry_node
        elif nodes == 1:
            node = 0
        else:
            node = self._next % nodes
            self._next += 1
        last = self._last_request[node]
        if (
            last is not None
            and last[0] is target
            and last[1] is headers
            and last[2] is body
            and last[3] == method
            and last[4] == node
        ):
            # The same prepared request as the previous one (a task's search): the same bytes
            # (prepared requests hand the same target, headers and body objects every time).
            parts, sent = last[5], last[6]
        else:
            original = body
            head = self._request_head(method, target, node, headers)
            if body is not None and self._compress:
                # Before the request start: compression is client work, not service time.
                body = await self._gzip(body)
            parts, sent = self._frame(head, body)
            if original is None or type(original) is bytes:  # immutable: same object, same bytes
                self._last_request[node] = (target, headers, original, method, node, parts, sent)
        limit = self._timeout if timeout is DEFAULT or is_default(timeout) else timeout
        idle = self._idle[node]
        timing = current_timing.get()
        connection = None
        while idle and retry_node is None:
            candidate = idle.pop()
            if not candidate.closed:
                connection = candidate
                break
        while True:
            if connection is None:
                connection = await self._connect(node, limit)
            start = perf_counter()
            try:
                response = await connection.send(parts, method == "HEAD", start, limit)
            except _Stale:
                # A pooled connection the server had closed: once more on a new connection
                # (a new connection never raises _Stale, so this ends).
                connection = None
                continue
            except BaseException as exc:
                _abandon(connection, exc, timing, start, sent, limit)
                raise
            if timing is not None:
                timing.observe(start, connection.end, sent, connection.received_bytes)
            connection.used = True
            if connection.reusable():
                idle.append(connection)
            else:
                connection.abort()
            return response

    def _frame(self, head: bytes, body: RequestBody | None) -> tuple[tuple[RequestBody, ...], int]:
        """The request's bytes (head, then ``body``: one buffer when small) and their count."""
        parts: tuple[RequestBody, ...]
        if body is None:
            parts = (head + b"\r\n",)
            return parts, len(parts[0])
        gz = b"content-encoding: gzip\r\n" if self._compress else b""
        first = b"%s%scontent-length: %d\r\n\r\n" % (head, gz, len(body))
        parts = (first + body,) if len(body) <= JOIN_BODY_BYTES else (first, body)
        return parts, len(first) + len(body)

    def node_transport(self, url: str) -> RawHttpTransport:
        """A transport to the one node ``url`` with this one's headers, timeout, TLS and compression.

        Routing-aware bulks (:mod:`esbench.driver.worker.runners.routed_bulk`) send each sub-bulk straight to
        the node of its primary through it. Cached per URL and closed with this transport.
        """
        transport = self._node_transports.get(url)
        if transport is None:
            transport = RawHttpTransport(
                [url],
                self._headers,
                timeout=self._timeout,
                ssl_context=self._ssl,
                http_compress=self._compress,
            )
            self._node_transports[url] = transport
        return transport

    @property
    def secure(self) -> bool:
        """True if the nodes are reached over TLS."""
        return any(node[2] for node in self._nodes)

    async def close(self) -> None:
        for transport in self._node_transports.values():
            await transport.close()
        self._node_transports.clear()
        for idle in self._idle:
            while idle:
                connection = idle.pop()
                if connection.transport is not None:
                    connection.transport.close()
        # Let the transports finish closing.
        await asyncio.sleep(0)


def ssl_context_for(
    *, verify_certs: bool, ca_certs: str | None, client_cert: str | None, client_key: str | None
) -> ssl.SSLContext:
    """A client TLS context: verification on unless ``verify_certs`` is False.

    Raises:
        esbench.exceptions.ConfigError: unreadable CA or client certificate files.
    """
    from esbench.exceptions import ConfigError

    context = ssl.create_default_context()
    try:
        if ca_certs and os.path.isdir(ca_certs):
            context.load_verify_locations(capath=ca_certs)
        elif ca_certs:
            context.load_verify_locations(cafile=ca_certs)
        if client_cert:
            context.load_cert_chain(client_cert, client_key)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"Cannot load the TLS certificates given in --client-options: {exc}.") from exc
    if not verify_certs:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def _abandon(
    connection: _Connection,
    exc: BaseException,
    timing: RequestTiming | None,
    start: float,
    sent: int,
    limit: object,
) -> None:
    """A request failed on ``connection`` (also cancelled): abort the connection and time what
    was sent.

    Raises:
        elastic_transport.ConnectionTimeout: ``exc`` is the client-side timeout.
    """
    connection.abort()
    if timing is not None:
        # A lost connection stamped its end before building the exception (rawconnection).
        end = connection.end if connection.end > start else perf_counter()
        timing.observe(start, end, sent, connection.received_bytes)
    if isinstance(exc, TimeoutError):
        raise failures.module().ConnectionTimeout(
            f"The request timed out after {limit} s (client-side timeout)"
        ) from None
