"""The per-request half of :class:`esbench.driver.transport.rawconnection._Connection`: its fields, ``send``
and ``data_received``.

Two implementations with the same behaviour:

- :class:`PyConnectionCore` here, in Python: the reference, and what runs where the C extension
  was not built (``pip install`` on a machine without a C compiler);
- ``esbench.driver.transport._connection`` (``_connection.c``): ``send`` in C, and a ``data_received`` that
  handles the common response in C (head and whole body in one read, a head seen before, not
  chunked, not compressed) and hands every other one to ``_Connection._on_data``, the Python parser
  both implementations share.

Either way the request end is ``time.perf_counter()`` taken on entry of the ``data_received`` call
that completes the response, before any parsing. :data:`ConnectionCore` is the implementation in
use: the compiled one if it imports, unless ``ESBENCH_PURE_PYTHON`` asks for Python (see
:mod:`esbench._compiled`). ``tests/unit/driver/test_connection_equivalence.py`` runs the transport's tests on
the Python one too.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from typing import Any

from esbench._compiled import load
from esbench.driver.transport.failures import DEFAULT, is_default
from esbench.driver.transport.http import RawResponse, RequestBody
from esbench.driver.transport.repeat import current_repeat
from esbench.driver.transport.timing import RequestTiming, current_timing

perf_counter = time.perf_counter

_INF = float("inf")


class PyConnectionCore:
    """Fields of one keep-alive connection, its request write and its response entry point.

    The subclass provides ``_on_data(data, arrived)`` (the response parser), ``_arm(delay)`` and
    ``_disarm()`` (the lazy timeout timer). A request sent by :func:`send_prepared` also carries
    ``_pool`` (the idle list to return to), ``_timing`` (the client's timing holder), ``_start``
    (``perf_counter`` s) and ``_sent`` (bytes) for the bookkeeping done when its response is whole,
    and, when the client repeats it (:mod:`esbench.driver.transport.repeat`), ``_repeat``,
    ``_parts`` (what to write again) and ``_limit`` (its timeout, s or None).
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
        "_limit",
        "_loop",
        "_parts",
        "_pool",
        "_raw_head",
        "_received",
        "_repeat",
        "_sent",
        "_start",
        "_status",
        "_timer",
        "_timer_due",
        "_timing",
        "closed",
        "end",
        "keep_alive",
        "received_bytes",
        "transport",
        "used",
    )

    _body: bytearray
    _buffer: bytearray
    _chunked: bool
    _deadline: float
    _expected: int
    _future: asyncio.Future[RawResponse] | None
    _gzip: bool
    _head: bool
    _limit: float | None
    _loop: asyncio.AbstractEventLoop | None
    _parts: tuple[RequestBody, ...]
    _pool: list[Any] | None
    _raw_head: bytes
    _received: bool
    _repeat: Any
    _sent: int
    _start: float
    _status: int
    _timing: RequestTiming | None
    _timer: asyncio.TimerHandle | None
    _timer_due: float
    closed: bool
    end: float
    keep_alive: bool
    received_bytes: int
    transport: asyncio.Transport | None
    used: bool

    def _reset(self) -> None:
        """Forget the previous request and its response (called before each request)."""
        self._clear_response()
        self._head = False
        self._pool = None
        self._timing = None
        self._repeat = None

    def _clear_response(self) -> None:
        """Forget the previous response (also before a request is repeated)."""
        self._status = 0
        self._raw_head = b""
        self._expected = -1  # body bytes expected; -1 = until close
        self._chunked = False
        self._gzip = False
        self._received = False
        self._body = bytearray()
        self.keep_alive = True
        self.end = 0.0
        self.received_bytes = 0

    def data_received(self, data: bytes) -> None:
        # Taken first: if these bytes complete the response, this is its end (parsing excluded).
        self._on_data(data, perf_counter())

    def _on_data(self, data: bytes, arrived: float) -> None:  # pragma: no cover - the subclass's
        raise NotImplementedError

    def _arm(self, delay: float) -> None:  # pragma: no cover - the subclass's
        raise NotImplementedError

    def _disarm(self) -> None:  # pragma: no cover - the subclass's
        raise NotImplementedError

    def send(
        self, parts: tuple[RequestBody, ...], head: bool, start: float, limit: float | None
    ) -> asyncio.Future[RawResponse]:
        """Write one request (head and body, not concatenated) that starts at ``start``
        (``perf_counter`` s) and times out ``limit`` seconds later (None: never); the future
        completes with its response or fails with TimeoutError.

        Raises:
            AssertionError: the connection was never made.
        """
        self._reset()
        self._head = head
        assert self.transport is not None
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        future: asyncio.Future[RawResponse] = loop.create_future()
        self._future = future
        self._expire(start, limit)
        self._write(parts)
        return future

    def _expire(self, start: float, limit: float | None) -> None:
        """The request in flight started at ``start`` and times out ``limit`` s later (None or 0: never)."""
        if limit:
            deadline = self._deadline = start + limit
            if deadline < self._timer_due:
                # No timer, or one due after this deadline (a shorter timeout than before).
                self._disarm()
                self._arm(limit)
        else:
            self._deadline = _INF

    def _write(self, parts: tuple[RequestBody, ...]) -> None:
        assert self.transport is not None
        if len(parts) == 1:
            self.transport.write(parts[0])
        else:
            self.transport.writelines(parts)

    def _repeat_next(self) -> bool:
        """The response of a request sent by :func:`send_prepared` with a repeat is whole: record
        its sample and send the request again, if the executor's loop would have (the rules are in
        :mod:`esbench.driver.transport.repeat`). Returns True if the connection took care of the
        response: it repeated the request, or reading the stop flags, recording or writing failed and
        the request's future fails with that error (the connection is closed); False, having
        changed nothing, when the request goes back to its client's task.
        """
        repeat = self._repeat
        if repeat is None or self._status >= 400 or self.closed or not self.keep_alive or self._buffer:
            return False
        done = repeat.iterations
        if 0 <= repeat.total <= done + 1:
            return False
        try:
            now = perf_counter()
            if now >= repeat.deadline:
                return False
            control = repeat.control
            if control.cancelled or control.completed:
                return False
            start = self._start
            end = self.end
            repeat.record(
                warmup=start < repeat.warmup_end if repeat.time_based else done < repeat.warmup_iterations,
                end=end,
                service_time=end - start,
                latency=end - start,
                processing_time=now - start,
                weight=1.0,
                success=True,
                error_type=None,
                sent=self._sent,
                received=self.received_bytes,
            )
            # Counted with its sample, and the next request's start with it: whatever fails
            # below, the executor's count and the failed request's start stay right.
            next_start = perf_counter()
            repeat.iterations = done + 1
            repeat.last_start = self._start = next_start
            self._clear_response()
            self._expire(next_start, self._limit)
            self._write(self._parts)
        except Exception as exc:
            # In a protocol callback nobody would see it: the client's task does, with this request.
            self._repeat = None
            self.abort()
            future = self._future
            if future is not None and not future.done():
                future.set_exception(exc)
        return True

    def abort(self) -> None:  # pragma: no cover - the subclass's
        raise NotImplementedError


def py_send_prepared(
    transport: Any,
    method: str,
    target: str,
    body: RequestBody | None,
    headers: Mapping[str, str] | None,
    timeout: Any,
) -> Any:
    """Send the transport's previous request again on one of its idle connections, or return None.

    ``transport`` is an :class:`esbench.driver.transport.rawhttp.RawHttpTransport`; the request is "the
    same" if ``target``, ``headers`` and ``body`` are the objects of the ``_last_request`` of the
    node whose turn it is (a task's prepared search hands the same objects every time). Returns
    the connection, whose ``_future`` completes with the response; when it does, the connection
    has already done what ``RawHttpTransport._request`` does after its ``await``: reported the
    request to ``current_timing``, marked itself used, and gone back to the idle pool (or closed).
    Returns None, having changed nothing but dropping closed connections from the idle pool (as
    ``_request`` would), when the request is not the previous one or no connection is idle.

    On a transport with one node, a request sent while the client has a repeat
    (:data:`esbench.driver.transport.repeat.current_repeat`) carries it: the connection may record
    the response and send the request again, several times, before the future completes with the
    response of the last one (see :mod:`esbench.driver.transport.repeat`).

    Raises:
        whatever the connection's ``send`` raises, after closing the connection and reporting the
        request to ``current_timing`` (as ``_request`` does).
    """
    nodes = len(transport._idle)  # one idle list per node
    node = 0 if nodes == 1 else transport._next % nodes
    last = transport._last_request[node]
    if (
        last is None
        or last[0] is not target
        or last[1] is not headers
        or last[2] is not body
        or last[3] != method
    ):
        return None
    idle = transport._idle[node]
    connection = None
    while idle:
        candidate = idle.pop()
        if not candidate.closed:
            connection = candidate
            break
    if connection is None:
        return None
    if nodes != 1:
        transport._next += 1
    use_default = timeout is DEFAULT or (
        timeout is not None and type(timeout) not in (float, int) and is_default(timeout)
    )
    limit = transport._timeout if use_default else timeout
    timing = current_timing.get()
    start = perf_counter()
    try:
        connection.send(last[5], method == "HEAD", start, limit)
    except BaseException:
        # What RawHttpTransport._request does when send() raises: close, report, raise.
        connection.abort()
        if timing is not None:
            timing.observe(start, perf_counter(), last[6], connection.received_bytes)
        raise
    connection._pool = idle
    connection._timing = timing
    connection._start = start
    connection._sent = last[6]
    if nodes == 1:  # with several nodes, each request goes to the next one
        repeat = current_repeat.get()
        if repeat is not None:
            connection._repeat = repeat
            connection._parts = last[5]
            connection._limit = limit
    return connection


_C = load("esbench.driver.transport._connection")
#: True if the C implementation is in use.
COMPILED = _C is not None
#: The connection core in use (C if built, else Python).
ConnectionCore: type[PyConnectionCore] = _C.ConnectionCore if _C is not None else PyConnectionCore
#: :func:`py_send_prepared` or its C twin.
send_prepared: Callable[..., Any] = _C.send_prepared if _C is not None else py_send_prepared


def configure(*, head_fields: dict[bytes, tuple[int, int, bool, bool, bool]]) -> None:
    """Hand the C core the shared cache of response heads (head bytes -> ``(status,
    content_length or -1, chunked, keep_alive, gzip)``) and what it calls; no-op for Python."""
    if _C is not None:
        _C.configure(
            head_fields=head_fields,
            perf_counter=perf_counter,
            get_running_loop=asyncio.get_running_loop,
            raw_response=RawResponse,
            default=DEFAULT,
            is_default=is_default,
            current_timing=current_timing,
            current_repeat=current_repeat,
        )
