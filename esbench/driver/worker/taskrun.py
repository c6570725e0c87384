"""What the clients of one task share in one worker: its runner, param source and recorder.

A :class:`TaskRun` is built per task when a step is prepared
(:func:`esbench.driver.worker.taskruns.build_task_runs`) and read by every
:class:`~esbench.driver.worker.executor.ClientExecutor` of the worker that runs a client of the task;
at the task's join point the worker sends what its recorders kept (:func:`kept_samples`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from esbench.driver.settings import OnError
from esbench.driver.worker.runners.base import Runner
from esbench.metrics.recorder import TaskRecorder
from esbench.metrics.samples import keep_samples, request_samples
from esbench.records.samples import RequestSamples
from esbench.track.model import Task

#: Default throughput unit per operation type until a response reports one.
_UNITS = {
    "bulk": "docs/s",
    "paginated-search": "pages/s",
    "scroll-search": "pages/s",
    "composite-agg": "pages/s",
}


class TaskRun:
    """What the clients of one task share in one worker: runner, param source, recorder.

    Attributes:
        item_errors: failed items by type from runners that report them (bulk), measurement
            samples only; reported as the task result's ``item_errors_by_status``.
        abort_on_error: ``--on-error=abort`` applies (unless the task sets
            ``ignore-response-error-level: non-fatal``).
        seed: the race's seed for random schedules.
        first_start / last_end: ``perf_counter`` seconds when the first of this worker's
            allocations of the task started and the last one ended (None before any); the
            coordinator takes the task's start and end from them.
        keep_samples: the recorder keeps every request for the metrics store
            (:func:`esbench.metrics.samples.keep_samples`).
        operation_bound_s: OSB's bound on one runner call (:mod:`.operationbound`); None: none.
    """

    def __init__(
        self,
        *,
        task: Task,
        runner: Runner,
        source: Any,
        schedulers: Mapping[str, Any],
        on_error: str = OnError.CONTINUE,
        seed: int = 0,
        keep_samples: bool = False,
        operation_bound_s: float | None = None,
    ) -> None:
        self.task = task
        self.operation_bound_s = operation_bound_s
        self.runner = runner
        self.source = source
        self.schedulers = schedulers
        self.seed = seed
        self.keep_samples = keep_samples
        self.recorder = self._new_recorder(None)
        self.item_errors: dict[str, int] = {}
        self.abort_on_error = (
            on_error == OnError.ABORT and task.params.get("ignore-response-error-level") != "non-fatal"
        )
        self.first_start: float | None = None
        self.last_end: float | None = None
        self.unit_pending = True

    def _default_unit(self) -> str:
        return _UNITS.get(self.task.operation.operation_type, "ops/s")

    def _new_recorder(self, origin: float | None) -> TaskRecorder:
        op = self.task.operation
        recorder = TaskRecorder(
            task=self.task.name,
            operation=op.name,
            operation_type=op.operation_type,
            throughput_unit=self._default_unit(),
            origin=origin,
        )
        if self.keep_samples:
            keep_samples(recorder)
        return recorder

    def start(self, origin: float) -> None:
        """Start recording with throughput windows counted from ``origin`` (the step start, the
        same in every worker so that the windows merge exactly)."""
        if self.recorder.count:
            self.recorder = self._new_recorder(origin)
        else:
            # The recorder's histograms are large (~1.4 MB): reuse the unused one.
            self.recorder.set_origin(origin)
            self.recorder.throughput_unit = self._default_unit()
        self.item_errors = {}
        self.first_start = None
        self.last_end = None
        self.unit_pending = True

    def mark_start(self, at: float) -> None:
        """An allocation of this task started at ``at`` (perf_counter s)."""
        if self.first_start is None or at < self.first_start:
            self.first_start = at

    def mark_end(self, at: float) -> None:
        """An allocation of this task ended at ``at`` (perf_counter s)."""
        if self.last_end is None or at > self.last_end:
            self.last_end = at

    def observe_unit(self, unit: str) -> None:
        """Adopt the unit of the first response that has weight (``unit_pending`` is True until then)."""
        if self.unit_pending:
            self.unit_pending = False
            self.recorder.throughput_unit = f"{unit}/s"


def kept_samples(runs: Mapping[str, TaskRun]) -> dict[str, RequestSamples]:
    """Task name -> the requests its recorder kept in this worker (tasks that keep none are left out)."""
    return {
        name: request_samples(run.recorder, run.first_start) for name, run in runs.items() if run.keep_samples
    }
