"""The executor's time source: a protocol so that tests can simulate time, and the real clock.

All times are ``time.perf_counter()`` seconds (docs/driver.md, "Timing points").
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    """Time source of the executor (injected so tests can simulate time)."""

    def now(self) -> float:
        """Monotonic seconds (``perf_counter`` scale)."""
        ...

    async def sleep(self, seconds: float, wake: asyncio.Future[None]) -> None:
        """Return after ``seconds`` or as soon as ``wake`` is done, whichever comes first."""
        ...


def wake_up(future: asyncio.Future[None]) -> None:
    """Resolve a sleeper's ``wake`` future (a no-op when it is already done)."""
    if not future.done():
        future.set_result(None)


class SystemClock:
    """The real clock: ``time.perf_counter`` and event-loop timers."""

    now = staticmethod(time.perf_counter)

    async def sleep(self, seconds: float, wake: asyncio.Future[None]) -> None:
        handle = asyncio.get_running_loop().call_later(seconds, wake_up, wake)
        try:
            await wake
        finally:
            handle.cancel()
