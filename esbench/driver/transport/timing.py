"""Where service time is measured: the request timing holder shared by a client and its transport.

The executor gives each client one :class:`RequestTiming` (through a context variable, so every
request the runner makes, even from child tasks of a composite request, reports to it) and resets
it before each runner call. The HTTP layer calls :func:`observe` with ``time.perf_counter()``
just before the request is handed to the connection and just after the last response byte was
read. With several requests per runner call (paginated searches, admin operations that check
before they act) the holder keeps the earliest start and the latest end, as Rally's
``RequestContextHolder`` does, so service time spans all of them. It also sums the bytes the
requests sent and received (for the bytes/s columns of reports).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

from esbench._compiled import load


class PyRequestTiming:
    """Earliest request start and latest response end (``perf_counter`` seconds; 0.0 = none yet),
    and the bytes sent and received by the requests since the last reset.

    ``sent``/``received`` are HTTP message bytes as the transport handled them: with the raw
    transport (:mod:`esbench.driver.transport.rawhttp`) everything on the wire above TCP (request line,
    headers, body as sent, compressed if it was; every response byte read); through
    elasticsearch-py (:class:`esbench.driver.transport.nodes.TimedAiohttpNode`) the request and response
    bodies only, since aiohttp does not expose the header bytes.
    """

    __slots__ = ("end", "received", "sent", "start")

    def __init__(self) -> None:
        self.start = 0.0
        self.end = 0.0
        self.sent = 0
        self.received = 0

    def reset(self) -> None:
        """Forget the previous runner call's requests."""
        self.start = 0.0
        self.end = 0.0
        self.sent = 0
        self.received = 0

    def observe(self, start: float, end: float, sent: int = 0, received: int = 0) -> None:
        """Record one request that started at ``start`` and ended at ``end`` (``perf_counter`` s)
        and moved ``sent``/``received`` bytes."""
        if self.start == 0.0 or start < self.start:
            self.start = start
        if end > self.end:
            self.end = end
        self.sent += sent
        self.received += received

    @property
    def observed(self) -> bool:
        """True if at least one request was recorded since the last reset."""
        return self.end != 0.0


_C = load("esbench.driver.transport._connection")
#: True if the C implementation is in use.
COMPILED = _C is not None
if TYPE_CHECKING:  # the C class has the same fields and methods
    RequestTiming = PyRequestTiming
else:
    #: :class:`PyRequestTiming` or its C twin (``_timing.c`` in ``esbench.driver.transport._connection``;
    #: see :mod:`esbench._compiled`).
    RequestTiming = _C.RequestTiming if _C is not None else PyRequestTiming

#: The timing holder of the current client (None outside a client's task).
current_timing: ContextVar[RequestTiming | None] = ContextVar("esbench_request_timing", default=None)


def observe(start: float, end: float) -> None:
    """Report one request to the current client's timing holder, if any (cheap: one lookup)."""
    timing = current_timing.get()
    if timing is not None:
        timing.observe(start, end)
