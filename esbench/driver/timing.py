"""Where service time is measured: the request timing holder shared by a client and its transport.

The executor gives each client one :class:`RequestTiming` (through a context variable, so every
request the runner makes, even from child tasks of a composite request, reports to it) and resets
it before each runner call. The HTTP layer calls :func:`observe` with ``time.perf_counter()``
just before the request is handed to the connection and just after the last response byte was
read. With several requests per runner call (paginated searches, admin operations that check
before they act) the holder keeps the earliest start and the latest end, as Rally's
``RequestContextHolder`` does, so service time spans all of them.
"""

from __future__ import annotations

from contextvars import ContextVar


class RequestTiming:
    """Earliest request start and latest response end (``perf_counter`` seconds; 0.0 = none yet)."""

    __slots__ = ("end", "start")

    def __init__(self) -> None:
        self.start = 0.0
        self.end = 0.0

    def reset(self) -> None:
        """Forget the previous runner call's requests."""
        self.start = 0.0
        self.end = 0.0

    def observe(self, start: float, end: float) -> None:
        """Record one request that started at ``start`` and ended at ``end``."""
        if self.start == 0.0 or start < self.start:
            self.start = start
        if end > self.end:
            self.end = end

    @property
    def observed(self) -> bool:
        """True if at least one request was recorded since the last reset."""
        return self.end != 0.0


#: The timing holder of the current client (None outside a client's task).
current_timing: ContextVar[RequestTiming | None] = ContextVar("esbench_request_timing", default=None)


def observe(start: float, end: float) -> None:
    """Report one request to the current client's timing holder, if any (cheap: one lookup)."""
    timing = current_timing.get()
    if timing is not None:
        timing.observe(start, end)
