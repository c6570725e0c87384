"""Entry point of a worker process that the local pool started as a plain child process.

The local pool (:mod:`esbench.driver.coordinator.pools.local`) starts each worker with
``subprocess.Popen`` rather than ``multiprocessing``: a ``multiprocessing`` forkserver or spawn
context also starts a resource tracker, and the forkserver is one more Python process, ~42 MiB of
RSS together for the 2-worker race of issue 25 that hold nothing a worker needs. The child gets two
inherited descriptors, named on its command line:

* ``conn_fd``: its end of a socket pair, wrapped as a :class:`multiprocessing.connection.Connection`
  (the same framing as ``multiprocessing.Pipe()``, so the pipe protocol of :mod:`.process` is
  unchanged);
* ``sentinel_fd``: the write end of a pipe the coordinator reads; it is never written, and closes
  when this process exits however it exits, which tells the coordinator at once (as a
  ``multiprocessing`` process's ``sentinel`` does).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from multiprocessing.connection import Connection

from esbench.driver.worker.process import worker_main


def main(argv: Sequence[str]) -> None:
    """Serve the coordinator over the inherited connection until ``Shutdown`` or its end closes.

    Args:
        argv: ``[name, conn_fd, sentinel_fd]``: the process name (``esbench-worker-N``, which the
            race log shows as ``%(processName)s``) and the two inherited descriptors as decimal
            strings.

    Raises:
        ValueError: ``argv`` is not a name and two descriptor numbers (a launcher bug, not user
            input).
    """
    if len(argv) != 3:
        raise ValueError(f"expected a name, a connection and a sentinel descriptor, got {list(argv)!r}")
    name = argv[0]
    conn_fd, sentinel_fd = (int(arg) for arg in argv[1:])
    multiprocessing.current_process().name = name
    # Keep the sentinel open for this process's lifetime only: a process a track's plugin starts
    # must not hold it, or the coordinator would not see this worker exit.
    os.set_inheritable(sentinel_fd, False)
    os.set_inheritable(conn_fd, False)
    conn = Connection(conn_fd)
    try:
        worker_main(conn)
    finally:
        conn.close()
