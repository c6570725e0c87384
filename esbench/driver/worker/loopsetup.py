"""What a client's request loop (:meth:`esbench.driver.worker.executor.ClientExecutor._loop`) works
with for one allocation: its param source partition, scheduler, limits and deadlines, made once
when the client starts the task (Rally's ``schedule_for``), so the loop's per-request body only
reads local variables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from esbench.driver.worker.looplimits import loop_limits
from esbench.driver.worker.params.protocol import ClientParamSource
from esbench.driver.worker.pluginerrors import reraise_for_plugin
from esbench.driver.worker.scheduler import Scheduler, UnitAwareScheduler, Unthrottled, scheduler_for

if TYPE_CHECKING:
    from esbench.driver.plan import ClientAllocation
    from esbench.driver.worker.taskrun import TaskRun


@dataclass(frozen=True, slots=True)
class LoopSetup:
    """What :meth:`ClientExecutor._loop` works with for one allocation (see the module doc).

    Attributes:
        source: the client's partition of the task's param source.
        scheduler: the client's scheduler; ``scheduled`` False when it is :class:`Unthrottled`.
        rebase: a unit-aware schedule (continues from the last request once it throttles).
        time_based / total_iterations / warmup_iterations: :func:`loop_limits`.
        runner_decides: the runner has ``completed`` (it ends the task).
        warmup_end / deadline: ``perf_counter`` s; ``deadline`` None without a time period.
    """

    source: ClientParamSource
    scheduler: Scheduler
    scheduled: bool
    rebase: bool
    time_based: bool
    total_iterations: int | None
    warmup_iterations: int
    runner_decides: bool
    warmup_end: float
    deadline: float | None


def loop_setup(allocation: ClientAllocation, run: TaskRun, *, start_at: float) -> LoopSetup:
    """The client's param source partition, scheduler and limits for ``allocation`` of a step
    that starts at ``start_at`` (``perf_counter`` s).

    Raises:
        esbench.exceptions.EsbenchError: the partition or the scheduler failed (a plugin's
            error names the plugin).
    """
    task = allocation.task
    # Rally's schedule_for: the partition and the scheduler are made here, when the client
    # starts the task, in the worker that runs the client.
    try:
        source = run.source.partition(allocation.client_index_in_task, task.clients)
        scheduler = scheduler_for(
            task, run.schedulers, client_index=allocation.client_index_in_task, race_seed=run.seed
        )
    except Exception as exc:
        reraise_for_plugin(exc, where="the partition of its param source or its scheduler", task=task.name)
        raise
    if hasattr(scheduler, "parameter_source"):
        scheduler.parameter_source = source
    if run.runner.takes_body_views:
        use_views = getattr(source, "use_body_views", None)
        if use_views is not None:
            use_views()
    time_based, total_iterations, warmup_iterations = loop_limits(task, run.runner, source)
    return LoopSetup(
        source=source,
        scheduler=scheduler,
        scheduled=not isinstance(scheduler, Unthrottled),
        # A unit-aware schedule that ran unthrottled (no response with a weight yet) continues
        # from the last request once it throttles, instead of from the origin: a client does
        # not burst to catch up with a schedule that did not exist yet.
        rebase=isinstance(scheduler, UnitAwareScheduler),
        time_based=time_based,
        total_iterations=total_iterations,
        warmup_iterations=warmup_iterations,
        runner_decides=getattr(run.runner, "completed", None) is not None,
        warmup_end=start_at + (task.warmup_time_period or 0.0),
        deadline=(
            start_at + (task.warmup_time_period or 0.0) + task.time_period
            if time_based and task.time_period is not None
            else None
        ),
    )
