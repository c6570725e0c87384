"""The HTTP seam between runners and the wire.

Built-in runners never call elasticsearch-py's API methods; they send prepared requests through an
:class:`HttpTransport`: ``await es.http.request(method, target, body=..., headers=...)`` returns a
:class:`RawResponse` (status, raw body bytes, headers) without parsing the body, and raises only
for transport failures (connection refused, timeout, TLS). Replacing the transport (a leaner
HTTP client, static responses) therefore changes no runner.

Implementations:

* :class:`esbench.driver.transport.nodes.NodeHttpTransport` sends through elastic_transport's node
  objects of the client (one keep-alive connection pool per node), skipping the transport layer's
  node selection, retries, serialization and response parsing;
* :class:`StaticTransport` answers from a function, for tests and driver-overhead measurements.

Service time is taken here and by :class:`esbench.driver.transport.nodes.TimedAiohttpNode` (the node
class esbench gives elasticsearch-py, so plugin runners that use the client API are timed too),
which reports ``perf_counter()`` just before handing the request to aiohttp and just after the last
response byte was read to :func:`esbench.driver.transport.timing.observe`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Protocol, TypeAlias, cast

from esbench._compiled import load
from esbench.driver.transport.failures import DEFAULT, DefaultTimeout
from esbench.driver.transport.timing import current_timing

if TYPE_CHECKING:
    from elastic_transport.client_utils import DefaultType

    from esbench.driver.transport.nodes import NodeHttpTransport as NodeHttpTransport
    from esbench.driver.transport.nodes import TimedAiohttpNode as TimedAiohttpNode

perf_counter = time.perf_counter


def parse_head_fields(head: bytes) -> dict[str, str]:
    """The header fields of a raw HTTP/1.1 response head (status line first, ``\\r\\n``-separated,
    without the final empty line) as a dict with lower-case names (the last occurrence wins)."""
    headers: dict[str, str] = {}
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    return headers


class PyRawResponse:
    """An HTTP response whose body has not been parsed (:data:`RawResponse` is this class or its C
    twin in ``_connection.c``, see :mod:`esbench._compiled`).

    Attributes:
        status: HTTP status code.
        body: the raw (decompressed) body bytes.
        headers: response headers (case-insensitive mapping where the transport provides one; with
            ``raw_head`` a dict with lower-case names, parsed on first access: most runners never
            look at the headers, so the hot path does not build them).
    """

    __slots__ = ("_headers", "_raw_head", "body", "status")

    def __init__(
        self, status: int, body: bytes, headers: Mapping[str, str] | None = None, *, raw_head: bytes = b""
    ) -> None:
        self.status = status
        self.body = body
        self._headers = headers
        self._raw_head = raw_head

    @property
    def headers(self) -> Mapping[str, str]:
        if self._headers is None:
            self._headers = parse_head_fields(self._raw_head) if self._raw_head else {}
        return self._headers

    @property
    def ok(self) -> bool:
        """True for status codes below 400."""
        return self.status < 400

    def __repr__(self) -> str:
        return f"RawResponse(status={self.status}, body={len(self.body)} bytes)"


_C = load("esbench.driver.transport._connection")
if _C is not None:
    _C.configure_response(parse_head_fields=parse_head_fields)
if TYPE_CHECKING:  # the C class has the same attributes
    RawResponse = PyRawResponse
else:
    RawResponse = _C.RawResponse if _C is not None else PyRawResponse


#: A request body: ``bytes``, or a read-only ``memoryview`` sent as it is (a looped bulk's body
#: from the spool of esbench/corpus/spool.py).
RequestBody: TypeAlias = bytes | memoryview


class HttpTransport(Protocol):
    """What runners need from the wire (see module doc)."""

    async def request(
        self,
        method: str,
        target: str,
        *,
        body: RequestBody | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | DefaultTimeout | DefaultType | None = DEFAULT,
    ) -> RawResponse:
        """Send one request; ``target`` is the path with query string (``/idx/_search?size=1``).

        ``timeout`` is the client-side timeout in seconds (None: none; DEFAULT: the client's).

        Raises:
            elastic_transport.ConnectionError / ConnectionTimeout / TlsError: transport failures.
        """
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


def __getattr__(name: str) -> object:
    # The elastic_transport node classes live in nodes.py (importing elastic_transport imports
    # aiohttp and requests); their old names here keep working.
    if name in ("TimedAiohttpNode", "NodeHttpTransport"):
        from esbench.driver.transport import nodes

        return getattr(nodes, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


Responder = Callable[
    [str, str, RequestBody | None],
    "RawResponse | tuple[int, bytes] | Awaitable[RawResponse | tuple[int, bytes]]",
]


class StaticTransport:
    """Answers every request from ``responder(method, target, body)`` (no network).

    The responder returns a :class:`RawResponse`, a ``(status, body)`` tuple, or an awaitable of
    either. Requests are reported to the timing holder with ``clock()`` timestamps, so a test can
    drive simulated time through the responder.

    Attributes:
        requests: ``(method, target, body)`` of every request, in order (when ``record=True``).
    """

    def __init__(
        self,
        responder: Responder,
        *,
        clock: Callable[[], float] = perf_counter,
        record: bool = True,
    ) -> None:
        self._responder = responder
        self._clock = clock
        self._record = record
        self.requests: list[tuple[str, str, RequestBody | None]] = []

    async def request(
        self,
        method: str,
        target: str,
        *,
        body: RequestBody | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | DefaultTimeout | DefaultType | None = DEFAULT,
    ) -> RawResponse:
        timing = current_timing.get()
        start = self._clock()
        try:
            if self._record:
                self.requests.append((method, target, body))
            answer = self._responder(method, target, body)
            if asyncio.iscoroutine(answer) or isinstance(answer, asyncio.Future):
                answer = await answer
            if isinstance(answer, RawResponse):
                return answer
            status, payload = cast(tuple[int, bytes], answer)
            return RawResponse(status, payload, {})
        finally:
            if timing is not None:
                timing.observe(start, self._clock())

    async def close(self) -> None:
        pass
