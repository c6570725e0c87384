"""What the coordinator hands a worker process: each client's allocations of one step.

The records :mod:`esbench.driver.coordinator.allocator` computes and :mod:`esbench.driver.worker`
runs; they sit at the driver's root, below both, so that the worker side never imports the
coordinator (``.importlinter``, the driver's layers).
"""

from __future__ import annotations

from dataclasses import dataclass

from esbench.track.model import Task


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientAllocation:
    """One client's share of one task.

    Attributes:
        task: the task.
        client_index_in_task: 0-based index among the task's clients (partitions param sources).
        global_client_index: 0-based index among all clients of the step (ramp-up order).
        total_clients: number of clients of the step (ramp-up denominator).
    """

    task: Task
    client_index_in_task: int
    global_client_index: int
    total_clients: int

    @property
    def ramp_up_wait(self) -> float:
        """Seconds this client waits after the step start before its first request."""
        period = self.task.ramp_up_time_period
        if not period:
            return 0.0
        return period * self.global_client_index / self.total_clients


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientPlan:
    """What one client runs in a step: its allocations, one after the other."""

    client_id: int
    allocations: tuple[ClientAllocation, ...]
