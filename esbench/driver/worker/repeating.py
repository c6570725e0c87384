"""Whether a client's allocation lets the connection repeat its request
(:mod:`esbench.driver.transport.repeat`), and the :class:`Repeat` it hands over if so."""

from __future__ import annotations

from collections.abc import Callable

from esbench.driver.transport.repeat import Repeat, StopFlags
from esbench.driver.worker.clock import Clock, SystemClock
from esbench.driver.worker.loopsetup import LoopSetup
from esbench.driver.worker.params.base import ParamSource
from esbench.driver.worker.runners.base import Runner

_INF = float("inf")


def repeat_for(
    setup: LoopSetup, runner: Runner, record: Callable[..., None], control: StopFlags, clock: Clock
) -> Repeat | None:
    """The repeat of an allocation, or None if its requests must each go through the executor.

    The connection can only stand in for the executor's loop where that loop would do nothing
    but record the sample and call the runner again with the same params:

    * no schedule (:class:`~esbench.driver.worker.scheduler.Unthrottled`: no due times, nothing
      to tell a scheduler), and no runner that decides when the task ends;
    * the system clock (the connection times with ``perf_counter``, not a test's clock);
    * a param source whose ``params()`` is :class:`ParamSource`'s own: the same dict every call,
      with nothing to count or exhaust (a plugin's or a corpus-driven source changes per call);
    * a runner for which :meth:`Runner.repeatable` holds for those params.

    Args:
        setup: the allocation's loop setup (limits, deadline, warmup).
        runner: the task's runner.
        record: the task's ``TaskRecorder.record``.
        control: the step's stop flags (``cancelled``, ``completed``).
        clock: the executor's clock.
    """
    if setup.scheduled or setup.runner_decides or type(clock) is not SystemClock:
        return None
    source = setup.source
    if getattr(type(source), "params", None) is not ParamSource.params:
        return None
    if not runner.repeatable(source.params()):
        return None
    return Repeat(
        record,
        control,
        total=-1 if setup.total_iterations is None else setup.total_iterations,
        deadline=_INF if setup.deadline is None else setup.deadline,
        time_based=setup.time_based,
        warmup_end=setup.warmup_end,
        warmup_iterations=setup.warmup_iterations,
    )
