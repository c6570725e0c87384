"""A worker's event loop and how it watches the pipe to the coordinator."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from multiprocessing.connection import Connection


def new_loop() -> asyncio.AbstractEventLoop:
    """A new event loop for a worker: uvloop's where it is installed, else asyncio's."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency on POSIX
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def watch_pipe(loop: asyncio.AbstractEventLoop, conn: Connection, callback: Callable[[], None]) -> None:
    """Call ``callback`` on ``loop`` whenever ``conn`` (the worker's end of its pipe) is readable,
    keeping the pipe in blocking mode.

    uvloop's ``add_reader`` (libuv ``uv_poll_init``) switches the descriptor to non-blocking. The
    worker's ``conn.send`` and ``conn.recv`` are multiprocessing's blocking calls: on a
    non-blocking pipe a message larger than the socket buffer (~200 KB) fails half way with
    ``BlockingIOError``, which ``send`` took for a coordinator gone away, so the worker exited
    with code 0 and its results were lost. The ``StepDone`` of an hour-long task (per-second
    windows, ~1.2 KB each) is such a message: the one-hour soak of issue #26 ended with "worker
    process 0 exited unexpectedly (exit code 0)" and no samples. The poll works the same on a
    blocking descriptor; the worker reads only what ``poll()`` says is there.
    """
    loop.add_reader(conn.fileno(), callback)
    os.set_blocking(conn.fileno(), True)
