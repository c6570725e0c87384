"""The body of a Ray load-driver actor: connect back to the coordinator and run the local worker.

The actor runs :func:`esbench.driver.worker.process.worker_main` unchanged - the same runtime, executors
and recorders as a local worker process - over a TCP :class:`multiprocessing.connection.Connection`
to the coordinator instead of a pipe. Before that it says who it is (:class:`Hello`) and answers
the coordinator's clock probes (:mod:`esbench.driver.coordinator.pools.clock`). The connection is
authenticated with a per-race random key (HMAC challenge of :mod:`multiprocessing.connection`),
which Ray hands to the actor; nothing else on the network can feed the worker pickles.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Client

from esbench.driver.coordinator.pools.clock import answer_probes
from esbench.driver.worker.process import worker_main


@dataclass(frozen=True, slots=True)
class Hello:
    """Actor -> coordinator, first message: which worker this connection belongs to.

    Attributes:
        worker_id: the worker's id.
        host: the Ray node's IP address.
        node_id: the Ray node id.
        pid: the actor's process id.
        hostname: the host's name.
    """

    worker_id: int
    host: str
    node_id: str
    pid: int
    hostname: str


class RayWorker:
    """A Ray actor class (wrapped by ``ray.remote`` in :mod:`esbench.driver.coordinator.pools.ray_pool`)."""

    def serve(self, address: tuple[str, int], authkey: bytes, worker_id: int) -> None:
        """Connect to the coordinator at ``address`` and run the worker until ``Shutdown``.

        Raises:
            OSError / multiprocessing.AuthenticationError: the coordinator cannot be reached.
        """
        import ray

        conn = Client(address, authkey=authkey)
        try:
            context = ray.get_runtime_context()
            # Ray does not annotate it; typed here, so that mypy passes with and without Ray installed.
            node_ip: Callable[[], str] = ray.util.get_node_ip_address
            conn.send(
                Hello(
                    worker_id=worker_id,
                    host=node_ip(),
                    node_id=context.get_node_id(),
                    pid=os.getpid(),
                    hostname=socket.gethostname(),
                )
            )
            answer_probes(conn.send, conn.recv)
            # Ray may run actor methods outside the main thread, where SIGINT cannot be changed;
            # Ray's workers do not get the terminal's Ctrl-C anyway.
            worker_main(conn, in_thread=threading.current_thread() is not threading.main_thread())
        finally:
            conn.close()
