"""Turn a challenge's schedule into steps of per-worker client allocations (pure).

A *step* is one schedule item (a task or a ``parallel`` block); it ends in a join point where all
its clients have finished. Within a step:

* clients are numbered globally, task after task in schedule order: a block with tasks of 4 and 2
  clients has clients 0-3 for the first task and 4-5 for the second (Rally's ``Allocator``);
* client ``i`` of ``N`` waits ``ramp-up-time-period * i / N`` seconds before its first request
  (Rally's ``ScheduleHandle.ramp_up_wait_time``; ``N`` counts every client of the block);
* the race has ``R`` clients, the most any schedule item asks for (a task's ``clients``, a block's
  ``clients`` if it sets one, else the sum of its tasks' clients; Rally's ``Allocator.clients``).
  Allocation ``g`` of every step runs on client ``g % R`` (Rally's ``physical_client_index``), so
  a block whose ``clients`` is the race's largest runs its tasks on that many clients, one after
  the other where there are more allocations (Rally docs: "Rally will only use as many clients
  as you have defined on the parallel element"); a smaller ``clients`` on a block does not cap it;
* the ``R`` clients are spread over at most ``max_workers`` worker processes once for the whole
  race, contiguously, the first ``R % workers`` workers taking one more (Rally's
  ``calculate_worker_assignments``). Client ``c`` runs in the same worker process in every step,
  so plugin state kept in a module or class (a scheduler's recorded response times) is seen by
  the same clients throughout the race, as in Rally (``esrally/driver/driver.py``, esrally 2.13).

``completed-by`` is reported on the step: the name of the task whose completion ends the block,
``"any"``, or None (the block ends when all its tasks end).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from esbench.driver.plan import ClientAllocation, ClientPlan
from esbench.track.model import Parallel, ScheduleItem, Task

COMPLETED_BY_ANY = "any"


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkerPlan:
    """The clients one worker process runs in a step."""

    worker_id: int
    clients: tuple[ClientPlan, ...]

    def task_names(self) -> tuple[str, ...]:
        """Names of the tasks this worker runs, in schedule order, without duplicates."""
        seen: dict[str, None] = {}
        for client in self.clients:
            for allocation in client.allocations:
                seen.setdefault(allocation.task.name, None)
        return tuple(seen)


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One schedule item with its allocation.

    Attributes:
        index: position in the (filtered) schedule, from 0.
        name: the task name, or ``parallel(a, b)`` for a block.
        tasks: the step's tasks in schedule order.
        clients: number of clients running the step at once.
        workers: per-worker plans; only workers with clients are listed.
        completed_by: task name, ``"any"`` or None (see module doc).
    """

    index: int
    name: str
    tasks: tuple[Task, ...]
    clients: int
    workers: tuple[WorkerPlan, ...]
    completed_by: str | None = None

    def task(self, name: str) -> Task:
        """The step's task called ``name``.

        Raises:
            KeyError: no such task in the step.
        """
        for task in self.tasks:
            if task.name == name:
                return task
        raise KeyError(name)


def _completed_by(tasks: Sequence[Task]) -> str | None:
    if any(t.any_completes_parent for t in tasks):
        return COMPLETED_BY_ANY
    for t in tasks:
        if t.completes_parent:
            return t.name
    return None


def split_clients(clients: int, workers: int) -> tuple[range, ...]:
    """Contiguous client-id ranges for ``min(workers, clients)`` workers, larger ranges first.

    >>> split_clients(5, 2)
    (range(0, 3), range(3, 5))

    Raises:
        ValueError: ``workers`` < 1 or ``clients`` < 0.
    """
    if workers < 1:
        raise ValueError(f"need at least one worker, got {workers}")
    if clients < 0:
        raise ValueError(f"negative number of clients: {clients}")
    used = min(workers, clients)
    if used == 0:
        return ()
    counts = [0] * used
    for c in range(clients):
        counts[c % used] += 1
    ranges = []
    start = 0
    for count in counts:
        ranges.append(range(start, start + count))
        start += count
    return tuple(ranges)


def item_clients(item: ScheduleItem) -> int:
    """The clients a schedule item asks for: a task's ``clients``; a block's ``clients`` if set,
    else the sum of its tasks' clients (Rally's ``Task.clients``/``Parallel.clients``)."""
    if isinstance(item, Parallel):
        declared = getattr(item, "clients", None)
        return declared if declared is not None else sum(t.clients for t in item.tasks)
    return item.clients


def plan_step(item: ScheduleItem, *, index: int, max_workers: int, race_clients: int | None = None) -> Step:
    """Allocate one schedule item (see module doc).

    Args:
        item: a task or a parallel block.
        index: the step's position in the schedule.
        max_workers: the most worker processes the race may use (>= 1).
        race_clients: the race's clients ``R`` (:func:`race_client_count`); default: the item's own
            (a schedule of this one item).

    Raises:
        ValueError: ``max_workers`` < 1, a task with fewer than one client, an empty parallel
            block, a ``clients`` cap below 1, or ``race_clients`` below the item's clients.
    """
    if isinstance(item, Parallel):
        tasks = tuple(item.tasks)
        if not tasks:
            raise ValueError("a parallel block needs at least one task")
        declared = getattr(item, "clients", None)
        name = item.name
    else:
        tasks = (item,)
        declared = None
        name = item.name
    for task in tasks:
        if task.clients < 1:
            raise ValueError(f"task '{task.name}' needs at least one client, has {task.clients}")
    allocations_total = sum(t.clients for t in tasks)
    if declared is not None and declared < 1:
        raise ValueError(f"the parallel block {name} needs at least one client, has {declared}")
    total_clients = declared if declared is not None else allocations_total
    if race_clients is None:
        race_clients = total_clients
    if race_clients < total_clients:
        raise ValueError(
            f"the race has {race_clients} clients, fewer than the step {name} asks for ({total_clients})"
        )
    physical = min(race_clients, allocations_total)

    per_client: list[list[ClientAllocation]] = [[] for _ in range(physical)]
    g = 0
    for task in tasks:
        for i in range(task.clients):
            per_client[g % race_clients].append(
                ClientAllocation(
                    task=task,
                    client_index_in_task=i,
                    global_client_index=g,
                    total_clients=total_clients,
                )
            )
            g += 1

    # The race's clients are split once; a step uses the workers that hold its clients (always
    # a prefix: a step's clients are 0..physical-1).
    workers = tuple(
        WorkerPlan(
            worker_id=w,
            clients=tuple(
                ClientPlan(client_id=c, allocations=tuple(per_client[c])) for c in ids if c < physical
            ),
        )
        for w, ids in enumerate(split_clients(race_clients, max_workers))
        if ids.start < physical
    )
    return Step(
        index=index,
        name=name,
        tasks=tasks,
        clients=physical,
        workers=workers,
        completed_by=_completed_by(tasks),
    )


def race_client_count(schedule: Iterable[ScheduleItem]) -> int:
    """The race's clients: the most any item of ``schedule`` asks for, at least 1 (Rally's
    ``Allocator.clients``)."""
    return max((item_clients(item) for item in schedule), default=1) or 1


def plan_schedule(schedule: Iterable[ScheduleItem], *, max_workers: int) -> tuple[Step, ...]:
    """:func:`plan_step` for every item of a schedule, in order, on the race's clients."""
    items = tuple(schedule)
    clients = race_client_count(items)
    return tuple(
        plan_step(item, index=i, max_workers=max_workers, race_clients=clients)
        for i, item in enumerate(items)
    )
