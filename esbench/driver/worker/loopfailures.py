"""The rare paths of a client's request loop: a scheduler or runner that raised, and a request
that failed (counted, and maybe ending the race). Called only when they happen, so the loop's
per-request body (:meth:`esbench.driver.worker.executor.ClientExecutor._loop`) stays inline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from esbench.driver.worker.errors import note_failure
from esbench.driver.worker.outcome import RequestFailure, classify
from esbench.driver.worker.pluginerrors import plugin_failure, reraise_for_plugin
from esbench.driver.worker.runners.base import Runner, RunnerResult
from esbench.driver.worker.scheduler import Scheduler
from esbench.exceptions import ConnectionFailed, DriverError, EsbenchError, RaceAborted
from esbench.track.model import Task

if TYPE_CHECKING:
    from esbench.driver.worker.taskrun import TaskRun


def reraise_scheduler_error(exc: Exception, scheduler: Scheduler, task: str) -> None:
    """Re-raise a scheduler's ``next()`` failure naming the plugin's scheduler class, if a plugin's."""
    inner = getattr(scheduler, "scheduler", None) or getattr(scheduler, "_delegate", None)
    where = f"the scheduler {type(inner or scheduler).__name__}.next()"
    reraise_for_plugin(exc, where=where, task=task)


def failed_call(exc: Exception, runner: Runner, task: Task) -> tuple[RunnerResult, RequestFailure | None]:
    """The result of a runner call that raised ``exc``, and the failure if it is fatal (TLS).

    Raises:
        esbench.exceptions.EsbenchError: ``exc`` itself (a plugin's named as such).
        esbench.exceptions.DriverError: ``exc`` is not a request error (a plugin failure for a
            plugin's runner).
    """
    name = task.name
    if isinstance(exc, EsbenchError):
        reraise_for_plugin(exc, where=f"the runner {runner!r}", task=name)
        raise exc
    failure = classify(exc)
    if failure is None:
        if getattr(runner, "delegate", None) is not None:
            raise plugin_failure(exc, where=f"the runner {runner!r}", task=name) from None
        raise DriverError(
            f"Task '{name}' failed: the {task.operation.operation_type} runner {runner!r} raised "
            f"{type(exc).__name__}: {exc}",
            exc,
        ) from exc
    result = RunnerResult(
        weight=0,
        success=False,
        error_type=failure.error_type,
        error_description=failure.description,
        http_status=failure.http_status,
    )
    return result, (failure if failure.fatal else None)


def note_failed_request(
    run: TaskRun, result: RunnerResult, *, warmup: bool, fatal: RequestFailure | None, task: str
) -> None:
    """Count a failed request's errors and stop the race where the failure must.

    Raises:
        esbench.exceptions.ConnectionFailed: ``fatal`` (a TLS failure: no request can succeed).
        esbench.exceptions.RaceAborted: ``--on-error=abort`` applies to the task.
    """
    note_failure(run, result, warmup=warmup)
    if result.error_counts and not warmup:
        item_errors = run.item_errors
        for key, count in result.error_counts.items():
            item_errors[key] = item_errors.get(key, 0) + count
    if fatal is not None:
        raise ConnectionFailed(
            f"Task '{task}' cannot continue: {fatal.description}. Check the client options "
            f"(use_ssl, verify_certs, ca_certs) and the target hosts' TLS setup."
        )
    if run.abort_on_error:
        raise RaceAborted(
            f"Task '{task}' aborted the race (--on-error=abort): a request failed with "
            f"{result.error_type or 'unknown'}"
            + (f": {result.error_description}" if result.error_description else "")
            + ". Use --on-error=continue to record errors and go on."
        )
