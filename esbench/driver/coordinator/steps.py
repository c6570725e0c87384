"""One step of the schedule (a task or a parallel block) as the coordinator follows it: the workers'
messages of the step, its state while it runs, and its task results at the join point."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from esbench import exceptions
from esbench.driver.coordinator.allocator import COMPLETED_BY_ANY, Step
from esbench.driver.coordinator.pools.base import WorkerHandle
from esbench.driver.worker.process import (
    CancelStep,
    ClientEnded,
    CompleteStep,
    ProgressReport,
    StepDone,
    WorkerMessage,
)
from esbench.driver.worker.stepfailure import WorkerError
from esbench.exceptions import DriverError, EsbenchError
from esbench.metrics.recorder import RecorderState
from esbench.metrics.stats import task_result
from esbench.records import TaskResult
from esbench.records.samples import RequestSamples


def worker_exception(error: WorkerError) -> EsbenchError:
    """The esbench error a worker reported (its class by name), else a :class:`DriverError`."""
    cls = getattr(exceptions, error.kind, None)
    if isinstance(cls, type) and issubclass(cls, EsbenchError):
        return cls(error.message)
    return DriverError(error.message)


def step_results(step: Step, done: Sequence[StepDone], *, start_at: float, end: float) -> list[TaskResult]:
    """The results of a step's tasks from the workers' :class:`StepDone` messages.

    Each task is measured over its own span: from the start of its first allocation to the end
    of its last one, over all workers (a task of a ``parallel`` block that ends before its
    siblings, or that starts late under a ``clients`` cap, is not given their time). A task that
    no client started gets the step's span (``start_at`` to ``end``, perf_counter s).
    """
    results = []
    for task in step.tasks:
        states = [d.states[task.name] for d in done if task.name in d.states]
        if not states:
            states = [
                RecorderState(
                    task=task.name,
                    operation=task.operation.name,
                    operation_type=task.operation.operation_type,
                )
            ]
        spans = [d.spans[task.name] for d in done if task.name in d.spans]
        task_start = min((s for s, _ in spans), default=start_at)
        task_end = max((e for _, e in spans), default=end)
        result = task_result(
            RecorderState.merge(states),
            task_start=task_start,
            task_end=task_end,
            include_in_reporting=task.operation.include_in_reporting,
        )
        # Failed documents are kept apart from failed requests: errors_by_type adds up to
        # error_count, item_errors_by_status counts documents.
        items: dict[str, int] = {}
        for d in done:
            for key, count in d.item_errors.get(task.name, {}).items():
                items[key] = items.get(key, 0) + count
        if items:
            result = replace(result, item_errors_by_status=items)
        results.append(result)
    return results


def step_samples(step: Step, done: Sequence[StepDone]) -> list[RequestSamples]:
    """Each task's requests over all workers (tasks without any are left out); the workers send
    them only when ``DriverSettings.sample_sink`` is set."""
    merged = []
    for task in step.tasks:
        parts = [d.samples[task.name] for d in done if task.name in d.samples]
        if parts:
            merged.append(RequestSamples.merge(parts))
    return merged


@dataclass
class StepOutcome:
    results: list[TaskResult]
    end: float
    error: EsbenchError | None = None
    interrupted: bool = False


class StepState:
    """What the coordinator learns about a running step from its workers."""

    def __init__(self, step: Step, handles: Sequence[WorkerHandle]) -> None:
        self.step = step
        self.handles = handles
        self.done: dict[int, StepDone] = {}
        self.reports: dict[int, ProgressReport] = {}
        self.last_weights: dict[str, tuple[float, float]] = {}
        self.ended: dict[str, int] = {}
        self.completion_sent = False
        self.cancelled = False
        self.error: EsbenchError | None = None

    def cancel_all(self) -> None:
        self.cancelled = True
        for h in self.handles:
            if h.worker_id not in self.done:
                h.send(CancelStep(step=self.step.index))

    def fail(self, error: EsbenchError) -> None:
        if self.error is None:
            self.error = error
        if not self.cancelled:
            self.cancel_all()

    def handle(self, handle: WorkerHandle, message: WorkerMessage) -> None:
        step = self.step
        if getattr(message, "step", None) != step.index:
            return
        if isinstance(message, StepDone):
            self.done[handle.worker_id] = message
            if message.error is not None:
                self.fail(worker_exception(message.error))
        elif isinstance(message, ProgressReport):
            self.reports[handle.worker_id] = message
        elif isinstance(message, ClientEnded) and not self.completion_sent:
            self.ended[message.task] = self.ended.get(message.task, 0) + 1
            if (
                step.completed_by == COMPLETED_BY_ANY
                or self.ended[message.task] >= step.task(message.task).clients
            ):
                self.completion_sent = True
                for h in self.handles:
                    h.send(CompleteStep(step=step.index))

    def worker_died(self, handle: WorkerHandle) -> None:
        handle.dead = True
        self.done[handle.worker_id] = StepDone(
            worker_id=handle.worker_id,
            step=self.step.index,
            end=time.perf_counter(),
            states={},
            item_errors={},
            context_changes={},
        )
        self.fail(
            DriverError(
                f"{handle.describe_death()} during task '{self.step.name}'. The race stops; "
                f"results up to this point are kept."
            )
        )
