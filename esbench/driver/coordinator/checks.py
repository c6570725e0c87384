"""Checks of a challenge's tasks before the first request (in the coordinator).

Only built-in param sources and schedulers are instantiated here: a plugin's are made in the
worker when the task starts, as in Rally (``esrally/driver/driver.py`` ``schedule_for``), because
plugins keep state in them and may be costly to build.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from esbench.driver.coordinator.allocator import Step
from esbench.driver.worker.looplimits import loop_limits, unbounded
from esbench.driver.worker.registry import Registry
from esbench.driver.worker.runners.asserting import asserting_runner
from esbench.driver.worker.scheduler import (
    DETERMINISTIC,
    OPS_PER_SECOND,
    UnitAwareScheduler,
    builtin_schedulers,
    effective_target_throughput,
    run_unthrottled,
    scheduler_for,
    unit_mismatch,
)
from esbench.track.model import Task, Track

if TYPE_CHECKING:
    from esbench.corpus.model import CorpusSet

_PAGED = frozenset({"paginated-search", "scroll-search", "composite-agg"})

logger = logging.getLogger(__name__)


def ended_by_block(step: Step, task: Task) -> bool:
    """Whether another task of ``task``'s ``parallel`` block ends it: the block's ``completed-by``
    names another task, or is ``any`` and the block has another task (Rally 2.13 stops every task of
    the block when that one ends, ``esrally/driver/driver.py`` ``JoinPoint``)."""
    if step.completed_by is None or len(step.tasks) < 2:
        return False
    return step.completed_by == "any" or step.completed_by != task.name


def builtin_unit(task: Task, runner: object) -> str | None:
    """The throughput unit (``docs/s``...) a built-in operation reports, or None when a plugin's
    runner or param source decides it."""
    if task.operation.param_source or not type(runner).__module__.startswith("esbench.driver.worker.runners"):
        return None
    op_type = task.operation.operation_type
    params = task.operation.params
    if op_type == "bulk":
        return f"{params.get('unit', 'docs')}/s"
    if op_type in _PAGED or (op_type == "search" and "pages" in params):
        return "pages/s"
    return OPS_PER_SECOND


def check_tasks(
    steps: Sequence[Step],
    registry: Registry,
    track: Track,
    corpora: CorpusSet | None,
    *,
    assertions: bool = False,
) -> None:
    """Fail before the first request for what can be checked up front; warn about a task that runs
    until the race is interrupted (:func:`~esbench.driver.worker.looplimits.unbounded`, not ended by its
    block). With ``assertions`` (``--enable-assertions``) the tasks' assertions are parsed too.

    Raises:
        esbench.exceptions.ConfigError: an unknown schedule, a target-throughput unit the operation
            does not report, or bad loop limits (:func:`~esbench.driver.worker.looplimits.loop_limits`);
            with ``assertions``, a search with assertions but no ``detailed-results``.
        esbench.exceptions.TrackValidationError: with ``assertions``, a malformed assertion.
    """
    for step in steps:
        for task in step.tasks:
            runner = registry.runner(task.operation.operation_type)
            if assertions:
                asserting_runner(runner, task)
            if (task.schedule or DETERMINISTIC) not in builtin_schedulers():
                # A plugin's scheduler is made in the worker when the task starts (Rally's
                # schedule_for); here only its name is checked.
                if not run_unthrottled(task) and task.schedule not in registry.schedulers:
                    scheduler_for(task, registry.schedulers)
                continue
            scheduler = scheduler_for(task, registry.schedulers)
            target = effective_target_throughput(task)
            if isinstance(scheduler, UnitAwareScheduler) and target and target.unit != OPS_PER_SECOND:
                unit = builtin_unit(task, runner)
                if unit is not None and unit != target.unit:
                    raise unit_mismatch(task, target, unit)
            if task.operation.param_source:
                # Plugin sources are built in the workers only (they may be costly to build).
                continue
            source = registry.param_source(task, track, corpora=corpora).partition(0, task.clients)
            loop_limits(task, runner, source)
            if unbounded(task, runner, source) and not ended_by_block(step, task):
                # Rally runs it as it is (until interrupted); esbench does the same, but says so.
                logger.warning(
                    "Task '%s' has a warmup-time-period but no time-period, and its operation '%s' (%s) "
                    "does not end by itself: as in Rally, it runs until the race is interrupted (Ctrl-C). "
                    "Give the task a time-period (or iterations), or put it in a parallel block whose "
                    "completed-by task ends it.",
                    task.name,
                    task.operation.name,
                    task.operation.operation_type,
                )
