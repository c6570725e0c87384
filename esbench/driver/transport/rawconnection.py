"""One keep-alive HTTP/1.1 connection of :mod:`esbench.driver.transport.rawhttp`: an asyncio protocol that
writes a request and parses its response in ``data_received``.

Request end is taken on entry of the ``data_received`` call that completes the response, before any
parsing or decompression (see the transport's module doc for the timing points). The request
timeout is one lazy timer per connection (see :class:`_Connection`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import socket
import time
from typing import TYPE_CHECKING

from esbench.driver.transport import connectioncore, failures
from esbench.driver.transport.http import RawResponse

if TYPE_CHECKING:  # the C class has the same fields and methods as the Python one
    from esbench.driver.transport.connectioncore import PyConnectionCore as ConnectionCore
else:
    from esbench.driver.transport.connectioncore import ConnectionCore

perf_counter = time.perf_counter

_NO_BODY_STATUS = frozenset({204, 304})


class _Stale(Exception):
    """The server closed a pooled connection before answering (safe to retry)."""


_INF = float("inf")

#: Response heads seen recently -> their framing fields (see ``_Connection._parse_head``). A task
#: that sends the same request gets the same head back (same status, headers and length), so
#: most responses skip the header scan.
_HEAD_FIELDS: dict[bytes, tuple[int, int, bool, bool, bool]] = {}
_HEAD_FIELDS_SIZE = 1024
connectioncore.configure(head_fields=_HEAD_FIELDS)


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


class _Connection(ConnectionCore, asyncio.Protocol):
    """One keep-alive connection; at most one request in flight.

    The request timeout is a lazy timer: a request only stores its deadline; the connection's
    one timer, when it fires, either expires the request in flight or re-arms itself for that
    request's deadline. Back-to-back requests therefore cost no timer operation (an event-loop
    timer armed and cancelled per request was ~10 % of a search's client CPU), and a request still
    times out exactly at its deadline.

    The fields, ``send`` and ``data_received`` are those of
    :class:`esbench.driver.transport.connectioncore.PyConnectionCore` or its C twin; ``_on_data`` here is the
    full response parser both use.
    """

    __slots__ = ()

    def __init__(self) -> None:
        self.transport = None
        self.closed = False
        self.used = False
        self._future = None
        self._loop = None
        self._timer = None
        self._timer_due = _INF
        self._deadline = _INF
        self._buffer = bytearray()
        self._start = 0.0
        self._sent = 0
        self._parts = ()
        self._limit = None
        self._reset()

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
            # The request ended now: the first failure of a worker imports elastic_transport
            # (~0.17 s), which must not count in this request's service time.
            self.end = perf_counter()
            future.set_exception(failures.module().ConnectionError(f"Connection lost: {reason}"))

    def _on_data(self, data: bytes, arrived: float) -> None:
        """Parse ``data`` read at ``arrived`` (``perf_counter`` s, taken on entry of
        ``data_received``); completes the request's future when the response is whole."""
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
                self._fail(failures.module().ConnectionError(str(exc)))
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
                self._fail(failures.module().ConnectionError("Malformed chunked HTTP response"))
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
                    failures.module().ConnectionError(f"Cannot decompress the response: {exc}")
                )
                return
        if self._pool is not None and self._repeat is not None and self._repeat_next():
            return
        response = RawResponse(self._status, body, raw_head=self._raw_head)
        if self._pool is not None:
            self._complete()
        future.set_result(response)

    def _complete(self) -> None:
        """The response of a request sent by ``connectioncore.send_prepared`` is whole: report it to
        the client's timing holder, mark the connection used, return it to the idle pool or close
        it (what ``RawHttpTransport._request`` does after its ``await``)."""
        pool, timing = self._pool, self._timing
        self._pool = self._timing = self._repeat = None
        if timing is not None:
            timing.observe(self._start, self.end, self._sent, self.received_bytes)
        self.used = True
        if self.reusable():
            pool.append(self)  # type: ignore[union-attr]  # set with _pool
        else:
            self.abort()

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

    def reusable(self) -> bool:
        return not self.closed and self.keep_alive and not self._buffer

    def abort(self) -> None:
        """Close the connection (its state is unknown or it must not be reused)."""
        self.closed = True
        self._disarm()
        if self.transport is not None:
            self.transport.close()
