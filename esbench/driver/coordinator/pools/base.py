"""The seam between the coordinator and its workers: a handle per worker, a pool of handles."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from esbench.driver.settings import LoadDriver
from esbench.driver.worker.process import InitWorker

__all__ = ["LoadDriver"]  # re-exported: its home is driver/settings.py (light, imported by the CLI)


@dataclass(frozen=True, kw_only=True)
class WorkerPlacement:
    """Where one worker runs, for ``results.json`` (``load_driver.workers``).

    Attributes:
        worker_id: the worker's index (the allocator's ``WorkerPlan.worker_id``).
        host: the IP address (Ray node address) or host name of the machine.
        pid: the worker's process id on that host (None for an in-process thread).
        node_id: the Ray node id, or None for local workers.
        clock_offset_ms: the worker host's ``perf_counter`` minus the coordinator's, in ms (0 for
            local workers, which share the coordinator's clock).
        clock_uncertainty_ms: bound of the error of ``clock_offset_ms`` (half the smallest round
            trip of the clock probes), in ms; 0 for local workers.
    """

    worker_id: int
    host: str
    pid: int | None = None
    node_id: str | None = None
    clock_offset_ms: float = 0.0
    clock_uncertainty_ms: float = 0.0


class WorkerConnection(Protocol):
    """The coordinator's end of a worker's connection: a :class:`multiprocessing.connection.Connection`
    or a :class:`~esbench.driver.coordinator.pools.clock.ClockedConnection`.

    Messages are the pickled dataclasses of :mod:`esbench.driver.worker.process` and of the clock
    probes; a receiver tells them apart with ``isinstance``.
    """

    def send(self, message: object, /) -> None:
        """Send one message (raises OSError/BrokenPipeError when the other end is gone)."""

    def recv(self) -> object:
        """The next message (blocks; raises EOFError when the other end closed)."""

    def poll(self, timeout: float | None = ...) -> bool:
        """True if a message is waiting (within ``timeout`` seconds)."""

    def fileno(self) -> int:
        """The descriptor :func:`multiprocessing.connection.wait` watches."""

    def close(self) -> None:
        """Close this end."""


class WorkerHandle(Protocol):
    """The coordinator's end of one worker.

    ``conn`` has the :class:`multiprocessing.connection.Connection` methods the coordinator uses
    (``send``, ``recv``, ``poll``, ``fileno``, ``close``) and can be given to
    :func:`multiprocessing.connection.wait`. Times in the messages it returns are in the
    coordinator's ``perf_counter`` clock.
    """

    worker_id: int
    dead: bool

    @property
    def conn(self) -> WorkerConnection:
        """The coordinator's end of the worker's connection (read-only: a pool may narrow its type)."""

    def send(self, message: object) -> None:
        """Send a message; marks the handle dead instead of raising when the worker is gone."""

    # Left open: wait() takes anything with fileno() (a ClockedConnection too), typeshed only
    # Connection | socket | int; a pool's handle declares its own precise list.
    def waitables(self) -> list[Any]:
        """What :func:`multiprocessing.connection.wait` should watch for this worker."""

    def exited(self, ready: Sequence[Any]) -> bool:
        """True if ``ready`` (a ``wait`` result) says the worker's process has exited."""

    def alive(self) -> bool:
        """True while the worker runs."""

    def describe_death(self) -> str:
        """One sentence naming the worker that went away, and why if known."""


class ConnectionHandle:
    """The part of a :class:`WorkerHandle` that local and Ray workers share: a connection and the
    dead flag.

    Args:
        worker_id: the worker's id.
        conn: the coordinator's end of the worker's connection (a ``multiprocessing`` pipe end, or a
            :class:`~esbench.driver.coordinator.pools.clock.ClockedConnection` over TCP).
    """

    def __init__(self, worker_id: int, conn: WorkerConnection) -> None:
        self.worker_id = worker_id
        self.conn = conn
        self.dead = False

    def send(self, message: object) -> None:
        """Send ``message``; a worker whose end is gone (broken pipe, reset connection) marks the
        handle dead instead of raising, and a dead handle sends nothing more: the coordinator
        learns of the death from the connection or the process, and names it there."""
        if self.dead:
            return
        try:
            self.conn.send(message)
        except (BrokenPipeError, EOFError, OSError):
            self.dead = True


class WorkerPool(Protocol):
    """A set of workers for one race.

    ``capacity()`` is asked first (the allocator spreads clients over at most that many workers),
    then ``start(count, init_for)`` once, then ``stop()`` once (also after a failed start).
    """

    def capacity(self) -> int:
        """The most workers this pool can run (one per core of its hosts, or the configured count).

        Raises:
            esbench.exceptions.DriverError: the pool's hosts cannot be reached.
        """

    def start(self, count: int, init_for: Callable[[int], InitWorker]) -> list[WorkerHandle]:
        """Start ``count`` workers (ids 0..count-1), send each ``init_for(id)`` and return handles.

        The workers' ``Ready(step=-1)`` answers are left to the caller.

        Raises:
            esbench.exceptions.DriverError: a worker could not be started.
        """

    def stop(self) -> None:
        """Stop every worker this pool started (ask, then force); never raises."""

    def placements(self) -> list[WorkerPlacement]:
        """Where each started worker runs, by worker id."""

    @property
    def kind(self) -> LoadDriver:
        """Which backend this is."""
