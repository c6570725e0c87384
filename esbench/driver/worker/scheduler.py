"""Schedulers decide *when* a client issues its next request (pure: no I/O, no clock reads).

Rally's scheduler contract (esrally/driver/scheduler.py, track docs "schedule" and "custom
schedulers") is kept so that track plugins work unchanged:

* a **simple** scheduler is a class ``__init__(task, target_throughput)`` with ``next(current)``;
  ``target_throughput`` is the *per-client* rate in requests per second;
* a **regular** scheduler is a class ``__init__(task)`` with ``before_request(now)``,
  ``after_request(now, weight, unit, request_meta_data)`` and ``next(current)``;
* a **legacy** scheduler is a class whose ``__init__`` takes ``params`` (the raw task spec);
* a **function** scheduler is a plain function ``next(current) -> next_due``.

``next(current)`` receives the previous due time (seconds since the client's schedule origin,
starting at 0) and returns the next one. Times are relative; the executor adds the origin.

Throttling rule (Rally's ``UnitAwareScheduler``): a throttled client issues its first request at
once. A target in ops/s (or a ``target-interval``) needs no response to know the request rate
(``target / clients``), so its simple scheduler exists from the start and failed requests are
throttled like any other; a target in the runner's unit (``"500 docs/s"``) needs the weight of a
response: the client runs unthrottled until the first response with a positive weight, then (and
after each response whose weight differs from the previous one) the simple scheduler runs at
``target / clients / weight`` requests per second (bulk responses of 100 docs -> 5 bulk
requests/s over all clients). A target in ops/s throttles requests regardless of the runner's unit.

Whether a request is throttled is Rally's rule (``AsyncExecutor``: ``expected_scheduled_time >
0``): the executor treats a request as throttled when ``next`` returns a time after the origin.
Random schedules draw from a generator seeded per race, task and client (:func:`client_seed`).
"""

from __future__ import annotations

import inspect
import logging
import random
import types
import zlib
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from esbench.exceptions import ConfigError
from esbench.track.model import Task, Throughput

logger = logging.getLogger(__name__)

DETERMINISTIC = "deterministic"
POISSON = "poisson"
BUILTIN_SCHEDULES = (DETERMINISTIC, POISSON)
OPS_PER_SECOND = "ops/s"


class Scheduler(Protocol):
    """The interface the executor drives (Rally's "regular" scheduler)."""

    def before_request(self, now: float) -> None: ...

    def after_request(self, now: float, weight: float, unit: str, request_meta_data: Any) -> None: ...

    def next(self, current: float) -> float: ...


class SimpleScheduler(Protocol):
    """Rally's "simple" scheduler (and the legacy one): only ``next(current) -> next_due``."""

    def next(self, current: float) -> float: ...


#: What ``register_scheduler`` takes: a scheduler class (simple, regular or legacy) or a
#: ``next(current)`` function; which one is decided at run time (:func:`scheduler_for`).
SchedulerFactory = Callable[..., Any]


class Unthrottled:
    """The scheduler of tasks without a target throughput: every request is due immediately."""

    name = "unthrottled"

    def before_request(self, now: float) -> None:
        pass

    def after_request(self, now: float, weight: float, unit: str, request_meta_data: Any) -> None:
        pass

    def next(self, current: float) -> float:
        return 0.0

    def __repr__(self) -> str:
        return "Unthrottled()"


class DeterministicScheduler:
    """Evenly spaced requests: ``next = current + 1 / target_throughput`` (seconds).

    Args:
        task: the task (unused; part of Rally's simple-scheduler contract).
        target_throughput: requests per second of this client (> 0).

    Raises:
        ValueError: ``target_throughput`` is not positive.
    """

    name = DETERMINISTIC

    def __init__(self, task: Task | None, target_throughput: float) -> None:
        if not target_throughput > 0:
            raise ValueError(f"target throughput must be positive, got {target_throughput!r}")
        self.wait_time = 1.0 / target_throughput

    def next(self, current: float) -> float:
        return current + self.wait_time

    def __repr__(self) -> str:
        return f"DeterministicScheduler(wait_time={self.wait_time!r})"


class PoissonScheduler:
    """Poisson arrivals: exponentially distributed gaps with mean ``1 / target_throughput`` s.

    Models independent users of an open system (Rally docs: "Choosing a schedule"). The driver
    seeds the random generator per race, task and client (:func:`client_seed`), so a race run
    again with the same seed (``DriverSettings.seed``) draws the same gaps.

    Args:
        task: the task (unused; part of the contract).
        target_throughput: requests per second of this client (> 0).
        rng: the random generator to draw gaps from (default: an unseeded one).
    """

    name = POISSON
    #: The driver passes a per-client seeded ``rng`` to schedulers that declare this.
    accepts_rng = True

    def __init__(
        self, task: Task | None, target_throughput: float, *, rng: random.Random | None = None
    ) -> None:
        if not target_throughput > 0:
            raise ValueError(f"target throughput must be positive, got {target_throughput!r}")
        self.rate = float(target_throughput)
        self._rng = rng if rng is not None else random.Random()

    def next(self, current: float) -> float:
        return current + self._rng.expovariate(self.rate)

    def __repr__(self) -> str:
        return f"PoissonScheduler(rate={self.rate!r})"


class FunctionScheduler:
    """Adapter for a function-style scheduler ``fn(current) -> next_due`` (deprecated in Rally)."""

    def __init__(self, fn: Callable[[float], float]) -> None:
        self._fn = fn

    def before_request(self, now: float) -> None:
        pass

    def after_request(self, now: float, weight: float, unit: str, request_meta_data: Any) -> None:
        pass

    def next(self, current: float) -> float:
        return self._fn(current)


class LegacyScheduler:
    """Adapter for Rally's oldest scheduler API: a class constructed with the task's params."""

    def __init__(self, task: Task, scheduler_class: SchedulerFactory) -> None:
        self._delegate: SimpleScheduler = scheduler_class(dict(task.params))

    def before_request(self, now: float) -> None:
        pass

    def after_request(self, now: float, weight: float, unit: str, request_meta_data: Any) -> None:
        pass

    def next(self, current: float) -> float:
        return self._delegate.next(current)


class UnitAwareScheduler:
    """Drives a simple scheduler at ``target / clients / weight`` requests per second (see module doc).

    The first call of ``next`` before any response returns ``current`` (the first request goes
    out at the client's origin). With a target in ops/s the simple scheduler is built at once
    (weight 1); with a target in another unit the client is unthrottled (``next`` returns 0)
    until a response reports a positive weight.

    Attributes:
        throttling: True once the simple scheduler runs (always with an ops/s target).

    Raises (from ``after_request``):
        esbench.exceptions.ConfigError: the target is in a unit other than ops/s and the runner
            reports another unit (e.g. ``"100 docs/s"`` on a search).
    """

    def __init__(
        self,
        task: Task,
        target: Throughput,
        scheduler_class: Callable[..., Any],
        *,
        rng: random.Random | None = None,
    ) -> None:
        self.task = task
        self.target = target
        self.scheduler_class = scheduler_class
        self._rng = rng
        self._weight: float | None = None
        self._warned = False
        self._answered = False
        self.scheduler: SimpleScheduler = Unthrottled()
        if target.unit == OPS_PER_SECOND:
            # Every request counts 1 whatever its response: no need to wait for one.
            self._weight = 1.0
            self.scheduler = _construct_simple(scheduler_class, task, target.value / task.clients, rng)

    @property
    def throttling(self) -> bool:
        """True once the simple scheduler runs (from the start with an ops/s target)."""
        return not isinstance(self.scheduler, Unthrottled)

    def before_request(self, now: float) -> None:
        pass

    def after_request(self, now: float, weight: float, unit: str, request_meta_data: Any) -> None:
        self._answered = True
        if weight <= 0:
            return
        actual_unit = f"{unit}/s"
        effective_weight = weight
        if actual_unit != self.target.unit:
            if self.target.unit != OPS_PER_SECOND:
                raise unit_mismatch(self.task, self.target, actual_unit)
            # A target in ops/s throttles requests whatever the runner counts (Rally's rule).
            effective_weight = 1.0
            if not self._warned:
                self._warned = True
                logger.debug(
                    "Task [%s] throttles in ops/s but reports %s; throttling requests.",
                    self.task.name,
                    actual_unit,
                )
        if effective_weight == self._weight:
            return
        self._weight = effective_weight
        rate = self.target.value / self.task.clients / effective_weight
        self.scheduler = _construct_simple(self.scheduler_class, self.task, rate, self._rng)

    def next(self, current: float) -> float:
        if not self._answered:
            return current
        return self.scheduler.next(current)


def unit_mismatch(task: Task, target: Throughput, actual_unit: str) -> ConfigError:
    """The error for a target-throughput whose unit the operation does not measure in."""
    return ConfigError(
        f"Task '{task.name}' has a target-throughput in {target.unit} but its "
        f"operation '{task.operation.name}' measures throughput in {actual_unit}. "
        f"Give the target-throughput in {actual_unit} (or as a plain number of ops/s)."
    )


def _construct_simple(
    cls: Callable[..., Any], task: Task, rate: float, rng: random.Random | None
) -> SimpleScheduler:
    with_rng = rng is not None and getattr(cls, "accepts_rng", False)
    simple: SimpleScheduler = cls(task, rate, rng=rng) if with_rng else cls(task, rate)
    return simple


def effective_target_throughput(task: Task) -> Throughput | None:
    """The task's overall target throughput, or None when unthrottled.

    ``target-interval`` is Rally's ``1 / target-throughput`` (track docs: "This is just
    1 / target-throughput (in seconds)"), i.e. an interval over all clients, in ops/s.
    """
    if task.target_throughput is not None:
        return task.target_throughput
    if task.target_interval:
        return Throughput.every(task.target_interval)
    return None


def run_unthrottled(task: Task) -> bool:
    """True when the task has no target and uses a built-in (or no) schedule (Rally's rule).

    A custom schedule without a target throughput is still a schedule: it may model a daily
    pattern that needs no target.
    """
    return effective_target_throughput(task) is None and task.schedule in (None, *BUILTIN_SCHEDULES)


def client_seed(task_name: str, client_index: int, race_seed: int = 0) -> int:
    """The seed of one client's random schedule: stable for a given race seed, task and client
    (independent of PYTHONHASHSEED), different from client to client and from race to race.

    Args:
        task_name / client_index: the client's task and its index within the task.
        race_seed: the race's seed (:class:`esbench.driver.coordinator.run.DriverSettings` ``seed``; a
            random one, logged, when not given).
    """
    return zlib.crc32(f"{race_seed}\x00{task_name}\x00{client_index}".encode())


def is_legacy_scheduler(cls: Any) -> bool:
    """Rally's test: a class whose constructor takes a parameter named ``params``."""
    try:
        parameters = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return False
    return len(parameters) >= 2 and "params" in parameters


def is_simple_scheduler(cls: Any) -> bool:
    """Rally's test: a class that lacks one of ``before_request``/``after_request``/``next``."""
    names = {name for name, _ in inspect.getmembers(cls, inspect.isfunction)}
    return not {"before_request", "after_request", "next"} <= names


def scheduler_for(
    task: Task,
    schedulers: Mapping[str, SchedulerFactory],
    *,
    client_index: int = 0,
    race_seed: int = 0,
) -> Scheduler:
    """The scheduler instance for one client of ``task``.

    Args:
        task: the task; its ``schedule`` names the scheduler (default ``deterministic``).
        schedulers: registered schedulers by name (classes or functions, see module doc).
        client_index: the client's index within the task (seeds random schedules).
        race_seed: the race's seed (with the task and client, seeds random schedules).

    Raises:
        esbench.exceptions.ConfigError: unknown schedule name.
    """
    if run_unthrottled(task):
        return Unthrottled()
    name = task.schedule or DETERMINISTIC
    try:
        scheduler = schedulers[name]
    except KeyError:
        known = ", ".join(sorted(schedulers))
        raise ConfigError(
            f"Task '{task.name}' uses the schedule '{name}' but no scheduler of that name is registered. "
            f"Known schedules: {known}. Fix the task's 'schedule' or register the scheduler in the "
            f"track's track.py (register_scheduler)."
        ) from None
    rng = random.Random(client_seed(task.name, client_index, race_seed))
    if isinstance(scheduler, types.FunctionType):
        return FunctionScheduler(scheduler)
    if is_legacy_scheduler(scheduler):
        return LegacyScheduler(task, scheduler)
    if is_simple_scheduler(scheduler):
        target = effective_target_throughput(task)
        if target is None:
            raise ConfigError(
                f"Task '{task.name}' uses the schedule '{name}', which needs a target-throughput "
                f"(or target-interval). Add one to the task."
            )
        return UnitAwareScheduler(task, target, scheduler, rng=rng)
    regular: Scheduler = scheduler(task)
    return regular


def builtin_schedulers() -> dict[str, Any]:
    """The schedulers every registry starts with."""
    return {DETERMINISTIC: DeterministicScheduler, POISSON: PoissonScheduler}
