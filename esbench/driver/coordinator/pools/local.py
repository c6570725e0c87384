"""The default worker pool: worker processes on this host, or one thread.

A worker process is a plain child of the coordinator, started with :class:`subprocess.Popen` and
served by :func:`esbench.driver.worker.child.main`; no ``multiprocessing`` context is involved. A
forkserver context is one more Python process and starts a resource tracker too: ~42 MiB of RSS
in a 2-worker race (27.5 + 14.9 MiB, docs/performance.md, issue 25), for a tracker that tracks
nothing here (workers share no semaphores or shared memory) and a server that saved only the later
races of one process (a sweep's) ~0.17 s of worker start-up each (benchmarks/bench_worker_start.py).
Never fork the coordinator itself: it has threads and event loops that a forked child would inherit
broken.

Each worker runs in a process group of its own: a Ctrl-C at the terminal reaches the coordinator
alone, which decides how the race ends and tells the workers. A worker whose coordinator is gone
sees its connection close and exits (:meth:`esbench.driver.worker.process.WorkerRuntime.serve`).
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection

from esbench.driver.coordinator.pools.base import ConnectionHandle, LoadDriver, WorkerHandle, WorkerPlacement
from esbench.driver.worker.process import InitWorker, Shutdown, run_in_thread

#: Seconds to wait for a worker to exit at shutdown before terminating it (and again before killing it).
SHUTDOWN_GRACE = 5.0

#: The worker process's program (``python -c``): the coordinator's ``sys.path`` first, so that the
#: worker imports the same esbench (and the same track plugins' packages) as the coordinator, however
#: that was started (console script, ``python -m``, ``python -P`` with ``PYTHONPATH``, a checkout).
#: argv: ``[json sys.path, process name, conn_fd, sentinel_fd]``.
BOOTSTRAP = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
    "from esbench.driver.worker.child import main; main(sys.argv[2:])"
)


class LocalWorkerHandle(ConnectionHandle):
    """The coordinator's end of one local worker (process or thread).

    Args:
        worker_id: the worker's index.
        conn: the coordinator's end of the worker's connection.
        proc: the worker process, or None for a thread.
        sentinel: the read end of the pipe whose write end only the worker process holds (readable,
            at EOF, once the process has exited); None for a thread.
        thread: the worker thread, or None for a process.
    """

    conn: Connection

    def __init__(
        self,
        worker_id: int,
        conn: Connection,
        proc: subprocess.Popen[bytes] | None,
        thread: threading.Thread | None,
        *,
        sentinel: int | None = None,
    ) -> None:
        super().__init__(worker_id, conn)
        self.proc = proc
        self.sentinel = sentinel
        self.thread = thread

    def waitables(self) -> list[Connection | int]:
        items: list[Connection | int] = [self.conn]
        if self.sentinel is not None:
            items.append(self.sentinel)
        return items

    def exited(self, ready: Sequence[object]) -> bool:
        return self.sentinel is not None and self.sentinel in ready

    def alive(self) -> bool:
        if self.proc is not None:
            return self.proc.poll() is None
        return self.thread is not None and self.thread.is_alive()

    def describe_death(self) -> str:
        if self.proc is not None:
            # The sentinel closes a moment before the process can be reaped.
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(1.0)
            return f"worker process {self.worker_id} exited unexpectedly (exit code {self.proc.returncode})"
        return f"worker thread {self.worker_id} ended unexpectedly"

    def stop(self) -> None:
        self.send(Shutdown())
        if self.proc is not None:
            _reap(self.proc)
        elif self.thread is not None:
            self.thread.join(SHUTDOWN_GRACE)
        with contextlib.suppress(OSError):
            self.conn.close()
        self._close_sentinel()

    def terminate(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()

    def _close_sentinel(self) -> None:
        if self.sentinel is not None:
            with contextlib.suppress(OSError):
                os.close(self.sentinel)
            self.sentinel = None


def _reap(proc: subprocess.Popen[bytes]) -> None:
    """Wait for ``proc`` to exit: ``SHUTDOWN_GRACE`` s, then SIGTERM, then SIGKILL (never forever)."""
    for escalate in (proc.terminate, proc.kill, None):
        try:
            proc.wait(SHUTDOWN_GRACE)
            return
        except subprocess.TimeoutExpired:
            if escalate is None:
                return
            escalate()


def worker_command(worker_id: int, conn_fd: int, sentinel_fd: int) -> list[str]:
    """The command line of worker ``worker_id``: this interpreter with its flags (``-P``, ``-E``,
    ..., as :mod:`multiprocessing`'s spawn passes them) running :data:`BOOTSTRAP`."""
    flags: list[str] = subprocess._args_from_interpreter_flags()  # type: ignore[attr-defined]
    name = f"esbench-worker-{worker_id}"
    return [
        sys.executable,
        *flags,
        "-c",
        BOOTSTRAP,
        json.dumps(sys.path),
        name,
        str(conn_fd),
        str(sentinel_fd),
    ]


def start_process(worker_id: int) -> LocalWorkerHandle:
    """Start a worker process (:func:`esbench.driver.worker.child.main`); send it its ``InitWorker``
    next.

    Raises:
        OSError: the process could not be started (no such interpreter, out of processes).
    """
    parent_sock, child_sock = socket.socketpair()
    sentinel_r, sentinel_w = os.pipe()
    try:
        proc = subprocess.Popen(
            worker_command(worker_id, child_sock.fileno(), sentinel_w),
            pass_fds=(child_sock.fileno(), sentinel_w),
            stdin=subprocess.DEVNULL,
            process_group=0,
        )
    except BaseException:
        parent_sock.close()
        os.close(sentinel_r)
        raise
    finally:
        child_sock.close()
        os.close(sentinel_w)
    return LocalWorkerHandle(worker_id, Connection(parent_sock.detach()), proc, None, sentinel=sentinel_r)


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
        if self.in_thread:
            self.handles.extend(start_thread(i, init_for(i), self.thread_kwargs) for i in range(count))
            return list(self.handles)
        # Every process first, then the InitWorker messages: a worker reads its message only once
        # it has imported the driver (~0.5 s), and sending a message larger than the socket buffer
        # blocks until then, which would start the workers one after another.
        launched = [start_process(worker_id) for worker_id in range(count)]
        self.handles.extend(launched)
        for handle in launched:
            handle.send(init_for(handle.worker_id))
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
