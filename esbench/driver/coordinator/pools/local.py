"""The default worker pool: worker processes on this host (forkserver, else spawn), or one thread.

Never fork: the coordinator has threads and event loops that a forked child would inherit broken.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import socket
import threading
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.process import BaseProcess

from esbench.driver.coordinator.pools.base import ConnectionHandle, LoadDriver, WorkerHandle, WorkerPlacement
from esbench.driver.worker.process import InitWorker, Shutdown, run_in_thread, worker_main

#: Seconds to wait for a worker to exit at shutdown before terminating it.
SHUTDOWN_GRACE = 5.0


class LocalWorkerHandle(ConnectionHandle):
    """The coordinator's end of one local worker (process or thread)."""

    conn: Connection

    def __init__(
        self, worker_id: int, conn: Connection, proc: BaseProcess | None, thread: threading.Thread | None
    ) -> None:
        super().__init__(worker_id, conn)
        self.proc = proc
        self.thread = thread

    def waitables(self) -> list[Connection | int]:
        items: list[Connection | int] = [self.conn]
        if self.proc is not None:
            items.append(self.proc.sentinel)
        return items

    def exited(self, ready: Sequence[object]) -> bool:
        return self.proc is not None and self.proc.sentinel in ready

    def alive(self) -> bool:
        if self.proc is not None:
            return bool(self.proc.is_alive())
        return self.thread is not None and self.thread.is_alive()

    def describe_death(self) -> str:
        if self.proc is not None:
            if self.proc.exitcode is None:
                # The pipe closes a moment before the process can be reaped.
                self.proc.join(1.0)
            return f"worker process {self.worker_id} exited unexpectedly (exit code {self.proc.exitcode})"
        return f"worker thread {self.worker_id} ended unexpectedly"

    def stop(self) -> None:
        self.send(Shutdown())
        if self.proc is not None:
            self.proc.join(SHUTDOWN_GRACE)
            if self.proc.is_alive():
                self.proc.terminate()
                self.proc.join(SHUTDOWN_GRACE)
        elif self.thread is not None:
            self.thread.join(SHUTDOWN_GRACE)
        with contextlib.suppress(OSError):
            self.conn.close()

    def terminate(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            self.proc.terminate()


def _mp_context() -> ForkServerContext | SpawnContext:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        # Workers forked from a server that already imported the driver start in milliseconds.
        ctx.set_forkserver_preload(["esbench.driver.worker.process"])
        return ctx
    return multiprocessing.get_context("spawn")


def start_process(worker_id: int, init: InitWorker) -> LocalWorkerHandle:
    """Start a worker process running :func:`esbench.driver.worker.process.worker_main` and send ``init``."""
    ctx = _mp_context()
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=worker_main, args=(child,), name=f"esbench-worker-{worker_id}", daemon=True)
    proc.start()
    child.close()
    handle = LocalWorkerHandle(worker_id, parent, proc, None)
    handle.send(init)
    return handle


def start_thread(worker_id: int, init: InitWorker, runtime_kwargs: dict[str, object]) -> LocalWorkerHandle:
    """Start a worker in a thread of this process (``runtime_kwargs`` go to ``WorkerRuntime``)."""
    parent, child = multiprocessing.Pipe()
    thread = threading.Thread(
        target=run_in_thread,
        args=(child, init),
        kwargs={"runtime_kwargs": runtime_kwargs},
        name=f"esbench-worker-{worker_id}",
        daemon=True,
    )
    thread.start()
    return LocalWorkerHandle(worker_id, parent, None, thread)


class LocalPool:
    """Worker processes on this host, or one worker thread.

    Args:
        workers: worker processes; None = one per core; 0 = one worker thread in this process.
        thread_kwargs: ``WorkerRuntime`` keyword arguments of the thread worker (registry, test
            clock, HTTP factory).
    """

    kind = LoadDriver.LOCAL

    def __init__(self, workers: int | None, *, thread_kwargs: dict[str, object] | None = None) -> None:
        self.in_thread = workers == 0
        self.workers = workers
        self.thread_kwargs = thread_kwargs or {}
        self.handles: list[LocalWorkerHandle] = []

    def capacity(self) -> int:
        return 1 if self.in_thread else (self.workers or os.cpu_count() or 1)

    def start(self, count: int, init_for: Callable[[int], InitWorker]) -> list[WorkerHandle]:
        for worker_id in range(count):
            init = init_for(worker_id)
            if self.in_thread:
                self.handles.append(start_thread(worker_id, init, self.thread_kwargs))
            else:
                self.handles.append(start_process(worker_id, init))
        return list(self.handles)

    def stop(self) -> None:
        for handle in self.handles:
            try:
                handle.stop()
            except KeyboardInterrupt:
                handle.terminate()

    def placements(self) -> list[WorkerPlacement]:
        host = socket.gethostname()
        return [
            WorkerPlacement(
                worker_id=h.worker_id, host=host, pid=h.proc.pid if h.proc is not None else os.getpid()
            )
            for h in self.handles
        ]
