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
import contextlib
import gzip
import os
import socket
import ssl
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import elastic_transport
from elastic_transport.client_utils import DEFAULT

from esbench.driver.http import RawResponse
from esbench.driver.timing import current_timing

perf_counter = time.perf_counter

_NO_BODY_STATUS = frozenset({204, 304})

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
#: Request heads kept per transport (by method, target, node and headers object).
_HEAD_CACHE_SIZE = 4096


def gzip_body(body: bytes) -> bytes:
    """``body`` gzip-compressed at :data:`GZIP_LEVEL`."""
    return gzip.compress(body, compresslevel=GZIP_LEVEL)


class _Stale(Exception):
    """The server closed a pooled connection before answering (safe to retry)."""


_INF = float("inf")

#: Response heads seen recently -> their framing fields (see ``_Connection._parse_head``). A task
#: that sends the same request gets the same head back (same status, headers and length), so
#: most responses skip the header scan.
_HEAD_FIELDS: dict[bytes, tuple[int, int, bool, bool, bool]] = {}
_HEAD_FIELDS_SIZE = 1024


def _header_value(lower_head: bytes, name: bytes) -> bytes | None:
    """The stripped value of header ``name`` (``b"\\r\\ncontent-length:"`` form, lower case) in a
    lower-cased response head, or None; the first occurrence counts."""
    at = lower_head.find(name)
    if at < 0:
        return None
    at += len(name)
    line_end = lower_head.find(b"\r\n", at)
    return (lower_head[at:] if line_end < 0 else lower_head[at:line_end]).strip()


def _framing(head: bytes) -> tuple[int, int, bool, bool, bool]:
    """``(status, content_length or -1, chunked, keep_alive, gzip)`` of a response head (the bytes
    before the empty line).

    Raises:
        ValueError: no valid status line or a Content-Length that is not a number (the message
            says which).
    """
    try:
        if head[:5] == b"HTTP/" and head[8:9] == b" ":
            status = int(head[9:12])
        else:
            status = int(head.split(b"\r\n", 1)[0].split(b" ", 2)[1])
    except (IndexError, ValueError):
        raise ValueError(f"Malformed HTTP response: {head[:80]!r}") from None
    lower = head.lower()
    keep_alive = _header_value(lower, b"\r\nconnection:") != b"close"
    encoding = _header_value(lower, b"\r\ncontent-encoding:")
    transfer = _header_value(lower, b"\r\ntransfer-encoding:")
    chunked = transfer is not None and b"chunked" in transfer
    length = _header_value(lower, b"\r\ncontent-length:")
    expected = -1
    if length is not None and not chunked:
        try:
            expected = int(length)
        except ValueError:
            raise ValueError(f"Malformed Content-Length: {length[:40]!r}") from None
    return status, expected, chunked, keep_alive, encoding is not None and b"gzip" in encoding


class _Connection(asyncio.Protocol):
    """One keep-alive connection; at most one request in flight.

    The request timeout is a lazy timer: a request only stores its deadline; the connection's
    one timer, when it fires, either expires the request in flight or re-arms itself for that
    request's deadline. Back-to-back requests therefore cost no timer operation (an event-loop
    timer armed and cancelled per request was ~10 % of a search's client CPU), and a request still
    times out exactly at its deadline.
    """

    __slots__ = (
        "_body",
        "_buffer",
        "_chunked",
        "_deadline",
        "_expected",
        "_future",
        "_gzip",
        "_head",
        "_loop",
        "_raw_head",
        "_received",
        "_status",
        "_timer",
        "_timer_due",
        "closed",
        "end",
        "keep_alive",
        "received_bytes",
        "transport",
        "used",
    )

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.used = False
        self._future: asyncio.Future[RawResponse] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_due = _INF
        self._deadline = _INF
        self._buffer = bytearray()
        self._reset()

    def _reset(self) -> None:
        self._status = 0
        self._raw_head = b""
        self._expected = -1  # body bytes expected; -1 = until close
        self._chunked = False
        self._gzip = False
        self._head = False
        self._received = False
        self._body = bytearray()
        self.keep_alive = True
        self.end = 0.0
        self.received_bytes = 0

    # ------------------------------------------------------------------------- protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        # Kept: asyncio.get_running_loop() per request costs a getpid() system call on Python 3.11.
        self._loop = asyncio.get_running_loop()
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._disarm()
        future = self._future
        if future is None or future.done():
            return
        if self._expected == -1 and self._status and not self._chunked:
            # Body delimited by the end of the connection.
            self.end = perf_counter()
            self._finish(bytes(self._buffer))
            return
        if not self._received and self.used:
            # Only a connection that already served a request (a pooled one) can have been
            # closed by the server's idle timeout before it saw this request.
            future.set_exception(_Stale())
        else:
            reason = str(exc) if exc else "the server closed the connection"
            future.set_exception(elastic_transport.ConnectionError(f"Connection lost: {reason}"))

    def data_received(self, data: bytes) -> None:
        # Taken first: if these bytes complete the response, this is its end (parsing excluded).
        arrived = perf_counter()
        self._received = True
        self.received_bytes += len(data)
        buffer = self._buffer
        if not self._status:
            if buffer:
                buffer += data
                data = bytes(buffer)
                buffer.clear()
            end = data.find(b"\r\n\r\n")
            if end < 0:
                buffer += data
                return
            if not self._parse_head(data[:end]):
                return
            rest = data[end + 4 :]
            future = self._future
            if future is None or future.done():
                buffer += rest
                return
            expected = self._expected
            if not self._chunked and 0 <= expected <= len(rest):
                # The common case: head and body arrived together.
                self.end = arrived
                if len(rest) > expected:
                    buffer += rest[expected:]
                    rest = rest[:expected]
                self._finish(rest)
                return
            buffer += rest
        else:
            buffer += data
        if self._chunked:
            self._parse_chunks(arrived)
        elif self._expected >= 0 and len(buffer) >= self._expected:
            self.end = arrived
            body = bytes(buffer[: self._expected])
            del buffer[: self._expected]
            self._finish(body)

    def _parse_head(self, head: bytes) -> bool:
        """Read the status and the framing headers; False (and the request failed) if malformed."""
        self._raw_head = head
        fields = _HEAD_FIELDS.get(head)
        if fields is None:
            try:
                fields = _framing(head)
            except ValueError as exc:
                self._fail(elastic_transport.ConnectionError(str(exc)))
                return False
            if len(_HEAD_FIELDS) >= _HEAD_FIELDS_SIZE:
                _HEAD_FIELDS.clear()
            _HEAD_FIELDS[head] = fields
        status, expected, chunked, keep_alive, gzipped = fields
        self._status = status
        self._gzip = gzipped
        if not keep_alive:
            self.keep_alive = False
        if self._head or status in _NO_BODY_STATUS or 100 <= status < 200:
            self._expected = 0
        elif chunked:
            self._chunked = True
        elif expected < 0:
            self._expected = -1
            self.keep_alive = False
        else:
            self._expected = expected
        return True

    def _parse_chunks(self, arrived: float) -> None:
        buffer = self._buffer
        while True:
            line_end = buffer.find(b"\r\n")
            if line_end < 0:
                return
            try:
                size = int(bytes(buffer[:line_end]).split(b";", 1)[0].strip(), 16)
            except ValueError:
                self._fail(elastic_transport.ConnectionError("Malformed chunked HTTP response"))
                return
            if size == 0:
                # the last chunk, optional trailers, then an empty line
                end = buffer.find(b"\r\n\r\n", line_end)
                if end < 0:
                    return
                self.end = arrived
                del buffer[: end + 4]
                self._finish(bytes(self._body))
                return
            start = line_end + 2
            if len(buffer) < start + size + 2:
                return
            self._body += buffer[start : start + size]
            del buffer[: start + size + 2]

    def _finish(self, body: bytes) -> None:
        future = self._future
        if future is None or future.done():
            return
        if self._gzip and body:
            try:
                body = gzip.decompress(body)
            except (OSError, EOFError) as exc:
                future.set_exception(
                    elastic_transport.ConnectionError(f"Cannot decompress the response: {exc}")
                )
                return
        future.set_result(RawResponse(self._status, body, raw_head=self._raw_head))

    def _fail(self, exc: Exception) -> None:
        if self._future is not None and not self._future.done():
            self._future.set_exception(exc)
        if self.transport is not None:
            self.transport.close()

    # --------------------------------------------------------------------------- timeout

    def _check_deadline(self) -> None:
        """The connection's timer fired: expire the request in flight or re-arm for its deadline."""
        self._timer = None
        self._timer_due = _INF
        future = self._future
        if future is None or future.done() or self._deadline == _INF:
            return
        rest = self._deadline - perf_counter()
        if rest <= 0.0:
            future.set_exception(TimeoutError())
            return
        self._arm(rest)

    def _arm(self, delay: float) -> None:
        assert self._loop is not None
        self._timer_due = perf_counter() + delay
        self._timer = self._loop.call_later(delay, self._check_deadline)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
            self._timer_due = _INF

    # ---------------------------------------------------------------------------- client

    def send(
        self, parts: tuple[bytes, ...], head: bool, start: float, limit: float | None
    ) -> asyncio.Future[RawResponse]:
        """Write one request (head and body, not concatenated) that starts at ``start``
        (``perf_counter`` s) and times out ``limit`` seconds later (None: never); the future
        completes with its response or fails with TimeoutError."""
        self._reset()
        self._head = head
        assert self.transport is not None
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        future: asyncio.Future[RawResponse] = loop.create_future()
        self._future = future
        if limit:
            deadline = self._deadline = start + limit
            if deadline < self._timer_due:
                # No timer, or one due after this deadline (a shorter timeout than before).
                self._disarm()
                self._arm(limit)
        else:
            self._deadline = _INF
        if len(parts) == 1:
            self.transport.write(parts[0])
        else:
            self.transport.writelines(parts)
        return future

    def reusable(self) -> bool:
        return not self.closed and self.keep_alive and not self._buffer

    def abort(self) -> None:
        """Close the connection (its state is unknown or it must not be reused)."""
        self.closed = True
        self._disarm()
        if self.transport is not None:
            self.transport.close()


class RawHttpTransport:
    """:class:`~esbench.driver.http.HttpTransport` over :class:`_Connection` pools (see module doc).

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
        self._gzip_cache: dict[int, tuple[bytes, bytes]] = {}
        self._node_transports: dict[str, RawHttpTransport] = {}
        self._headers = dict(headers)
        # (target, headers, body, method, node, parts, bytes): the previous request and its wire
        # form, reused when the next request hands the same objects.
        self._last_request: (
            tuple[str, Mapping[str, str] | None, bytes | None, str, int, tuple[bytes, ...], int] | None
        ) = None

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

    async def _gzip(self, body: bytes) -> bytes:
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
        try:
            if timeout:
                _, protocol = await asyncio.wait_for(connecting, timeout)
            else:
                _, protocol = await connecting
        except ssl.SSLError as exc:
            raise elastic_transport.TlsError(f"TLS error connecting to {host}:{port}: {exc}") from None
        except TimeoutError:
            raise elastic_transport.ConnectionTimeout(
                f"Connecting to {host}:{port} timed out after {timeout} s (client-side timeout)"
            ) from None
        except OSError as exc:
            raise elastic_transport.ConnectionError(
                f"Cannot connect to {host}:{port}: {exc.strerror or exc}"
            ) from None
        return protocol

    async def request(
        self,
        method: str,
        target: str,
        *,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: Any = DEFAULT,
    ) -> RawResponse:
        nodes = len(self._nodes)
        if nodes == 1:
            node = 0
        else:
            node = self._next % nodes
            self._next += 1
        last = self._last_request
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
            if body is not None:
                gz = b"content-encoding: gzip\r\n" if self._compress else b""
                parts = (b"%s%scontent-length: %d\r\n\r\n" % (head, gz, len(body)), body)
                sent = len(parts[0]) + len(body)
            else:
                parts = (head + b"\r\n",)
                sent = len(parts[0])
            if original is None or type(original) is bytes:  # immutable: same object, same bytes
                self._last_request = (target, headers, original, method, node, parts, sent)
        limit = self._timeout if timeout is DEFAULT else timeout
        idle = self._idle[node]
        timing = current_timing.get()
        connection = None
        while idle:
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
            except TimeoutError:
                connection.abort()
                if timing is not None:
                    timing.observe(start, perf_counter(), sent, connection.received_bytes)
                raise elastic_transport.ConnectionTimeout(
                    f"The request timed out after {limit} s (client-side timeout)"
                ) from None
            except BaseException:
                connection.abort()
                if timing is not None:
                    timing.observe(start, perf_counter(), sent, connection.received_bytes)
                raise
            if timing is not None:
                timing.observe(start, connection.end, sent, connection.received_bytes)
            connection.used = True
            # reusable(), inlined: this runs per request.
            if not connection.closed and connection.keep_alive and not connection._buffer:
                idle.append(connection)
            else:
                connection.abort()
            return response

    def node_transport(self, url: str) -> RawHttpTransport:
        """A transport to the one node ``url`` with this one's headers, timeout, TLS and compression.

        Routing-aware bulks (:mod:`esbench.driver.runners.routed_bulk`) send each sub-bulk straight to
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
